package llm

// The product's own model-facing types. They are what the rest of the code
// (and the stored history of a turn) sees; the SDK's types appear only in
// sdk.go, which converts at the edge of this package. The JSON field names and
// their order are those of the chat-completions API (and of go-openai's
// ChatCompletionMessage), so a history stored before these types existed
// decodes unchanged and a new one is byte-identical to what was stored before.

// Role is who speaks in a message.
type Role string

// The roles of the chat-completions API.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of a conversation with the model.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// Refusal is the model's refusal text, when it refused.
	Refusal string `json:"refusal,omitempty"`
	// Name is the tool's name on a tool message.
	Name string `json:"name,omitempty"`
	// ReasoningContent is the visible reasoning of models that stream it
	// (e.g. deepseek-reasoner).
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// ToolCalls are the calls an assistant message makes, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is, on a tool message, the id of the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolTypeFunction is the only type of tool call the API has.
const ToolTypeFunction = "function"

// ToolCall is one call the model makes.
type ToolCall struct {
	ID string `json:"id,omitempty"`
	// Type is ToolTypeFunction.
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the tool called and its arguments.
type FunctionCall struct {
	Name string `json:"name,omitempty"`
	// Arguments is JSON text as the model wrote it; it may be invalid.
	Arguments string `json:"arguments,omitempty"`
}

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments: a Schema, or anything
	// that encoding/json encodes to one (json.RawMessage for a fixed text).
	Parameters any
}

// The modes of ToolChoice.
const (
	ToolChoiceAuto     = "auto"
	ToolChoiceNone     = "none"
	ToolChoiceRequired = "required"
)

// ToolChoice tells the model whether to call tools. The zero value sends
// nothing: the API's default.
type ToolChoice struct {
	// Mode is "", ToolChoiceAuto, ToolChoiceNone or ToolChoiceRequired.
	Mode string
	// Tool, when set, names the one tool the model must call; Mode is then ignored.
	Tool string
}

// Usage is the token count of one call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}
