package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

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

	resp := send(t, http.MethodPost, s.URL+"/api/template/sessions", nil, []string{"Accept-Language", "zh-CN"})
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got := refusal{Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
	got.Error.Details = &got.Details
	if err := json.Unmarshal(body, &got.Body); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	wantRefusal(t, got, string(body), "reportsPerDay", strconv.Itoa(retry), "你今天已发起 2 份模板报告，请 50385 秒后再试。")

	// Another teacher has their own count.
	if st, body := postEnvelope(t, s.URL+"/api/template/sessions", ``, http.Header{"X-Teacher-Id": {"t-002"}}); st != http.StatusCreated {
		t.Fatalf("another teacher: %d %v", st, body)
	}
}
