package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/mdtree"
	"github.com/insightedge/insightedge/shared/report/vfs"
)

// frame is a server envelope as the client got it.
type frame report.Envelope

func (f frame) meta(t testing.TB) map[string]any {
	t.Helper()
	m := map[string]any{}
	if len(f.Metadata) > 0 {
		if err := json.Unmarshal(f.Metadata, &m); err != nil {
			t.Fatalf("metadata of %s: %v", f.Event, err)
		}
	}
	return m
}

func (f frame) text() string {
	var s string
	_ = json.Unmarshal(f.Content, &s)
	return s
}

func (f frame) into(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(f.Content, v); err != nil {
		t.Fatalf("content of %s: %v: %s", f.Event, err, f.Content)
	}
}

// wsClient is a real WebSocket client. One goroutine reads the socket
// (a Read whose context ends closes a coder/websocket connection, so reads
// are never given a deadline); next and tryNext wait on what it read.
type wsClient struct {
	t          testing.TB
	conn       *websocket.Conn
	frames     chan frame
	readErr    chan error
	heartbeats int
}

func dialTemplate(t testing.TB, url string, header http.Header) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	conn.SetReadLimit(8 << 20)
	c := &wsClient{t: t, conn: conn, frames: make(chan frame, 4096), readErr: make(chan error, 1)}
	go func() {
		for {
			_, b, err := conn.Read(context.Background())
			if err != nil {
				c.readErr <- err
				return
			}
			var f frame
			if err := json.Unmarshal(b, &f); err != nil {
				f = frame{Event: "!not-json", Content: b}
			}
			c.frames <- f
		}
	}()
	t.Cleanup(func() { conn.CloseNow() })
	return c
}

func (c *wsClient) close() { c.conn.Close(websocket.StatusNormalClosure, "bye") }

func (c *wsClient) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(string(b))
}

func (c *wsClient) sendRaw(s string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.conn.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// tryNext returns the next frame that is not a heartbeat within wait, or
// false when none came.
func (c *wsClient) tryNext(wait time.Duration) (frame, bool) {
	c.t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case f := <-c.frames:
			if f.Event == "!not-json" {
				c.t.Fatalf("frame is not JSON: %s", f.Content)
			}
			if f.Event == "system.heartbeat" {
				c.heartbeats++
				continue
			}
			return f, true
		case err := <-c.readErr:
			c.t.Fatalf("read: %v", err)
		case <-timer.C:
			return frame{}, false
		}
	}
}

// next returns the next frame that is not a heartbeat.
func (c *wsClient) next(wait time.Duration) frame {
	c.t.Helper()
	f, ok := c.tryNext(wait)
	if !ok {
		c.t.Fatalf("no frame within %s", wait)
	}
	return f
}

// until reads frames up to and including the first of event.
func (c *wsClient) until(event string, wait time.Duration) []frame {
	c.t.Helper()
	deadline := time.Now().Add(wait)
	var out []frame
	for {
		f, ok := c.tryNext(time.Until(deadline))
		if !ok {
			c.t.Fatalf("no %s within %s; got %v", event, wait, names(out))
		}
		out = append(out, f)
		if f.Event == event {
			return out
		}
	}
}

func names(fs []frame) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Event)
	}
	return out
}

func (c *wsClient) create() string {
	c.t.Helper()
	c.send(map[string]any{"event": "user.create_session"})
	f := c.next(5 * time.Second)
	if f.Event != "agent.session_created" || f.SessionID == "" {
		c.t.Fatalf("create: got %s %+v", f.Event, f)
	}
	return f.SessionID
}

// planned creates a session on c, asks question and checks the plan
// phase; it returns the session, its tasks and the confirmation's step.
func planned(t *testing.T, c *wsClient, question string) (sid string, tasks []report.SectionTask, step string) {
	t.Helper()
	sid = c.create()
	c.send(zhMessage(sid, question))
	tasks, step = checkPlanPhase(t, sid, c.until("agent.user_confirm", 20*time.Second))
	return sid, tasks, step
}

func templateEnv(extra ...string) map[string]string {
	env := map[string]string{"TEMPLATE_WS_CONCURRENCY": "2", "TEMPLATE_WS_RETRY_DELAY": "0.05", "SSE_HEARTBEAT": "200ms"}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return env
}

func wsURL(s Local) string { return "ws" + strings.TrimPrefix(s.URL, "http") + "/ws/template" }

const zhTemplate = "学期教学工作总结"

func zhMessage(sid, question string) map[string]any {
	return map[string]any{"event": "user.message", "session_id": sid, "content": map[string]any{
		"question": question, "template_name": zhTemplate, "knowledge_base_name": "Form 1A"}}
}

// checkPlanPhase checks the frames up to agent.user_confirm and returns the
// tasks and the step_id.
func checkPlanPhase(t *testing.T, sid string, fs []frame) ([]report.SectionTask, string) {
	t.Helper()
	if fs[0].Event != "plan.start" {
		t.Fatalf("first event %s, want plan.start: %v", fs[0].Event, names(fs))
	}
	var start report.PlanStart
	fs[0].into(t, &start)
	if !strings.Contains(start.Question, "报告") {
		t.Errorf("plan.start question %q", start.Question)
	}
	i := 1
	var tools []string
	for ; fs[i].Event == "agent.tool_call"; i += 2 {
		call, res := fs[i], fs[i+1]
		if res.Event != "agent.tool_result" || call.meta(t)["scope"] != "plan" || res.meta(t)["scope"] != "plan" ||
			call.meta(t)["tool"] != res.meta(t)["tool"] {
			t.Fatalf("tool events %d: %s %s %s %s", i, call.Event, call.Metadata, res.Event, res.Metadata)
		}
		tools = append(tools, call.meta(t)["tool"].(string))
	}
	if !reflect.DeepEqual(tools, []string{"list_local_dir", "split_markdown_tree"}) {
		t.Errorf("planner tools %v", tools)
	}
	if fs[i].Event != "plan.completed" || fs[i+1].Event != "agent.user_confirm" || len(fs) != i+2 {
		t.Fatalf("plan phase %v", names(fs))
	}
	var plan report.PlanCompleted
	fs[i].into(t, &plan)
	var confirm report.UserConfirm
	fs[i+1].into(t, &confirm)
	if fs[i+1].StepID == "" || fs[i+1].meta(t)["scope"] != "plan" || confirm.Message == "" || len(confirm.Tasks) != len(plan.Tasks) {
		t.Fatalf("user_confirm %+v %s", fs[i+1], fs[i+1].Content)
	}
	for _, f := range fs {
		if f.SessionID != sid {
			t.Errorf("%s has session_id %q", f.Event, f.SessionID)
		}
	}
	return plan.Tasks, fs[i+1].StepID
}

// solverPhase checks the frames from after the confirmation to
// agent.final_answer and returns the report and the largest number of
// sections in flight at once.
func checkSolvePhase(t *testing.T, tasks []report.SectionTask, fs []frame) (report.Output, int) {
	t.Helper()
	n := len(fs)
	tail := names(fs[n-4:])
	if !reflect.DeepEqual(tail, []string{"aggregate.start", "aggregate.completed", "pipeline.completed", "agent.final_answer"}) {
		t.Fatalf("end of run %v", names(fs))
	}
	started, done := map[int]bool{}, map[int]bool{}
	inFlight, most := 0, 0
	for _, f := range fs[:n-4] {
		switch f.Event {
		case "solver.start":
			var s report.SolverStart
			f.into(t, &s)
			if started[s.ID] || f.meta(t)["scope"] != "solver" {
				t.Fatalf("second solver.start for %d", s.ID)
			}
			started[s.ID] = true
			inFlight++
			most = max(most, inFlight)
		case "solver.completed":
			var s report.SolverCompleted
			f.into(t, &s)
			if !started[s.ID] || done[s.ID] || s.Status != "completed" || s.Summary == "" {
				t.Fatalf("solver.completed %s", f.Content)
			}
			if task := tasks[s.ID-1]; task.Title != s.Title {
				t.Errorf("solver %d title %q, task %q", s.ID, s.Title, task.Title)
			}
			done[s.ID] = true
			inFlight--
		case "agent.tool_call", "agent.tool_result":
			m := f.meta(t)
			id, _ := m["task_id"].(float64)
			if m["scope"] != "solver" || !started[int(id)] || done[int(id)] {
				t.Fatalf("solver tool event outside its section: %s %s", f.Event, f.Metadata)
			}
		default:
			t.Fatalf("unexpected %s while solving", f.Event)
		}
	}
	if len(done) != len(tasks) {
		t.Fatalf("%d of %d sections completed", len(done), len(tasks))
	}
	var agg report.AggregateCompleted
	fs[n-3].into(t, &agg)
	if fs[n-1].text() == "" {
		t.Error("empty final answer")
	}
	return agg.Output, most
}

// checkReport checks that the report keeps the template's heading tree and
// speaks of the mock school's students.
func checkReport(t *testing.T, s Local, templateMD string, out report.Output) {
	t.Helper()
	want, err := mdtree.Outline(templateMD)
	if err != nil {
		t.Fatal(err)
	}
	got, err := mdtree.Outline(out.Report.Content)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("report outline\n%q\nwant\n%q\n%s", got, want, out.Report.Content)
	}
	if out.Report.VFSPath != "reports/generated_report.md" || out.Report.Path != out.Report.VFSPath {
		t.Errorf("report paths %q %q", out.Report.VFSPath, out.Report.Path)
	}
	first := mockdata.Default().StudentsOf("class-hk-f1a")
	named := 0
	for _, st := range first {
		if strings.Contains(out.Report.Content, st.Name) {
			named++
		}
	}
	if named < 3 {
		t.Errorf("the report names %d students of Form 1A:\n%s", named, out.Report.Content)
	}
}

func templateMarkdown(t *testing.T, s Local, sid string) string {
	t.Helper()
	f, err := vfs.Open(s.Files, "t-001", sid)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Read(context.Background(), "template/"+zhTemplate+".md")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.Read(context.Background(), report.ReportPath)
	if err != nil || len(rep) == 0 {
		t.Fatalf("report not in the VFS: %v", err)
	}
	return string(b)
}

func TestTemplateWebSocketHappyPath(t *testing.T) {
	s := NewLocal(t, templateEnv())
	c := dialTemplate(t, wsURL(s), nil)
	sid, tasks, step := planned(t, c, "请基于指定模版与知识库生成报告 [[offline:slow]]")
	if len(tasks) != 8 || tasks[0].ID != 1 || tasks[7].ID != 8 || tasks[0].Title != "1.1 学生人数与构成" ||
		!strings.HasPrefix(tasks[0].Template, "### 1.1 学生人数与构成") || tasks[0].Objective == "" ||
		!slices.Equal(tasks[1].RequiredInputs, []string{"datasets/grades.json"}) {
		t.Fatalf("tasks %+v", tasks)
	}
	c.send(map[string]any{"event": "user.response", "session_id": sid, "step_id": step, "content": map[string]any{"confirmed": true}})
	out, most := checkSolvePhase(t, tasks, c.until("agent.final_answer", 60*time.Second))
	checkReport(t, s, templateMarkdown(t, s, sid), out)
	if most > 2 {
		t.Errorf("%d sections in flight at once, TEMPLATE_WS_CONCURRENCY=2", most)
	}
	if most < 2 {
		t.Errorf("the bound was never reached (%d in flight at most): the test measures nothing", most)
	}
	t.Logf("most sections in flight: %d; heartbeats: %d", most, c.heartbeats)
	if c.heartbeats == 0 {
		t.Error("no system.heartbeat during the run")
	}
	if len(out.Sections) != 8 {
		t.Errorf("%d sections in the output", len(out.Sections))
	}
	if testing.Verbose() {
		t.Logf("report:\n%s\nfinal answer: %s", out.Report.Content, "")
	}
}
