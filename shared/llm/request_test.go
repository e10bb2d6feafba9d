package llm_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/shared/golden"
	"github.com/insightedge/insightedge/shared/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func ptr[T any](v T) *T { return &v }

// TestRequestGolden pins the exact request bodies sent to the API.
func TestRequestGolden(t *testing.T) {
	history := []llm.Message{
		{Role: llm.RoleSystem, Content: "# Insight Edge · teaching agent"},
		{Role: llm.RoleUser, Content: "给三年级二班出5道分数题"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Type: llm.ToolTypeFunction,
			Function: llm.FunctionCall{Name: "get_class", Arguments: `{"name":"三年级二班"}`}}}},
		{Role: llm.RoleTool, ToolCallID: "call_1", Content: `{"class_id":"c-32"}`},
	}
	tools := []llm.Tool{{
		Name:        "final_result",
		Description: "End the turn.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"status":{"type":"string"},"message":{"type":"string"}},"required":["status","message"]}`),
	}}
	tests := []struct {
		name   string
		model  string
		stream bool
		req    llm.Request
	}{
		{"stream_tools", "gpt-4o", true, llm.Request{
			Messages:    history,
			Tools:       tools,
			ToolChoice:  llm.ToolChoice{Tool: "final_result"},
			Temperature: ptr(float32(0)), // must still be sent
			MaxTokens:   500,
		}},
		{"complete_json", "gpt-4o-mini", false, llm.Request{
			Messages:    history[:2],
			JSON:        true,
			Temperature: ptr(float32(0.2)),
		}},
		{"reasoning_model", "gpt-5-mini", true, llm.Request{
			Messages:    history[:2],
			ToolChoice:  llm.ToolChoice{Mode: llm.ToolChoiceAuto},
			Tools:       tools,
			Temperature: ptr(float32(0)), // dropped: reasoning models take no temperature
			MaxTokens:   800,             // sent as max_completion_tokens
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer := mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "ok"}}}})
			f := newFakeAPI(t, textStream("ok"))
			if !tt.stream {
				f = newFakeAPI(t, jsonReply(answer))
			}
			c, err := llm.New(llm.Config{BaseURL: f.URL(), Models: map[llm.Tier][]string{
				llm.TierFast: {tt.model}, llm.TierStandard: {tt.model}, llm.TierStrong: {tt.model}}})
			if err != nil {
				t.Fatal(err)
			}
			if tt.stream {
				_, err = c.Stream(t.Context(), tt.req, llm.Handler{})
			} else {
				_, err = c.Complete(t.Context(), tt.req)
			}
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Indent(&got, f.requests()[0].Body, "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteByte('\n')
			golden.Check(t, filepath.Join("testdata", tt.name+".golden.json"), got.Bytes(), *update)
		})
	}
}
