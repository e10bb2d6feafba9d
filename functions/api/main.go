// Command api serves the JSON routes behind the HTTP API (payload format
// 2.0) with the same edge handler as the stream function, through
// aws-lambda-go-api-proxy: the conversation's JSON routes. It has no
// streaming: SSE clients, and the Build runtime's routes, use the stream
// function's URL (docs/deploy.md).
package main

import (
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/insightedge/insightedge/shared/wire/awswire"
)

func main() {
	awswire.Main("api", func(app *awswire.App) (any, error) {
		h, err := app.EdgeHandler()
		if err != nil {
			return nil, err
		}
		return httpadapter.NewV2(h).ProxyWithContext, nil
	})
}
