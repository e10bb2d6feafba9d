// Command validate is the conversation workflow's Validate step
// (${ValidateFunctionArn}): validate_terminal_state and the retry verdict.
//
// It only wires: configuration, clients and the step come from
// awswire.FromEnv (awswire.StartTask); the step itself is plain Go in shared/agent.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.StartTask("validate", "ValidateFunctionArn")
}
