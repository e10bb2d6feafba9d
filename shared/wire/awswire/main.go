package awswire

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
)

// Main is the whole main of a Lambda function: the App from the Lambda
// environment (FromEnv, once, at cold start), the handler that handler
// builds from it, then lambda.Start. A wiring error ends the process with a
// log line prefixed by name, the function's directory under functions/.
func Main[H any](name string, handler func(*App) (H, error)) {
	app, err := FromEnv(context.Background(), os.Getenv, Options{})
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	h, err := handler(app)
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	lambda.Start(h)
}

// StartTask is the main of a workflow step's function: Main with the task
// named sub (its DefinitionSubstitutions name), through the same adapter as
// locally, so that its log lines name the turn.
func StartTask(name, sub string) {
	Main(name, func(app *App) (any, error) { return app.Task(sub) })
}
