// Command replay is the replay function: the target of the saved apps'
// EventBridge Scheduler schedules. Each invocation, with input
// {"appId": …, "trigger": "schedule"}, builds the app's page again with no
// client attached (the Build workflow, started on Step Functions) and
// stores a snapshot of the run, succeeded or failed
// (awswire.App.ReplayHandler over apps.Replayer).
//
// It only wires: configuration, clients and the replayer come from
// awswire.FromEnv (awswire.Main); the replay itself is plain Go in shared/apps.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.Main("replay", (*awswire.App).ReplayHandler)
}
