package javaapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/errtest"
	"github.com/insightedge/insightedge/shared/golden"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/syncbuf"
)

var update = flag.Bool("update", false, "rewrite golden files")

const token = "test-token"

// env is a client wired to a mock server over real HTTP on loopback.
type env struct {
	client *javaapi.Client
	server *mockserver.Server
	logs   *syncbuf.Buffer
	sleeps *clocktest.Sleeps
	clock  *clocktest.Fake
}

type setup struct {
	cfg      func(*javaapi.Config)
	fallback bool
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	srv := mockserver.New(mockdata.Default(), mockserver.Options{Token: token, MaxHang: 5 * time.Second})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	cfg := javaapi.DefaultConfig()
	cfg.BaseURL = hs.URL
	cfg.Token = token
	cfg.Timeout = 5 * time.Second
	cfg.FallbackToMock = false
	if s.cfg != nil {
		s.cfg(&cfg)
	}
	e := &env{server: srv, logs: &syncbuf.Buffer{}, sleeps: &clocktest.Sleeps{}, clock: clocktest.New(time.Date(2026, 2, 4, 10, 0, 0, 0, time.UTC))}
	opts := javaapi.Options{
		Logger: slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    e.clock.Now,
		Sleep:  e.sleeps.Sleep,
	}
	if s.fallback {
		opts.Fallback = mockserver.Fallback(cfg)
	}
	c, err := javaapi.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.client = c
	return e
}

// logLines returns the decoded log lines of b whose msg is msg.
func logLines(t *testing.T, b *syncbuf.Buffer, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

func wantCode(t *testing.T, err error, code apperr.Code) *apperr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %s", code)
	}
	if got := apperr.CodeOf(err); got != code {
		t.Fatalf("code = %q, want %s (err: %v)", got, code, err)
	}
	return apperr.As(err)
}

func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), golden.JSON(t, v), *update)
}

func TestClassesCamelCaseGolden(t *testing.T) {
	e := newEnv(t, setup{})
	cs, err := e.client.Classes(context.Background(), "t-001")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "classes_t-001.json", cs)
	req := e.server.Requests()[0]
	if req.Path != "/api/dify/teacher/t-001/classes/me" || req.Authorization != "Bearer "+token {
		t.Errorf("request = %+v, want the seed's path with the bearer token", req)
	}
}

func TestEndpoints(t *testing.T) {
	e := newEnv(t, setup{})
	ctx := context.Background()
	d, err := e.client.ClassDetail(ctx, "t-001", "class-hk-f1a")
	if err != nil {
		t.Fatal(err)
	}
	if d.Class.Name != "Form 1A" || len(d.Students) != 35 || !reflect.DeepEqual(d.Students[0], javaapi.Student{StudentID: "s-f1a-01", Name: "Wong Ka Ho"}) {
		t.Errorf("class detail = %s, %d students, first %+v", d.Class.Name, len(d.Students), d.Students[0])
	}
	as, err := e.client.ClassAssignments(ctx, "t-001", "class-hk-f1a")
	if err != nil {
		t.Fatal(err)
	}
	if len(as) < 3 || as[0].AssignmentID != "a-f1a-01" || as[0].MaxScore == nil || *as[0].MaxScore != 50 {
		t.Errorf("assignments = %+v", as)
	}
	subs, err := e.client.AssignmentSubmissions(ctx, "t-001", "a-f1a-01")
	if err != nil {
		t.Fatal(err)
	}
	if subs.Title == "" || len(subs.Submissions) != 35 || subs.Submissions[0].Skills == nil {
		t.Errorf("submissions = %q, %d, skills %v", subs.Title, len(subs.Submissions), subs.Submissions[0].Skills)
	}
	g, err := e.client.StudentSubmissions(ctx, "t-001", "s-f1a-01")
	if err != nil {
		t.Fatal(err)
	}
	if g.StudentName != "Wong Ka Ho" || len(g.Submissions) != len(as) || g.Submissions[0].AssignmentTitle == "" {
		t.Errorf("grades = %+v", g)
	}
	docs, err := e.client.SearchDocuments(ctx, "t-001", "subject-verb agreement")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 || docs[0].DocumentID == "" || docs[0].Snippet == "" {
		t.Errorf("documents = %+v", docs)
	}
	if docs, _ := e.client.SearchDocuments(ctx, "t-001", "passive voice"); len(docs) != 0 {
		t.Errorf("t-001 found t-002's document: %+v", docs)
	}
	rs, err := e.client.Rubrics(ctx, "t-001")
	if err != nil || len(rs) == 0 {
		t.Fatalf("rubrics = %v, %v", rs, err)
	}
	r, err := e.client.Rubric(ctx, "t-001", rs[0].RubricID)
	if err != nil || len(r.Criteria) == 0 || len(r.Criteria[0].Levels) == 0 {
		t.Fatalf("rubric = %+v, %v", r, err)
	}
	ps, err := e.client.ErrorPatterns(ctx, "t-001", "s-f1a-01")
	if err != nil || len(ps) == 0 || ps[0].Count < ps[len(ps)-1].Count {
		t.Fatalf("error patterns = %+v, %v", ps, err)
	}
}

// The answer's body is read into a pooled buffer that the next request
// reuses: what a call returns must not share it.
func TestResultsOutliveTheBodyBuffer(t *testing.T) {
	e := newEnv(t, setup{})
	ctx := context.Background()
	subs, err := e.client.AssignmentSubmissions(ctx, "t-001", "a-f1a-01")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(subs)
	for range 3 {
		if _, err := e.client.ClassDetail(ctx, "t-001", "class-hk-f1a"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.client.StudentSubmissions(ctx, "t-001", "s-f1a-02"); err != nil {
			t.Fatal(err)
		}
	}
	if after, _ := json.Marshal(subs); !bytes.Equal(after, before) {
		t.Errorf("the submissions changed after later calls:\n%.300s\nwas\n%.300s", after, before)
	}
}

func TestDTOMapping(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		wantID string
		errHas string
	}{
		{"uid wins", `[{"uid":"class-x","class_id":"cx","id":"1","name":"X"}]`, "class-x", ""},
		{"class_id before id", `[{"class_id":"cx","id":"1","name":"X"}]`, "cx", ""},
		{"numeric id", `[{"id":123,"name":"X"}]`, "123", ""},
		{"empty uid falls through", `[{"uid":"","id":"7","name":"X"}]`, "7", ""},
		{"escaped string id", `[{"uid":"class\u002dx","name":"X"}]`, "class-x", ""},
		{"no identifier: left out", `[{"name":"Form 9Z","grade":"Form 9"},{"uid":"c2","name":"Y"}]`, "c2", ""},
		{"wrong shape", `{"uid":"x"}`, "", "unexpected class list data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, setup{})
			e.server.SetFault(mockserver.Fault{Body: `{"code":200,"message":"success","data":` + tt.data + `}`})
			cs, err := e.client.Classes(context.Background(), "t-001")
			if tt.errHas != "" {
				ae := wantCode(t, err, apperr.DataError)
				if !strings.Contains(ae.Message, tt.errHas) {
					t.Errorf("message %q does not contain %q", ae.Message, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cs[0].ClassID != tt.wantID {
				t.Errorf("classId = %q, want %q", cs[0].ClassID, tt.wantID)
			}
		})
	}
}

// The seed leaves open whether the submission endpoints wrap their list in
// an object; both forms map to the same model.
func TestSubmissionsAsBareArray(t *testing.T) {
	e := newEnv(t, setup{})
	ctx := context.Background()
	want, err := e.client.AssignmentSubmissions(ctx, "t-001", "a-f1a-01")
	if err != nil {
		t.Fatal(err)
	}
	subs, err := json.Marshal(mockdata.Default().SubmissionsOf("a-f1a-01"))
	if err != nil {
		t.Fatal(err)
	}
	e.server.SetFault(mockserver.Fault{Body: `{"code":200,"message":"success","data":` + string(subs) + `}`})
	got, err := e.client.AssignmentSubmissions(ctx, "t-001", "a-f1a-01")
	if err != nil {
		t.Fatal(err)
	}
	if got.AssignmentID != "a-f1a-01" || !slices.EqualFunc(got.Submissions, want.Submissions, func(a, b javaapi.SubmissionRecord) bool {
		return a.StudentID == b.StudentID && *a.Score == *b.Score && *a.Skills == *b.Skills
	}) {
		t.Errorf("bare array: %+v", got)
	}
	mine, err := json.Marshal(mockdata.Default().SubmissionsBy("s-f1a-01"))
	if err != nil {
		t.Fatal(err)
	}
	e.server.SetFault(mockserver.Fault{Body: `{"code":200,"message":"success","data":` + string(mine) + `}`})
	g, err := e.client.StudentSubmissions(ctx, "t-001", "s-f1a-01")
	if err != nil {
		t.Fatal(err)
	}
	if g.StudentID != "s-f1a-01" || g.StudentName != "Wong Ka Ho" || len(g.Submissions) != 4 {
		t.Errorf("bare array grades: %+v", g)
	}
	// An error Result whose data is of no expected shape keeps its code.
	e.server.SetFault(mockserver.Fault{Body: `{"code":404,"message":"Assignment gone","data":"n/a"}`})
	_, err = e.client.AssignmentSubmissions(ctx, "t-001", "a-f1a-01")
	if ae := wantCode(t, err, apperr.EntityNotFound); !strings.Contains(ae.Message, "Assignment gone") {
		t.Errorf("message = %q", ae.Message)
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name       string
		fault      mockserver.Fault
		wantReqs   int
		wantSleeps []time.Duration
		wantCode   apperr.Code // "" = success
	}{
		{"503 every time: 3 attempts", mockserver.Fault{Status: 503}, 3, []time.Duration{500 * time.Millisecond, time.Second}, apperr.DataError},
		{"500 once then success", mockserver.Fault{Status: 500, Times: 1}, 2, []time.Duration{500 * time.Millisecond}, ""},
		{"502 twice then success", mockserver.Fault{Status: 502, Times: 2}, 3, []time.Duration{500 * time.Millisecond, time.Second}, ""},
		{"403 is not retried", mockserver.Fault{Status: 403}, 1, nil, apperr.AuthError},
		{"401 is not retried, and is a service error", mockserver.Fault{Status: 401}, 1, nil, apperr.ServiceUnavailable},
		{"404 is not retried", mockserver.Fault{Status: 404}, 1, nil, apperr.EntityNotFound},
		{"400 is not retried", mockserver.Fault{Status: 400}, 1, nil, apperr.ValidationError},
		{"429 is not retried", mockserver.Fault{Status: 429}, 1, nil, apperr.DataError},
		{"code != 200 is not retried", mockserver.Fault{Code: 500, Message: "Database connection lost"}, 1, nil, apperr.DataError},
		{"malformed body is not retried", mockserver.Fault{Malformed: true}, 1, nil, apperr.DataError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, setup{})
			e.server.SetFault(tt.fault)
			_, err := e.client.ClassAssignments(context.Background(), "t-001", "class-hk-f1a")
			if tt.wantCode == "" && err != nil {
				t.Fatalf("err = %v, want success", err)
			}
			if tt.wantCode != "" {
				wantCode(t, err, tt.wantCode)
			}
			if got := e.server.RequestCount(); got != tt.wantReqs {
				t.Errorf("requests = %d, want %d", got, tt.wantReqs)
			}
			if got := e.sleeps.Got(); !slices.Equal(got, tt.wantSleeps) {
				t.Errorf("backoff = %v, want %v", got, tt.wantSleeps)
			}
		})
	}
}

func TestTimeoutIsRetriedThenDataError(t *testing.T) {
	e := newEnv(t, setup{cfg: func(c *javaapi.Config) { c.Timeout = 50 * time.Millisecond }})
	e.server.SetFault(mockserver.Fault{Hang: true})
	_, err := e.client.Rubrics(context.Background(), "t-001")
	ae := wantCode(t, err, apperr.DataError)
	if !strings.Contains(ae.Message, "did not answer within 50ms") {
		t.Errorf("message = %q", ae.Message)
	}
	if got := e.server.RequestCount(); got != 3 {
		t.Errorf("requests = %d, want 3", got)
	}
}

func TestServiceMessages(t *testing.T) {
	tests := []struct {
		name  string
		fault mockserver.Fault
		code  apperr.Code
		has   string
	}{
		{"code 500 carries the message", mockserver.Fault{Code: 500, Message: "Database connection lost"}, apperr.DataError, "Database connection lost"},
		{"code 403", mockserver.Fault{Code: 403, Message: "No access"}, apperr.AuthError, "No access"},
		{"code 404", mockserver.Fault{Code: 404, Message: "Class not found"}, apperr.EntityNotFound, "Class not found"},
		{"HTTP 503 with message", mockserver.Fault{Status: 503, Message: "maintenance"}, apperr.DataError, "HTTP 503): maintenance"},
		{"malformed", mockserver.Fault{Malformed: true}, apperr.DataError, "malformed"},
		{"not a Result", mockserver.Fault{Body: `{"classes":[]}`}, apperr.DataError, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, setup{cfg: func(c *javaapi.Config) { c.Attempts = 1 }})
			e.server.SetFault(tt.fault)
			_, err := e.client.Classes(context.Background(), "t-001")
			ae := wantCode(t, err, tt.code)
			if !strings.Contains(ae.Message, tt.has) {
				t.Errorf("message %q does not contain %q", ae.Message, tt.has)
			}
		})
	}
}

func TestTeacherScope(t *testing.T) {
	e := newEnv(t, setup{})
	ctx := context.Background()
	_, err := e.client.ClassDetail(ctx, "t-001", "class-hk-f2a")
	ae := wantCode(t, err, apperr.AuthError)
	if ae.HTTPStatus() != 403 || !strings.Contains(ae.Message, "own classes") {
		t.Errorf("403 → %d %q", ae.HTTPStatus(), ae.Message)
	}
	_, err = e.client.StudentSubmissions(ctx, "t-001", "s-f2a-01")
	wantCode(t, err, apperr.AuthError)
	_, err = e.client.ClassDetail(ctx, "t-001", "class-nope")
	wantCode(t, err, apperr.EntityNotFound)
	_, err = e.client.Classes(ctx, "")
	wantCode(t, err, apperr.AuthError)
	if e.server.RequestCount() != 3 {
		t.Errorf("requests = %d, want 3 (none without a teacher)", e.server.RequestCount())
	}
}

func TestBearerTokenRejected(t *testing.T) {
	e := newEnv(t, setup{cfg: func(c *javaapi.Config) { c.Token = "wrong" }})
	_, err := e.client.Classes(context.Background(), "t-001")
	// The service refused this product's token, not the teacher: never
	// AUTH_ERROR, which would send the teacher to the login page.
	wantCode(t, err, apperr.ServiceUnavailable)
	if !strings.Contains(e.logs.String(), `"msg":"data service rejected the service token (HTTP 401)"`) ||
		!strings.Contains(e.logs.String(), `"JavaClientAuthFailure":1`) {
		t.Errorf("no operator alarm in the logs:\n%s", e.logs.String())
	}
	if got := e.client.Stats().AuthFailures; got != 1 {
		t.Errorf("AuthFailures = %d, want 1", got)
	}
}

func TestIdentifiersArePathEscaped(t *testing.T) {
	e := newEnv(t, setup{})
	ctx := context.Background()
	_, err := e.client.ClassDetail(ctx, "t-001", "..")
	wantCode(t, err, apperr.ValidationError)
	if e.server.RequestCount() != 0 {
		t.Fatalf("a request was made for ..")
	}
	_, err = e.client.ClassDetail(ctx, "t-001", "class-hk-f1a/assignments")
	// Escaped, the slash stays inside the id: the service finds no such
	// class, instead of answering the assignments endpoint.
	wantCode(t, err, apperr.EntityNotFound)
}

func TestTraceIDReachesServer(t *testing.T) {
	e := newEnv(t, setup{})
	ctx := javaapi.WithTraceID(context.Background(), "trace-abc-123")
	if _, err := e.client.Rubrics(ctx, "t-001"); err != nil {
		t.Fatal(err)
	}
	if got := e.server.Requests()[0].TraceID; got != "trace-abc-123" {
		t.Errorf("X-Trace-ID at server = %q", got)
	}
}

func TestCallerCancelStopsRetriesAndIsNotAFailure(t *testing.T) {
	e := newEnv(t, setup{cfg: func(c *javaapi.Config) { c.BreakerFailures = 1 }})
	e.server.SetFault(mockserver.Fault{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.client.Rubrics(ctx, "t-001")
		done <- err
	}()
	waitFor(t, func() bool { return e.server.RequestCount() == 1 })
	cancel()
	select {
	case err := <-done:
		wantCode(t, err, apperr.DataError)
	case <-time.After(5 * time.Second):
		t.Fatal("client did not return after cancel")
	}
	if e.server.RequestCount() != 1 {
		t.Errorf("requests = %d, want 1", e.server.RequestCount())
	}
	if s := e.client.BreakerState(); s != "closed" {
		t.Errorf("breaker = %s after a caller cancel, want closed", s)
	}
}

// waitFor polls cond until it holds, failing after a deadline.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met before the deadline")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestCircuitBreaker(t *testing.T) {
	e := newEnv(t, setup{cfg: func(c *javaapi.Config) {
		c.Attempts = 1
		c.BreakerReset = 30 * time.Millisecond
	}})
	ctx := context.Background()
	call := func() error { _, err := e.client.Rubrics(ctx, "t-001"); return err }

	e.server.SetFault(mockserver.Fault{Status: 503})
	for i := range 4 {
		wantCode(t, call(), apperr.DataError)
		if s := e.client.BreakerState(); s != "closed" {
			t.Fatalf("breaker %s after %d failures, want closed", s, i+1)
		}
	}
	// A 4xx in between would reset the count; 5 consecutive open it.
	wantCode(t, call(), apperr.DataError)
	if s := e.client.BreakerState(); s != "open" {
		t.Fatalf("breaker %s after 5 failures, want open", s)
	}
	before := e.server.RequestCount()
	ae := wantCode(t, call(), apperr.ServiceUnavailable)
	if e.server.RequestCount() != before {
		t.Errorf("open breaker let a request through")
	}
	if ae.HTTPStatus() != 503 {
		t.Errorf("status = %d", ae.HTTPStatus())
	}
	if got := logLines(t, e.logs, "Circuit breaker: OPEN"); len(got) != 1 {
		t.Errorf("OPEN log lines = %d, want 1", len(got))
	} else if got[0][javaapi.MetricBreakerOpen] != float64(1) || got[0][javaapi.MetricBreakerState] != float64(2) || got[0]["_aws"] == nil {
		t.Errorf("the OPEN line carries no breaker metrics (issue 28): %v", got[0])
	}
	// issue 28: every logical request is a JavaCall: 5 failures, then the
	// breaker's rejection, a failure too.
	if got := logLines(t, e.logs, "JavaClient GET failed"); len(got) != 6 ||
		got[5][javaapi.MetricJavaCall] != float64(1) || got[5]["status"] != "failure" {
		t.Errorf("JavaCall lines: %v", got)
	}

	// Half-open probe fails → open again.
	waitFor(t, func() bool { return e.client.BreakerState() == "half-open" })
	wantCode(t, call(), apperr.DataError)
	if s := e.client.BreakerState(); s != "open" {
		t.Fatalf("breaker %s after a failed probe, want open", s)
	}

	// Half-open probe succeeds → closed.
	e.server.ClearFault()
	waitFor(t, func() bool { return e.client.BreakerState() == "half-open" })
	if err := call(); err != nil {
		t.Fatalf("probe: %v", err)
	}
	if s := e.client.BreakerState(); s != "closed" {
		t.Fatalf("breaker %s after a good probe, want closed", s)
	}
	st := e.client.Stats()
	if st.BreakerOpens != 2 || st.BreakerRejections != 1 {
		t.Errorf("stats = %+v", st)
	}
}

func TestBreakerIgnoresClientErrors(t *testing.T) {
	e := newEnv(t, setup{cfg: func(c *javaapi.Config) { c.Attempts = 1; c.BreakerFailures = 2 }})
	e.server.SetFault(mockserver.Fault{Status: 403})
	for range 5 {
		wantCode(t, func() error { _, err := e.client.Rubrics(context.Background(), "t-001"); return err }(), apperr.AuthError)
	}
	if s := e.client.BreakerState(); s != "closed" {
		t.Errorf("breaker %s after 4xx answers, want closed", s)
	}
	// issue 28: a 403 is the service answering: a JavaCall success.
	lines := logLines(t, e.logs, "JavaClient GET failed")
	if len(lines) != 5 {
		t.Errorf("%d JavaCall lines for 5 requests", len(lines))
	}
	for _, l := range lines {
		if l[javaapi.MetricJavaCall] != float64(1) || l["status"] != "success" || l[javaapi.MetricJavaLatency] == nil {
			t.Errorf("a 403's JavaCall line %v, want status success with its latency", l)
		}
	}
	e.server.SetFault(mockserver.Fault{Malformed: true})
	for range 2 {
		_, _ = e.client.Rubrics(context.Background(), "t-001")
	}
	if s := e.client.BreakerState(); s != "open" {
		t.Errorf("breaker %s after malformed answers, want open", s)
	}
}

func TestFallbackToMock(t *testing.T) {
	ctx := context.Background()
	t.Run("after retries fail", func(t *testing.T) {
		e := newEnv(t, setup{fallback: true, cfg: func(c *javaapi.Config) { c.FallbackToMock = true }})
		e.server.SetFault(mockserver.Fault{Status: 503})
		cs, err := e.client.Classes(ctx, "t-001")
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 3 || cs[0].ClassID != "class-hk-f1a" {
			t.Errorf("fallback classes = %+v", cs)
		}
		if e.server.RequestCount() != 3 {
			t.Errorf("requests = %d, want 3 (retries before the fallback)", e.server.RequestCount())
		}
		lines := logLines(t, e.logs, "falling back to mock")
		if len(lines) != 1 {
			t.Fatalf("fallback log lines = %d, want 1", len(lines))
		}
		l := lines[0]
		if l["level"] != "WARN" || l["code"] != "DATA_ERROR" || l["JavaClientFallback"] != float64(1) || l["path"] != "/dify/teacher/t-001/classes/me" {
			t.Errorf("fallback line = %v", l)
		}
		aws, _ := l["_aws"].(map[string]any)
		if aws == nil || aws["CloudWatchMetrics"] == nil {
			t.Errorf("fallback line has no EMF metric: %v", l)
		}
		if st := e.client.Stats(); st.Fallbacks != 1 || st.MockResponses != 1 {
			t.Errorf("stats = %+v", st)
		}
		// Mock data is not cached: the next call asks the service again.
		e.server.ClearFault()
		if _, err := e.client.Classes(ctx, "t-001"); err != nil {
			t.Fatal(err)
		}
		if e.server.RequestCount() != 4 {
			t.Errorf("requests = %d, want 4", e.server.RequestCount())
		}
	})
	t.Run("open breaker", func(t *testing.T) {
		e := newEnv(t, setup{fallback: true, cfg: func(c *javaapi.Config) {
			c.FallbackToMock = true
			c.Attempts = 1
			c.BreakerFailures = 1
		}})
		e.server.SetFault(mockserver.Fault{Status: 500})
		if _, err := e.client.Rubric(ctx, "t-001", "r-eng-writing"); err != nil {
			t.Fatal(err)
		}
		r, err := e.client.Rubric(ctx, "t-001", "r-eng-writing")
		if err != nil || r.RubricID != "r-eng-writing" {
			t.Fatalf("rubric = %+v, %v", r, err)
		}
		if e.server.RequestCount() != 1 {
			t.Errorf("requests = %d, want 1 (the breaker was open)", e.server.RequestCount())
		}
		lines := logLines(t, e.logs, "falling back to mock")
		if len(lines) != 2 || lines[1]["code"] != "SERVICE_UNAVAILABLE" {
			t.Errorf("fallback lines = %v", lines)
		}
	})
	t.Run("not on 403 or business errors", func(t *testing.T) {
		e := newEnv(t, setup{fallback: true, cfg: func(c *javaapi.Config) { c.FallbackToMock = true }})
		_, err := e.client.ClassDetail(ctx, "t-001", "class-hk-f2a")
		wantCode(t, err, apperr.AuthError)
		e.server.SetFault(mockserver.Fault{Code: 500, Message: "boom"})
		_, err = e.client.Rubrics(ctx, "t-001")
		wantCode(t, err, apperr.DataError)
		if n := len(logLines(t, e.logs, "falling back to mock")); n != 0 {
			t.Errorf("fell back %d times", n)
		}
	})
	t.Run("disabled", func(t *testing.T) {
		e := newEnv(t, setup{fallback: true, cfg: func(c *javaapi.Config) { c.FallbackToMock = false; c.Attempts = 1 }})
		e.server.SetFault(mockserver.Fault{Status: 503})
		_, err := e.client.Rubrics(ctx, "t-001")
		wantCode(t, err, apperr.DataError)
	})
}

func TestUseMockData(t *testing.T) {
	cfg := javaapi.DefaultConfig()
	cfg.UseMock = true
	if _, err := javaapi.New(cfg, javaapi.Options{}); err == nil {
		t.Fatal("USE_MOCK_DATA without a fallback handler: want an error")
	}
	var logs syncbuf.Buffer
	c, err := javaapi.New(cfg, javaapi.Options{
		Fallback: mockserver.Fallback(cfg),
		Logger:   slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.ClassDetail(context.Background(), "t-001", "class-hk-f1a")
	if err != nil || len(d.Students) != 35 {
		t.Fatalf("mock class detail = %d students, %v", len(d.Students), err)
	}
	_, err = c.ClassDetail(context.Background(), "t-001", "class-hk-f2a")
	wantCode(t, err, apperr.AuthError) // the mock scopes teachers too
	if st := c.Stats(); st.MockResponses != 2 || st.Attempts != 2 {
		t.Errorf("stats = %+v", st)
	}
	if !strings.Contains(logs.String(), "falling back to mock") {
		t.Errorf("no startup line saying every request falls back to mock: %s", logs.String())
	}
}

func TestClassListCache(t *testing.T) {
	e := newEnv(t, setup{})
	ctx := context.Background()
	get := func() []javaapi.ClassInfo {
		t.Helper()
		cs, err := e.client.Classes(ctx, "t-001")
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	first := get()
	first[0].Name = "mutated by a caller"
	if get()[0].Name != "Form 1A" {
		t.Error("a caller's change leaked into the cache")
	}
	e.clock.Advance(5*time.Minute - time.Second)
	get()
	if n := e.server.RequestCount(); n != 1 {
		t.Fatalf("requests within 5 minutes = %d, want 1", n)
	}
	e.clock.Advance(time.Second)
	get()
	if n := e.server.RequestCount(); n != 2 {
		t.Fatalf("requests after 5 minutes = %d, want 2", n)
	}
	if _, err := e.client.Classes(ctx, "t-002"); err != nil {
		t.Fatal(err)
	}
	if n := e.server.RequestCount(); n != 3 {
		t.Fatalf("another teacher's list came from the cache")
	}
	if st := e.client.Stats(); st.CacheHits != 2 || st.CacheMisses != 3 {
		t.Errorf("stats = %+v", st)
	}
}

func TestConfigFromEnv(t *testing.T) {
	base := map[string]string{"JAVA_API_BASE_URL": "https://api.example.hk", "JAVA_API_TOKEN": "secret"}
	tests := []struct {
		name    string
		env     map[string]string
		check   func(javaapi.Config) bool
		wantErr string
	}{
		{"defaults of the seed", base, func(c javaapi.Config) bool {
			return c.Prefix == "/api" && c.Timeout == 15*time.Second && c.MaxConns == 50 && c.Attempts == 3 &&
				c.RetryBase == 500*time.Millisecond && c.BreakerFailures == 5 && c.BreakerReset == time.Minute &&
				c.ClassCacheTTL == 5*time.Minute && c.FallbackToMock && !c.UseMock &&
				c.Paths.Classes == "/dify/teacher/{teacherId}/classes/me"
		}, ""},
		{"overrides", merge(base, map[string]string{"JAVA_API_TIMEOUT": "2.5", "JAVA_API_MAX_CONNS": "10",
			"JAVA_API_PATHS": "rubrics=/v2/rubrics, documents=/v2/docs", "JAVA_API_FALLBACK_TO_MOCK": "false"}),
			func(c javaapi.Config) bool {
				return c.Timeout == 2500*time.Millisecond && c.MaxConns == 10 && c.Paths.Rubrics == "/v2/rubrics" &&
					c.Paths.Documents == "/v2/docs" && !c.FallbackToMock
			}, ""},
		{"mock needs no service", map[string]string{"USE_MOCK_DATA": "true"}, func(c javaapi.Config) bool { return c.UseMock }, ""},
		{"missing base url", map[string]string{}, nil, "JAVA_API_BASE_URL (or SPRING_BOOT_BASE_URL) is required"},
		{"missing token", map[string]string{"JAVA_API_BASE_URL": "http://x"}, nil, "JAVA_API_TOKEN (or SPRING_BOOT_ACCESS_TOKEN) is required"},
		{"bad timeout", merge(base, map[string]string{"JAVA_API_TIMEOUT": "soon"}), nil, "JAVA_API_TIMEOUT"},
		{"bad bool", merge(base, map[string]string{"USE_MOCK_DATA": "yes please"}), nil, "USE_MOCK_DATA"},
		{"bad path name", merge(base, map[string]string{"JAVA_API_PATHS": "grades=/x"}), nil, "unknown path name"},
		{"bad conns", merge(base, map[string]string{"JAVA_API_MAX_CONNS": "0"}), nil, "JAVA_API_MAX_CONNS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := javaapi.ConfigFromEnv(func(k string) string { return tt.env[k] })
			if errtest.Expect(t, err, tt.wantErr) {
				return
			}
			if !tt.check(c) {
				t.Errorf("config = %+v", c)
			}
		})
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestErrorsKeepTheirCause(t *testing.T) {
	e := newEnv(t, setup{cfg: func(c *javaapi.Config) { c.Attempts = 1 }})
	e.server.SetFault(mockserver.Fault{Status: 503})
	_, err := e.client.Rubrics(context.Background(), "t-001")
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Err == nil {
		t.Fatalf("err = %#v, want an *apperr.Error wrapping its cause", err)
	}
}
