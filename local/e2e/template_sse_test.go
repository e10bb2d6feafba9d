package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/report"
)

// sseClient reads a template session's SSE stream as it arrives.
type sseClient struct {
	t      testing.TB
	frames chan frame
	ids    chan int64
	cancel context.CancelFunc
}

func openTemplateStream(t testing.TB, base, sid string, header http.Header) (*sseClient, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/template/sessions/"+sid+"/stream", nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp := doLive(t, req, cancel)
	if resp.StatusCode != http.StatusOK {
		cancel()
		resp.Body.Close()
		return nil, resp
	}
	c := &sseClient{t: t, frames: make(chan frame, 4096), ids: make(chan int64, 4096), cancel: cancel}
	go func() {
		defer resp.Body.Close()
		r := newSSEReader(resp.Body)
		var id int64
		for {
			ev, err := r.next()
			if err != nil {
				break
			}
			if ev.ID != 0 {
				id = ev.ID
			}
			var f frame
			if json.Unmarshal([]byte(ev.Data), &f) == nil {
				c.ids <- id
				c.frames <- f
			}
		}
		close(c.frames)
	}()
	t.Cleanup(cancel)
	return c, resp
}

func (c *sseClient) until(event string, wait time.Duration) ([]frame, []int64) {
	c.t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var out []frame
	var ids []int64
	for {
		select {
		case f, ok := <-c.frames:
			if !ok {
				c.t.Fatalf("stream ended before %s: %v", event, names(out))
			}
			out = append(out, f)
			ids = append(ids, <-c.ids)
			if f.Event == event {
				return out, ids
			}
		case <-timer.C:
			c.t.Fatalf("no %s within %s: %v", event, wait, names(out))
		}
	}
}

func postEnvelope(t testing.TB, url, body string, header http.Header) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("POST %s: %d, body not JSON: %s", url, resp.StatusCode, b)
	}
	return resp.StatusCode, m
}

// newSSESession creates a template session over HTTP and opens its stream;
// it returns the session's id and the URL its client events are POSTed to.
func newSSESession(t *testing.T, base string) (sid, events string, stream *sseClient) {
	t.Helper()
	status, created := postEnvelope(t, base+"/api/template/sessions", ``, nil)
	sid, _ = created["session_id"].(string)
	if status != http.StatusCreated || sid == "" {
		t.Fatalf("create: %d %v", status, created)
	}
	stream, _ = openTemplateStream(t, base, sid, nil)
	return sid, base + "/api/template/sessions/" + sid + "/events", stream
}

func errCode(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestTemplateSSEAndPost(t *testing.T) {
	s := NewLocal(t, templateEnv())
	sid, events, stream := newSSESession(t, s.URL)
	first, _ := stream.until("agent.session_created", 5*time.Second)
	if len(first) != 1 || first[0].SessionID != sid {
		t.Fatalf("stream start %v", names(first))
	}

	// Bad events are 4xx JSON errors, never a 500.
	for _, tc := range []struct {
		body, code string
		status     int
		header     http.Header
	}{
		{`{`, "VALIDATION_ERROR", 400, nil},
		{`{"event":"user.message","content":""}`, "VALIDATION_ERROR", 400, nil},
		{`{"event":"user.message","session_id":"other","content":"q"}`, "VALIDATION_ERROR", 400, nil},
		{`{"event":"user.create_session"}`, "VALIDATION_ERROR", 400, nil},
		{`{"event":"user.message","content":"q"}`, "ENTITY_NOT_FOUND", 404, http.Header{"X-Teacher-Id": {"t-002"}}},
		{`{"event":"user.cancel"}`, "CONFLICT", 409, nil},
	} {
		st, body := postEnvelope(t, events, tc.body, tc.header)
		if st != tc.status || errCode(body) != tc.code {
			t.Errorf("%s: %d %v, want %d %s", tc.body, st, body, tc.status, tc.code)
		}
	}
	if st, body := postEnvelope(t, s.URL+"/api/template/sessions/nope/events", `{"event":"user.cancel"}`, nil); st != 404 || errCode(body) != "ENTITY_NOT_FOUND" {
		t.Errorf("unknown session: %d %v", st, body)
	}
	if _, resp := openTemplateStream(t, s.URL, sid, http.Header{"X-Teacher-Id": {"t-002"}}); resp.StatusCode != 404 {
		t.Errorf("another teacher's stream: %d", resp.StatusCode)
	}

	msg, _ := json.Marshal(map[string]any{"event": "user.message", "content": map[string]any{
		"question": "请基于指定模版与知识库生成报告", "template_name": zhTemplate, "knowledge_base_name": "Form 1A"}})
	if st, body := postEnvelope(t, events, string(msg), nil); st != http.StatusAccepted {
		t.Fatalf("message: %d %v", st, body)
	}
	plan, planIDs := stream.until("agent.user_confirm", 20*time.Second)
	tasks, step := checkPlanPhase(t, sid, plan)
	resp, _ := json.Marshal(map[string]any{"event": "user.response", "step_id": step, "content": map[string]any{"confirmed": true}})
	if st, body := postEnvelope(t, events, string(resp), nil); st != http.StatusAccepted {
		t.Fatalf("response: %d %v", st, body)
	}
	solve, solveIDs := stream.until("agent.final_answer", 60*time.Second)
	out, most := checkSolvePhase(t, tasks, solve)
	checkReport(t, s, templateMarkdown(t, s, sid), out)
	if most > 2 {
		t.Errorf("%d in flight", most)
	}
	ids := append(append([]int64{1}, planIDs...), solveIDs...)
	for i, id := range ids {
		if id != int64(i+1) {
			t.Fatalf("ids not 1..n without gaps: %v", ids)
		}
	}
	stream.cancel()

	// Resuming after an id gives exactly the rest.
	resume, _ := openTemplateStream(t, s.URL, sid, http.Header{"Last-Event-ID": {strconv.Itoa(len(ids) - 4)}})
	rest, restIDs := resume.until("agent.final_answer", 5*time.Second)
	if n := names(rest); len(n) != 4 || n[0] != "aggregate.start" || restIDs[0] != int64(len(ids)-3) {
		t.Fatalf("resume: %v %v", n, restIDs)
	}

	// request_state answers the caller in the POST's body.
	st, body := postEnvelope(t, events, `{"event":"user.request_state"}`, nil)
	evs, _ := body["events"].([]any)
	if st != http.StatusOK || len(evs) != 1 {
		t.Fatalf("request_state: %d %v", st, body)
	}
	b, _ := json.Marshal(evs[0])
	var f frame
	_ = json.Unmarshal(b, &f)
	var state report.State
	f.into(t, &state)
	if f.Event != "agent.state" || state.State == "" {
		t.Fatalf("state %s", b)
	}
}
