package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/llm"
)

const backoffBase = 100 * time.Millisecond

// sleeps records the backoff waits instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newClient returns a client of f with the given standard chain.
func newClient(t *testing.T, f *fakeAPI, s *sleeps, chain ...string) *llm.Client {
	t.Helper()
	if len(chain) == 0 {
		chain = []string{"m1"}
	}
	c, err := llm.New(llm.Config{
		BaseURL:     f.URL(),
		APIKey:      "test-key",
		Models:      map[llm.Tier][]string{llm.TierFast: {"fast-1"}, llm.TierStandard: chain, llm.TierStrong: {"strong-1"}},
		BackoffBase: backoffBase,
		Sleep:       s.sleep,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func userMessage(s string) []llm.Message {
	return []llm.Message{{Role: llm.RoleUser, Content: s}}
}

// collector is a Handler that records what it receives.
type collector struct {
	content []string
	calls   []string
}

func (c *collector) handler() llm.Handler {
	return llm.Handler{
		OnContent: func(d string) error { c.content = append(c.content, d); return nil },
		OnToolCall: func(i int, id, name, args string) error {
			c.calls = append(c.calls, fmt.Sprintf("%d|%s|%s|%s", i, id, name, args))
			return nil
		},
	}
}

func TestStreamContent(t *testing.T) {
	f := newFakeAPI(t, textStream("Hel", "lo", ", teacher"))
	var s sleeps
	c := newClient(t, f, &s)
	var h collector
	resp, err := c.Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, h.handler())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Hel", "lo", ", teacher"}; !reflect.DeepEqual(h.content, want) {
		t.Errorf("deltas = %q; want %q", h.content, want)
	}
	if resp.Message.Role != llm.RoleAssistant || resp.Message.Content != "Hello, teacher" ||
		resp.FinishReason != "stop" || resp.Model != "m1" || resp.Usage.TotalTokens != 13 || len(resp.Message.ToolCalls) != 0 {
		t.Errorf("response = %+v", resp)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; want 1", len(reqs))
	}
	if reqs[0].Path != "/v1/chat/completions" || reqs[0].Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("request to %s with Authorization %q", reqs[0].Path, reqs[0].Header.Get("Authorization"))
	}
	body := f.body(0)
	if body["stream"] != true || !reflect.DeepEqual(body["stream_options"], map[string]any{"include_usage": true}) {
		t.Errorf("stream = %v, stream_options = %v", body["stream"], body["stream_options"])
	}
}

func TestStreamTiers(t *testing.T) {
	for tier, model := range map[llm.Tier]string{"": "m1", llm.TierFast: "fast-1", llm.TierStandard: "m1", llm.TierStrong: "strong-1"} {
		f := newFakeAPI(t, textStream("ok"))
		resp, err := newClient(t, f, &sleeps{}).Stream(t.Context(), llm.Request{Tier: tier, Messages: userMessage("hi")}, llm.Handler{})
		if err != nil || resp.Model != model || f.models()[0] != model {
			t.Errorf("tier %q: model %q (sent %q), err %v; want %q", tier, resp.Model, f.models(), err, model)
		}
	}
	f := newFakeAPI(t)
	if _, err := newClient(t, f, &sleeps{}).Stream(t.Context(), llm.Request{Tier: "huge"}, llm.Handler{}); err == nil || !strings.Contains(err.Error(), "huge") {
		t.Errorf("unknown tier: err = %v", err)
	}
}

func TestStreamToolCalls(t *testing.T) {
	f := newFakeAPI(t, sse(
		roleChunk(),
		toolChunk(0, "call_a", "get_class", ""),
		toolChunk(0, "", "", `{"class`),
		toolChunk(1, "call_b", "final_result", `{"status":`),
		toolChunk(0, "", "", `_id":"c1"}`),
		toolChunk(1, "", "", `"answer_ready"}`),
		finishChunk("tool_calls"),
		usageChunk(20, 9),
	))
	c := newClient(t, f, &sleeps{})
	var h collector
	resp, err := c.Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, h.handler())
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{
		`0|call_a|get_class|`,
		`0|call_a|get_class|{"class`,
		`1|call_b|final_result|{"status":`,
		`0|call_a|get_class|{"class_id":"c1"}`,
		`1|call_b|final_result|{"status":"answer_ready"}`,
	}
	if !reflect.DeepEqual(h.calls, wantCalls) {
		t.Errorf("OnToolCall saw\n%s\nwant\n%s", strings.Join(h.calls, "\n"), strings.Join(wantCalls, "\n"))
	}
	want := []llm.ToolCall{
		{ID: "call_a", Type: llm.ToolTypeFunction, Function: llm.FunctionCall{Name: "get_class", Arguments: `{"class_id":"c1"}`}},
		{ID: "call_b", Type: llm.ToolTypeFunction, Function: llm.FunctionCall{Name: "final_result", Arguments: `{"status":"answer_ready"}`}},
	}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) {
		t.Errorf("tool calls = %+v; want %+v", resp.Message.ToolCalls, want)
	}
	if resp.FinishReason != "tool_calls" || resp.Message.Content != "" || len(h.content) != 0 {
		t.Errorf("finish %q, content %q, deltas %q", resp.FinishReason, resp.Message.Content, h.content)
	}
}

// Some OpenAI-compatible providers omit the index: a new id starts a new call.
func TestStreamToolCallsWithoutIndex(t *testing.T) {
	frag := func(id, name, args string) string {
		tc := map[string]any{"function": map[string]any{"arguments": args}}
		if id != "" {
			tc["id"], tc["type"] = id, "function"
			tc["function"].(map[string]any)["name"] = name
		}
		return chunk(map[string]any{"tool_calls": []any{tc}}, nil)
	}
	f := newFakeAPI(t, sse(frag("a", "x", `{"n":`), frag("", "", `1}`), frag("b", "y", `{}`), finishChunk("tool_calls")))
	resp, err := newClient(t, f, &sleeps{}).Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, llm.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Message.ToolCalls
	if len(got) != 2 || got[0].ID != "a" || got[0].Function.Arguments != `{"n":1}` || got[1].ID != "b" || got[1].Function.Name != "y" {
		t.Errorf("tool calls = %+v", got)
	}
}

// inRange checks a backoff wait of retry n (0-based): base·2ⁿ ± 50%.
func inRange(t *testing.T, d time.Duration, n int) {
	t.Helper()
	center := backoffBase << n
	if lo, hi := center/2, center*3/2+time.Nanosecond; d < lo || d > hi {
		t.Errorf("backoff %d = %v; want within [%v, %v]", n, d, lo, hi)
	}
}

func TestRetryAfter429(t *testing.T) {
	f := newFakeAPI(t,
		status(http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "slow down"),
		textStream("ok"),
	)
	var s sleeps
	resp, err := newClient(t, f, &s).Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, llm.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "ok" || resp.Model != "m1" {
		t.Errorf("response = %+v", resp)
	}
	if got := f.models(); !reflect.DeepEqual(got, []string{"m1", "m1"}) {
		t.Errorf("requests = %q; want two to m1", got)
	}
	waits := s.all()
	if len(waits) != 1 {
		t.Fatalf("backoff waits = %v; want 1", waits)
	}
	inRange(t, waits[0], 0)
}

func TestFallbackAfter5xx(t *testing.T) {
	f := newFakeAPI(t,
		status(http.StatusInternalServerError, "server_error", "", "boom"),
		status(http.StatusBadGateway, "server_error", "", "boom"),
		status(http.StatusServiceUnavailable, "server_error", "", "boom"),
		textStream("from the fallback"),
	)
	var s sleeps
	resp, err := newClient(t, f, &s, "m1", "m2").Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, llm.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "m2" || resp.Message.Content != "from the fallback" {
		t.Errorf("response = %+v; want m2's answer", resp)
	}
	if got := f.models(); !reflect.DeepEqual(got, []string{"m1", "m1", "m1", "m2"}) {
		t.Errorf("requests = %q; want m1 ×3 (2 retries) then m2", got)
	}
	waits := s.all()
	if len(waits) != 2 {
		t.Fatalf("backoff waits = %v; want 2", waits)
	}
	inRange(t, waits[0], 0)
	inRange(t, waits[1], 1)
}

func TestNotRetried(t *testing.T) {
	tests := []struct {
		name   string
		reply  reply
		status int
	}{
		{"400", status(http.StatusBadRequest, "invalid_request_error", "", "messages: bad"), 400},
		{"401", status(http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "bad key"), 401},
		{"422 not JSON", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", 422) }, 422},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, tt.reply)
			var s sleeps
			_, err := newClient(t, f, &s, "m1", "m2").Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, llm.Handler{})
			if got := len(f.requests()); got != 1 || len(s.all()) != 0 {
				t.Errorf("%d requests, waits %v; want 1 request, no retry, no fallback", got, s.all())
			}
			if code := httpStatus(err); code != tt.status {
				t.Errorf("err = %v (status %d); want an API error with status %d", err, code, tt.status)
			}
		})
	}
}

// httpStatus digs the status out of err the way a caller would.
func httpStatus(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

func TestModelNotFoundFallsBack(t *testing.T) {
	f := newFakeAPI(t,
		func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, // a proxy without the model's route
		status(http.StatusBadRequest, "invalid_request_error", "model_not_found", "unknown model m2"),
		textStream("hi"),
	)
	var s sleeps
	resp, err := newClient(t, f, &s, "m1", "m2", "m3").Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, llm.Handler{})
	if err != nil || resp.Model != "m3" {
		t.Errorf("resp %+v, err %v; want m3's answer", resp, err)
	}
	if got := f.models(); !reflect.DeepEqual(got, []string{"m1", "m2", "m3"}) {
		t.Errorf("requests = %q; want m1, m2, m3 once each", got)
	}
	if len(s.all()) != 0 {
		t.Errorf("waits = %v; want none", s.all())
	}
}

func TestRateLimitedExhausted(t *testing.T) {
	limited := status(http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "slow down")
	f := newFakeAPI(t, limited, limited, limited, limited, limited, limited)
	var s sleeps
	_, err := newClient(t, f, &s, "m1", "m2").Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, llm.Handler{})
	if !errors.Is(err, llm.ErrRateLimited) || httpStatus(err) != http.StatusTooManyRequests {
		t.Errorf("err = %v; want ErrRateLimited wrapping the 429", err)
	}
	if got := len(f.requests()); got != 6 {
		t.Errorf("%d requests; want 2 models × 3 attempts", got)
	}
}

func TestStreamInterrupted(t *testing.T) {
	tests := []struct {
		name  string
		reply reply
	}{
		{"connection broken", sseAbort(roleChunk(), contentChunk("Hel"), contentChunk("lo"))},
		{"body ends without finish", sseEnd(roleChunk(), contentChunk("Hel"), contentChunk("lo"))},
		{"error event", sse(roleChunk(), contentChunk("Hel"), contentChunk("lo"), errorChunk("overloaded"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, tt.reply)
			var h collector
			_, err := newClient(t, f, &sleeps{}, "m1", "m2").Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, h.handler())
			if !errors.Is(err, llm.ErrInterrupted) {
				t.Errorf("err = %v; want ErrInterrupted", err)
			}
			if got := len(f.requests()); got != 1 {
				t.Errorf("%d requests; want 1: nothing is retried once text was delivered", got)
			}
			if strings.Join(h.content, "") != "Hello" {
				t.Errorf("delivered %q", h.content)
			}
		})
	}
}

// A stream that breaks before anything reached the handler is retried.
func TestStreamBrokenBeforeDeliveryRetried(t *testing.T) {
	tests := []struct {
		name  string
		reply reply
	}{
		{"connection broken", sseAbort(roleChunk())},
		{"body ends without finish", sseEnd(roleChunk())},
		{"error event", sse(errorChunk("overloaded"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, tt.reply, textStream("ok"))
			var s sleeps
			var h collector
			resp, err := newClient(t, f, &s).Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, h.handler())
			if err != nil || resp.Message.Content != "ok" {
				t.Fatalf("resp %+v, err %v", resp, err)
			}
			if len(f.requests()) != 2 || len(s.all()) != 1 {
				t.Errorf("%d requests, waits %v; want a retry after one backoff", len(f.requests()), s.all())
			}
		})
	}
}

func TestHandlerErrorStops(t *testing.T) {
	f := newFakeAPI(t, textStream("a", "b", "c"))
	stop := errors.New("client gone")
	var n int
	_, err := newClient(t, f, &sleeps{}, "m1", "m2").Stream(t.Context(), llm.Request{Messages: userMessage("hi")},
		llm.Handler{OnContent: func(string) error { n++; return stop }})
	if !errors.Is(err, stop) || errors.Is(err, llm.ErrInterrupted) || n != 1 || len(f.requests()) != 1 {
		t.Errorf("err = %v after %d deltas, %d requests; want the handler's error at once", err, n, len(f.requests()))
	}
}

func TestStreamContextCancel(t *testing.T) {
	sent, gone := make(chan struct{}), make(chan struct{})
	f := newFakeAPI(t, sseHang(t, sent, gone, roleChunk(), contentChunk("Hel")))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var s sleeps
	done := make(chan error, 1)
	go func() {
		_, err := newClient(t, f, &s, "m1", "m2").Stream(ctx, llm.Request{Messages: userMessage("hi")}, llm.Handler{
			OnContent: func(string) error { cancel(); return nil },
		})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrInterrupted) {
			t.Errorf("err = %v; want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stream did not return after its context was cancelled")
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection was not closed")
	}
	if len(f.requests()) != 1 || len(s.all()) != 0 {
		t.Errorf("%d requests, waits %v; want no retry after cancel", len(f.requests()), s.all())
	}
}

// The idle timeout ends a silent stream: the attempt fails with ErrTimeout and,
// nothing being delivered, the next model is tried.
func TestStreamIdleTimeout(t *testing.T) {
	sent, gone := make(chan struct{}), make(chan struct{})
	f := newFakeAPI(t, sseHang(t, sent, gone, roleChunk()), textStream("ok"))
	c, err := llm.New(llm.Config{
		BaseURL:    f.URL(),
		Models:     map[llm.Tier][]string{llm.TierFast: {"m1"}, llm.TierStandard: {"m1", "m2"}, llm.TierStrong: {"m1"}},
		Timeout:    50 * time.Millisecond, // the mechanism under test is a timer
		MaxRetries: llm.NoRetries,
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, llm.Handler{})
	if err != nil || resp.Model != "m2" {
		t.Fatalf("resp %+v, err %v; want m2 after m1 timed out", resp, err)
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the timed-out connection was not closed")
	}
}

func TestTimeoutError(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			sent, gone := make(chan struct{}), make(chan struct{})
			f := newFakeAPI(t, sseHang(t, sent, gone)) // headers, then silence
			c, err := llm.New(llm.Config{
				BaseURL:    f.URL(),
				Models:     map[llm.Tier][]string{llm.TierFast: {"m1"}, llm.TierStandard: {"m1"}, llm.TierStrong: {"m1"}},
				Timeout:    50 * time.Millisecond,
				MaxRetries: llm.NoRetries,
			})
			if err != nil {
				t.Fatal(err)
			}
			req := llm.Request{Messages: userMessage("hi")}
			if stream {
				_, err = c.Stream(t.Context(), req, llm.Handler{})
			} else {
				_, err = c.Complete(t.Context(), req)
			}
			if !errors.Is(err, llm.ErrTimeout) {
				t.Errorf("err = %v; want ErrTimeout", err)
			}
		})
	}
}

func TestCompleteJSONAndToolChoice(t *testing.T) {
	answer := mustJSON(map[string]any{
		"id": "chatcmpl-2", "object": "chat.completion", "created": 1700000000, "model": "served-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": `{"path":"chat"}`}}},
		"usage": map[string]any{"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9},
	})
	tools := []llm.Tool{{Name: "final_result", Parameters: map[string]any{"type": "object"}}}
	tests := []struct {
		name       string
		req        llm.Request
		wantFormat any
		wantChoice any
	}{
		{"json mode", llm.Request{JSON: true}, map[string]any{"type": "json_object"}, nil},
		{"tool choice required", llm.Request{Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceRequired}}, nil, "required"},
		{"tool choice function",
			llm.Request{Tools: tools, ToolChoice: llm.ToolChoice{Tool: "final_result"}},
			nil, map[string]any{"type": "function", "function": map[string]any{"name": "final_result"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, jsonReply(answer))
			tt.req.Messages = userMessage("route this")
			resp, err := newClient(t, f, &sleeps{}).Complete(t.Context(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != `{"path":"chat"}` || resp.Model != "m1" || resp.FinishReason != "stop" || resp.Usage.TotalTokens != 9 {
				t.Errorf("response = %+v", resp)
			}
			body := f.body(0)
			if !reflect.DeepEqual(body["response_format"], tt.wantFormat) || !reflect.DeepEqual(body["tool_choice"], tt.wantChoice) {
				t.Errorf("response_format = %v, tool_choice = %v; want %v, %v", body["response_format"], body["tool_choice"], tt.wantFormat, tt.wantChoice)
			}
			if body["stream"] != false || body["stream_options"] != nil {
				t.Errorf("stream = %v, stream_options = %v", body["stream"], body["stream_options"])
			}
		})
	}
}

func TestCompleteRetries(t *testing.T) {
	answer := mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
		"message": map[string]any{"role": "assistant", "content": "ok"}}}})
	f := newFakeAPI(t,
		status(http.StatusServiceUnavailable, "server_error", "", "busy"),
		jsonReply(`{"choices":[]}`),
		jsonReply(answer),
	)
	var s sleeps
	resp, err := newClient(t, f, &s).Complete(t.Context(), llm.Request{Messages: userMessage("hi")})
	if err != nil || resp.Message.Content != "ok" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if len(f.requests()) != 3 || len(s.all()) != 2 {
		t.Errorf("%d requests, waits %v; want 3 and 2", len(f.requests()), s.all())
	}
}

// The cancel of a backoff wait ends the call.
func TestCancelDuringBackoff(t *testing.T) {
	f := newFakeAPI(t, status(http.StatusInternalServerError, "server_error", "", "boom"))
	ctx, cancel := context.WithCancel(t.Context())
	c, err := llm.New(llm.Config{
		BaseURL: f.URL(),
		Models:  map[llm.Tier][]string{llm.TierFast: {"m1"}, llm.TierStandard: {"m1"}, llm.TierStrong: {"m1"}},
		Sleep: func(ctx context.Context, d time.Duration) error {
			cancel()
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(ctx, llm.Request{Messages: userMessage("hi")}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
}
