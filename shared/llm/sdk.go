package llm

import "github.com/sashabaranov/go-openai"

// The SDK boundary: conversions between the package's own types and
// go-openai's. Nothing outside this package sees an SDK type.

func sdkMessages(ms []Message) []openai.ChatCompletionMessage {
	if ms == nil {
		return nil
	}
	out := make([]openai.ChatCompletionMessage, len(ms))
	for i, m := range ms {
		out[i] = openai.ChatCompletionMessage{
			Role:             string(m.Role),
			Content:          m.Content,
			Refusal:          m.Refusal,
			Name:             m.Name,
			ReasoningContent: m.ReasoningContent,
			ToolCalls:        sdkToolCalls(m.ToolCalls),
			ToolCallID:       m.ToolCallID,
		}
	}
	return out
}

func sdkToolCalls(cs []ToolCall) []openai.ToolCall {
	if cs == nil {
		return nil
	}
	out := make([]openai.ToolCall, len(cs))
	for i, c := range cs {
		out[i] = openai.ToolCall{ID: c.ID, Type: openai.ToolType(c.Type),
			Function: openai.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}}
	}
	return out
}

func sdkTools(ts []Tool) []openai.Tool {
	if ts == nil {
		return nil
	}
	out := make([]openai.Tool, len(ts))
	for i, t := range ts {
		out[i] = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters}}
	}
	return out
}

// sdkToolChoice returns the tool_choice value: nil (not sent), a mode, or the
// tool to call.
func sdkToolChoice(c ToolChoice) any {
	switch {
	case c.Tool != "":
		return openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: c.Tool}}
	case c.Mode != "":
		return c.Mode
	}
	return nil
}

func fromSDKMessage(m openai.ChatCompletionMessage) Message {
	out := Message{
		Role:             Role(m.Role),
		Content:          m.Content,
		Refusal:          m.Refusal,
		Name:             m.Name,
		ReasoningContent: m.ReasoningContent,
		ToolCallID:       m.ToolCallID,
	}
	for _, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.ID, Type: string(c.Type),
			Function: FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
	}
	return out
}

func fromSDKUsage(u openai.Usage) Usage {
	return Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}
