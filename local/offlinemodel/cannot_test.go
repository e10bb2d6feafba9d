package offlinemodel

import (
	"slices"
	"testing"
)

// TestOutOfScope: requests no tool of the product does are recognised, and
// questions about the assistant's limits; the data and generation requests
// that share their words are neither.
func TestOutOfScope(t *testing.T) {
	declined := []string{"帮我订一张去北京的机票", "Can you grade my students' essays?", "帮我批改学生的作文", "Email the parents about the test", "明天天气怎么样"}
	aboutLimits := []string{"What can't you do?", "你不能做什么？"}
	neither := []string{"1A 班的评分标准有哪些？", "What grade are my students in?", "Which students in 1A have the lowest marks?",
		"写一份给家长的通知", "出 5 道牛顿第一定律的选择题"}
	for _, msg := range append(append(declined, aboutLimits...), neither...) {
		_, out := outOfScope(msg)
		if want := slices.Contains(declined, msg); out != want {
			t.Errorf("outOfScope(%q) = %v, want %v", msg, out, want)
		}
		if got, want := asksLimits(msg), slices.Contains(aboutLimits, msg); got != want {
			t.Errorf("asksLimits(%q) = %v, want %v", msg, got, want)
		}
	}
}
