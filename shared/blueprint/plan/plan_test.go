package plan_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/blueprint/plan"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/boltstore/bolttest"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/datatools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// scripted answers the planner's calls in turn.
type scripted struct {
	mu      sync.Mutex
	answers []string
	calls   []llm.Request
}

func (s *scripted) Stream(_ context.Context, req llm.Request, _ llm.Handler) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, req)
	a := s.answers[min(len(s.calls), len(s.answers))-1]
	return llm.Response{Message: llm.Message{Role: "assistant", Content: a}}, nil
}

func analysisJSON(t *testing.T, mention string) string {
	t.Helper()
	b, err := json.Marshal(blueprinttest.Analysis(mention))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newPlanner(t *testing.T, m plan.Model) (*plan.Planner, *boltstore.SessionStore) {
	t.Helper()
	hs := httptest.NewServer(mockserver.New(mockdata.Default(), mockserver.Options{}))
	t.Cleanup(hs.Close)
	cfg := javaapi.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.FallbackToMock = hs.URL, "x", false
	c, err := javaapi.New(cfg, javaapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := bolttest.Open(t)
	return plan.New(m, tools.NewRegistry(datatools.New(c, nil)...), db.Sessions(), plan.Options{NewID: func() string { return "bp-1" }}), db.Sessions()
}

func TestPlanResolvesTheClass(t *testing.T) {
	m := &scripted{answers: []string{"```json\n" + analysisJSON(t, "1A") + "\n```"}}
	p, _ := newPlanner(t, m)
	res, err := p.Plan(context.Background(), plan.Request{Message: "分析 1A 班英语成绩", TeacherID: "t-001", Language: "zh-CN"})
	if err != nil {
		t.Fatal(err)
	}
	in := res.Blueprint.DataContract.Inputs[0]
	if in.Value != "class-hk-f1a" || res.Blueprint.ID != "bp-1" || res.Blueprint.SourcePrompt != "分析 1A 班英语成绩" {
		t.Errorf("blueprint %+v input %+v", res.Blueprint.ID, in)
	}
	want := blueprint.ResolvedEntity{EntityType: "class", Mention: "1A", EntityID: "class-hk-f1a", DisplayName: "Form 1A · English", InputID: "class"}
	if len(res.Resolved) != 1 || res.Resolved[0] != want {
		t.Errorf("resolved %+v", res.Resolved)
	}
	req := m.calls[0]
	if !req.JSON || !strings.HasPrefix(req.Messages[0].Content, prompts.PlannerHeader) || !strings.Contains(req.Messages[0].Content, "- get_assignment_submissions:") {
		t.Errorf("planner request %+v", req.Messages[0].Content[:80])
	}
}

func TestPlanCorrectsOnce(t *testing.T) {
	bad := strings.Replace(analysisJSON(t, "1A"), `"kpi_grid"`, `"pie_grid"`, 1)
	m := &scripted{answers: []string{bad, analysisJSON(t, "1A")}}
	p, _ := newPlanner(t, m)
	if _, err := p.Plan(context.Background(), plan.Request{Message: "analyse 1A", TeacherID: "t-001"}); err != nil {
		t.Fatal(err)
	}
	if len(m.calls) != 2 || !strings.Contains(m.calls[1].Messages[3].Content, `unknown component type "pie_grid"`) {
		t.Errorf("the correction must quote the problem: %+v", m.calls[len(m.calls)-1].Messages)
	}
	m2 := &scripted{answers: []string{bad}}
	p2, _ := newPlanner(t, m2)
	_, err := p2.Plan(context.Background(), plan.Request{Message: "analyse 1A", TeacherID: "t-001"})
	if apperr.CodeOf(err) != apperr.BlueprintError || len(m2.calls) != 2 {
		t.Errorf("two bad answers: %v after %d calls", err, len(m2.calls))
	}
}

func TestContextOverridesAndUnknownClass(t *testing.T) {
	p, _ := newPlanner(t, &scripted{answers: []string{analysisJSON(t, "1X")}})
	res, err := p.Plan(context.Background(), plan.Request{Message: "analyse 1X", TeacherID: "t-001",
		Context: map[string]any{"classId": "class-hk-f1b"}})
	if err != nil || res.Blueprint.DataContract.Inputs[0].Value != "class-hk-f1b" {
		t.Fatalf("the client's choice wins: %v %+v", err, res.Resolved)
	}
	_, err = p.Plan(context.Background(), plan.Request{Message: "analyse 1X", TeacherID: "t-001"})
	var nf javaapi.NotFound
	if ae := apperr.As(err); ae.Code != apperr.EntityNotFound {
		t.Fatalf("unknown class: %v", err)
	} else {
		nf, _ = ae.Details.(javaapi.NotFound)
	}
	if nf.Mention != "1X" || len(nf.Suggestions) == 0 {
		t.Errorf("suggestions %+v", nf)
	}
}

func TestPlanBuildStep(t *testing.T) {
	p, records := newPlanner(t, &scripted{answers: []string{analysisJSON(t, "1A")}})
	ctx := context.Background()
	turn := workflow.Turn{SessionID: "conv-1", TurnID: "turn-1", TeacherID: "t-001", Message: "分析 1A 班英语成绩"}
	out, err := p.PlanBuild(ctx, workflow.PlanInput{Phase: "plan", Turn: turn})
	if err != nil || out.Status != workflow.PlanPlanned {
		t.Fatalf("%+v %v", out, err)
	}
	raw, err := records.GetRecord(ctx, "conv-1", workflow.PlanKey("turn-1"))
	if err != nil {
		t.Fatal(err)
	}
	var rec workflow.PlanRecord
	_ = json.Unmarshal(raw, &rec)
	if !strings.Contains(rec.Notice, "Form 1A · English") || !strings.Contains(string(rec.ResolvedEntities), "class-hk-f1a") {
		t.Errorf("record %s", raw)
	}
	if _, err := blueprint.Parse(rec.Blueprint); err != nil {
		t.Errorf("stored blueprint: %v", err)
	}

	p2, _ := newPlanner(t, &scripted{answers: []string{analysisJSON(t, "1X")}})
	turn.Message, turn.TurnID = "analyse 1X", "turn-2"
	out, err = p2.PlanBuild(ctx, workflow.PlanInput{Turn: turn})
	if err != nil || out.Status != workflow.PlanClarify || out.Clarify == nil || len(out.Clarify.Options) == 0 || out.Code != "ENTITY_NOT_FOUND" {
		t.Fatalf("an unknown class asks back: %+v %v", out, err)
	}
	p3, _ := newPlanner(t, &scripted{answers: []string{"not json"}})
	out, err = p3.PlanBuild(ctx, workflow.PlanInput{Turn: turn})
	if err != nil || out.Status != workflow.PlanFailed || out.Code != "BLUEPRINT_ERROR" {
		t.Fatalf("no blueprint: %+v %v", out, err)
	}
}

// A class that does not teach the subject asked about is used as it is,
// and the plan says so: in its notice and as a SUBSTITUTED data-notice.
// The subject it does teach, or none named, plans without a notice.
func TestPlanSaysASubjectSubstitution(t *testing.T) {
	cases := []struct {
		subject string
		notice  bool
	}{{"Mathematics", true}, {"physics", false}, {"", false}}
	for _, c := range cases {
		t.Run(c.subject, func(t *testing.T) {
			bp := blueprinttest.Analysis("3C")
			bp.DataContract.Inputs[0].Subject = c.subject
			raw, _ := json.Marshal(bp)
			p, _ := newPlanner(t, &scripted{answers: []string{string(raw)}})
			res, err := p.Plan(context.Background(), plan.Request{Message: "分析 3C 班数学成绩", TeacherID: "t-001", Language: "zh-CN"})
			if err != nil {
				t.Fatal(err)
			}
			if !c.notice {
				if len(res.Notices) != 0 {
					t.Errorf("notices %+v", res.Notices)
				}
				return
			}
			if len(res.Notices) != 1 || res.Notices[0].Code != protocol.NoticeSubstituted ||
				res.Notices[0].Message != "Form 3C 没有数学科的成绩，页面分析的是该班的物理成绩。" {
				t.Errorf("notices %+v", res.Notices)
			}
		})
	}
}

// TestPlanTellsThePlannerThePick: after an unknown class is asked back,
// the planner of the teacher's pick is told the class picked (id and name),
// so that it names the page after it, while the request stays the one
// asked back about.
func TestPlanTellsThePlannerThePick(t *testing.T) {
	m := &scripted{answers: []string{analysisJSON(t, "9Z"), analysisJSON(t, "1A")}}
	p, _ := newPlanner(t, m)
	ctx := context.Background()
	turn := workflow.Turn{SessionID: "conv-1", TurnID: "turn-1", TeacherID: "t-001", Message: "分析 9Z 班英语成绩", Language: "zh-CN"}
	out, err := p.PlanBuild(ctx, workflow.PlanInput{Turn: turn})
	if err != nil || out.Status != workflow.PlanClarify {
		t.Fatalf("an unknown class asks back: %+v %v", out, err)
	}
	turn.TurnID, turn.Message = "turn-2", "class-hk-f1a"
	if out, err := p.PlanBuild(ctx, workflow.PlanInput{Turn: turn}); err != nil || out.Status != workflow.PlanPlanned {
		t.Fatalf("the pick: %+v %v", out, err)
	}
	last := m.calls[len(m.calls)-1].Messages
	var note string
	for _, msg := range last {
		if msg.Role == llm.RoleSystem && strings.HasPrefix(msg.Content, prompts.PlannerPickedHeader) {
			note = msg.Content
		}
	}
	if !strings.Contains(note, "classId: class-hk-f1a (Form 1A · English)") {
		t.Errorf("the planner is not told the pick: %q", note)
	}
	if user := last[len(last)-1]; user.Content != "分析 9Z 班英语成绩" {
		t.Errorf("the planner plans %q, want the request asked back about", user.Content)
	}
}
