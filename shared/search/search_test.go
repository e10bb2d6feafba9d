package search_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/search"
)

func TestFormat(t *testing.T) {
	long := strings.Repeat("牛", 310)
	got := search.Format(search.Response{
		Answer: "Newton published the Principia in 1687.",
		Results: []search.Result{
			{Title: "Philosophiæ Naturalis Principia Mathematica", URL: "https://en.wikipedia.org/wiki/Principia", Content: "The Principia states Newton's laws.", Score: 0.97},
			{Title: "牛顿", URL: "https://zh.wikipedia.org/wiki/牛顿", Content: long, Score: 0.5},
		},
	})
	want := "Summary: Newton published the Principia in 1687.\n" +
		"\n- [Philosophiæ Naturalis Principia Mathematica](https://en.wikipedia.org/wiki/Principia)\n  The Principia states Newton's laws." +
		"\n- [牛顿](https://zh.wikipedia.org/wiki/牛顿)\n  " + strings.Repeat("牛", 300)
	if got != want {
		t.Fatalf("Format:\n%q\nwant\n%q", got, want)
	}
	if strings.Contains(got, "0.97") {
		t.Error("the score reached the model")
	}
	if got := search.Format(search.Response{}); got != "" {
		t.Errorf("empty response formatted as %q", got)
	}
}

type fake struct {
	calls    atomic.Int32
	statuses []int // per call; 200 after the list
	delay    time.Duration
	last     atomic.Value
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(f.calls.Add(1)) - 1
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.last.Store(map[string]any{"auth": r.Header.Get("Authorization"), "path": r.URL.Path, "method": r.Method, "body": body})
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	if n < len(f.statuses) && f.statuses[n] != 200 {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(f.statuses[n])
		_, _ = w.Write([]byte(`{"detail":{"error":"nope"}}`))
		return
	}
	_, _ = w.Write([]byte(`{"query":"q","answer":"A.","results":[{"title":"T","url":"https://x.org/a","content":"C","score":0.9,"raw_content":null}],"response_time":0.5}`))
}

func client(t *testing.T, f *fake, timeout time.Duration) *search.Tavily {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := search.NewTavily(search.TavilyConfig{BaseURL: srv.URL, APIKey: "tvly-test", Timeout: timeout,
		MaxRetries: 2, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTavily(t *testing.T) {
	req := search.Request{Query: "history of the periodic table", SearchDepth: "basic", MaxResults: 5, IncludeAnswer: true}
	tests := []struct {
		name     string
		statuses []int
		delay    time.Duration
		wantErr  error
		calls    int32
	}{
		{"ok", nil, 0, nil, 1},
		{"429 then ok", []int{429}, 0, nil, 2},
		{"502 twice then ok", []int{502, 503}, 0, nil, 3},
		{"5xx every time", []int{500, 500, 500, 500}, 0, search.ErrUnavailable, 3},
		{"bad key is not retried", []int{401}, 0, search.ErrRejected, 1},
		{"slow past the timeout", nil, 200 * time.Millisecond, search.ErrUnavailable, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{statuses: tt.statuses, delay: tt.delay}
			resp, err := client(t, f, 50*time.Millisecond).Search(context.Background(), req)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got := f.calls.Load(); got != tt.calls {
				t.Errorf("%d calls, want %d", got, tt.calls)
			}
			last := f.last.Load().(map[string]any)
			if last["auth"] != "Bearer tvly-test" || last["path"] != "/search" || last["method"] != "POST" {
				t.Errorf("request %v", last)
			}
			body := last["body"].(map[string]any)
			if body["query"] != req.Query || body["search_depth"] != "basic" || body["max_results"] != 5.0 || body["include_answer"] != true {
				t.Errorf("body %v", body)
			}
			if tt.wantErr == nil && (resp.Answer != "A." || len(resp.Results) != 1 || resp.Results[0].URL != "https://x.org/a") {
				t.Errorf("response %+v", resp)
			}
		})
	}
}

func TestTavilyRefusesAnEmptyQuery(t *testing.T) {
	f := &fake{}
	if _, err := client(t, f, time.Second).Search(context.Background(), search.Request{Query: "  "}); !errors.Is(err, search.ErrRejected) {
		t.Fatalf("err = %v", err)
	}
	if f.calls.Load() != 0 {
		t.Error("an empty query reached the service")
	}
	if _, err := search.NewTavily(search.TavilyConfig{}); err == nil {
		t.Error("a client without a key")
	}
}

func TestTavilyStopsWaitingToRetryWhenTheContextEnds(t *testing.T) {
	f := &fake{statuses: []int{503}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := search.NewTavily(search.TavilyConfig{BaseURL: srv.URL, APIKey: "tvly-test", Backoff: time.Hour, MaxBackoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = c.Search(ctx, search.Request{Query: "periodic table"})
	if !errors.Is(err, search.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want unavailable: deadline exceeded", err)
	}
	if got := f.calls.Load(); got != 1 {
		t.Errorf("%d calls, want 1 (no retry after the deadline)", got)
	}
}
