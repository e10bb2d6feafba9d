package offlinemodel

import (
	"slices"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

func TestRouter(t *testing.T) {
	tests := []struct {
		msg    string
		intent workflow.Intent
		mode   string
		tier   string
		tools  []string
	}{
		{"你好", workflow.IntentSmalltalk, workflow.ExpectAnswer, "fast", []string{}},
		{"Thanks!", workflow.IntentSmalltalk, workflow.ExpectAnswer, "fast", []string{}},
		{"什么是光合作用？", workflow.IntentQA, workflow.ExpectAnswer, "standard", []string{}},
		{"Why is the sky blue?", workflow.IntentQA, workflow.ExpectAnswer, "standard", []string{}},
		{"1A 班哪些学生语法最弱？", workflow.IntentData, workflow.ExpectAnswer, "standard", []string{}},
		{"which students in 1A are weakest in grammar?", workflow.IntentData, workflow.ExpectAnswer, "standard", []string{}},
		{"我有哪些班？", workflow.IntentData, workflow.ExpectAnswer, "standard", []string{}},
		{"出 5 道牛顿第一定律的选择题", workflow.IntentQuiz, workflow.ExpectArtifact, "standard", []string{"generate_quiz_questions"}},
		{"Create 3 multiple-choice questions about photosynthesis", workflow.IntentQuiz, workflow.ExpectArtifact, "standard", []string{"generate_quiz_questions"}},
		{"帮我给班上出一份练习", workflow.IntentQuiz, workflow.ExpectArtifact, "standard", []string{"generate_quiz_questions"}},
		{"帮我做一个光合作用的 PPT 课件", workflow.IntentContent, workflow.ExpectArtifact, "strong", []string{"propose_pptx_outline", "generate_pptx"}},
		{"Write a lesson plan on fractions", workflow.IntentContent, workflow.ExpectArtifact, "strong", []string{"generate_docx"}},
		{"Make an interactive web page about the water cycle", workflow.IntentContent, workflow.ExpectArtifact, "strong", []string{"request_interactive_content"}},
		{"分析 1A 班英语成绩", workflow.IntentBuild, workflow.ExpectAnswer, "standard", []string{}},
		{"make a grade analysis of Form 1B", workflow.IntentBuild, workflow.ExpectAnswer, "standard", []string{}},
		{"帮我弄一下", workflow.IntentClarify, workflow.ExpectClarify, "standard", []string{}},
		{"help me with that", workflow.IntentClarify, workflow.ExpectClarify, "standard", []string{}},
	}
	_, c := start(t, Options{})
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			bothModes(t, func(t *testing.T, stream bool) {
				r := complete(t, c, routerRequest(tt.msg), stream)
				res := routed(t, r.content)
				if again := workflow.FormatRouterAnswer(res); again != r.content {
					t.Errorf("router reply %q is not in the router's format %q", r.content, again)
				}
				if res.Intent != tt.intent || res.ExpectedMode != tt.mode || res.ModelTier != tt.tier || !slices.Equal(res.CandidateTools, tt.tools) {
					t.Fatalf("got %+v, want intent %s mode %s tier %s tools %v", res, tt.intent, tt.mode, tt.tier, tt.tools)
				}
				if res.Confidence < 0.6 || res.Confidence > 0.95 || res.Strategy == "" || res.SafetyFlags == nil {
					t.Errorf("confidence %v strategy %q flags %v", res.Confidence, res.Strategy, res.SafetyFlags)
				}
				if res.ClarifyNeeded != (tt.intent == workflow.IntentClarify) || res.ClarifyNeeded != (res.Clarify != nil) {
					t.Errorf("clarifyNeeded %v clarify %+v", res.ClarifyNeeded, res.Clarify)
				}
			})
		})
	}
}

func TestRouterNamesOnlyListedTools(t *testing.T) {
	prompt := "Decide the intent.\n\nIntents:\n- quiz_generate: questions\n- content_create: content\n\nGeneration tools:\n- generate_pptx: build a deck\n\nAnswer with a route line and JSON."
	_, c := start(t, Options{})
	for msg, want := range map[string][]string{
		"帮我做一个光合作用的 PPT 课件": {"generate_pptx"},
		"出 5 道牛顿第一定律的选择题":   {},
	} {
		req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{system(prompts.RouterHeader, prompt), user(msg)}}
		res := routed(t, complete(t, c, req, false).content)
		if !slices.Equal(res.CandidateTools, want) {
			t.Errorf("%s: candidateTools %v, want %v", msg, res.CandidateTools, want)
		}
	}
}

func TestListedTools(t *testing.T) {
	tests := []struct {
		name, prompt string
		want         []string
	}{
		{"tool section", routerPrompt, []string{"generate_quiz_questions", "propose_pptx_outline", "generate_pptx", "generate_docx", "request_interactive_content"}},
		{"no heading: intents left out", "- quiz_generate: x\n- generate_quiz_questions: y\n- `render_pdf`: z", []string{"generate_quiz_questions", "render_pdf"}},
		{"chinese heading", "可用工具：\n- generate_docx：写文档\n\n意图：\n- chat_qa: 问答", []string{"generate_docx"}},
		{"nothing listed", "Answer in JSON.", nil},
	}
	for _, tt := range tests {
		if got := listedTools(tt.prompt); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
