package pipeline_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/workflow"
)

// TestMessagesInTheSessionLanguage: what the template agent itself writes
// to the teacher (the planner's notes, the plan's summary and objectives,
// the confirmation, the declined / timed-out / failed closing words) is
// the catalogue's text in the session's language: English for an English
// session, Chinese for a Chinese one, never both.
func TestMessagesInTheSessionLanguage(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, question string
		lang           i18n.Lang
	}{
		{"english", "Write the term summary for Form 1A", i18n.English},
		{"chinese", "请为一年级 A 班写学期总结", i18n.Chinese},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 3)
			// The language is decided from the question: no tag is given.
			newSession := func(sid string) {
				t.Helper()
				if err := f.store.CreateSession(ctx, report.Session{ID: sid, TeacherID: "t-001", Status: report.StatusPlanning, Run: 1,
					Message: report.Message{Question: tc.question, TemplateName: "Bench", KnowledgeBaseName: "KB"}}); err != nil {
					t.Fatal(err)
				}
				if _, err := f.p.Plan(ctx, pipeline.RunInput{SessionID: sid, TeacherID: "t-001", Run: 1}); err != nil {
					t.Fatal(err)
				}
			}
			texts := map[string]string{} // what the teacher reads → its catalogue text
			newSession("plan")
			if _, err := f.p.Confirm(ctx, pipeline.ConfirmInput{SessionID: "plan", Run: 1, Token: "tok-1"}); err != nil {
				t.Fatal(err)
			}
			for _, env := range envelopes(t, f, "plan") {
				switch env.Event {
				case "agent.tool_result":
					var r struct{ System string }
					_ = json.Unmarshal(env.Content, &r)
					if r.System != "" {
						texts["planner note"] = r.System
					}
				case "plan.completed":
					var p report.PlanCompleted
					_ = json.Unmarshal(env.Content, &p)
					texts["objective"] = p.Tasks[0].Objective
				case "agent.user_confirm":
					var c report.UserConfirm
					_ = json.Unmarshal(env.Content, &c)
					texts["confirmation"] = c.Message
				}
			}
			want := map[string]string{
				"planner note": tc.lang.Text(i18n.ReportIgnoredIDs, []int{99}, 3),
				"objective":    tc.lang.Text(i18n.ReportObjective, "Section 1", "Part 1 › Section 1"),
				"confirmation": tc.lang.Text(i18n.ReportConfirm, 3, "plan"), // the planner's own summary
			}
			for _, in := range []pipeline.FinishInput{
				{Reason: pipeline.ReasonDeclined},
				{Reason: pipeline.ReasonTimeout},
				{Reason: pipeline.ReasonFailed, Error: &workflow.ErrorInfo{Error: "States.Timeout", Cause: "States.Timeout"}},
			} {
				sid := "finish-" + in.Reason
				newSession(sid)
				in.SessionID, in.Run = sid, 1
				if _, err := f.p.Finish(ctx, in); err != nil {
					t.Fatal(err)
				}
				evs := envelopes(t, f, sid)
				// agent.final_answer or agent.error, then pipeline.completed:
				// either way the content is the text.
				var msg string
				_ = json.Unmarshal(evs[len(evs)-2].Content, &msg)
				texts["finish "+in.Reason] = msg
			}
			want["finish "+pipeline.ReasonDeclined] = tc.lang.Text(i18n.ReportDeclined)
			want["finish "+pipeline.ReasonTimeout] = tc.lang.Text(i18n.ReportConfirmTimeout, pipeline.DefaultSettings().ConfirmTimeout)
			want["finish "+pipeline.ReasonFailed] = tc.lang.Text(i18n.ReportAgentError, "States.Timeout")
			for what, w := range want {
				got := texts[what]
				if got != w {
					t.Errorf("%s = %q, want %q", what, got, w)
				}
				// One language: Chinese has Han characters; English has none.
				if han := i18n.HasHan(got); han != (tc.lang == i18n.Chinese) {
					t.Errorf("%s %q is not in the session's language", what, got)
				}
			}
		})
	}
}

func envelopes(t *testing.T, f fixture, sid string) []report.Envelope {
	t.Helper()
	evs, err := f.log.Read(context.Background(), report.StreamName(sid), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]report.Envelope, len(evs))
	for i, ev := range evs {
		if err := json.Unmarshal(ev.Data, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
