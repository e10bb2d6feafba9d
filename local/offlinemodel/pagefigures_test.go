package offlinemodel

import (
	"strings"
	"testing"
)

// TestPageFigures: a question about a page is answered from the figures
// of its data summary; a question about none of them is not.
func TestPageFigures(t *testing.T) {
	const summary = "全班各项作业的得分率统计。 · Form 1A · English · 平均得分率 66.7%（中位数 65.7%）；及格率 68.6%（24 / 35 ≥ 60.0%）；学生人数 35 · " +
		"各项作业表现（作业 / 人数 / 平均得分率 / 及格率（≥ 60.0%））：Grammar Quiz: Tenses / 35 / 66.9 / 71.4；Reading: The Lost Kite / 35 / 52.1 / 60；Writing / 35 / 70.5 / 65.7 · " +
		"学生排名（前后五名）（排名 / 学生 / 平均得分率）：1 / Tang / 95.4；34 / Natalie / 46.5；35 / Lau / 40.3"
	tests := []struct {
		q    string
		want []string // "" want: no answer
	}{
		{"What is the class average?", []string{"66.7%"}},
		{"中位数是多少？", []string{"65.7%"}},
		{"及格率是多少？", []string{"68.6%"}},
		{"哪个作业最难？", []string{"「Reading: The Lost Kite」最低（52.1%）"}},
		{"Which assignment went best?", []string{`"Writing" has the highest mean (70.5%)`}},
		{"哪些学生需要帮助？", []string{"学生排名", "Lau / 40.3"}},
		{"这个页面是怎么做的？", nil},
	}
	for _, tt := range tests {
		l := detectLang(tt.q)
		got := pageFigures(l, tt.q, summary)
		if tt.want == nil && got != "" {
			t.Errorf("%q: %q, want no answer from the figures", tt.q, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q: %q does not say %q", tt.q, got, w)
			}
		}
		if strings.Contains(got, "差别不大") || strings.Contains(got, "difference is small") {
			t.Errorf("%q: %q calls a gap over %d points small", tt.q, got, 5)
		}
	}
}
