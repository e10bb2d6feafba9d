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
