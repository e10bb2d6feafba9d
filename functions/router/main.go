// Command router is the conversation workflow's Route step (${RouterFunctionArn}):
// the router model classifies the message into a RouteOutput.
//
// It only wires: configuration, clients and the step come from
// awswire.FromEnv (awswire.StartTask); the step itself is plain Go in shared/agent.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.StartTask("router", "RouterFunctionArn")
}
