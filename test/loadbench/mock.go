package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/insightedge/insightedge/shared/workflow"
)

// mockModel is the OpenAI-compatible chat-completions server both sides
// talk to. A JSON-mode request (the product's router) gets a fixed routing
// decision for a direct answer; any other request gets the same answer of
// Chunks content chunks, Pace apart. Every chunk is encoded once, up front,
// so that the mock costs the harness's core as little as possible.
type mockModel struct {
	chunks  [][]byte // the whole SSE body of an answer, one frame per element
	router  [][]byte // the SSE body of the routing decision
	text    string   // the answer's text: what each client must receive
	pace    atomic.Int64
	answers atomic.Int64 // answer streams served
	routes  atomic.Int64 // routing requests served
}

// answerToken is the i-th content chunk of the answer: words, Chinese and
// punctuation, so that both sides carry multi-byte UTF-8.
func answerToken(i int) string {
	words := []string{"Photosynthesis ", "turns ", "light ", "into ", "化学能", "，", "stored ", "as ", "葡萄糖", "。 "}
	return words[i%len(words)]
}

func newMockModel(chunks int) *mockModel {
	m := &mockModel{}
	var text strings.Builder
	frame := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err) // fixed shapes
		}
		return []byte("data: " + string(b) + "\n\n")
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-loadbench", "object": "chat.completion.chunk", "created": 1764115200,
			"model": "mock", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	usage := map[string]any{"id": "chatcmpl-loadbench", "object": "chat.completion.chunk", "created": 1764115200,
		"model": "mock", "choices": []any{}, "usage": map[string]int{"prompt_tokens": 20, "completion_tokens": chunks, "total_tokens": 20 + chunks}}
	for i := range chunks {
		tok := answerToken(i)
		text.WriteString(tok)
		delta := map[string]any{"content": tok}
		if i == 0 {
			delta["role"] = "assistant"
		}
		m.chunks = append(m.chunks, frame(chunk(delta, nil)))
	}
	m.chunks = append(m.chunks, frame(chunk(map[string]any{}, "stop")), frame(usage), []byte("data: [DONE]\n\n"))
	m.text = text.String()

	route, err := json.Marshal(workflow.RouterResult{Intent: workflow.IntentQA, Confidence: 0.9, CandidateTools: []string{},
		ModelTier: "standard", ExpectedMode: workflow.ExpectAnswer, Strategy: "answer the question directly", SafetyFlags: []string{}})
	if err != nil {
		panic(err)
	}
	m.router = [][]byte{
		frame(chunk(map[string]any{"role": "assistant", "content": string(route)}, nil)),
		frame(chunk(map[string]any{}, "stop")), frame(usage), []byte("data: [DONE]\n\n"),
	}
	return m
}

// setPace sets the wait between two content chunks (0: none).
func (m *mockModel) setPace(d time.Duration) { m.pace.Store(int64(d)) }

func (m *mockModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Stream         bool `json:"stream"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	if !req.Stream {
		http.Error(w, `{"error":{"message":"the load-benchmark mock only streams"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	if req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object" {
		m.routes.Add(1)
		for _, f := range m.router {
			_, _ = w.Write(f)
		}
		_ = rc.Flush()
		return
	}
	m.answers.Add(1)
	pace := time.Duration(m.pace.Load())
	for i, f := range m.chunks {
		if pace > 0 && i > 0 && i < len(m.chunks)-3 { // between content chunks
			select {
			case <-time.After(pace):
			case <-r.Context().Done():
				return
			}
		}
		if _, err := w.Write(f); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// String names the mock's answer for the report.
func (m *mockModel) String() string {
	return fmt.Sprintf("%d content chunks, %d bytes of text", len(m.chunks)-3, len(m.text))
}
