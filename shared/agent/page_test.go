package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// On a follow-up the router is shown the page and told about refine and
// rebuild; its choice goes down the plan step's path. Without a page, a
// refine or a rebuild is a request for a page.
func TestRouteFollowUp(t *testing.T) {
	cases := []struct {
		name, answer        string
		followup, blueprint bool
		path, intent        string
	}{
		{"refine", `{"intent":"refine","expectedMode":"artifact"}`, true, true, workflow.PathBuild, "refine"},
		{"rebuild", `{"intent":"rebuild","expectedMode":"artifact"}`, true, true, workflow.PathBuild, "rebuild"},
		{"a question about the page", `{"intent":"chat_qa"}`, true, true, workflow.PathChat, "chat_qa"},
		{"refine without a page", `{"intent":"refine"}`, false, false, workflow.PathBuild, "build_workflow"},
		{"refine with only a pageContext", `{"intent":"refine"}`, true, false, workflow.PathBuild, "build_workflow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &scriptedModel{replies: []modelReply{{content: c.answer}}}
			f := newFixture(t, m)
			ctx := context.Background()
			turn := f.turn
			if c.followup {
				pc := &workflow.PageContext{DataSummary: "均分 72%"}
				pc.Meta.PageTitle = "1A 班英语成绩分析"
				page := workflow.PageRecord{PageContext: pc}
				if c.blueprint {
					page.Blueprint, _ = json.Marshal(blueprinttest.Analysis("class-hk-f1a"))
				}
				rec, _ := json.Marshal(page)
				if err := f.store.PutRecord(ctx, turn.SessionID, workflow.PageKey(turn.TurnID), rec); err != nil {
					t.Fatal(err)
				}
				turn.Followup = true
			}
			out, err := f.agent.Route(ctx, workflow.RouteInput{Turn: turn})
			if err != nil || out.Path != c.path || string(out.Result.Intent) != c.intent {
				t.Fatalf("path %q intent %q (%v), want %q %q", out.Path, out.Result.Intent, err, c.path, c.intent)
			}
			msgs := m.requests[0].Messages
			prompt, page := msgs[0].Content, ""
			for _, msg := range msgs {
				if strings.HasPrefix(msg.Content, prompts.PageHeader) {
					page = msg.Content
				}
			}
			if c.blueprint != strings.Contains(prompt, "- refine:") || c.followup != (page != "") {
				t.Fatalf("follow-up %v: prompt mentions refine %v, page %q", c.followup, strings.Contains(prompt, "- refine:"), page)
			}
			if c.followup && (!strings.Contains(page, "1A 班英语成绩分析") || !strings.Contains(page, "均分 72%") ||
				c.blueprint != strings.Contains(page, "- summary (markdown): 分析总结")) {
				t.Errorf("page note %q", page)
			}
			tools := strings.Index(prompt, "Available generation tools:")
			if tools < 0 || strings.Index(prompt, "- refine:") > tools || !strings.Contains(prompt[tools:], "- generate_pptx: Make a slide deck.") {
				t.Errorf("the tool list must end the router prompt:\n%s", prompt)
			}
		})
	}
}
