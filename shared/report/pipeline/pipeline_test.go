package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/mdtree"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/workflow"
)

// scripted is a model that answers at once: the planner submits one task
// per leaf, a solver writes a line, the editor one sentence. It stands in
// for the model only; everything else is the real thing.
type scripted struct {
	mu    sync.Mutex
	calls int
}

func (m *scripted) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
	sys := req.Messages[0].Content
	switch {
	case strings.HasPrefix(sys, prompts.ReportPlannerHeader):
		return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function",
			Function: llm.FunctionCall{Name: prompts.SubmitPlanTool, Arguments: `{"tasks":[{"id":1,"required_inputs":["datasets/d.json","datasets/nope.json"]},{"id":99}],"plan_summary":"plan"}`}}}}}, nil
	case strings.HasPrefix(sys, prompts.ReportSolverHeader):
		var t report.SectionTask
		_ = json.Unmarshal([]byte(req.Messages[1].Content), &t)
		content := "## " + t.Title + "\n\nWritten: " + t.Title
		if t.ID == 2 { // a solver that writes a table (issue 30: the section's tables)
			content += "\n\n| Class | Mean |\n| --- | ---: |\n| 1A | **72.5** |\n| 1B | 68 |"
		}
		return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: content}}, nil
	}
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Done."}}, nil
}

func templateOf(n int) string {
	var b strings.Builder
	b.WriteString("---\ntitle: Bench\n---\n")
	for i := range n {
		if i%4 == 0 {
			fmt.Fprintf(&b, "## Part %d\n\n", i/4+1)
		}
		fmt.Fprintf(&b, "### Section %d\n\nguidance %d\n\n", i+1, i+1)
	}
	return b.String()
}

type fixture struct {
	p        *pipeline.Pipeline
	store    report.Store
	log      eventlog.Log
	model    *scripted
	blobs    blob.Store
	backends *backend.Resolver
}

func newFixture(tb testing.TB, leaves int) fixture {
	tb.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/templates", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("name") == "Down" { // a backend that is down (issue 30: system.error)
			http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
			return
		}
		if name := r.URL.Query().Get("name"); name != "" && name != "Bench" {
			fmt.Fprint(w, `{"templates":[]}`)
			return
		}
		fmt.Fprint(w, `{"templates":[{"id":"t1","name":"Bench","format":"markdown"}]}`)
	})
	mux.HandleFunc("GET /api/templates/t1", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(backend.Template{TemplateInfo: backend.TemplateInfo{ID: "t1", Name: "Bench", Format: "markdown"}, Content: templateOf(leaves)})
	})
	mux.HandleFunc("GET /api/knowledge-bases", func(w http.ResponseWriter, r *http.Request) {
		if name := r.URL.Query().Get("name"); name != "" && name != "KB" {
			fmt.Fprint(w, `{"knowledge_bases":[]}`)
			return
		}
		fmt.Fprint(w, `{"knowledge_bases":[{"id":"k1","name":"KB"}]}`)
	})
	mux.HandleFunc("GET /api/knowledge-bases/k1/files", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"files":[{"name":"d.json","size":9}]}`)
	})
	mux.HandleFunc("GET /api/knowledge-bases/k1/files/d.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"a":1}`)
	})
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	db, err := boltstore.Open(filepath.Join(tb.TempDir(), "x.db"), boltstore.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	blobs, err := blob.NewFS(blob.FSConfig{Dir: tb.TempDir(), BaseURL: "http://127.0.0.1:1", Secret: []byte("0123456789abcdef0123")})
	if err != nil {
		tb.Fatal(err)
	}
	m := &scripted{}
	set := pipeline.DefaultSettings()
	set.RequireConfirm = false
	res := backend.NewResolver(backend.Options{Default: srv.URL})
	p := pipeline.New(pipeline.Deps{Store: report.NewStore(db), Log: db.Events(), Blobs: blobs, Model: m, Settings: set, Backends: res})
	return fixture{p: p, store: report.NewStore(db), log: db.Events(), model: m, blobs: blobs, backends: res}
}

// run drives one session's run through the steps in the workflow's order.
func (f fixture) run(tb testing.TB, ctx context.Context, sid string) pipeline.AggregateOutput {
	tb.Helper()
	if err := f.store.CreateSession(ctx, report.Session{ID: sid, TeacherID: "t-001", Status: report.StatusPlanning, Run: 1,
		Message: report.Message{Question: "write it", TemplateName: "Bench", KnowledgeBaseName: "KB"}}); err != nil {
		tb.Fatal(err)
	}
	if _, err := f.p.Plan(ctx, pipeline.RunInput{SessionID: sid, TeacherID: "t-001", Run: 1}); err != nil {
		tb.Fatal(err)
	}
	round := 0
	for {
		r, err := f.p.NextRound(ctx, pipeline.RoundInput{SessionID: sid, Run: 1, Round: round})
		if err != nil {
			tb.Fatal(err)
		}
		if !r.More {
			break
		}
		for _, id := range r.TaskIDs {
			if _, err := f.p.Solve(ctx, pipeline.SolveInput{SessionID: sid, Run: 1, TaskID: id}); err != nil {
				tb.Fatal(err)
			}
		}
		round = r.Round
	}
	out, err := f.p.Aggregate(ctx, pipeline.StepInput{SessionID: sid, Run: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestStepsInWorkflowOrder(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 6)
	out := f.run(t, ctx, "s-1")
	if out.Status != "completed" || out.Path != report.ReportPath {
		t.Fatalf("aggregate %+v", out)
	}
	evs := envelopes(t, f, "s-1")
	var names []string
	var agg report.AggregateCompleted
	var plan report.PlanCompleted
	for _, env := range evs {
		names = append(names, env.Event)
		switch env.Event {
		case "aggregate.completed":
			_ = json.Unmarshal(env.Content, &agg)
		case "plan.completed":
			_ = json.Unmarshal(env.Content, &plan)
		}
	}
	want := "plan.start,agent.tool_result,plan.completed"
	for i := 1; i <= 6; i++ {
		want += ",solver.start,solver.completed"
	}
	want += ",aggregate.start,aggregate.completed,pipeline.completed,agent.final_answer"
	if got := strings.Join(names, ","); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	// Unknown id 99 ignored, the missing input dropped, every leaf a task.
	if len(plan.Tasks) != 6 || len(plan.Tasks[0].RequiredInputs) != 1 || plan.Tasks[0].RequiredInputs[0] != "datasets/d.json" {
		t.Fatalf("tasks %+v", plan.Tasks)
	}
	got, _ := mdtree.Outline(agg.Output.Report.Content)
	body, _ := mdtree.Outline(templateOf(6))
	wantOutline := append([]string{"# Bench"}, body...) // the front matter's title on top
	if strings.Join(got, "|") != strings.Join(wantOutline, "|") {
		t.Fatalf("outline %q, want %q", got, wantOutline)
	}
	// A late step of an older run does nothing.
	if _, err := f.store.UpdateSession(ctx, "s-1", func(s *report.Session) error { s.Run = 2; return nil }); err != nil {
		t.Fatal(err)
	}
	if out, err := f.p.Solve(ctx, pipeline.SolveInput{SessionID: "s-1", Run: 1, TaskID: 1}); err != nil || out.Status != "stale" {
		t.Fatalf("stale solve %+v %v", out, err)
	}
	if after, _ := f.log.Read(ctx, report.StreamName("s-1"), 0, 1000); len(after) != len(evs) {
		t.Fatalf("a stale step appended %d events", len(after)-len(evs))
	}
}

func TestFinishMessages(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 2)
	for i, tc := range []struct {
		in       pipeline.FinishInput
		event    string
		contains string
		code     string
	}{
		{pipeline.FinishInput{Reason: pipeline.ReasonDeclined}, "agent.final_answer", "not confirmed", ""},
		{pipeline.FinishInput{Reason: pipeline.ReasonTimeout}, "agent.error", "No confirmation", "VALIDATION_ERROR"},
		{pipeline.FinishInput{Reason: pipeline.ReasonFailed, Error: &workflow.ErrorInfo{Error: "ENTITY_NOT_FOUND", Cause: "ENTITY_NOT_FOUND: no template is named \"x\""}},
			"agent.error", "Agent execution error: no template is named", "ENTITY_NOT_FOUND"},
		{pipeline.FinishInput{Reason: pipeline.ReasonFailed, Error: &workflow.ErrorInfo{Error: "States.Timeout", Cause: "took too long"}},
			"agent.error", "Agent execution error: took too long", "AI_ERROR"},
	} {
		sid := fmt.Sprintf("f-%d", i)
		if err := f.store.CreateSession(ctx, report.Session{ID: sid, TeacherID: "t", Run: 1, Status: report.StatusConfirming, Language: "en"}); err != nil {
			t.Fatal(err)
		}
		tc.in.SessionID, tc.in.Run = sid, 1
		if _, err := f.p.Finish(ctx, tc.in); err != nil {
			t.Fatal(err)
		}
		evs := envelopes(t, f, sid)
		env := evs[0]
		var msg string
		_ = json.Unmarshal(env.Content, &msg)
		if env.Event != tc.event || !strings.Contains(msg, tc.contains) || (tc.code != "" && !strings.Contains(string(env.Metadata), tc.code)) || len(evs) != 2 {
			t.Errorf("%s: %s %s %s (%d events)", tc.in.Reason, env.Event, msg, env.Metadata, len(evs))
		}
	}
}

// TestLoadFailureInTheTeachersLanguage: a template or knowledge base that
// cannot be loaded is reported in the language the request is written in,
// although the report's language is only decided from the template.
func TestLoadFailureInTheTeachersLanguage(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 2)
	for i, tc := range []struct {
		m    report.Message
		want string
	}{
		{report.Message{Question: "写一份学期总结", TemplateName: "学期教学工作总结"}, "报告生成出错：没有名为“学期教学工作总结”的模板"},
		{report.Message{TemplateName: "Bench", KnowledgeBaseName: "初二（3）班"}, "报告生成出错：没有名为“初二（3）班”的知识库"},
		{report.Message{Question: "Write the term summary", TemplateName: "Term summary"}, `Agent execution error: no template is named "Term summary"`},
		{report.Message{TemplateName: "Term summary", Language: "zh"}, "报告生成出错：没有名为“Term summary”的模板"},
	} {
		sid := fmt.Sprintf("l-%d", i)
		if err := f.store.CreateSession(ctx, report.Session{ID: sid, TeacherID: "t-001", Status: report.StatusPlanning, Run: 1, Message: tc.m}); err != nil {
			t.Fatal(err)
		}
		_, err := f.p.Plan(ctx, pipeline.RunInput{SessionID: sid, TeacherID: "t-001", Run: 1})
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != apperr.EntityNotFound {
			t.Fatalf("%+v: plan error %v, want ENTITY_NOT_FOUND", tc.m, err)
		}
		// The workflow hands the step's error to Finish as Lambda reports it.
		info := &workflow.ErrorInfo{Error: string(ae.Code), Cause: ae.Error()}
		if _, err := f.p.Finish(ctx, pipeline.FinishInput{SessionID: sid, Run: 1, Reason: pipeline.ReasonFailed, Error: info}); err != nil {
			t.Fatal(err)
		}
		var msg string
		for _, env := range envelopes(t, f, sid) {
			if env.Event == "agent.error" {
				_ = json.Unmarshal(env.Content, &msg)
			}
		}
		if msg != tc.want {
			t.Errorf("%+v: agent.error %q, want %q", tc.m, msg, tc.want)
		}
	}
}

// BenchmarkPipelineOverheadPerSection is the pipeline's own cost per
// section: store reads and writes, events, the VFS, the solvers' and the
// aggregator's work, with a model that answers at once.
func BenchmarkPipelineOverheadPerSection(b *testing.B) {
	const leaves = 16
	ctx := context.Background()
	f := newFixture(b, leaves)
	b.ResetTimer()
	for i := range b.N {
		f.run(b, ctx, fmt.Sprintf("b-%d", i))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*leaves), "ns/section")
}

// TEMPLATE_WS_BROADCAST_TASKS=false keeps the tasks out of plan.completed;
// the plan is recorded all the same.
func TestBroadcastTasksOff(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 3)
	set := pipeline.DefaultSettings()
	set.RequireConfirm, set.BroadcastTasks = false, false
	f.p = pipeline.New(pipeline.Deps{Store: f.store, Log: f.log, Blobs: f.blobs, Model: f.model, Settings: set, Backends: f.backends})
	if err := f.store.CreateSession(ctx, report.Session{ID: "q", TeacherID: "t-001", Status: report.StatusPlanning, Run: 1,
		Message: report.Message{Question: "write it", TemplateName: "Bench"}}); err != nil {
		t.Fatal(err)
	}
	out, err := f.p.Plan(ctx, pipeline.RunInput{SessionID: "q", TeacherID: "t-001", Run: 1})
	if err != nil || out.Confirm || out.Tasks != 3 {
		t.Fatalf("plan %+v %v", out, err)
	}
	evs := envelopes(t, f, "q")
	if env := evs[len(evs)-1]; env.Event != "plan.completed" || strings.Contains(string(env.Content), `"tasks"`) {
		t.Fatalf("plan.completed %+v", env)
	}
	if s, _ := f.store.GetSession(ctx, "q"); len(s.Tasks) != 3 || s.Status != report.StatusSolving {
		t.Fatalf("session %+v", s)
	}
}
