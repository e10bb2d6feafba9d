package offlinemodel

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// pageMessage is the page section the product shows the router on a
// follow-up (agent.PageNote).
func pageMessage() openai.ChatCompletionMessage {
	var b strings.Builder
	b.WriteString(prompts.PageHeader + "\nTitle: 1A 班英语成绩分析\nData summary: 平均得分率 72%\nBlocks:\n")
	for _, bl := range blueprinttest.Analysis("class-hk-f1a").Blocks() {
		b.WriteString("- " + bl.ID + " (" + bl.ComponentType + "): " + bl.Title + "\n")
	}
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: b.String()}
}

func TestRouterFollowUps(t *testing.T) {
	tests := []struct {
		msg    string
		intent workflow.Intent
	}{
		{"把分析总结改得更简短", workflow.IntentRefine},
		{"把得分率分布换成饼图", workflow.IntentRefine},
		{"Make the summary shorter", workflow.IntentRefine},
		{"教学建议写得具体一点，不要太长", workflow.IntentRefine},
		{"加一个按作业的对比图", workflow.IntentRebuild},
		{"Add a chart by skill", workflow.IntentRebuild},
		{"删掉学生排名", workflow.IntentRebuild},
		{"这个页面的数据可靠吗？", workflow.IntentQA},
		{"分析 1B 班数学成绩", workflow.IntentBuild},
		{"谢谢", workflow.IntentSmalltalk},
	}
	_, c := start(t, Options{})
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			req := routerRequest(tt.msg)
			req.Messages[0].Content += prompts.RouterFollowup
			req.Messages = slices.Insert(req.Messages, 1, pageMessage())
			if res := routed(t, complete(t, c, req, false).content); res.Intent != tt.intent {
				t.Fatalf("intent %q, want %q", res.Intent, tt.intent)
			}
		})
	}
	// Without a page, or when the prompt does not offer refine and rebuild
	// (no blueprint was sent), the same words are no follow-up.
	noPage := routerRequest("把分析总结改得更简短")
	notOffered := routerRequest("把分析总结改得更简短")
	notOffered.Messages = slices.Insert(notOffered.Messages, 1, pageMessage())
	for _, req := range []openai.ChatCompletionRequest{noPage, notOffered} {
		if res := routed(t, complete(t, c, req, false).content); res.Intent == workflow.IntentRefine || res.Intent == workflow.IntentRebuild {
			t.Errorf("a refine without a page to refine: %q", res.Intent)
		}
	}
}

func TestEditor(t *testing.T) {
	bp := blueprinttest.Analysis("class-hk-f1a")
	type block struct {
		ID            string   `json:"id"`
		ComponentType string   `json:"componentType"`
		Title         string   `json:"title"`
		Variant       string   `json:"variant,omitempty"`
		Slots         []string `json:"slots,omitempty"`
	}
	var blocks []block
	for _, b := range bp.Blocks() {
		bl := block{ID: b.ID, ComponentType: b.ComponentType, Title: b.Title, Variant: b.Variant}
		for _, s := range b.Slots {
			bl.Slots = append(bl.Slots, s.Key)
		}
		blocks = append(blocks, bl)
	}
	tests := []struct {
		request string
		scope   string
		want    []blueprint.PatchInstruction
	}{
		{"把分析总结改得更简短", "patch", []blueprint.PatchInstruction{{Op: "recompose", BlockID: "summary", Prompt: "把分析总结改得更简短"}}},
		{"把得分率分布换成饼图", "patch", []blueprint.PatchInstruction{{Op: "restyle", BlockID: "distribution", Variant: "pie"}}},
		{"make the suggestions more concrete", "patch", []blueprint.PatchInstruction{{Op: "recompose", BlockID: "actions", Prompt: "make the suggestions more concrete"}}},
		{"把技能表现的标题改为「四项技能」", "patch", []blueprint.PatchInstruction{{Op: "restyle", BlockID: "skills", Title: "四项技能"}}},
		// The issue 23 console session: each a real change, never a no-op.
		{"把图表换成柱状图", "patch", []blueprint.PatchInstruction{{Op: "restyle", BlockID: "skills", Variant: "bar"}}},
		{"把雷达图换成柱状图", "patch", []blueprint.PatchInstruction{{Op: "restyle", BlockID: "skills", Variant: "bar"}}},
		{"change the bar chart into a line chart", "patch", []blueprint.PatchInstruction{{Op: "restyle", BlockID: "distribution", Variant: "line"}}},
		{"加一个按学生的对比表", "rebuild", nil},
		{"改一下天气", "rebuild", nil},
	}
	_, c := start(t, Options{})
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			msg, _ := json.Marshal(map[string]any{"request": tt.request, "language": "zh-CN", "page": map[string]any{"title": bp.Name, "blocks": blocks}})
			req := openai.ChatCompletionRequest{Model: "offline-standard", Messages: []openai.ChatCompletionMessage{
				system(prompts.EditorHeader, "edit"), user(string(msg))},
				ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}}
			var plan blueprint.PatchPlan
			content := complete(t, c, req, true).content
			if err := json.Unmarshal([]byte(content), &plan); err != nil || plan.Scope != tt.scope {
				t.Fatalf("plan %s (%v), want scope %s", content, err, tt.scope)
			}
			if tt.scope == "patch" {
				if !slices.Equal(plan.Instructions, tt.want) {
					t.Errorf("instructions %+v, want %+v", plan.Instructions, tt.want)
				}
				if err := blueprint.ValidatePatch(plan, bp); err != nil {
					t.Errorf("the product would refuse it: %v", err)
				}
				if noop := blueprint.Unchanged(plan, bp); len(noop) > 0 {
					t.Errorf("changes nothing: %+v", noop)
				}
			}
		})
	}
}

func TestPlannerRevises(t *testing.T) {
	base := blueprinttest.Analysis("class-hk-f1a")
	cur, _ := json.Marshal(base)
	_, c := start(t, Options{})
	revise := func(t *testing.T, request string) blueprint.Blueprint {
		req := openai.ChatCompletionRequest{Model: "offline-standard", Messages: []openai.ChatCompletionMessage{
			system(prompts.PlannerHeader, "plan"),
			{Role: openai.ChatMessageRoleSystem, Content: prompts.CurrentBlueprintHeader + "\n" + string(cur) + "\n" + prompts.PlannerRevise},
			user(request)}}
		bp, err := blueprint.Parse([]byte(complete(t, c, req, false).content))
		if err != nil {
			t.Fatal(err)
		}
		if err := blueprint.Validate(bp, []string{"get_class_detail", "get_assignment_submissions"}); err != nil {
			t.Fatalf("the product would refuse it: %v", err)
		}
		return bp
	}
	bp := revise(t, "加一个按作业的对比图")
	added, ok := bp.Block("assignmentChart")
	if !ok || added.ComponentType != blueprint.Chart || added.DataBinding != "byAssignment" || len(bp.Blocks()) != len(base.Blocks())+1 {
		t.Errorf("added %+v, %d blocks", added, len(bp.Blocks()))
	}
	bp = revise(t, "Add a chart comparing students")
	if len(bp.Blocks()) != len(base.Blocks())+1 || len(bp.ComputeGraph.Nodes) != len(base.ComputeGraph.Nodes)+1 {
		t.Errorf("a chart by student needs its breakdown: %d nodes", len(bp.ComputeGraph.Nodes))
	}
	bp = revise(t, "删掉学生排名")
	if _, ok := bp.Block("students"); ok || len(bp.Blocks()) != len(base.Blocks())-1 {
		t.Errorf("removed: %d blocks", len(bp.Blocks()))
	}
}
