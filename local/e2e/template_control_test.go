package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/mdtree"
)

func sendEv(c *wsClient, sid, event string, content any) {
	m := map[string]any{"event": event, "session_id": sid}
	if content != nil {
		m["content"] = content
	}
	c.send(m)
}

func expectError(t *testing.T, c *wsClient, contains string) frame {
	t.Helper()
	f := c.next(10 * time.Second)
	if f.Event != "agent.error" || !strings.Contains(f.text(), contains) {
		t.Fatalf("got %s %s, want agent.error containing %q", f.Event, f.Content, contains)
	}
	return f
}

// quiet fails if anything but heartbeats arrives within d.
func quiet(t *testing.T, c *wsClient, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		f, ok := c.tryNext(time.Until(deadline))
		if ok {
			t.Fatalf("unexpected %s %s", f.Event, f.Content)
		}
	}
}

func TestTemplateErrorsAreAnsweredNotDropped(t *testing.T) {
	s := NewLocal(t, templateEnv())
	c := dialTemplate(t, wsURL(s), nil)
	c.sendRaw("{not json")
	expectError(t, c, "not a JSON object")
	sid := c.create()
	sendEv(c, sid, "user.message", "")
	expectError(t, c, "content is empty")
	sendEv(c, sid, "user.message", map[string]any{"question": " "})
	expectError(t, c, "content is empty")
	sendEv(c, "no-such-session", "user.message", "写报告")
	expectError(t, c, "Session not found")
	sendEv(c, sid, "user.dance", nil)
	expectError(t, c, "unknown event")
	sendEv(c, sid, "user.message", map[string]any{"question": "写报告", "template_name": zhTemplate, "api_base_url": "http://169.254.169.254"})
	f := expectError(t, c, "api_base_url")
	if f.SessionID != sid || f.meta(t)["code"] != "VALIDATION_ERROR" {
		t.Errorf("error envelope %+v %s", f, f.Metadata)
	}
	sendEv(c, sid, "user.response", map[string]any{"confirmed": true})
	expectError(t, c, "step_id")
	sendEv(c, sid, "user.cancel", nil)
	expectError(t, c, "nothing is running")

	// Another connection of the same teacher, and another teacher, cannot use it.
	other := dialTemplate(t, wsURL(s), nil)
	sendEv(other, sid, "user.message", "写报告")
	expectError(t, other, "Session not found")
	stranger := dialTemplate(t, wsURL(s), http.Header{"X-Teacher-Id": {"t-002"}})
	sendEv(stranger, sid, "user.request_state", nil)
	expectError(t, stranger, "Session not found")

	// An unknown template fails the run with agent.error, then the socket goes on.
	sendEv(c, sid, "user.message", map[string]any{"question": "写报告", "template_name": "没有这个模板"})
	fs := c.until("pipeline.completed", 20*time.Second)
	if names := names(fs); len(names) != 3 || names[0] != "plan.start" || names[1] != "agent.error" || !strings.Contains(fs[1].text(), "没有这个模板") {
		t.Fatalf("unknown template: %v %s", names, fs[1].Content)
	}
	if code := fs[1].meta(t)["code"]; code != "ENTITY_NOT_FOUND" {
		t.Errorf("code %v", code)
	}
	// In the teacher's language (the request's), without internals.
	if want := "报告生成出错：没有名为“没有这个模板”的模板"; fs[1].text() != want {
		t.Errorf("the teacher reads %q, want %q", fs[1].text(), want)
	}
	if sid2 := c.create(); sid2 == sid {
		t.Fatal("same session id twice")
	}
}

func TestTemplateConfirmDeclined(t *testing.T) {
	s := NewLocal(t, templateEnv())
	c := dialTemplate(t, wsURL(s), nil)
	sid, _, step := planned(t, c, "请生成报告")
	sendEv2(c, sid, step, false)
	fs := c.until("pipeline.completed", 10*time.Second)
	if n := names(fs); len(n) != 2 || n[0] != "agent.final_answer" || !strings.Contains(fs[0].text(), "未获确认") {
		t.Fatalf("declined: %v %s", n, fs[0].Content)
	}
	// The session is idle again: a new message plans again.
	c.send(zhMessage(sid, "再生成一次报告"))
	checkPlanPhase(t, sid, c.until("agent.user_confirm", 20*time.Second))
}

func sendEv2(c *wsClient, sid, step string, ok bool) {
	c.send(map[string]any{"event": "user.response", "session_id": sid, "step_id": step, "content": map[string]any{"confirmed": ok}})
}

func TestTemplateConfirmTimeout(t *testing.T) {
	s := NewLocal(t, templateEnv("TEMPLATE_WS_CONFIRM_TIMEOUT", "1"))
	c := dialTemplate(t, wsURL(s), nil)
	sid, _, step := planned(t, c, "请生成报告")
	fs := c.until("pipeline.completed", 10*time.Second)
	if n := names(fs); len(n) != 2 || n[0] != "agent.error" || !strings.Contains(fs[0].text(), "超时") {
		t.Fatalf("timeout: %v %s", n, fs[0].Content)
	}
	sendEv2(c, sid, step, true)
	expectError(t, c, "no confirmation is pending")
}

func TestTemplateCancelInEachPhase(t *testing.T) {
	s := NewLocal(t, templateEnv("TEMPLATE_WS_CONCURRENCY", "1"))
	c := dialTemplate(t, wsURL(s), nil)
	cancelled := func(sid, what string) {
		t.Helper()
		fs := c.until("pipeline.completed", 10*time.Second)
		last := fs[len(fs)-2]
		var got report.Cancelled
		last.into(t, &got)
		if last.Event != "agent.cancelled" || got.What != what {
			t.Fatalf("cancel: %v %s", names(fs), last.Content)
		}
		quiet(t, c, 1500*time.Millisecond) // the stopped run's producers are turned away
	}

	t.Run("planning", func(t *testing.T) {
		sid := c.create()
		c.send(zhMessage(sid, "请生成报告 [[offline:slow]]"))
		if f := c.next(5 * time.Second); f.Event != "plan.start" {
			t.Fatalf("got %s", f.Event)
		}
		sendEv(c, sid, "user.cancel_plan", nil)
		cancelled(sid, "plan")
	})
	t.Run("confirming", func(t *testing.T) {
		sid := c.create()
		c.send(zhMessage(sid, "请生成报告"))
		_, step := checkPlanPhase(t, sid, c.until("agent.user_confirm", 20*time.Second))
		sendEv(c, sid, "user.cancel", nil)
		cancelled(sid, "run")
		sendEv2(c, sid, step, true)
		expectError(t, c, "no confirmation is pending")
	})
	t.Run("solving", func(t *testing.T) {
		sid := c.create()
		c.send(zhMessage(sid, "请生成报告 [[offline:slow]]"))
		_, step := checkPlanPhase(t, sid, c.until("agent.user_confirm", 20*time.Second))
		sendEv2(c, sid, step, true)
		c.until("solver.start", 10*time.Second)
		sendEv(c, sid, "user.cancel_plan", nil)
		expectError(t, c, "no plan is being made")
		sendEv(c, sid, "user.cancel", nil)
		fs := c.until("pipeline.completed", 10*time.Second)
		for _, f := range fs {
			if strings.HasPrefix(f.Event, "aggregate.") {
				t.Fatalf("aggregated after cancel: %v", names(fs))
			}
		}
		if fs[len(fs)-2].Event != "agent.cancelled" {
			t.Fatalf("cancel while solving: %v", names(fs))
		}
		quiet(t, c, 1500*time.Millisecond)
	})
}

func TestTemplateTaskControls(t *testing.T) {
	s := NewLocal(t, templateEnv("TEMPLATE_WS_CONCURRENCY", "1"))
	c := dialTemplate(t, wsURL(s), nil)
	sid, tasks, step := planned(t, c, "请生成报告 [[offline:slow]]")
	sendEv2(c, sid, step, true)
	c.until("solver.start", 10*time.Second) // task 1 runs; the others wait (concurrency 1)
	sendEv(c, sid, "user.cancel_task", map[string]any{"task_id": 5})
	sendEv(c, sid, "user.restart_task", map[string]any{"task_id": 1})
	sendEv(c, sid, "user.cancel_task", map[string]any{"task_id": 99})
	fs := c.until("agent.final_answer", 60*time.Second)
	starts, completed := map[int]int{}, map[int]report.SolverCompleted{}
	sawCancelAck, sawUnknown := false, false
	for _, f := range fs {
		switch f.Event {
		case "solver.start":
			var x report.SolverStart
			f.into(t, &x)
			starts[x.ID]++
		case "solver.completed":
			var x report.SolverCompleted
			f.into(t, &x)
			completed[x.ID] = x
		case "agent.cancelled":
			var x report.Cancelled
			f.into(t, &x)
			sawCancelAck = x.What == "task" && x.TaskID == 5
		case "agent.error":
			sawUnknown = strings.Contains(f.text(), "task 99")
		}
	}
	if !sawCancelAck || !sawUnknown {
		t.Errorf("acks: cancel %v, unknown task error %v: %v", sawCancelAck, sawUnknown, names(fs))
	}
	// Cancelled before it started: its solver.completed has its solver.start
	// (issue 30, the pairing rule of docs/template-report.md).
	if starts[5] != 1 || completed[5].Status != report.TaskCancelled {
		t.Errorf("task 5: %d starts, %+v", starts[5], completed[5])
	}
	// Task 1's first solver.start was read above: the restart starts it once more.
	if starts[1] != 1 || completed[1].Status != report.TaskCompleted {
		t.Errorf("restarted task 1: %d starts, %+v", starts[1], completed[1])
	}
	var out report.AggregateCompleted
	for _, f := range fs {
		if f.Event == "aggregate.completed" {
			f.into(t, &out)
		}
	}
	if !strings.Contains(out.Output.Report.Content, "本节已取消") || len(out.Output.Sections) != len(tasks)-1 {
		t.Errorf("report of a cancelled section:\n%s", out.Output.Report.Content)
	}
	want, _ := mdtree.Outline(templateMarkdown(t, s, sid))
	if got, _ := mdtree.Outline(out.Output.Report.Content); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("outline changed: %q", got)
	}

	// After the run: restarting a task solves it alone and aggregates again.
	sendEv(c, sid, "user.restart_task", map[string]any{"task_id": 5})
	fs = c.until("agent.final_answer", 30*time.Second)
	want2 := []string{"solver.start", "solver.completed", "aggregate.start", "aggregate.completed", "pipeline.completed", "agent.final_answer"}
	var got2 []string
	for _, n := range names(fs) {
		if n != "agent.tool_call" && n != "agent.tool_result" {
			got2 = append(got2, n)
		}
	}
	if strings.Join(got2, ",") != strings.Join(want2, ",") {
		t.Fatalf("restart after the run: %v", names(fs))
	}
	fs[len(fs)-3].into(t, &out)
	if strings.Contains(out.Output.Report.Content, "本节已取消") || len(out.Output.Sections) != len(tasks) {
		t.Errorf("task 5 not written after its restart:\n%s", out.Output.Report.Content)
	}
}

func TestTemplateReplanAndSolveTasks(t *testing.T) {
	s := NewLocal(t, templateEnv())
	c := dialTemplate(t, wsURL(s), nil)
	sid := c.create()
	sendEv(c, sid, "user.replan", nil)
	expectError(t, c, "send user.message first")
	c.send(zhMessage(sid, "请生成报告"))
	_, step := checkPlanPhase(t, sid, c.until("agent.user_confirm", 20*time.Second))
	sendEv(c, sid, "user.replan", map[string]any{"question": "请重新规划一份更精炼的报告"})
	fs := c.until("agent.user_confirm", 20*time.Second)
	var start report.PlanStart
	fs[0].into(t, &start)
	if fs[0].Event != "plan.start" || start.Question != "请重新规划一份更精炼的报告" {
		t.Fatalf("replan: %v %s", names(fs), fs[0].Content)
	}
	_, step2 := checkPlanPhase(t, sid, fs)
	if step2 == step {
		t.Fatal("replan reused the step_id")
	}
	sendEv2(c, sid, step, true)
	expectError(t, c, "does not match")
	sendEv(c, sid, "user.cancel", nil)
	c.until("pipeline.completed", 10*time.Second)

	// solve_tasks on a fresh session: no planning, only the given leaves.
	sid2 := c.create()
	sendEv(c, sid2, "user.solve_tasks", map[string]any{"tasks": []map[string]any{{"id": 1}, {"id": 3, "hints": []string{"前三名"}}, {"id": 42}},
		"question": "只写两节", "template_name": zhTemplate, "knowledge_base_name": "Form 1A"})
	fs = c.until("agent.final_answer", 30*time.Second)
	if fs[0].Event != "plan.completed" {
		t.Fatalf("solve_tasks: %v", names(fs))
	}
	var plan report.PlanCompleted
	fs[0].into(t, &plan)
	if len(plan.Tasks) != 2 || plan.Tasks[0].ID != 1 || plan.Tasks[1].ID != 3 || plan.Tasks[1].Hints[0] != "前三名" {
		t.Fatalf("tasks %+v", plan.Tasks)
	}
	var out report.AggregateCompleted
	fs[len(fs)-3].into(t, &out)
	if len(out.Output.Sections) != 2 {
		t.Errorf("sections %+v", out.Output.Sections)
	}
	sendEv(c, sid2, "user.solve_tasks", map[string]any{"tasks": []map[string]any{{"id": 77}}})
	fs = c.until("pipeline.completed", 10*time.Second)
	if fs[0].Event != "agent.error" || !strings.Contains(fs[0].text(), "77") {
		t.Fatalf("unknown ids only: %v %s", names(fs), fs[0].Content)
	}
}
