// Package prompts holds the product's instructions to the model. Each prompt
// starts with a stable header line naming its role; the offline stand-in model
// (local/offlinemodel) recognises the kind of call by that line, the way a
// real model recognises it by the instructions that follow.
package prompts

// Header lines: the first line of each system prompt.
const (
	RouterHeader = "# Insight Edge · router"
	AgentHeader  = "# Insight Edge · teaching agent"
	ChatHeader   = "# Insight Edge · chat"
	QuizHeader   = "# Insight Edge · quiz writer"
	// HistoryHeader starts the system message that summarises earlier turns
	// (seed 000 §7.3.2.1: text summary, never raw tool calls).
	HistoryHeader = "## Earlier in this conversation"
	// RefusedPrefix starts the tool message that answers a refused
	// final_result call on the retried attempt (seed 000 §7.3.2).
	RefusedPrefix = "final_result refused:"
	// FinalResultTool is the name of the agent's exit tool.
	FinalResultTool = "final_result"
)
