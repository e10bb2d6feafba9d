package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/report"
)

func requestState(t *testing.T, c *wsClient, sid string) report.State {
	t.Helper()
	sendEv(c, sid, "user.request_state", nil)
	f := c.next(5 * time.Second)
	var st report.State
	f.into(t, &st)
	if f.Event != "agent.state" || st.State == "" || st.ExpiresAt == "" {
		t.Fatalf("request_state: %s %s", f.Event, f.Content)
	}
	return st
}

func TestTemplateSignedStateAndReconnect(t *testing.T) {
	s := NewLocal(t, templateEnv())
	a := dialTemplate(t, wsURL(s), nil)
	sid, _, step := planned(t, a, "请生成报告")
	st := requestState(t, a, sid)

	// Closing the socket ends its sessions: the waiting run stops.
	a.close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		sess, err := report.NewStore(s.DB).GetSession(t.Context(), sid)
		if err == nil && sess.Status == report.StatusClosed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session not closed with its socket: %+v %v", sess, err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	b := dialTemplate(t, wsURL(s), nil)
	// Without the state, the session is not this socket's.
	b.send(zhMessage(sid, "继续"))
	expectError(t, b, "Session not found")
	// A tampered state is refused.
	tampered := st.State[:len(st.State)-2] + flip(st.State[len(st.State)-2:])
	sendEv(b, sid, "user.reconnect_with_state", map[string]any{"state": tampered})
	expectError(t, b, "invalid or was altered")
	body := []byte(st.State)
	body[3] ^= 1 // the claims changed, the signature kept
	sendEv(b, sid, "user.reconnect_with_state", map[string]any{"state": string(body)})
	expectError(t, b, "invalid or was altered")
	// Another teacher cannot use it.
	other := dialTemplate(t, wsURL(s), map[string][]string{"X-Teacher-Id": {"t-002"}})
	sendEv(other, sid, "user.reconnect_with_state", map[string]any{"state": st.State})
	expectError(t, other, "another session or teacher")
	// The state itself resumes the session on the new socket.
	sendEv(b, sid, "user.reconnect_with_state", map[string]any{"state": st.State})
	f := b.next(5 * time.Second)
	var rc report.Reconnected
	f.into(t, &rc)
	if f.Event != "agent.reconnected" || rc.Status != report.StatusIdle {
		t.Fatalf("reconnect: %s %s", f.Event, f.Content)
	}
	// The events after the state was made come first (the close's events, if any), then new ones.
	sendEv2(b, sid, step, true)
	expectError(t, b, "no confirmation is pending")
	b.send(zhMessage(sid, "请再生成报告"))
	tasks, step2 := checkPlanPhase(t, sid, b.until("agent.user_confirm", 20*time.Second))
	sendEv2(b, sid, step2, true)
	out, _ := checkSolvePhase(t, tasks, b.until("agent.final_answer", 60*time.Second))
	checkReport(t, s, templateMarkdown(t, s, sid), out)
}

func flip(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
	}
	return string(b)
}

func TestTemplateExpiredStateRefused(t *testing.T) {
	s := NewLocal(t, templateEnv("TEMPLATE_STATE_TTL", "1s"))
	a := dialTemplate(t, wsURL(s), nil)
	sid := a.create()
	st := requestState(t, a, sid)
	a.close()
	time.Sleep(1100 * time.Millisecond)
	b := dialTemplate(t, wsURL(s), nil)
	sendEv(b, sid, "user.reconnect_with_state", map[string]any{"state": st.State})
	expectError(t, b, "expired")
	if !strings.Contains(st.ExpiresAt, "T") {
		t.Errorf("expires_at %q", st.ExpiresAt)
	}
}

func TestTemplateMisbehavingModel(t *testing.T) {
	s := NewLocal(t, templateEnv())
	c := dialTemplate(t, wsURL(s), nil)
	sid := c.create()
	c.send(zhMessage(sid, "请生成报告 [[offline:plan-unknown-ids]] [[offline:solver-fails-once]] [[offline:solver-repeats-heading]]"))
	fs := c.until("agent.user_confirm", 20*time.Second)
	var note string
	var kept []frame
	for _, f := range fs {
		if f.Event == "agent.tool_result" && f.meta(t)["tool"] == "submit_plan" {
			var r struct{ System string }
			f.into(t, &r)
			note = r.System
			continue
		}
		kept = append(kept, f)
	}
	if !strings.Contains(note, "[0 9 13]") {
		t.Errorf("unknown task ids not reported: %q", note)
	}
	tasks, step := checkPlanPhase(t, sid, kept)
	if len(tasks) != 8 {
		t.Fatalf("%d tasks", len(tasks))
	}
	sendEv2(c, sid, step, true)
	fs = c.until("agent.final_answer", 60*time.Second)
	retries := 0
	kept = kept[:0]
	for _, f := range fs {
		if f.Event == "agent.tool_result" && f.meta(t)["tool"] == "solver" {
			retries++
			continue
		}
		kept = append(kept, f)
	}
	if retries != 8 {
		t.Errorf("%d retry notes, want one per section", retries)
	}
	out, _ := checkSolvePhase(t, tasks, kept)
	checkReport(t, s, templateMarkdown(t, s, sid), out) // the repeated headings are gone
}
