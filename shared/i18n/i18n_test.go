package i18n

import (
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
)

func TestOf(t *testing.T) {
	tests := []struct {
		tag    string
		sample []string
		want   Lang
	}{
		{"zh-CN", []string{"hello"}, Chinese},
		{"zh", nil, Chinese},
		{"zh-Hant", nil, Chinese},
		{"en", []string{"出 5 道题"}, English}, // the tag decides
		{"fr-FR", nil, English},
		{"", []string{"出 5 道牛顿第一定律的选择题"}, Chinese},
		{"", []string{"What is photosynthesis?"}, English},
		{"", []string{"", "  "}, Chinese},
		{"", nil, Chinese},
	}
	for _, tt := range tests {
		if got := Of(tt.tag, tt.sample...); got != tt.want {
			t.Errorf("Of(%q, %q) = %v, want %v", tt.tag, tt.sample, got, tt.want)
		}
	}
}

func TestForTurn(t *testing.T) {
	tests := []struct {
		tag, message, conversation string
		want                       Lang
	}{
		{"", "Form 1A", "分析一下成绩", Chinese}, // a pick from a question asked in Chinese
		{"", "Form 1A · English", "哪些学生语法最弱？", Chinese},
		{"", "1A", "分析一下成绩", Chinese},
		{"", "What is photosynthesis?", "分析一下成绩", English}, // twenty letters
		{"", "ok", "出 5 道题", Chinese},
		{"", "Form 1A", "make a grade analysis", English},
		{"", "Make 5 questions on photosynthesis", "分析一下成绩", English}, // says enough: the teacher switched
		{"", "thank you", "出 5 道题", Chinese},
		{"", "thank you", "hello there", English},
		{"", "好的", "make a grade analysis", Chinese},
		{"en", "好的", "分析一下成绩", English}, // the tag decides
		{"zh-CN", "Form 1A", "make a grade analysis", Chinese},
		{"", "hi", "hi", English}, // a new conversation: its opening words are the message
		{"", "", "", Chinese},
	}
	for _, tt := range tests {
		if got := ForTurn(tt.tag, tt.message, tt.conversation); got != tt.want {
			t.Errorf("ForTurn(%q, %q, %q) = %v, want %v", tt.tag, tt.message, tt.conversation, got, tt.want)
		}
	}
}

func TestFailure(t *testing.T) {
	tests := []struct {
		subject  Subject
		code     apperr.Code
		timedOut bool
		want     Msg
	}{
		{Turn, apperr.DataError, false, TurnDataUnavailable},
		{Turn, apperr.ServiceUnavailable, false, TurnDataUnavailable},
		{Turn, apperr.AIError, true, TurnTimedOut},
		{Turn, apperr.Internal, false, TurnAIUnavailable},
		{Page, apperr.DataError, false, PageDataFailed},
		{Page, apperr.AIError, false, PageAIUnavailable},
		{Page, apperr.Internal, true, PageTimedOut},
		{Page, apperr.BlueprintError, false, PageFailed},
	}
	for _, tt := range tests {
		for _, l := range []Lang{English, Chinese} {
			if got, want := l.Failure(tt.subject, tt.code, tt.timedOut), l.Text(tt.want); got != want {
				t.Errorf("%v.Failure(%v, %s, %v) = %q, want %q", l, tt.subject, tt.code, tt.timedOut, got, want)
			}
		}
	}
}
