// Command agentturn is the conversation workflow's AgentTurn step
// (${AgentTurnFunctionArn}): one streamed model round of the agent loop.
//
// It only wires: configuration, clients and the step come from
// awswire.FromEnv (awswire.StartTask); the step itself is plain Go in shared/agent.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.StartTask("agentturn", "AgentTurnFunctionArn")
}
