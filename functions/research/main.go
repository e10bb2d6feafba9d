// Command research is the research function (${ResearchFunctionArn}): both
// states of the Research workflow (seed 001), Milestones (the milestone
// agent run with the web_search tool) and Finish (the skeleton and complete
// events, or an error event); the step in its input picks which
// (wire.App.ResearchStep).
//
// It only wires: configuration, clients and the steps come from
// awswire.FromEnv; the steps are plain Go in shared/research.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.Main("research", func(app *awswire.App) (any, error) { return app.ResearchStep(), nil })
}
