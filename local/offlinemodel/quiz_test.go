package offlinemodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
)

func quizRequest(input string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model:          "offline-standard",
		Messages:       []openai.ChatCompletionMessage{system(prompts.QuizHeader, "Write quiz questions as JSON."), user(input)},
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject},
	}
}

func TestQuizWriter(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		count     int
		typ       string
		contains  string // in the first question
		firstAns  string
		nOptions  int
		knowledge string
	}{
		{"newton zh", `{"topic":"牛顿第一定律","count":5,"questionType":"single_choice","difficulty":"medium","language":"zh","subject":"物理","grade":"初二"}`,
			5, singleChoice, "牛顿第一定律指出", "C", 4, "牛顿第一定律"},
		{"photosynthesis en", `{"topic":"photosynthesis","count":3,"questionType":"single_choice","difficulty":"easy","language":"en","subject":"Biology"}`,
			3, singleChoice, "Which gas", "B", 4, "raw materials of photosynthesis"},
		{"photosynthesis multiple answers", `{"topic":"photosynthesis","count":2,"questionType":"multiple_choice","difficulty":"medium","language":"en"}`,
			2, multipleChoice, "raw materials", "A, B", 4, ""},
		{"newton true/false", `{"topic":"牛顿第一定律","count":3,"questionType":"true_false","difficulty":"easy","language":"zh"}`,
			3, trueFalse, "惯性", "错误", 2, ""},
		{"other topic fill in", `{"topic":"二次函数","count":7,"questionType":"fill_blank","difficulty":"hard","language":"zh","subject":"数学"}`,
			7, fillBlank, "二次函数", "核心概念", 0, ""},
		{"other topic english choice", `{"topic":"the water cycle","count":8,"questionType":"single_choice","difficulty":"medium","language":"en"}`,
			8, singleChoice, "the water cycle", "A", 4, ""},
		{"other topic multiple answers", `{"topic":"fractions","count":3,"questionType":"multiple_choice","difficulty":"medium","language":"en"}`,
			3, multipleChoice, "fractions", "A, B, D", 4, ""},
		{"capped at 20", `{"topic":"photosynthesis","count":25,"questionType":"single_choice","difficulty":"medium","language":"en"}`,
			20, singleChoice, "Which gas", "B", 4, ""},
		{"count as a string", `{"topic":"勾股定理","count":"4","questionType":"short_answer","difficulty":"medium","language":"zh"}`,
			4, shortAnswer, "勾股定理", "", 0, ""},
	}
	_, c := start(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var replies []string
			bothModes(t, func(t *testing.T, stream bool) {
				r := complete(t, c, quizRequest(tt.input), stream)
				replies = append(replies, r.content)
				if stream && len(r.deltas) < 20 {
					t.Errorf("streamed in %d fragments, want small ones", len(r.deltas))
				}
				var out struct {
					Questions []protocol.Question `json:"questions"`
				}
				dec := json.NewDecoder(strings.NewReader(r.content))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&out); err != nil {
					t.Fatalf("reply %q: %v", r.content, err)
				}
				if len(out.Questions) != tt.count {
					t.Fatalf("%d questions, want %d", len(out.Questions), tt.count)
				}
				seen := map[string]bool{}
				for i, q := range out.Questions {
					if q.Type != tt.typ || q.Question == "" || q.Answer == "" || q.Explanation == "" || q.Difficulty == "" || q.KnowledgePoint == "" {
						t.Fatalf("question %d incomplete: %+v", i, q)
					}
					if seen[q.Question] {
						t.Errorf("question %d repeats: %q", i, q.Question)
					}
					seen[q.Question] = true
					if len(q.Options) != tt.nOptions {
						t.Fatalf("question %d has %d options, want %d", i, len(q.Options), tt.nOptions)
					}
					for k, o := range q.Options {
						if tt.nOptions == 4 && !strings.HasPrefix(o, fmt.Sprintf("%c. ", 'A'+k)) {
							t.Errorf("option %q not lettered", o)
						}
					}
					if tt.nOptions == 4 {
						for _, letter := range strings.FieldsFunc(q.Answer, func(r rune) bool { return r == ',' || r == ' ' || r == '、' }) {
							if len(letter) != 1 || letter[0] < 'A' || letter[0] > 'D' {
								t.Errorf("answer %q is not option letters", q.Answer)
							}
						}
					}
				}
				first := out.Questions[0]
				if !strings.Contains(first.Question, tt.contains) || (tt.firstAns != "" && first.Answer != tt.firstAns) {
					t.Errorf("first question %q answer %q", first.Question, first.Answer)
				}
				if tt.knowledge != "" && first.KnowledgePoint != tt.knowledge {
					t.Errorf("knowledge point %q", first.KnowledgePoint)
				}
			})
			if len(replies) == 2 && replies[0] != replies[1] {
				t.Error("streamed and non-streamed replies differ")
			}
		})
	}
}

func TestQuizTemplateAnswersMove(t *testing.T) {
	qs := quizQuestions(quizSpec{Topic: "分数", Count: 4, QuestionType: singleChoice, Difficulty: "medium", Language: zh})
	templates := singleTemplates(zh, "分数")
	answers := map[string]bool{}
	for i, q := range qs {
		answers[q.Answer] = true
		want := q.Answer + ". " + templates[i].options[0] // written first in the template
		if !slices.Contains(q.Options, want) {
			t.Errorf("question %d: answer %s, options %q, want %q among them", i, q.Answer, q.Options, want)
		}
	}
	if len(answers) < 3 {
		t.Errorf("answers %v: the right option always sits in the same place", answers)
	}
}

func TestQuizWriterReadsPlainWords(t *testing.T) {
	_, c := start(t, Options{})
	r := complete(t, c, quizRequest("出 2 道勾股定理的判断题"), false)
	var out struct{ Questions []quizQuestion }
	if err := json.Unmarshal([]byte(r.content), &out); err != nil || len(out.Questions) != 2 || out.Questions[0].Type != trueFalse {
		t.Fatalf("reply %q: %v", r.content, err)
	}
}

// TestQuizWriterAvoidsEarlierQuestions: "再出 3 道" three times on one topic
// gives new questions each time, none repeating an earlier one word for
// word or by stem, on the same topic.
func TestQuizWriterAvoidsEarlierQuestions(t *testing.T) {
	for _, tc := range []struct {
		topic string
		typ   string
		l     lang
	}{
		{"牛顿第一定律", singleChoice, zh}, {"分数加减法", singleChoice, zh}, {"fractions", singleChoice, en},
		{"分数加减法", trueFalse, zh}, {"the water cycle", fillBlank, en}, {"勾股定理", shortAnswer, zh}, {"fractions", multipleChoice, en},
	} {
		var asked []string
		for round, n := range []int{5, 3, 3} {
			qs := quizQuestions(quizSpec{Topic: tc.topic, Count: n, QuestionType: tc.typ, Difficulty: "medium", Language: tc.l, Avoid: asked})
			if len(qs) != n {
				t.Fatalf("%s %s round %d: %d questions, want %d", tc.topic, tc.typ, round, len(qs), n)
			}
			for _, q := range qs {
				for _, a := range asked {
					if q.Question == a || stem(q.Question) == stem(a) {
						t.Errorf("%s round %d repeats %q", tc.topic, round, a)
					}
				}
				if !strings.Contains(q.Question+q.KnowledgePoint, tc.topic) && tc.topic != "牛顿第一定律" {
					t.Errorf("%s round %d: %q is not on the topic", tc.topic, round, q.Question)
				}
				asked = append(asked, q.Question)
			}
		}
	}
}

func TestQuizOnWhatTheConversationWasAbout(t *testing.T) {
	history := prompts.HistoryHeader + "\n- teacher: What is photosynthesis?\n- assistant: Photosynthesis is how green plants make glucose from light."
	c := &call{user: "Now make 3 questions on it", lang: en, history: history, tools: map[string]*schema{}}
	if spec := quizSpecFrom(c); spec.Topic != "photosynthesis" || spec.Count != 3 {
		t.Errorf("quiz spec %+v, want 3 questions on photosynthesis", spec)
	}
}
