package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/insightedge/insightedge/local/server"
	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/edge"
)

// Fair use (issue 26) through the local server: the limits' windows on a
// fake clock, a running turn held by the offline model ([[offline:hold]]).

// newFairLocal is the product with env's limits on a fake clock at
// 10:00:15 Hong Kong time.
func newFairLocal(t *testing.T, env map[string]string) (Local, *clocktest.Fake) {
	t.Helper()
	clk := clocktest.New(time.Date(2026, 11, 28, 2, 0, 15, 0, time.UTC))
	return newLocalIn(t, t.TempDir(), env, func(o *server.Options) { o.LimitsNow = clk.Now }), clk
}

// refusal is an error answer as a client reads it.
type refusal struct {
	Status     int
	RetryAfter string
	Details    edge.RateLimitDetails
	apperr.Body
}

// postTurn posts a new conversation's turn to path and reads the answer
// (a stream to its end).
func postTurn(t *testing.T, base, path, message string) (refusal, string) {
	t.Helper()
	return readAnswer(t, send(t, http.MethodPost, base+path, strings.NewReader(`{"message":"`+message+`"}`), []string{"Content-Type", "application/json"}))
}

// readAnswer reads an answer to its end, and its error body if it is one.
func readAnswer(t *testing.T, resp *http.Response) (refusal, string) {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := refusal{Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
	r.Error.Details = &r.Details
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(body, &r.Body); err != nil {
			t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
		}
	}
	return r, string(body)
}

// wantRefusal checks a 429 RATE_LIMITED of limit with Retry-After retry.
func wantRefusal(t *testing.T, r refusal, body, limit, retry, message string) {
	t.Helper()
	if r.Status != http.StatusTooManyRequests || r.RetryAfter != retry || r.Error.Code != apperr.RateLimited ||
		string(r.Details.Limit) != limit || strconv.FormatInt(r.Details.RetryAfter, 10) != retry || r.Error.Message != message {
		t.Fatalf("got %d Retry-After %q %s; want 429 RATE_LIMITED %s after %s: %q", r.Status, r.RetryAfter, body, limit, retry, message)
	}
}

// TestFairUseTurnsPerMinute: with LIMIT_TURNS_PER_MINUTE=3 the 4th new
// turn within a minute is a 429 with Retry-After and RATE_LIMITED, before
// any stream; the next minute admits again.
func TestFairUseTurnsPerMinute(t *testing.T) {
	s, clk := newFairLocal(t, map[string]string{"LIMIT_TURNS_PER_MINUTE": "3"})
	paths := []string{"/api/conversation", "/api/conversation/stream", "/api/conversation"}
	for i, p := range paths {
		if r, body := postTurn(t, s.URL, p, "What is photosynthesis?"); r.Status != http.StatusOK {
			t.Fatalf("turn %d: %d %s", i+1, r.Status, body)
		}
	}
	r, body := postTurn(t, s.URL, "/api/conversation/stream", "What is photosynthesis?")
	wantRefusal(t, r, body, "turnsPerMinute", "45", "You have sent 3 messages this minute. Please try again in 45 s.")
	r, body = postTurn(t, s.URL, "/api/conversation", "什么是光合作用？")
	wantRefusal(t, r, body, "turnsPerMinute", "45", "你这一分钟已发送 3 条消息，请 45 秒后再试。")
	clk.Advance(45 * time.Second)
	if r, body := postTurn(t, s.URL, "/api/conversation", "What is photosynthesis?"); r.Status != http.StatusOK {
		t.Fatalf("the next minute: %d %s", r.Status, body)
	}
}

// TestFairUseConcurrentTurns: with LIMIT_CONCURRENT_TURNS=1, a second
// conversation's turn while a slow one runs (held by the model until the
// test releases it) is a 429; once the first ends, a turn is admitted.
func TestFairUseConcurrentTurns(t *testing.T) {
	s, _ := newFairLocal(t, map[string]string{"LIMIT_CONCURRENT_TURNS": "1"})
	resp, r, _ := openStream(t, s.URL, `{"message":"What is photosynthesis? [[offline:hold]]"}`)
	if first := readEvents(t, r, 1); first[0].typ(t) != "start" {
		t.Fatalf("first event %v", first)
	}
	ref, body := postTurn(t, s.URL, "/api/conversation/stream", "What is gravity?")
	wantRefusal(t, ref, body, "concurrentTurns", "5",
		"You already have 1 conversations running. Please wait for one to finish (about 5 s) and try again.")
	s.Offline.Release()
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if evs, _ := parseSSE(t, rest); len(evs) == 0 || !strings.Contains(string(rest), `"type":"finish"`) {
		t.Fatalf("the held turn did not finish: %s", rest)
	}
	if ref, body := postTurn(t, s.URL, "/api/conversation", "What is gravity?"); ref.Status != http.StatusOK {
		t.Fatalf("after the first ended: %d %s", ref.Status, body)
	}
}

// TestFairUseTokenBudget: a turn is metered from the usage the model
// reports; with the day's budget spent, the next turn is refused and
// /api/usage says so.
func TestFairUseTokenBudget(t *testing.T) {
	s, _ := newFairLocal(t, map[string]string{"LIMIT_TOKENS_PER_DAY": "1"})
	if r, body := postTurn(t, s.URL, "/api/conversation", "What is photosynthesis?"); r.Status != http.StatusOK {
		t.Fatalf("first turn: %d %s", r.Status, body)
	}
	r, body := postTurn(t, s.URL, "/api/conversation", "What is photosynthesis?")
	wantRefusal(t, r, body, "tokensPerDay", "50385", "You have used today's AI budget (1 tokens). It renews in 50385 s.")
	var use struct {
		Enabled bool `json:"enabled"`
		Limits  []struct {
			Limit string `json:"limit"`
			Used  int64  `json:"used"`
			Max   int64  `json:"max"`
		} `json:"limits"`
	}
	if st := GetJSON(t, s.URL+"/api/usage", &use); st != http.StatusOK || !use.Enabled {
		t.Fatalf("usage %d %+v", st, use)
	}
	for _, u := range use.Limits {
		if u.Limit == "tokensPerDay" && (u.Used <= 1 || u.Max != 1) {
			t.Fatalf("tokens %+v, want the model's reported usage against 1", u)
		}
	}
}

// TestFairUseConsole: the dev console shows the teacher's use against the
// limits and a refused turn's message.
func TestFairUseConsole(t *testing.T) {
	s, _ := newFairLocal(t, map[string]string{"LIMIT_TURNS_PER_MINUTE": "1"})
	b := newBrowser(t, s.URL)
	b.waitJS("the usage line", `document.querySelector('#usage').innerText === 'use: turnsPerMinute 0/1'`)
	b.send("What is photosynthesis?", 1)
	b.waitJS("the usage after a turn", `document.querySelector('#usage').innerText === 'use: turnsPerMinute 1/1'`)
	b.run("send a second turn", chromedp.SetValue(chromedp.CSS("#m"), "What is gravity?"), chromedp.Click(chromedp.CSS("#send")))
	b.waitJS("the refusal", `[...document.querySelectorAll('#chat .err')].some((e) => e.innerText ===
		'429 RATE_LIMITED: You have sent 1 messages this minute. Please try again in 45 s.')`)
	// The browser logs the refused load as an error: that one is expected.
	b.mu.Lock()
	b.errs = slices.DeleteFunc(b.errs, func(e string) bool {
		return strings.Contains(e, "status of 429 (Too Many Requests)") && strings.HasSuffix(e, s.URL+"/api/conversation/stream")
	})
	b.mu.Unlock()
}

// TestFairUseStockUseChat: a stock useChat (the AI SDK's Chat) surfaces
// the refusal's body as its error, for the frontend to show.
func TestFairUseStockUseChat(t *testing.T) {
	s, _ := newFairLocal(t, map[string]string{"LIMIT_TURNS_PER_MINUTE": "1"})
	got := runChat(t, s.URL, "chat-fair-use", nil,
		chatStep{Do: "send", Text: "What is photosynthesis?"},
		chatStep{Do: "send", Text: "What is gravity?"})
	if len(got) != 2 || got[0].Error != nil {
		t.Fatalf("steps %+v", got)
	}
	if got[1].Status != "error" || got[1].Error == nil || !strings.Contains(*got[1].Error, `"code":"RATE_LIMITED"`) ||
		!strings.Contains(*got[1].Error, "You have sent 1 messages this minute. Please try again in 45 s.") {
		t.Fatalf("the refused send: status %q error %q", got[1].Status, deref(got[1].Error))
	}
}

// Fair use (issue 26): every model call is metered against the teacher who
// caused it, wherever it is made, and a template report is admitted by one
// check whichever transport starts it.

// tokensUsed is the caller's tokens today, as GET /api/usage says.
func tokensUsed(t *testing.T, base string, headers ...string) int64 {
	t.Helper()
	var use struct {
		Limits []struct {
			Limit string `json:"limit"`
			Used  int64  `json:"used"`
		} `json:"limits"`
	}
	if st := GetJSON(t, base+"/api/usage", &use, headers...); st != http.StatusOK {
		t.Fatalf("GET /api/usage: %d", st)
	}
	for _, u := range use.Limits {
		if u.Limit == "tokensPerDay" {
			return u.Used
		}
	}
	t.Fatalf("no tokensPerDay in %+v", use)
	return 0
}

// TestUsageMetersBuildResearchReport: a page build, a research run and a
// template report each meter the tokens their model calls reported (not
// only conversation turns); an operator then sets the teacher's budget to
// what they used, and the next turn is refused.
func TestUsageMetersBuildResearchReport(t *testing.T) {
	env := templateEnv("LIMIT_TOKENS_PER_DAY", "100000000")
	s, _ := newFairLocal(t, env)
	used := tokensUsed(t, s.URL)
	grew := func(what string) {
		t.Helper()
		now := tokensUsed(t, s.URL)
		if now <= used {
			t.Fatalf("%s metered nothing: %d tokens before, %d after", what, used, now)
		}
		t.Logf("%s: %d tokens", what, now-used)
		used = now
	}

	code, a := askJSON(t, s, `{"message":"分析 1A 班英语成绩","language":"zh-CN"}`)
	if code != http.StatusOK || a.Action != "build" {
		t.Fatalf("plan: %d %+v", code, a)
	}
	grew("the turn that planned the page")
	if _, page := completeOf(t, postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, a.Blueprint))); page.Meta.PageTitle == "" {
		t.Fatal("the page was not built")
	}
	grew("the page build")

	if _, rs := runResearch(t, s, "牛顿力学的发展"); rs.last().Name != "complete" {
		t.Fatalf("research ended with %s", rs.last().Name)
	}
	grew("the research run")

	c := dialTemplate(t, wsURL(s), nil)
	sid, tasks, step := planned(t, c, "请基于指定模版与知识库生成报告")
	c.send(map[string]any{"event": "user.response", "session_id": sid, "step_id": step, "content": map[string]any{"confirmed": true}})
	if out, _ := checkSolvePhase(t, tasks, c.until("agent.final_answer", 60*time.Second)); len(out.Sections) == 0 {
		t.Fatal("the report has no sections")
	}
	grew("the template report")

	resp := send(t, http.MethodPut, s.URL+"/api/admin/limits/teacher/t-001",
		strings.NewReader(`{"limit":"tokensPerDay","value":`+strconv.FormatInt(used, 10)+`}`), []string{"X-Role", "operator"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the operator's override: %d", resp.StatusCode)
	}
	r, body := postTurn(t, s.URL, "/api/conversation", "What is photosynthesis?")
	if r.Status != http.StatusTooManyRequests || string(r.Details.Limit) != "tokensPerDay" {
		t.Fatalf("the turn after the budget was spent: %d %s", r.Status, body)
	}
}

// TestReportLimitBothEntrances: LIMIT_REPORTS_PER_DAY counts the template
// reports started over HTTP (POST /api/template/sessions) and over the
// socket (user.create_session) alike; over the limit the route answers
// 429 RATE_LIMITED with Retry-After, the socket agent.error with
// metadata {code: RATE_LIMITED, limit, retryAfter}, and nothing starts.
func TestReportLimitBothEntrances(t *testing.T) {
	env := templateEnv("LIMIT_REPORTS_PER_DAY", "2")
	s, _ := newFairLocal(t, env)
	// 10:00:15 Hong Kong time: the day ends in 13 h 59 min 45 s.
	const retry = 50385
	c := dialTemplate(t, wsURL(s), http.Header{"Accept-Language": {"en"}})
	c.create()
	if st, body := postEnvelope(t, s.URL+"/api/template/sessions", ``, nil); st != http.StatusCreated {
		t.Fatalf("the second report, over HTTP: %d %v", st, body)
	}

	c.send(map[string]any{"event": "user.create_session"})
	f := c.next(5 * time.Second)
	m := f.meta(t)
	if f.Event != "agent.error" || m["code"] != "RATE_LIMITED" || m["limit"] != "reportsPerDay" || m["retryAfter"] != float64(retry) ||
		f.text() != "You have started 2 template reports today. Please try again in 50385 s." {
		t.Fatalf("the third report, on the socket: %s %s %v", f.Event, f.Content, m)
	}

	got, body := readAnswer(t, send(t, http.MethodPost, s.URL+"/api/template/sessions", nil, []string{"Accept-Language", "zh-CN"}))
	wantRefusal(t, got, body, "reportsPerDay", strconv.Itoa(retry), "你今天已发起 2 份模板报告，请 50385 秒后再试。")

	// Another teacher has their own count.
	if st, body := postEnvelope(t, s.URL+"/api/template/sessions", ``, http.Header{"X-Teacher-Id": {"t-002"}}); st != http.StatusCreated {
		t.Fatalf("another teacher: %d %v", st, body)
	}
}
