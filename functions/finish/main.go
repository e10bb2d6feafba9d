// Command finish is the conversation workflow's Finish step and every Catch's
// target (${FinishFunctionArn}): it ends the turn and closes its stream.
//
// It only wires: configuration, clients and the step come from
// awswire.FromEnv; the step itself is plain Go in shared/agent.
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
		log.Fatalf("finish: %v", err)
	}
	// The step through the same adapter as locally: its log lines name the turn.
	task, err := app.Task("FinishFunctionArn")
	if err != nil {
		log.Fatalf("finish: %v", err)
	}
	lambda.Start(task)
}
