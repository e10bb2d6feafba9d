package plan_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// followUpTurn stores a follow-up's page as the edge does and returns the turn.
func followUpTurn(t *testing.T, records *boltstore.SessionStore, id, message string) workflow.Turn {
	t.Helper()
	bp, _ := json.Marshal(blueprinttest.Analysis("class-hk-f1a"))
	rec, _ := json.Marshal(workflow.PageRecord{Blueprint: bp})
	if err := records.PutRecord(context.Background(), "conv-1", workflow.PageKey(id), rec); err != nil {
		t.Fatal(err)
	}
	return workflow.Turn{SessionID: "conv-1", TurnID: id, TeacherID: "t-001", Message: message, Followup: true}
}

func planRecord(t *testing.T, records *boltstore.SessionStore, turnID string) workflow.PlanRecord {
	t.Helper()
	raw, err := records.GetRecord(context.Background(), "conv-1", workflow.PlanKey(turnID))
	if err != nil {
		t.Fatal(err)
	}
	var rec workflow.PlanRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func route(intent workflow.Intent) workflow.RouteOutput {
	return workflow.RouteOutput{Path: workflow.PathBuild, Result: workflow.RouterResult{Intent: intent}}
}

// A refine is the editor's PatchPlan, checked against the page's blueprint:
// a plan naming a block the page does not have is sent back once with the
// problem, and the corrected one is kept with the page's own blueprint.
func TestRefineCorrectsThePlanOnce(t *testing.T) {
	bad := `{"scope":"patch","instructions":[{"op":"recompose","blockId":"nosuch","prompt":"shorter"}]}`
	good := `{"scope":"patch","instructions":[{"op":"recompose","blockId":"summary","prompt":"shorter"}]}`
	m := &scripted{answers: []string{bad, good}}
	p, records := newPlanner(t, m)
	turn := followUpTurn(t, records, "turn-1", "把分析总结改得更简短")
	out, err := p.PlanBuild(context.Background(), workflow.PlanInput{Turn: turn, Route: route(workflow.IntentRefine)})
	if err != nil || out.Status != workflow.PlanPlanned || out.Action != workflow.PlanActionRefine {
		t.Fatalf("%+v %v", out, err)
	}
	if len(m.calls) != 2 || !strings.HasPrefix(m.calls[0].Messages[0].Content, prompts.EditorHeader) ||
		!strings.Contains(m.calls[1].Messages[len(m.calls[1].Messages)-1].Content, "nosuch") {
		t.Fatalf("the editor was not asked once more with the problem: %d calls", len(m.calls))
	}
	rec := planRecord(t, records, "turn-1")
	var plan blueprint.PatchPlan
	_ = json.Unmarshal(rec.PatchPlan, &plan)
	bp, err := blueprint.Parse(rec.Blueprint)
	if err != nil || bp.ID != "bp-test-analysis" || blueprint.ValidatePatch(plan, bp) != nil || plan.Instructions[0].BlockID != "summary" {
		t.Errorf("record %s", rec.PatchPlan)
	}
	if !strings.Contains(rec.Notice, "分析总结") {
		t.Errorf("notice %q", rec.Notice)
	}

	// Two bad answers: the turn fails with BLUEPRINT_ERROR, no plan kept.
	p2, records2 := newPlanner(t, &scripted{answers: []string{bad}})
	turn2 := followUpTurn(t, records2, "turn-2", "把分析总结改得更简短")
	out, err = p2.PlanBuild(context.Background(), workflow.PlanInput{Turn: turn2, Route: route(workflow.IntentRefine)})
	if err != nil || out.Status != workflow.PlanFailed || out.Code != string(apperr.BlueprintError) {
		t.Fatalf("%+v %v", out, err)
	}
}

// A structural change the editor recognises (scope rebuild) is planned as
// a revision of the page's blueprint: the planner is given it, and the
// result is the next version, checked like any blueprint.
func TestRefineBecomesARebuild(t *testing.T) {
	revised := blueprinttest.Analysis("class-hk-f1a")
	revised.UIComposition.Tabs[1].Blocks = append(revised.UIComposition.Tabs[1].Blocks, blueprint.Block{
		ID: "assignmentChart", ComponentType: blueprint.Chart, Variant: "bar", Title: "各作业对比", DataBinding: "byAssignment"})
	raw, _ := json.Marshal(revised)
	m := &scripted{answers: []string{`{"scope":"rebuild","instructions":[]}`, string(raw)}}
	p, records := newPlanner(t, m)
	turn := followUpTurn(t, records, "turn-1", "加一个按作业的对比图")
	out, err := p.PlanBuild(context.Background(), workflow.PlanInput{Turn: turn, Route: route(workflow.IntentRefine)})
	if err != nil || out.Status != workflow.PlanPlanned || out.Action != workflow.PlanActionRebuild {
		t.Fatalf("%+v %v", out, err)
	}
	planner := m.calls[1]
	if !strings.HasPrefix(planner.Messages[0].Content, prompts.PlannerHeader) || !strings.HasPrefix(planner.Messages[1].Content, prompts.CurrentBlueprintHeader) ||
		!strings.Contains(planner.Messages[1].Content, `"bp-test-analysis"`) {
		t.Fatalf("the planner was not given the current blueprint: %+v", planner.Messages[:2])
	}
	rec := planRecord(t, records, "turn-1")
	bp, err := blueprint.Parse(rec.Blueprint)
	if err != nil || bp.Version != 2 || bp.SourcePrompt != "分析 1A 班英语成绩" || len(rec.PatchPlan) != 0 {
		t.Errorf("revised %+v %v", bp, err)
	}
	if _, ok := bp.Block("assignmentChart"); !ok || !strings.Contains(rec.Notice, "各作业对比") {
		t.Errorf("notice %q", rec.Notice)
	}
}

// refine and rebuild need a page: without the follow-up flag the plan
// step plans a new page.
func TestRebuildWithoutAPageIsABuild(t *testing.T) {
	p, _ := newPlanner(t, &scripted{answers: []string{analysisJSON(t, "1A")}})
	turn := workflow.Turn{SessionID: "conv-1", TurnID: "turn-1", TeacherID: "t-001", Message: "分析 1A 班英语成绩"}
	out, err := p.PlanBuild(context.Background(), workflow.PlanInput{Turn: turn, Route: route(workflow.IntentRebuild)})
	if err != nil || out.Status != workflow.PlanPlanned || out.Action != workflow.PlanActionBuild {
		t.Fatalf("%+v %v", out, err)
	}
}

// A patch plan equal to the page is never announced as applied: the editor
// is told once what its plan leaves as it is; a second no-op tells the
// teacher plainly that nothing changed, and no plan is kept. A plan with a
// real change besides keeps only that change.
func TestRefineThatChangesNothing(t *testing.T) {
	noop := `{"scope":"patch","instructions":[{"op":"restyle","blockId":"skills","variant":"radar"}]}`
	mixed := `{"scope":"patch","instructions":[{"op":"restyle","blockId":"skills","variant":"radar"},{"op":"restyle","blockId":"distribution","variant":"line"}]}`
	real := `{"scope":"patch","instructions":[{"op":"restyle","blockId":"skills","variant":"bar"}]}`
	cases := []struct {
		name    string
		answers []string
		status  string
		blocks  []string // the blocks of the kept plan
	}{
		{"corrected after the feedback", []string{noop, real}, workflow.PlanPlanned, []string{"skills"}},
		{"a no-op twice", []string{noop, noop}, workflow.PlanFailed, nil},
		{"the no-op part dropped", []string{mixed, mixed}, workflow.PlanPlanned, []string{"distribution"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &scripted{answers: c.answers}
			p, records := newPlanner(t, m)
			turn := followUpTurn(t, records, "turn-1", "把雷达图换成柱状图")
			out, err := p.PlanBuild(context.Background(), workflow.PlanInput{Turn: turn, Route: route(workflow.IntentRefine)})
			if err != nil || out.Status != c.status {
				t.Fatalf("%+v %v", out, err)
			}
			if len(m.calls) != 2 || !strings.Contains(m.calls[1].Messages[len(m.calls[1].Messages)-1].Content, "change nothing") {
				t.Fatalf("the editor was not told its plan changes nothing: %d calls", len(m.calls))
			}
			if c.status == workflow.PlanFailed {
				if out.Code != string(apperr.BlueprintError) || !strings.Contains(out.Message, "页面没有改动") || !strings.Contains(out.Message, "技能表现") {
					t.Errorf("the teacher reads %q", out.Message)
				}
				if _, err := records.GetRecord(context.Background(), "conv-1", workflow.PlanKey("turn-1")); err == nil {
					t.Error("a plan was kept for a refine that changes nothing")
				}
				return
			}
			var plan blueprint.PatchPlan
			_ = json.Unmarshal(planRecord(t, records, "turn-1").PatchPlan, &plan)
			var got []string
			for _, in := range plan.Instructions {
				got = append(got, in.BlockID)
			}
			if strings.Join(got, ",") != strings.Join(c.blocks, ",") {
				t.Errorf("kept plan %+v, want blocks %v", plan, c.blocks)
			}
		})
	}
}
