package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// mockModel is the OpenAI-compatible chat-completions server both sides
// talk to. The product's router (its prompt's header) gets a fixed routing
// decision for a direct answer; any other request gets the same answer of
// Chunks content chunks, Pace apart. Every chunk is encoded once, up front,
// so that the mock costs the harness's core as little as possible.
type mockModel struct {
	chunks  [][]byte // the whole SSE body of an answer, one frame per element
	router  string   // the routing decision (a direct answer)
	text    string   // the answer's text: what each client must receive
	pace    atomic.Int64
	answers atomic.Int64 // answer streams served
	routes  atomic.Int64 // routing requests served
	// issue 29: a model with a first-token delay (ttft) and a router call
	// that costs what a real one does (routerTotal: its first token after
	// ttft, then its JSON a token per pace); zero: no delays.
	ttft, routerTotal atomic.Int64
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
	for i := range chunks {
		tok := answerToken(i)
		text.WriteString(tok)
		d := map[string]any{"content": tok}
		if i == 0 {
			d["role"] = "assistant"
		}
		m.chunks = append(m.chunks, delta(d, nil))
	}
	m.chunks = append(m.chunks, ending("stop", chunks)...)
	m.text = text.String()

	m.router = routeAnswer(workflow.IntentQA, workflow.ExpectAnswer, []string{}, "answer the question directly")
	return m
}

// setPace sets the wait between two content chunks (0: none).
func (m *mockModel) setPace(d time.Duration) { m.pace.Store(int64(d)) }

// setDelays sets the first-token delay of every call and the router call's
// whole duration (0, 0: none).
func (m *mockModel) setDelays(ttft, router time.Duration) {
	m.ttft.Store(int64(ttft))
	m.routerTotal.Store(int64(router))
}

func (m *mockModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req mockRequest
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
	ttft, pace := time.Duration(m.ttft.Load()), time.Duration(m.pace.Load())
	if req.kind() == kindRouter {
		m.routes.Add(1)
		route := m.router
		if req.lastUser() == quizAsk {
			route = quizRoute
		}
		if total := time.Duration(m.routerTotal.Load()); total > 0 {
			// Its first token after ttft, the rest a token per pace.
			m.stream(w, rc, r, textFrames(route, routerTokens), ttft, (total-ttft)/(routerTokens-1))
			return
		}
		m.stream(w, rc, r, textFrames(route, 1), 0, 0)
		return
	}
	m.answers.Add(1)
	switch req.kind() {
	case kindQuizWriter:
		m.stream(w, rc, r, quizQuestions, ttft, pace)
	case kindAgent:
		m.stream(w, rc, r, agentRound(req.afterTool()), ttft, pace)
	default:
		m.stream(w, rc, r, m.chunks, ttft, pace)
	}
}

// stream writes frames, the first after ttft and each content frame (all
// but the last three: finish, usage, [DONE]) pace after the previous one.
func (m *mockModel) stream(w http.ResponseWriter, rc *http.ResponseController, r *http.Request, frames [][]byte, ttft, pace time.Duration) {
	for i, f := range frames {
		wait := time.Duration(0)
		switch {
		case i == 0:
			wait = ttft
		case i < len(frames)-3:
			wait = pace
		}
		if wait > 0 {
			select {
			case <-time.After(wait):
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

// issue 29: the quiz turn of the first-words scenario, and the router's
// answer as a real router streams it.

// routerTokens is how many tokens the router's answer streams as when the
// router costs what a real one does.
const routerTokens = 16

// quizAsk is the teacher's message of the quiz turn: the mock routes it to
// the quiz tool (a harness, not the product, may route by the words).
const quizAsk = "Make 2 multiple-choice questions on photosynthesis"

// quizFinal is the product's answer at the end of the quiz turn.
const quizFinal = "Here are 2 questions on photosynthesis."

// routeAnswer is a router answer as the router's prompt asks for it
// (shared/prompts.Router): the route line, then the rest as JSON.
func routeAnswer(intent workflow.Intent, mode string, tools []string, strategy string) string {
	return workflow.FormatRouterAnswer(workflow.RouterResult{Intent: intent, ModelTier: "standard", SafetyFlags: []string{},
		ExpectedMode: mode, CandidateTools: tools, Confidence: 0.9, Strategy: strategy})
}

var quizRoute = routeAnswer(workflow.IntentQuiz, workflow.ExpectArtifact, []string{"generate_quiz_questions"}, "generate quiz questions with the quiz tool")

// mockRequest is what the mock reads of a chat-completions request.
type mockRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []json.RawMessage `json:"tools"`
}

type requestKind int

const (
	kindAnswer requestKind = iota
	kindRouter
	kindQuizWriter
	kindAgent
)

func (q mockRequest) text(i int) string {
	var s string
	_ = json.Unmarshal(q.Messages[i].Content, &s) // an array of parts reads as ""
	return s
}

// kind tells the product's calls apart by their system prompt; any other
// call (the AI SDK's, the chat path's) is an answer.
func (q mockRequest) kind() requestKind {
	first := ""
	if len(q.Messages) > 0 {
		first = q.text(0)
	}
	switch {
	case strings.HasPrefix(first, prompts.RouterHeader):
		return kindRouter
	case strings.HasPrefix(first, prompts.QuizHeader):
		return kindQuizWriter
	case len(q.Tools) > 0:
		return kindAgent
	}
	return kindAnswer
}

func (q mockRequest) lastUser() string {
	for i := len(q.Messages) - 1; i >= 0; i-- {
		if q.Messages[i].Role == "user" {
			return q.text(i)
		}
	}
	return ""
}

// afterTool reports whether a tool's result is in the history: the agent's
// second round.
func (q mockRequest) afterTool() bool {
	for _, m := range q.Messages {
		if m.Role == "tool" {
			return true
		}
	}
	return false
}

func sseFrame(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // fixed shapes
	}
	return []byte("data: " + string(b) + "\n\n")
}

func delta(d map[string]any, finish any) []byte {
	return sseFrame(map[string]any{"id": "chatcmpl-loadbench", "object": "chat.completion.chunk", "created": 1764115200,
		"model": "mock", "choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}})
}

// ending is the last three frames of a stream: the finish, the usage, [DONE].
func ending(finish string, tokens int) [][]byte {
	usage := sseFrame(map[string]any{"id": "chatcmpl-loadbench", "object": "chat.completion.chunk", "created": 1764115200,
		"model": "mock", "choices": []any{}, "usage": map[string]int{"prompt_tokens": 20, "completion_tokens": tokens, "total_tokens": 20 + tokens}})
	return [][]byte{delta(map[string]any{}, finish), usage, []byte("data: [DONE]\n\n")}
}

// pieces cuts s into n pieces of about the same length, on rune
// boundaries.
func pieces(s string, n int) []string {
	rs := []rune(s)
	n = max(min(n, len(rs)), 1)
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(rs[i*len(rs)/n:(i+1)*len(rs)/n]))
	}
	return out
}

// textFrames streams s as n content tokens.
func textFrames(s string, n int) [][]byte {
	var fs [][]byte
	for i, p := range pieces(s, n) {
		d := map[string]any{"content": p}
		if i == 0 {
			d["role"] = "assistant"
		}
		fs = append(fs, delta(d, nil))
	}
	return append(fs, ending("stop", n)...)
}

// callFrames streams one tool call: its id and name first (as providers
// do), then its arguments as n tokens.
func callFrames(id, name, args string, n int) [][]byte {
	call := func(f map[string]any) map[string]any {
		c := map[string]any{"index": 0, "function": f}
		if f["name"] != nil {
			c["id"], c["type"] = id, "function"
		}
		return map[string]any{"tool_calls": []any{c}}
	}
	first := call(map[string]any{"name": name, "arguments": ""})
	first["role"] = "assistant"
	fs := [][]byte{delta(first, nil)}
	for _, p := range pieces(args, n) {
		fs = append(fs, delta(call(map[string]any{"arguments": p}), nil))
	}
	return append(fs, ending("tool_calls", n+1)...)
}

// agentRound is the agent's answer on the quiz turn: the quiz tool, then,
// with its result, final_result.
func agentRound(afterTool bool) [][]byte {
	if !afterTool {
		return callFrames("call_quiz", "generate_quiz_questions", `{"topic":"photosynthesis","count":2,"questionType":"single_choice","language":"en"}`, 24)
	}
	args, _ := json.Marshal(map[string]any{"status": "artifact_ready", "message": quizFinal, "artifacts": []string{"quiz"}})
	return callFrames("call_final", "final_result", string(args), 24)
}

// quizQuestions is the quiz writer's answer: two questions.
var quizQuestions = func() [][]byte {
	q := func(stem, answer string) map[string]any {
		return map[string]any{"type": "single_choice", "question": stem, "options": []string{"A. Oxygen", "B. Carbon dioxide", "C. Nitrogen", "D. Glucose"},
			"answer": answer, "explanation": "Plants take in carbon dioxide and give out oxygen.", "difficulty": "medium", "knowledgePoint": "photosynthesis"}
	}
	b, _ := json.Marshal(map[string]any{"questions": []any{q("Which gas do plants take in?", "B"), q("Which gas do plants give out?", "A")}})
	return textFrames(string(b), 60)
}()
