// Command replay is the replay function: the target of the saved apps'
// EventBridge Scheduler schedules. Each invocation, with input
// {"appId": …, "trigger": "schedule"}, builds the app's page again with no
// client attached (the Build workflow, started on Step Functions) and
// stores a snapshot of the run, succeeded or failed
// (awswire.App.ReplayHandler over apps.Replayer).
//
// It only wires: configuration, clients and the replayer come from
// awswire.FromEnv; the replay itself is plain Go in shared/apps.
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
		log.Fatalf("replay: %v", err)
	}
	replay, err := app.ReplayHandler()
	if err != nil {
		log.Fatalf("replay: %v", err)
	}
	lambda.Start(replay)
}
