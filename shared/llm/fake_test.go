package llm_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// fakeAPI is the outside world: an HTTP server speaking the OpenAI
// chat-completions wire format, answering each request with the next scripted
// reply and recording what it received.
type fakeAPI struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []reply
	got     []recorded
}

type reply func(w http.ResponseWriter, r *http.Request)

type recorded struct {
	Path   string
	Header http.Header
	Body   []byte
	Model  string
}

func newFakeAPI(t *testing.T, replies ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the base URL to configure the client with.
func (f *fakeAPI) URL() string { return f.srv.URL + "/v1" }

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("fake: reading body: %v", err)
	}
	var head struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &head)
	f.mu.Lock()
	n := len(f.got)
	f.got = append(f.got, recorded{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Model: head.Model})
	var rep reply
	if n < len(f.replies) {
		rep = f.replies[n]
	}
	f.mu.Unlock()
	if rep == nil {
		f.t.Errorf("fake: unexpected request %d (only %d scripted)", n+1, len(f.replies))
		http.Error(w, "unexpected", http.StatusTeapot)
		return
	}
	rep(w, r)
}

func (f *fakeAPI) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.got...)
}

func (f *fakeAPI) models() []string {
	var ms []string
	for _, r := range f.requests() {
		ms = append(ms, r.Model)
	}
	return ms
}

// body decodes the JSON body of request i.
func (f *fakeAPI) body(i int) map[string]any {
	f.t.Helper()
	reqs := f.requests()
	if i >= len(reqs) {
		f.t.Fatalf("request %d not received (got %d)", i, len(reqs))
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[i].Body, &m); err != nil {
		f.t.Fatalf("request %d: %v", i, err)
	}
	return m
}

// sse streams chunks as `data: {...}` events, then `data: [DONE]`.
func sse(chunks ...string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		writeChunks(w, chunks)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// sseAbort streams chunks and then breaks the connection.
func sseAbort(chunks ...string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		writeChunks(w, chunks)
		panic(http.ErrAbortHandler)
	}
}

// sseEnd streams chunks and ends the body cleanly without [DONE].
func sseEnd(chunks ...string) reply {
	return func(w http.ResponseWriter, r *http.Request) { writeChunks(w, chunks) }
}

// sseHang streams chunks, signals sent, and holds the connection until the
// client goes away (or a generous bound passes, which fails the test).
func sseHang(t *testing.T, sent chan<- struct{}, clientGone chan<- struct{}, chunks ...string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		writeChunks(w, chunks)
		close(sent)
		select {
		case <-r.Context().Done():
			close(clientGone)
		case <-time.After(10 * time.Second):
			t.Error("fake: the client kept the stream open after it was cancelled")
		}
	}
}

func writeChunks(w http.ResponseWriter, chunks []string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		w.(http.Flusher).Flush()
	}
}

// status answers with an HTTP error in the OpenAI error format.
func status(code int, errType, errCode, msg string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprint(w, mustJSON(map[string]any{"error": map[string]any{
			"message": msg, "type": errType, "code": errCode, "param": nil,
		}}))
	}
}

// jsonReply answers a non-streaming request.
func jsonReply(body string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Chunk builders, in the shape api.openai.com sends.

func chunk(delta map[string]any, finish any) string {
	return mustJSON(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "served-model",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		"usage":   nil,
	})
}

func roleChunk() string { return chunk(map[string]any{"role": "assistant", "content": ""}, nil) }

func contentChunk(s string) string { return chunk(map[string]any{"content": s}, nil) }

func finishChunk(reason string) string { return chunk(map[string]any{}, reason) }

// toolChunk is one tool-call fragment; id and name only in the first one.
func toolChunk(index int, id, name, args string) string {
	tc := map[string]any{"index": index, "function": map[string]any{"arguments": args}}
	if id != "" {
		tc["id"], tc["type"] = id, "function"
		tc["function"].(map[string]any)["name"] = name
	}
	return chunk(map[string]any{"tool_calls": []any{tc}}, nil)
}

func usageChunk(prompt, completion int) string {
	return mustJSON(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "served-model",
		"choices": []any{},
		"usage":   map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
}

func errorChunk(msg string) string {
	return mustJSON(map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": nil}})
}

// textStream is a whole streamed answer.
func textStream(parts ...string) reply {
	chunks := []string{roleChunk()}
	for _, p := range parts {
		chunks = append(chunks, contentChunk(p))
	}
	chunks = append(chunks, finishChunk("stop"), usageChunk(10, len(parts)))
	return sse(chunks...)
}
