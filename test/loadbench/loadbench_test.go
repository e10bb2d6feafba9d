package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
)

// TestHarnessTinyScale runs the whole harness at a tiny scale (2 clients,
// 20 chunks, one unpaced and one paced level): both servers really start,
// every answer must arrive whole with the mock's text, and the report must
// carry its rows. Timings are printed, never asserted.
func TestHarnessTinyScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the product")
	}
	root, err := dynamotest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ci := os.Getenv("CI") == "true"
	if _, _, why := reference(root, ""); why != "" && !ci {
		t.Logf("the AI SDK side will be left out: %s", why)
	}
	var progress bytes.Buffer
	cfg := config{Root: root, Chunks: 20, Levels: []int{2}, Paced: []int{2}, Pace: time.Millisecond, Rounds: 2, Min: 2,
		Flushes: []string{"1ns"}, Sides: []string{"product", "aisdk"}, Pin: false, WorkDir: t.TempDir(),
		Log: &progress, RequireReference: ci}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := run(ctx, cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, progress.String())
	}
	if err := res.check(); err != nil {
		t.Fatal(err)
	}
	if len(res.Tables) != 1 {
		t.Fatalf("%d tables, want 1", len(res.Tables))
	}
	sides := map[string]int{}
	for _, m := range res.Tables[0].Measures {
		sides[m.Side]++
		what := fmt.Sprintf("%s %s", m.Side, m.Scenario)
		if m.Answers != 4 || m.Failed != 0 {
			t.Errorf("%s: %d answers, %d failed (%s); want 4 delivered", what, m.Answers, m.Failed, m.FirstErr)
		}
		// With a 1 ns flush the product sends each model chunk as its own
		// text-delta, as the AI SDK does.
		if m.Deltas != 4*20 {
			t.Errorf("%s: %d text-deltas, want %d", what, m.Deltas, 4*20)
		}
		wantReqs := int64(4) // one streamed answer each
		if m.Side == "product" {
			wantReqs = 8 // the router's call, then the answer
		}
		if m.ModelReqs != wantReqs {
			t.Errorf("%s: the mock served %d requests, want %d", what, m.ModelReqs, wantReqs)
		}
		if m.FirstByte <= 0 || m.IdleRSS <= 0 || m.PeakRSS < m.IdleRSS || m.P50 <= 0 || m.P99 < m.P50 {
			t.Errorf("%s: implausible figures: first byte %s, RSS idle %d peak %d, first delta p50 %s p99 %s",
				what, m.FirstByte, m.IdleRSS, m.PeakRSS, m.P50, m.P99)
		}
	}
	if sides["product"] != 2 || (ci && sides["aisdk"] != 2) {
		t.Errorf("levels measured per side: %v", sides)
	}
	var out bytes.Buffer
	res.write(&out)
	for _, want := range []string{"### TEXT_FLUSH_INTERVAL=1ns", "| answers/s per core, c=2 (mock unpaced) |",
		"| first text-delta p99, c=2, paced 1ms |", "| c=2, unpaced | Insight Edge | 4 (0) |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	t.Logf("\n%s", out.String())
}

// TestAskRejectsIncompleteAnswers: the client counts an answer only when
// the text-deltas add up to the model's text and the stream closes.
func TestAskRejectsIncompleteAnswers(t *testing.T) {
	const want = "Photosynthesis turns light "
	streams := map[string]string{
		"whole":       `{"type":"text-start","id":"t"}|{"type":"text-delta","id":"t","delta":"Photosynthesis "}|{"type":"text-delta","id":"t","delta":"turns light "}|{"type":"text-end","id":"t"}|{"type":"finish"}|[DONE]`,
		"short":       `{"type":"text-start","id":"t"}|{"type":"text-delta","id":"t","delta":"Photosynthesis "}|{"type":"text-end","id":"t"}|{"type":"finish"}|[DONE]`,
		"no finish":   `{"type":"text-delta","id":"t","delta":"Photosynthesis turns light "}|[DONE]`,
		"error chunk": `{"type":"text-delta","id":"t","delta":"Photosynthesis "}|{"type":"error","errorText":"boom"}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, d := range strings.Split(streams[r.URL.Query().Get("s")], "|") {
			fmt.Fprintf(w, "data: %s\n\n", d)
		}
	}))
	defer srv.Close()
	for name := range streams {
		a := ask(context.Background(), srv.Client(), srv.URL+"?s="+strings.ReplaceAll(name, " ", "+"), "id", want)
		if (a.err == nil) != (name == "whole") {
			t.Errorf("%s: err = %v", name, a.err)
		}
		if name == "whole" && (a.deltas != 2 || a.firstDelta <= 0) {
			t.Errorf("whole: %d deltas, first after %s", a.deltas, a.firstDelta)
		}
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[int]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond} {
		if got := percentile(ds, p); got != want {
			t.Errorf("p%d = %s, want %s", p, got, want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("p50 of nothing is not 0")
	}
}

// TestSyscalls: /proc/PID/io counts this process's writes.
func TestSyscalls(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, err := syscalls(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := f.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	after, err := syscalls(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if n := after.Write - before.Write; n < 10 {
		t.Fatalf("10 writes counted as %d", n)
	}
}
