// Command tool is one iteration of the conversation workflow's Tools map
// (${ToolFunctionArn}): it runs one tool call and stores its result.
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
		log.Fatalf("tool: %v", err)
	}
	// The step through the same adapter as locally: its log lines name the turn.
	task, err := app.Task("ToolFunctionArn")
	if err != nil {
		log.Fatalf("tool: %v", err)
	}
	lambda.Start(task)
}
