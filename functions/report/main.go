// Command report is every step of the template report workflow
// (infra/statemachines/template.asl.json, ${ReportFunctionArn}): plan,
// confirm, next_round, solve, aggregate and finish, named by the input's
// "step".
//
// It only wires: configuration, clients and the steps come from
// awswire.FromEnv; the steps are plain Go in shared/report/pipeline.
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
		log.Fatalf("report: %v", err)
	}
	step, err := app.ReportStep()
	if err != nil {
		log.Fatalf("report: %v", err)
	}
	lambda.Start(step)
}
