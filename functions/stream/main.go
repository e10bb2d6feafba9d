// Command stream is the streaming edge: the Function URL (InvokeMode
// RESPONSE_STREAM) that begins a turn, starts its workflow with Step
// Functions and relays the turn's event log from DynamoDB as Server-Sent
// Events. With BUILD_STATE_MACHINE_ARN it serves the Build runtime too:
// the page streams (the Build workflow's event log, relayed the same way),
// /api/workflow/generate, and the saved apps with their EventBridge
// Scheduler schedules (awswire.App.EdgeHandler); with
// TEMPLATE_STATE_MACHINE_ARN the template report agent's SSE + POST routes. lambdaurl writes each
// Write as its own chunk, so SSE streams without an http.Flusher; build
// with -tags lambda.norpc for provided.al2023.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambdaurl"

	"github.com/insightedge/insightedge/shared/wire/awswire"
)

func main() {
	app, err := awswire.FromEnv(context.Background(), os.Getenv, awswire.Options{})
	if err != nil {
		log.Fatalf("stream: %v", err)
	}
	h, err := app.EdgeHandler() // panics recovered: lambdaurl does not
	if err != nil {
		log.Fatalf("stream: %v", err)
	}
	// With TEMPLATE_STATE_MACHINE_ARN: the template agent's SSE + POST variant.
	if h, err = app.WithTemplateRoutes(h); err != nil {
		log.Fatalf("stream: %v", err)
	}
	lambdaurl.Start(h)
}
