package offlinemodel

import (
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/office/quizexport"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// TestExportRequests: the export requests of issue 31, in Chinese and
// English, route to export_quiz with the format named; other requests that
// share their words do not.
func TestExportRequests(t *testing.T) {
	prompt := strings.Replace(routerPrompt, "- generate_quiz_questions:", "- export_quiz: export a quiz as a file\n- generate_quiz_questions:", 1)
	history := prompts.HistoryHeader + "\nTeacher: 出 5 道牛顿第一定律的选择题\nAssistant: quiz questions generated (generate_quiz_questions; pass these questions as avoid when asked for more): {}"
	_, c := start(t, Options{})
	cases := []struct {
		msg    string
		format quizexport.Format
	}{
		{"导出为 Moodle 格式", quizexport.MoodleXML},
		{"export this quiz for Canvas", quizexport.QTI21},
		{"做成 Kahoot", quizexport.Kahoot},
		{"导出为 QTI", quizexport.QTI21},
		{"再做成 Kahoot", quizexport.Kahoot},
		{"Export it as GIFT for Moodle", quizexport.GIFT},
		{"turn it into a Quizizz spreadsheet", quizexport.Quizizz},
		{"做成可以打印的试卷", quizexport.Paper},
		{"Make a printable paper of this quiz", quizexport.Paper},
		{"导出为PDF", ""},
		{"出 5 道牛顿第一定律的选择题", ""},
		{"What is Kahoot?", ""},
	}
	for _, tc := range cases {
		t.Run(tc.msg, func(t *testing.T) {
			req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{system(prompts.RouterHeader, prompt),
				{Role: openai.ChatMessageRoleSystem, Content: history}, user(tc.msg)}}
			res := routed(t, complete(t, c, req, false).content)
			exports := slices.Equal(res.CandidateTools, []string{toolExport})
			if exports != (tc.format != "") || exports && res.Intent != workflow.IntentContent {
				t.Errorf("routed to %s %v", res.Intent, res.CandidateTools)
			}
			if tc.format != "" && exportFormat(teacherWords(tc.msg)) != tc.format {
				t.Errorf("format %q, want %q", exportFormat(tc.msg), tc.format)
			}
		})
	}
}
