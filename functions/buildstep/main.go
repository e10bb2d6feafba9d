// Command buildstep is the build-step function (${BuildStepFunctionArn}):
// the conversation workflow's PlanBuild state (phase "plan") and every
// phase of the Build workflow (data, compute, compose, finish); the phase
// in its input picks the step (wire.App.BuildStep).
//
// It only wires: configuration, clients and the steps come from
// awswire.FromEnv (awswire.StartTask); the steps are plain Go in shared/blueprint.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.StartTask("buildstep", "BuildStepFunctionArn")
}
