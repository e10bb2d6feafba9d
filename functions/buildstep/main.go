// Command buildstep is the build-step function (${BuildStepFunctionArn}):
// the conversation workflow's PlanBuild state (phase "plan") and every
// phase of the Build workflow (data, compute, compose, finish); the phase
// in its input picks the step (wire.App.BuildStep).
//
// It only wires: configuration, clients and the steps come from
// awswire.FromEnv; the steps are plain Go in shared/blueprint.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/insightedge/insightedge/shared/wire/awswire"
)

func main() {
	app, err := awswire.FromEnv(context.Background(), os.Getenv, awswire.Options{})
	if err != nil {
		log.Fatalf("buildstep: %v", err)
	}
	// The step through the same adapter as locally: its log lines name the turn.
	task, err := app.Task("BuildStepFunctionArn")
	if err != nil {
		log.Fatalf("buildstep: %v", err)
	}
	lambda.Start(task)
}
