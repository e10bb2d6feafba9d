package llm_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/obs"
)

// TestTraceIDAndCallMetrics (seed 004 §4.2, §4.3): every attempt, the
// failed ones too, carries the turn's trace id as X-Trace-Id, and writes
// one log line that is an EMF line of ModelCall (model, status) and
// ModelLatency with the trace id beside them.
func TestTraceIDAndCallMetrics(t *testing.T) {
	f := newFakeAPI(t,
		status(http.StatusServiceUnavailable, "server_error", "", "boom"),
		textStream("fine"),
	)
	var logs bytes.Buffer
	var s sleeps
	c, err := llm.New(llm.Config{
		BaseURL: f.URL(), APIKey: "k", BackoffBase: backoffBase, Sleep: s.sleep,
		Models: map[llm.Tier][]string{llm.TierFast: {"f"}, llm.TierStandard: {"m1"}, llm.TierStrong: {"s"}},
		Logger: obs.NewLogger(&logs, slog.LevelInfo, "test"),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := obs.With(t.Context(), slog.String(obs.TraceKey, "trace-42"))
	if _, err := c.Stream(ctx, llm.Request{Messages: userMessage("hi")}, llm.Handler{}); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if got := r.Header.Get(llm.TraceHeader); got != "trace-42" {
			t.Errorf("request %d: %s = %q, want trace-42", i, llm.TraceHeader, got)
		}
	}
	var calls []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		if m["message"] == "model call" {
			calls = append(calls, m)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("%d model call lines, want 2: %s", len(calls), logs.String())
	}
	for i, want := range []string{"failure", "success"} {
		l := calls[i]
		if l["status"] != want || l["model"] != "m1" || l[llm.MetricModelCall] != float64(1) || l[obs.TraceKey] != "trace-42" {
			t.Errorf("call %d: %v, want status %s, model m1, one ModelCall, the trace id", i, l, want)
		}
		if _, ok := l[llm.MetricModelLatency].(float64); !ok || l["_aws"] == nil {
			t.Errorf("call %d: no latency or EMF directive: %v", i, l)
		}
	}

	// No trace id in ctx: no header (never an invented one).
	f2 := newFakeAPI(t, textStream("ok"))
	if _, err := newClient(t, f2, &s).Stream(t.Context(), llm.Request{Messages: userMessage("hi")}, llm.Handler{}); err != nil {
		t.Fatal(err)
	}
	if h := f2.requests()[0].Header.Values(llm.TraceHeader); len(h) != 0 {
		t.Errorf("a call without a trace id sent %s %q", llm.TraceHeader, h)
	}
}
