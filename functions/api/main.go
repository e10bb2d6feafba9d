// Command api serves the JSON routes behind the HTTP API (payload format
// 2.0) with the same edge handler as the stream function, through
// aws-lambda-go-api-proxy: the conversation's JSON routes. It has no
// streaming: SSE clients, and the Build runtime's routes, use the stream
// function's URL (docs/deploy.md).
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/insightedge/insightedge/shared/wire/awswire"
)

func main() {
	app, err := awswire.FromEnv(context.Background(), os.Getenv, awswire.Options{})
	if err != nil {
		log.Fatalf("api: %v", err)
	}
	h, err := app.EdgeHandler()
	if err != nil {
		log.Fatalf("api: %v", err)
	}
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
