package offlinemodel

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/insightedge/insightedge/shared/scores"
)

// Questions about a built page ("What is the class average?", "哪个作业最难？")
// answered from the figures its data summary carries: the client puts the
// page's key figures and tables there (the dev console: "label value；…"
// for key figures, "title（header / …）：cell / …；…" for a table, parts
// joined by " · ").

// figureWords are the words of a question about one key figure, with the
// words that name that figure on the page.
var figureWords = []struct{ asked, shown []string }{
	{[]string{"中位", "median"}, []string{"中位数", "median"}},
	{[]string{"及格", "pass"}, []string{"及格", "pass"}},
	{[]string{"最高分", "最低分", "最高", "最低", "highest", "lowest", "top score"}, []string{"最高", "highest", "max"}},
	{[]string{"多少学生", "多少名学生", "几名学生", "几个学生", "how many students", "number of students"}, []string{"学生人数", "students"}},
	{[]string{"平均", "average", "mean"}, []string{"平均", "average", "mean"}},
}

// pageFigures answers from the page's figures, "" when the question asks
// none of them.
func pageFigures(l lang, question, summary string) string {
	low := strings.ToLower(question)
	if containsAny(low, "作业", "assignment", "test", "quiz") && !containsAny(low, "平均分是", "average is") {
		if a := assignmentExtreme(l, low, summary); a != "" {
			return a
		}
	}
	if containsAny(low, "学生", "谁", "student", "who") {
		if a := studentRows(l, low, summary); a != "" {
			return a
		}
	}
	for _, f := range figureWords {
		if !containsAny(low, f.asked...) {
			continue
		}
		for _, part := range strings.Split(summary, " · ") {
			if strings.Contains(part, "）：") {
				continue // a table: its figures are rows, not one key figure
			}
			for _, item := range strings.Split(part, "；") {
				if containsAny(strings.ToLower(item), f.shown...) {
					return l.pick("页面上显示："+strings.TrimSpace(item)+"。", "The page shows: "+strings.TrimSpace(item)+".")
				}
			}
		}
	}
	return ""
}

// assignmentExtreme names the assignment with the lowest (hardest, worst)
// or highest (best, easiest) mean in the page's assignment table, and says
// when the assignments are too close for that to mean much.
func assignmentExtreme(l lang, low, summary string) string {
	hardest := containsAny(low, "最难", "最差", "最弱", "最低", "难", "hardest", "worst", "lowest", "weakest", "most difficult")
	best := containsAny(low, "最好", "最容易", "最高", "best", "easiest", "highest", "strongest")
	if !hardest && !best {
		return ""
	}
	for _, part := range strings.Split(summary, " · ") {
		title, headers, rows, ok := tablePart(part)
		if !ok || !containsAny(strings.ToLower(headers), "作业", "assignment") {
			continue
		}
		col := -1
		for i, h := range strings.Split(headers, " / ") {
			if containsAny(strings.ToLower(h), "平均", "mean", "average") {
				col = i
				break
			}
		}
		if col < 0 {
			continue
		}
		var name string
		var value, lo, hi float64
		for i, row := range strings.Split(rows, "；") {
			cells := strings.Split(row, " / ")
			if col >= len(cells) {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(cells[col]), "%"), 64)
			if err != nil {
				continue
			}
			if i == 0 || v < lo {
				lo = v
			}
			if i == 0 || v > hi {
				hi = v
			}
			if name == "" || (hardest && v < value) || (!hardest && v > value) {
				name, value = strings.TrimSpace(cells[0]), v
			}
		}
		if name == "" {
			continue
		}
		which := l.pick(map[bool]string{true: "最低", false: "最高"}[hardest], map[bool]string{true: "lowest", false: "highest"}[hardest])
		answer := l.pick(fmt.Sprintf("按页面上「%s」的平均得分率，「%s」%s（%s%%）。", title, name, which, fmtNum(value)),
			fmt.Sprintf("By the page's %q, %q has the %s mean (%s%%).", title, name, which, fmtNum(value)))
		if !scores.Meaningful(hi, lo) {
			answer += l.pick(fmt.Sprintf("不过各项作业的平均得分率在 %s%% 到 %s%% 之间，相差不到 %d 个百分点，差别不大。", fmtNum(lo), fmtNum(hi), scores.MeaningfulGap),
				fmt.Sprintf(" The assignments' means are all between %s%% and %s%%, less than %d points apart, so the difference is small.", fmtNum(lo), fmtNum(hi), scores.MeaningfulGap))
		}
		return answer
	}
	return ""
}

// studentRows lists the students the page's ranking shows at the bottom
// (a question about who needs help) or at the top.
func studentRows(l lang, low, summary string) string {
	weak := containsAny(low, "帮助", "关注", "最弱", "最差", "落后", "不及格", "weak", "struggl", "help", "lowest", "bottom", "behind")
	for _, part := range strings.Split(summary, " · ") {
		title, headers, rows, ok := tablePart(part)
		if !ok || !containsAny(strings.ToLower(headers), "学生", "student") {
			continue
		}
		list := strings.Split(rows, "；")
		if weak {
			list = list[max(0, len(list)-3):]
		} else {
			list = list[:min(3, len(list))]
		}
		return l.pick(fmt.Sprintf("页面上「%s」%s的是（%s）：%s。", title, map[bool]string{true: "排在最后", false: "排在最前"}[weak], headers, strings.Join(list, "；")),
			fmt.Sprintf("In the page's %q, the %s are (%s): %s.", title, map[bool]string{true: "last", false: "first"}[weak], headers, strings.Join(list, "; ")))
	}
	return ""
}

// tablePart reads a table of the summary: "title（header / …）：rows"; the
// title and the headers may have parentheses of their own ("学生排名（前后五名）",
// "及格率（≥ 60.0%）"): the headers open at the "（" that the "）：" closes.
func tablePart(part string) (title, headers, rows string, ok bool) {
	head, rows, ok := strings.Cut(part, "）：")
	if !ok {
		return "", "", "", false
	}
	rs, depth := []rune(head), 1
	for i := len(rs) - 1; i >= 0; i-- {
		switch rs[i] {
		case '）':
			depth++
		case '（':
			if depth--; depth == 0 {
				return strings.TrimSpace(string(rs[:i])), string(rs[i+1:]), rows, true
			}
		}
	}
	return "", "", "", false
}

// asksAboutPage is a question about the page the follow-up is on: one
// that names no class of its own and asks for nothing to be made.
func asksAboutPage(c *call) bool {
	return c.page != "" && isQuestion(c.user) && classMention(c.user) == "" && !wantsContent(c) && !wantsExport(c) &&
		!matches(`出|生成|编|make|create|write|generate`, c.user)
}
