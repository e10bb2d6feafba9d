package offlinemodel

import (
	"slices"
	"testing"
)

// TestQuizParts: the types of a mixed quiz with their counts (the count
// the request says is the total to share, unless each type has its own);
// one type is no mixed quiz.
func TestQuizParts(t *testing.T) {
	for msg, want := range map[string][]quizPart{
		"出 6 道光合作用的题，选择题和判断题都要":                                          {{3, singleChoice}, {3, trueFalse}},
		"出 5 道题：选择题和填空题":                                                 {{3, singleChoice}, {2, fillBlank}},
		"选择题和填空题各两道":                                                     {{2, singleChoice}, {2, fillBlank}},
		"出 3 道选择题和 2 道判断题":                                               {{3, singleChoice}, {2, trueFalse}},
		"2 multiple choice and 2 true/false questions on photosynthesis": {{2, singleChoice}, {2, trueFalse}},
		"a mix of multiple-choice and short-answer questions, 3 each":    {{3, singleChoice}, {3, shortAnswer}},
		"出 5 道牛顿第一定律的选择题":                                                nil,
		"出 5 道单选题（选择题）":                                                  nil,
		"Make 3 true/false questions about the water cycle":              nil,
	} {
		if got := quizParts(msg, questionCount(msg)); !slices.Equal(got, want) {
			t.Errorf("quizParts(%q) = %v, want %v", msg, got, want)
		}
	}
}
