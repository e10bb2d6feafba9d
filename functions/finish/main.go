// Command finish is the conversation workflow's Finish step and every Catch's
// target (${FinishFunctionArn}): it ends the turn and closes its stream.
//
// It only wires: configuration, clients and the step come from
// awswire.FromEnv (awswire.StartTask); the step itself is plain Go in shared/agent.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.StartTask("finish", "FinishFunctionArn")
}
