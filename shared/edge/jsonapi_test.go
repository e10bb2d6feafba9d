package edge

import (
	"encoding/json"
	"testing"

	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// TestResponseTable holds responseOf's one table: each kind of turn has one
// chatKind and one legacyAction (seed 004 §1.3.1), whatever path made it.
func TestResponseTable(t *testing.T) {
	bp := json.RawMessage(`{"id":"bp-1"}`)
	plan := json.RawMessage(`{"scope":"patch","instructions":[]}`)
	cases := []struct {
		name     string
		outcome  session.Outcome
		followup bool
		action   session.Action
		chatKind string // "" for null
		legacy   string
		hasBP    bool
		hasPlan  bool
	}{
		{"smalltalk", session.Outcome{Action: session.ActionChat, Intent: workflow.IntentSmalltalk}, false, "chat", "smalltalk", "chat_smalltalk", false, false},
		{"qa", session.Outcome{Action: session.ActionChat, Intent: workflow.IntentQA}, false, "chat", "qa", "chat_qa", false, false},
		{"data question", session.Outcome{Action: session.ActionChat, Intent: workflow.IntentData}, false, "chat", "qa", "chat_qa", false, false},
		{"router unavailable", session.Outcome{Action: session.ActionChat, Intent: "unknown"}, false, "chat", "qa", "chat_qa", false, false},
		{"quiz", session.Outcome{Action: session.ActionChat, Intent: workflow.IntentQuiz, Artifacts: []string{"quiz:5"}}, false, "chat", "", "chat", false, false},
		{"deck from an unknown intent", session.Outcome{Action: session.ActionChat, Intent: "unknown", Artifacts: []string{"file-ready:pptx"}}, false, "chat", "", "chat", false, false},
		{"content without a file yet", session.Outcome{Action: session.ActionChat, Intent: workflow.IntentContent}, false, "chat", "", "chat", false, false},
		{"question about the page", session.Outcome{Action: session.ActionChat, Intent: workflow.IntentQA}, true, "chat", "page", "chat", false, false},
		{"quiz during a follow-up", session.Outcome{Action: session.ActionChat, Intent: workflow.IntentQuiz, Artifacts: []string{"quiz:3"}}, true, "chat", "", "chat", false, false},
		{"build", session.Outcome{Action: session.ActionBuild, Blueprint: bp}, false, "build", "", "build_workflow", true, false},
		{"refine", session.Outcome{Action: session.ActionRefine, Blueprint: bp, PatchPlan: plan}, true, "refine", "", "refine", true, true},
		{"rebuild", session.Outcome{Action: session.ActionRebuild, Blueprint: bp}, true, "rebuild", "", "rebuild", true, false},
		{"clarify", session.Outcome{Action: session.ActionClarify, Clarify: &session.Clarify{Question: "哪个班？"}}, false, "clarify", "", "clarify", false, false},
		{"no action recorded", session.Outcome{}, false, "chat", "qa", "chat_qa", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := responseOf(session.Turn{SessionID: "conv-1", Outcome: c.outcome}, c.followup)
			kind := ""
			if r.ChatKind != nil {
				kind = *r.ChatKind
			}
			if r.Action != c.action || kind != c.chatKind || r.LegacyAction != c.legacy {
				t.Errorf("action %q chatKind %q legacyAction %q, want %q %q %q", r.Action, kind, r.LegacyAction, c.action, c.chatKind, c.legacy)
			}
			if (string(r.Blueprint) != "null") != c.hasBP || (string(r.PatchPlan) != "null") != c.hasPlan {
				t.Errorf("blueprint %s patchPlan %s", r.Blueprint, r.PatchPlan)
			}
			if want := map[bool]string{false: "entry", true: "followup"}[c.followup]; r.Mode != want {
				t.Errorf("mode %q, want %q", r.Mode, want)
			}
		})
	}
}
