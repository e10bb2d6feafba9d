// Command ws is the template report agent's socket in AWS (seed 002): the
// API Gateway WebSocket API's $connect, $disconnect and $default routes,
// and the consumer of the table's DynamoDB stream that posts each new event
// of a template session to the session's connection.
//
// It only wires: configuration, clients and the handler come from
// awswire.FromEnv (awswire.Main); the routes are plain Go in shared/report/transport/apigw.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.Main("ws", (*awswire.App).TemplateWSHandler)
}
