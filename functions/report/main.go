// Command report is every step of the template report workflow
// (infra/statemachines/template.asl.json, ${ReportFunctionArn}): plan,
// confirm, next_round, solve, aggregate and finish, named by the input's
// "step".
//
// It only wires: configuration, clients and the steps come from
// awswire.FromEnv (awswire.Main); the steps are plain Go in shared/report/pipeline.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.Main("report", (*awswire.App).ReportStep)
}
