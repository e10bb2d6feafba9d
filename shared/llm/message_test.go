package llm

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"
)

// TestStoredHistoryDecodes reads a turn's history exactly as the agent stored
// it while the history was go-openai's []ChatCompletionMessage (captured from a
// quiz turn: tool call, tool result, final_result). It must load into []Message
// with nothing lost, and storing it again must write the same bytes.
func TestStoredHistoryDecodes(t *testing.T) {
	stored, err := os.ReadFile("testdata/history_stored_go-openai-v1.43.0.json")
	if err != nil {
		t.Fatal(err)
	}
	var h []Message
	if err := json.Unmarshal(stored, &h); err != nil {
		t.Fatal(err)
	}
	var roles []Role
	for _, m := range h {
		roles = append(roles, m.Role)
	}
	if want := []Role{RoleSystem, RoleUser, RoleAssistant, RoleTool, RoleAssistant}; !reflect.DeepEqual(roles, want) {
		t.Fatalf("roles = %v, want %v", roles, want)
	}
	if h[1].Content != "帮我出5道分数加法题" {
		t.Errorf("user message = %q", h[1].Content)
	}
	call := ToolCall{ID: "call_q", Type: ToolTypeFunction, Function: FunctionCall{Name: "make_quiz", Arguments: `{"topic":"分数加法"}`}}
	if h[2].Content != "我先出题。" || !reflect.DeepEqual(h[2].ToolCalls, []ToolCall{call}) {
		t.Errorf("assistant message = %+v", h[2])
	}
	if want := (Message{Role: RoleTool, Content: `{"total":5}`, Name: "make_quiz", ToolCallID: "call_q"}); !reflect.DeepEqual(h[3], want) {
		t.Errorf("tool message = %+v, want %+v", h[3], want)
	}
	if c := h[4].ToolCalls; len(c) != 1 || c[0].ID != "call_f" || c[0].Function.Name != "final_result" ||
		c[0].Function.Arguments != `{"status":"artifact_ready","message":"5道分数加法题已生成。","artifacts":["quiz"]}` {
		t.Errorf("final call = %+v", c)
	}
	again, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, stored) {
		t.Errorf("re-encoded history differs from the stored record:\n%s\nwant\n%s", again, stored)
	}
}

// TestMessageEncodesLikeSDK pins the wire compatibility field by field: every
// field a Message has encodes as go-openai encodes it, and converting to the
// SDK and back loses nothing.
func TestMessageEncodesLikeSDK(t *testing.T) {
	sdk := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "be brief"},
		{Role: openai.ChatMessageRoleUser, Content: "2+2?"},
		{Role: openai.ChatMessageRoleAssistant, ReasoningContent: "add them", Content: "4"},
		{Role: openai.ChatMessageRoleAssistant, Refusal: "I cannot help with that."},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{
			{ID: "a", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "f", Arguments: `{"x":1}`}},
			{ID: "b", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "g"}},
		}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "a", Name: "f", Content: "ok"},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "b", Name: "g"}, // empty result
	}
	own := make([]Message, len(sdk))
	for i, m := range sdk {
		own[i] = fromSDKMessage(m)
	}
	want, err := json.Marshal(sdk)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(own)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Message encodes as\n%s\ngo-openai as\n%s", got, want)
	}
	if back := sdkMessages(own); !reflect.DeepEqual(back, sdk) {
		t.Errorf("round trip through the SDK = %+v, want %+v", back, sdk)
	}
}

type schemaProbe struct {
	Topic   string   `json:"topic" description:"the lesson topic"`
	Count   int      `json:"count,omitempty"`
	Level   string   `json:"level" enum:"easy,medium,hard"`
	Tags    []string `json:"tags,omitempty"`
	Ratio   *float64 `json:"ratio,omitempty" nullable:"true"`
	Options []struct {
		Label string `json:"label"`
		OK    bool   `json:"ok"`
	} `json:"options,omitempty"`
	Owner probeOwner `json:"owner"`
}

type probeOwner struct {
	Name string `json:"name"`
}

// TestSchemaForEncodesLikeSDK: the schema sent for a tool is the one the SDK's
// generator made before Schema existed, and Decode validates as it did.
func TestSchemaForEncodesLikeSDK(t *testing.T) {
	s, err := SchemaFor(schemaProbe{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := jsonschema.GenerateSchemaForType(schemaProbe{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct{ own, sdk any }{{s, *d}, {&s, d}} {
		got, _ := json.Marshal(v.own)
		want, _ := json.Marshal(v.sdk)
		if !bytes.Equal(got, want) {
			t.Errorf("Schema encodes as\n%s\ngo-openai as\n%s", got, want)
		}
	}
	if s.Type != TypeObject || s.Properties["level"].Enum[2] != "hard" || s.Properties["owner"].Ref != "#/$defs/probeOwner" ||
		s.Defs["probeOwner"].Properties["name"].Type != TypeString {
		t.Errorf("schema = %+v", s)
	}

	tests := []struct {
		args string
		ok   bool
	}{
		{`{"topic":"分数","level":"easy","owner":{"name":"王老师"},"options":[{"label":"A","ok":true}]}`, true},
		{`{"topic":"分数","level":"easy"}`, false},                                  // owner is required
		{`{"topic":"分数","level":"extreme","owner":{"name":"x"}}`, false},          // not in the enum
		{`{"topic":"分数","level":"easy","owner":{"name":"x"},"count":"5"}`, false}, // wrong type
		{`{"topic":`, false},
	}
	for _, tt := range tests {
		var v schemaProbe
		err := s.Decode([]byte(tt.args), &v)
		if (err == nil) != tt.ok {
			t.Errorf("Decode(%s) = %v, want ok %v", tt.args, err, tt.ok)
		}
		if errSDK := d.Unmarshal(tt.args, &schemaProbe{}); (errSDK == nil) != (err == nil) {
			t.Errorf("Decode(%s) = %v, but the SDK's validator says %v", tt.args, err, errSDK)
		}
	}
}
