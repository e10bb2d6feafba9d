package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Issue 30: the template report's stream details.

func TestTables(t *testing.T) {
	tests := []struct {
		name, md string
		want     []report.Table
	}{
		{"none", "Just text.\n\n- a list", nil},
		{"one, inline marks dropped", "Intro.\n\n| Class | Mean |\n| --- | ---: |\n| 1A | **72.5** |\n| 1B | 68 |\n\nAfter.",
			[]report.Table{{Headers: []string{"Class", "Mean"}, Rows: [][]string{{"1A", "72.5"}, {"1B", "68"}}}}},
		{"two, under headings", "## A\n\n| x |\n| - |\n| 1 |\n\n## B\n\n| y | z |\n| - | - |\n| a \\| b | c |",
			[]report.Table{{Headers: []string{"x"}, Rows: [][]string{{"1"}}}, {Headers: []string{"y", "z"}, Rows: [][]string{{"a | b", "c"}}}}},
		{"header only", "| only |\n| --- |", []report.Table{{Headers: []string{"only"}, Rows: [][]string{}}}},
		{"not a table without its delimiter row", "| a | b |\n| 1 | 2 |", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pipeline.Tables(tt.md); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Tables = %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestSectionCarriesItsTables: the section whose solver wrote a Markdown
// table carries it, parsed, in aggregate.completed; the others carry none.
func TestSectionCarriesItsTables(t *testing.T) {
	f := newFixture(t, 3)
	f.run(t, context.Background(), "tables")
	var agg report.AggregateCompleted
	for _, env := range envelopes(t, f, "tables") {
		if env.Event == "aggregate.completed" {
			if err := json.Unmarshal(env.Content, &agg); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(agg.Output.Sections) != 3 {
		t.Fatalf("sections %+v", agg.Output.Sections)
	}
	for _, sec := range agg.Output.Sections {
		want := []report.Table(nil)
		if sec.ID == 2 {
			want = []report.Table{{Headers: []string{"Class", "Mean"}, Rows: [][]string{{"1A", "72.5"}, {"1B", "68"}}}}
		}
		if !reflect.DeepEqual(sec.Tables, want) {
			t.Errorf("section %d tables %+v, want %+v", sec.ID, sec.Tables, want)
		}
	}
}

// TestCancelBeforeStartIsPaired: a task cancelled between its round and
// its start gets solver.start, then solver.completed {status: cancelled}:
// no solver.completed without its solver.start.
func TestCancelBeforeStartIsPaired(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 2)
	const sid = "cancel-early"
	if err := f.store.CreateSession(ctx, report.Session{ID: sid, TeacherID: "t-001", Status: report.StatusPlanning, Run: 1,
		Message: report.Message{Question: "write it", TemplateName: "Bench", KnowledgeBaseName: "KB"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.p.Plan(ctx, pipeline.RunInput{SessionID: sid, TeacherID: "t-001", Run: 1}); err != nil {
		t.Fatal(err)
	}
	r, err := f.p.NextRound(ctx, pipeline.RoundInput{SessionID: sid, Run: 1})
	if err != nil || len(r.TaskIDs) != 2 {
		t.Fatalf("round %+v %v", r, err)
	}
	if _, err := f.store.UpdateSession(ctx, sid, func(s *report.Session) error {
		s.TaskState[1] = report.TaskCancelled
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, id := range r.TaskIDs {
		if _, err := f.p.Solve(ctx, pipeline.SolveInput{SessionID: sid, Run: 1, TaskID: id}); err != nil {
			t.Fatal(err)
		}
	}
	evs := envelopes(t, f, sid)
	checkPaired(t, evs)
	var statuses []string
	for _, env := range evs {
		if env.Event == "solver.completed" {
			var c report.SolverCompleted
			_ = json.Unmarshal(env.Content, &c)
			statuses = append(statuses, c.Status)
		}
	}
	if !reflect.DeepEqual(statuses, []string{"cancelled", "completed"}) {
		t.Fatalf("solver.completed statuses %v", statuses)
	}
}

// checkPaired holds the pairing rule of docs/template-report.md: every
// solver.completed follows a solver.start of its task with no
// solver.completed of that task between them.
func checkPaired(t *testing.T, evs []report.Envelope) {
	t.Helper()
	open := map[int]bool{}
	for _, env := range evs {
		var c struct{ ID int }
		_ = json.Unmarshal(env.Content, &c)
		switch env.Event {
		case "solver.start":
			open[c.ID] = true
		case "solver.completed":
			if !open[c.ID] {
				t.Fatalf("solver.completed of task %d without its solver.start", c.ID)
			}
			open[c.ID] = false
		}
	}
}

// TestFailingBackendEndsWithSystemError: a run whose template backend is
// down, or that fails inside, ends with system.error and a stable code in
// metadata; a failure of the request stays agent.error.
func TestFailingBackendEndsWithSystemError(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 2)
	if err := f.store.CreateSession(ctx, report.Session{ID: "down", TeacherID: "t-001", Status: report.StatusPlanning, Run: 1,
		Message: report.Message{Question: "write it", TemplateName: "Down", KnowledgeBaseName: "KB"}}); err != nil {
		t.Fatal(err)
	}
	_, err := f.p.Plan(ctx, pipeline.RunInput{SessionID: "down", TeacherID: "t-001", Run: 1})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.ServiceUnavailable {
		t.Fatalf("plan error %v, want SERVICE_UNAVAILABLE", err)
	}
	// The workflow hands the step's error to Finish as Lambda reports it.
	finish := func(sid string, info *workflow.ErrorInfo) report.Envelope {
		t.Helper()
		if sid != "down" {
			if err := f.store.CreateSession(ctx, report.Session{ID: sid, TeacherID: "t", Run: 1, Status: report.StatusSolving, Language: "en"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.p.Finish(ctx, pipeline.FinishInput{SessionID: sid, Run: 1, Reason: pipeline.ReasonFailed, Error: info}); err != nil {
			t.Fatal(err)
		}
		evs := envelopes(t, f, sid)
		n := len(evs)
		switch {
		case n >= 2 && evs[n-1].Event == "system.error" && evs[n-2].Event == "pipeline.completed":
			return evs[n-1] // the run ends, and its last event says the system failed
		case n >= 2 && evs[n-1].Event == "pipeline.completed":
			return evs[n-2] // agent.error, then the run's end, as before
		}
		t.Fatalf("%s: the run does not end with its error and pipeline.completed: %+v", sid, evs)
		return report.Envelope{}
	}
	for _, tc := range []struct {
		sid      string
		info     *workflow.ErrorInfo
		event    string
		code     string
		contains string
	}{
		{"down", &workflow.ErrorInfo{Error: string(ae.Code), Cause: ae.Error()}, "system.error", "SERVICE_UNAVAILABLE", "the template backend failed on Down"},
		{"crash", &workflow.ErrorInfo{Error: "runtime.Error", Cause: "invalid memory address at 0xdeadbeef"}, "system.error", "INTERNAL_ERROR", "System error: "},
		{"no-template", &workflow.ErrorInfo{Error: "ENTITY_NOT_FOUND", Cause: "ENTITY_NOT_FOUND: no template is named \"x\""}, "agent.error", "ENTITY_NOT_FOUND", "no template"},
	} {
		env := finish(tc.sid, tc.info)
		var msg string
		_ = json.Unmarshal(env.Content, &msg)
		var meta struct{ Code string }
		_ = json.Unmarshal(env.Metadata, &meta)
		if env.Event != tc.event || meta.Code != tc.code || !strings.Contains(msg, tc.contains) {
			t.Errorf("%s: last event %s %q %s, want %s with code %s", tc.sid, env.Event, msg, env.Metadata, tc.event, tc.code)
		}
		if strings.Contains(msg, "0xdeadbeef") {
			t.Errorf("%s: the internal cause reached the client: %q", tc.sid, msg)
		}
	}
}
