package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/report"
)

// issue 32: a frame over the limit is answered, not a reason to close.

// TestTemplateOversizedFrameIsAnswered sends a 300 KiB frame while a report
// is solving: the sender gets agent.error (VALIDATION_ERROR), the socket
// stays open (the next event is answered) and the run writes its report as
// if nothing had happened.
func TestTemplateOversizedFrameIsAnswered(t *testing.T) {
	content := strings.Repeat("报", 100<<10) // 300 KiB of UTF-8
	s := NewLocal(t, templateEnv("TEMPLATE_WS_REQUIRE_CONFIRM", "false"))
	c := dialTemplate(t, wsURL(s), nil)
	sid := c.create()
	c.send(zhMessage(sid, "请生成报告 [[offline:slow]]"))
	run := c.until("solver.start", 30*time.Second)

	big := fmt.Sprintf(`{"event":"user.message","session_id":%q,"content":%q}`, sid, content)
	if len(big) < 300<<10 {
		t.Fatalf("the frame is %d bytes", len(big))
	}
	c.sendRaw(big)
	var refused frame
	for refused.Event == "" { // the run's events go on meanwhile
		f := c.next(10 * time.Second)
		if f.Event == "agent.error" {
			refused = f
			continue
		}
		run = append(run, f)
	}
	if code := refused.meta(t)["code"]; code != "VALIDATION_ERROR" || !strings.Contains(refused.text(), fmt.Sprintf("larger than %d", report.MaxFrameBytes)) {
		t.Fatalf("the oversized frame's answer: %s %s %v", refused.Event, refused.Content, code)
	}

	// The socket is open: the next event is answered.
	sendEv(c, sid, "user.request_state", nil)
	for {
		f := c.next(10 * time.Second)
		if f.Event == "agent.state" {
			break
		}
		run = append(run, f)
	}
	// The report is unaffected: it runs to its final answer, with no error
	// and no cancel.
	if !slices.Contains(names(run), "agent.final_answer") {
		run = append(run, c.until("agent.final_answer", 60*time.Second)...)
	}
	for _, f := range run {
		if f.Event == "agent.error" || f.Event == "agent.cancelled" {
			t.Fatalf("the run was disturbed: %v %s", names(run), f.Content)
		}
	}
	if !slices.Contains(names(run), "aggregate.completed") {
		t.Fatalf("no report: %v", names(run))
	}
}
