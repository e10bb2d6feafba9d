package edge_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/limits"
)

// fairServer is the conversation routes, the fair-use routes and a start
// route ("POST /api/research", answered 200 by a stand-in) under the
// limits v, at 10:00:30 Hong Kong time on a fake clock.
func fairServer(t *testing.T, v limits.Values) (*httptest.Server, *clocktest.Fake) {
	t.Helper()
	db := openDB(t)
	clk := clocktest.New(time.Date(2026, 11, 28, 2, 0, 30, 0, time.UTC))
	c, err := limits.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c.Values = v
	l := limits.New(c, db, db.Counters(), limits.Options{Now: clk.Now})
	au := auth.Dev{Default: "t-001"}
	srv := edge.New(db.Sessions(), db.Events(), idleStarter{}, au, edge.Options{Limits: l})
	mux := http.NewServeMux()
	srv.Mount(mux)
	rl := edge.NewRelay(db.Events(), edge.RelayOptions{})
	mux.HandleFunc("POST /api/research", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	h := edge.NewFair(l, nil, rl, au)
	h.Mount(mux)
	ts := httptest.NewServer(edge.LimitStarts(mux, l, au, rl.Logger))
	t.Cleanup(ts.Close)
	return ts, clk
}

// send posts body to path as teacher (with headers "k: v") and returns the
// answer's status, headers and body; a stream is left after its headers.
func send(t *testing.T, ts *httptest.Server, method, path, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, ts.URL+path, strings.NewReader(body))
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, resp.Header, ""
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// rateLimited checks a RATE_LIMITED answer of limit with retry seconds.
func rateLimited(t *testing.T, status int, h http.Header, body string, limit limits.Limit, retry string, message string) {
	t.Helper()
	var d edge.RateLimitDetails
	got := apperr.Body{Error: apperr.BodyError{Details: &d}}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("%d %q: %v", status, body, err)
	}
	if status != http.StatusTooManyRequests || h.Get("Retry-After") != retry || got.Error.Code != apperr.RateLimited ||
		d.Limit != limit || retry != strconv.FormatInt(d.RetryAfter, 10) || got.Error.Message != message {
		t.Fatalf("got %d Retry-After %q %s, want 429 %s retry %s %q", status, h.Get("Retry-After"), body, limit, retry, message)
	}
}

// TestTurnsPerMinute: the third turn in a minute is refused before any
// stream starts, in the teacher's language; the next minute admits again.
func TestTurnsPerMinute(t *testing.T) {
	ts, clk := fairServer(t, limits.Values{limits.TurnsPerMinute: 2})
	for i := range 2 {
		if st, _, body := send(t, ts, "POST", "/api/conversation/stream", `{"message":"你好"}`); st != http.StatusOK {
			t.Fatalf("turn %d: %d %s", i, st, body)
		}
	}
	st, h, body := send(t, ts, "POST", "/api/conversation/stream", `{"message":"你好"}`)
	rateLimited(t, st, h, body, limits.TurnsPerMinute, "30", "你这一分钟已发送 2 条消息，请 30 秒后再试。")
	st, h, body = send(t, ts, "POST", "/api/conversation", `{"message":"hello"}`)
	rateLimited(t, st, h, body, limits.TurnsPerMinute, "30", "You have sent 2 messages this minute. Please try again in 30 s.")
	if st, _, _ := send(t, ts, "POST", "/api/conversation/stream", `{"message":"hi"}`, "X-Teacher-Id: t-002"); st != http.StatusOK {
		t.Fatalf("another teacher: %d", st)
	}
	clk.Advance(30 * time.Second)
	if st, _, body := send(t, ts, "POST", "/api/conversation/stream", `{"message":"hi"}`); st != http.StatusOK {
		t.Fatalf("the next minute: %d %s", st, body)
	}
	var use edge.UsageResponse
	_, _, body = send(t, ts, "GET", "/api/usage", "")
	if err := json.Unmarshal([]byte(body), &use); err != nil || !use.Enabled || use.TeacherID != "t-001" ||
		use.Limits[1].Limit != limits.TurnsPerMinute || use.Limits[1].Used != 1 || use.Limits[1].Max != 2 {
		t.Fatalf("usage %s", body)
	}
}

// TestConcurrentTurns: while a turn runs, the teacher's turn in another
// conversation is refused; a stop frees its slot.
func TestConcurrentTurns(t *testing.T) {
	ts, _ := fairServer(t, limits.Values{limits.ConcurrentTurns: 1})
	st, h, _ := send(t, ts, "POST", "/api/conversation/stream", `{"message":"hi"}`)
	if st != http.StatusOK {
		t.Fatal(st)
	}
	conv := h.Get("X-Conversation-Id")
	st, h, body := send(t, ts, "POST", "/api/conversation/stream", `{"message":"hi again"}`)
	rateLimited(t, st, h, body, limits.ConcurrentTurns, "5",
		"You already have 1 conversations running. Please wait for one to finish (about 5 s) and try again.")
	if st, _, body := send(t, ts, "POST", "/api/conversation/"+conv+"/stop", ""); st != http.StatusOK || !strings.Contains(body, `"stopped":true`) {
		t.Fatalf("stop: %d %s", st, body)
	}
	if st, _, body := send(t, ts, "POST", "/api/conversation/stream", `{"message":"hi again"}`); st != http.StatusOK {
		t.Fatalf("after the stop: %d %s", st, body)
	}
}

// TestStartRoutes: a start route is admitted by LimitStarts before its
// handler runs, in the Accept-Language's language.
func TestStartRoutes(t *testing.T) {
	ts, _ := fairServer(t, limits.Values{limits.ResearchPerDay: 1})
	if st, _, _ := send(t, ts, "POST", "/api/research", `{}`); st != http.StatusOK {
		t.Fatal(st)
	}
	st, h, body := send(t, ts, "POST", "/api/research", `{}`, "Accept-Language: zh-HK,zh;q=0.9")
	rateLimited(t, st, h, body, limits.ResearchPerDay, "50370", "你今天已发起 1 次研究时间线，请 50370 秒后再试。")
}

// TestAdminRoutes: only an operator reads and changes an override; the
// change applies at once.
func TestAdminRoutes(t *testing.T) {
	ts, _ := fairServer(t, limits.Values{limits.TurnsPerMinute: 1})
	const op = "X-Role: operator"
	if st, _, body := send(t, ts, "PUT", "/api/admin/limits/teacher/t-001", `{"limit":"turnsPerMinute","value":5}`); st != http.StatusForbidden ||
		!strings.Contains(body, "AUTH_ERROR") {
		t.Fatalf("a teacher: %d %s", st, body)
	}
	for _, c := range []struct{ path, body string }{
		{"/api/admin/limits/class/t-001", `{"limit":"turnsPerMinute","value":5}`},
		{"/api/admin/limits/teacher/t-001", `{"limit":"nope","value":5}`},
		{"/api/admin/limits/teacher/t-001", `{"limit":"turnsPerMinute","value":-3}`},
		{"/api/admin/limits/teacher/t-001", `not json`},
	} {
		if st, _, body := send(t, ts, "PUT", c.path, c.body, op); st != http.StatusBadRequest || !strings.Contains(body, "VALIDATION_ERROR") {
			t.Fatalf("%s %s: %d %s", c.path, c.body, st, body)
		}
	}
	if st, _, body := send(t, ts, "PUT", "/api/admin/limits/teacher/t-001", `{"limit":"turnsPerMinute","lift":true}`, op); st != http.StatusOK ||
		!strings.Contains(body, `"values":{"turnsPerMinute":-1}`) || !strings.Contains(body, `"by":"t-001"`) {
		t.Fatalf("lift: %d %s", st, body)
	}
	for i := range 3 {
		if st, _, body := send(t, ts, "POST", "/api/conversation/stream", `{"message":"hi"}`); st != http.StatusOK {
			t.Fatalf("lifted, turn %d: %d %s", i, st, body)
		}
	}
	if st, _, body := send(t, ts, "DELETE", "/api/admin/limits/teacher/t-001/turnsPerMinute", "", op); st != http.StatusOK ||
		!strings.Contains(body, `"values":{}`) {
		t.Fatalf("reset: %d %s", st, body)
	}
	// Back to the stage's limit: lifted turns were not counted.
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		if st, _, _ := send(t, ts, "POST", "/api/conversation/stream", `{"message":"hi"}`); st != want {
			t.Fatalf("after the reset, turn %d: %d, want %d", i, st, want)
		}
	}
	if st, _, body := send(t, ts, "GET", "/api/admin/limits/school/s-1", "", op); st != http.StatusOK || !strings.Contains(body, `"stage":{"turnsPerMinute":1}`) {
		t.Fatalf("get: %d %s", st, body)
	}
}
