package offlinemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The OpenAI chat-completions wire format, as much of it as the stand-in
// reads and writes. The structs are our own rather than go-openai's so that
// any OpenAI-compatible client is accepted (content as a string, an array of
// parts or null) and the bytes written are under our control (field order,
// null content next to tool calls); the tests check that go-openai parses them.

// chatRequest is the body of POST /v1/chat/completions.
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []wireMessage   `json:"messages"`
	Tools          []wireTool      `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    messageContent `json:"content"`
	Name       string         `json:"name,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	// ReasoningContent is read so that tests can check a client never sends
	// reasoning back (seed 003 §1.2).
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// messageContent is a message's text: the API accepts a string, an array of
// content parts, or null.
type messageContent string

func (c *messageContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*c = ""
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = messageContent(s)
		return nil
	case b[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var sb strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "" {
				sb.WriteString(p.Text)
			}
		}
		*c = messageContent(sb.String())
		return nil
	}
	return fmt.Errorf("content must be a string, an array of parts or null, got %.20s", b)
}

type wireToolCall struct {
	Index *int   `json:"index,omitempty"`
	ID    string `json:"id,omitempty"`
	// Type is omitted from the argument fragments of a stream, as the API does.
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

// toolChoice is the request's tool_choice: "auto" (or unset), "required",
// "none", or one named function.
type toolChoice struct {
	Mode string // "auto", "required", "none" or "function"
	Name string // the forced function when Mode is "function"
}

func (tc toolChoice) String() string {
	if tc.Mode == "function" {
		return "function:" + tc.Name
	}
	return tc.Mode
}

// forces reports whether the choice forces a call of the named tool.
func (tc toolChoice) forces(name string) bool { return tc.Mode == "function" && tc.Name == name }

var errBadToolChoice = errors.New("invalid tool_choice")

func parseToolChoice(raw json.RawMessage, tools []wireTool) (toolChoice, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return toolChoice{Mode: "auto"}, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		switch s {
		case "auto", "none":
			return toolChoice{Mode: s}, nil
		case "required":
			if len(tools) == 0 {
				return toolChoice{}, fmt.Errorf("%w: \"required\" needs tools", errBadToolChoice)
			}
			return toolChoice{Mode: s}, nil
		}
		return toolChoice{}, fmt.Errorf("%w: %q", errBadToolChoice, s)
	}
	var obj struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Type != "function" || obj.Function.Name == "" {
		return toolChoice{}, fmt.Errorf("%w: %.60s", errBadToolChoice, raw)
	}
	for _, t := range tools {
		if t.Function.Name == obj.Function.Name {
			return toolChoice{Mode: "function", Name: obj.Function.Name}, nil
		}
	}
	return toolChoice{}, fmt.Errorf("%w: function %q is not among the tools", errBadToolChoice, obj.Function.Name)
}

// Responses.

type completion struct {
	ID                string             `json:"id"`
	Object            string             `json:"object"`
	Created           int64              `json:"created"`
	Model             string             `json:"model"`
	Choices           []completionChoice `json:"choices"`
	Usage             usage              `json:"usage"`
	SystemFingerprint string             `json:"system_fingerprint"`
}

type completionChoice struct {
	Index        int             `json:"index"`
	Message      responseMessage `json:"message"`
	Logprobs     *struct{}       `json:"logprobs"`
	FinishReason string          `json:"finish_reason"`
}

type responseMessage struct {
	Role string `json:"role"`
	// Content is null when the model calls tools, as the API does.
	Content *string `json:"content"`
	// ReasoningContent is a reasoning model's reasoning (deepseek-reasoner's field).
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type chunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Choices           []chunkChoice `json:"choices"`
	Usage             *usage        `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
}

type apiError struct {
	Error apiErrorBody `json:"error"`
}

type apiErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

type modelList struct {
	Object string      `json:"object"`
	Data   []modelInfo `json:"data"`
}

type modelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}
