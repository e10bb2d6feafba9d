package offlinemodel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/tools/guide"
)

func TestModeOf(t *testing.T) {
	for _, m := range []string{"natural", "free", "strict"} {
		if got := modeOf(prompts.AgentFor(m)); got != m {
			t.Errorf("modeOf(AgentFor(%s)) = %q", m, got)
		}
	}
	if got := modeOf(prompts.ChatFor("free")); got != "free" {
		t.Errorf("chat prompt: %q", got)
	}
	if got := modeOf(prompts.Agent); got != "" {
		t.Errorf("a prompt without a mode section: %q", got)
	}
}

func TestEmptyResult(t *testing.T) {
	for in, want := range map[string]bool{
		`{"documents":[]}`:               true,
		`{"documents":[],"total":0}`:     true,
		`{"documents":[{"title":"a"}]}`:  false,
		`{"class":{"name":"1A"}}`:        false,
		`{"error":"ENTITY_NOT_FOUND"}`:   false,
		`not json`:                       false,
		`{"submissions":[],"scores":[]}`: true,
	} {
		if got := emptyResult(in); got != want {
			t.Errorf("emptyResult(%s) = %v", in, got)
		}
	}
}

// TestReasoningMarkers: a reasoning model's reasoning_content, streamed and
// not, as go-openai reads it.
func TestReasoningMarkers(t *testing.T) {
	_, c := start(t, Options{})
	for _, stream := range []bool{true, false} {
		req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{
			{Role: "system", Content: prompts.ChatFor("natural")}, user("What is photosynthesis? [[offline:reasoning-only]]")}}
		r := complete(t, c, req, stream)
		if r.content != "" || !strings.Contains(r.reasoning, "Photosynthesis") {
			t.Errorf("reasoning-only (stream %v): content %q, reasoning %q", stream, r.content, r.reasoning)
		}
		req.Messages[1] = user("What is photosynthesis? [[offline:reasoning]]")
		r = complete(t, c, req, stream)
		if !strings.Contains(r.content, "Photosynthesis") || r.reasoning == "" || strings.Contains(r.reasoning, "Photosynthesis is") {
			t.Errorf("reasoning (stream %v): content %q, reasoning %q", stream, r.content, r.reasoning)
		}
	}
}

// TestStrictGuides: in strict mode a greeting is guided with guide_user
// (arguments the real tool accepts), then answered in a line.
func TestStrictGuides(t *testing.T) {
	_, c := start(t, Options{})
	schema, err := json.Marshal(guide.Tool().Schema)
	if err != nil {
		t.Fatal(err)
	}
	tools := []openai.Tool{
		{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "guide_user", Parameters: json.RawMessage(schema)}},
		fn(finalResultTool, "end", nil),
	}
	msgs := []openai.ChatCompletionMessage{{Role: "system", Content: prompts.AgentFor("strict")}, user("你好")}
	r := complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: tools}, true)
	call := r.call(t)
	if call.Function.Name != "guide_user" {
		t.Fatalf("strict greeting called %s", call.Function.Name)
	}
	var args guide.Args
	if err := guide.Tool().Schema.Decode(json.RawMessage(call.Function.Arguments), &args); err != nil ||
		len(args.Suggestions) < 2 || len(args.Suggestions) > 4 || args.Message == "" {
		t.Fatalf("guide_user arguments %s: %v", call.Function.Arguments, err)
	}
	msgs = append(msgs, openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{call}},
		openai.ChatCompletionMessage{Role: "tool", ToolCallID: call.ID, Content: `{"shown":true}`})
	r = complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: tools}, true)
	var fr finalResult
	if final := r.call(t); final.Function.Name != finalResultTool || json.Unmarshal([]byte(final.Function.Arguments), &fr) != nil || fr.Message == "" {
		t.Fatalf("after the guidance: %+v", r.calls)
	}
	// Natural mode answers the same greeting without guidance.
	msgs = []openai.ChatCompletionMessage{{Role: "system", Content: prompts.AgentFor("natural")}, user("你好")}
	r = complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: tools}, true)
	if call := r.call(t); call.Function.Name != finalResultTool {
		t.Errorf("natural greeting called %s", call.Function.Name)
	}
}
