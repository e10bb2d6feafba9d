// Command tool is one iteration of the conversation workflow's Tools map
// (${ToolFunctionArn}): it runs one tool call and stores its result.
//
// It only wires: configuration, clients and the step come from
// awswire.FromEnv (awswire.StartTask); the step itself is plain Go in shared/agent.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.StartTask("tool", "ToolFunctionArn")
}
