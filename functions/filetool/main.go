// Command filetool is the conversation workflow's Tools map iteration for a
// tool that delivers a file (${FileToolFunctionArn}; issue 25): the same
// step as the tool function, on a function sized for rendering office files
// (their PDF font is in its image), while every other tool call runs on the
// small tool function.
//
// It only wires: configuration, clients and the step come from
// awswire.FromEnv (awswire.StartTask); the step itself is plain Go in shared/agent.
package main

import "github.com/insightedge/insightedge/shared/wire/awswire"

func main() {
	awswire.StartTask("filetool", "FileToolFunctionArn")
}
