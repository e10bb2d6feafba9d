package offlinemodel

import "testing"

// TestOutOfScope: requests no tool of the product does are recognised;
// the data and generation requests that share their words are not.
func TestOutOfScope(t *testing.T) {
	tests := []struct {
		msg    string
		out    bool
		limits bool
	}{
		{"帮我订一张去北京的机票", true, false},
		{"Can you grade my students' essays?", true, false},
		{"帮我批改学生的作文", true, false},
		{"Email the parents about the test", true, false},
		{"明天天气怎么样", true, false},
		{"What can't you do?", false, true},
		{"你不能做什么？", false, true},
		{"1A 班的评分标准有哪些？", false, false},
		{"What grade are my students in?", false, false},
		{"Which students in 1A have the lowest marks?", false, false},
		{"写一份给家长的通知", false, false},
		{"出 5 道牛顿第一定律的选择题", false, false},
	}
	for _, tt := range tests {
		if _, got := outOfScope(tt.msg); got != tt.out {
			t.Errorf("outOfScope(%q) = %v, want %v", tt.msg, got, tt.out)
		}
		if got := asksLimits(tt.msg); got != tt.limits {
			t.Errorf("asksLimits(%q) = %v, want %v", tt.msg, got, tt.limits)
		}
	}
}
