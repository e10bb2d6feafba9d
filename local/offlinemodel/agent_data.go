package offlinemodel

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Data questions: the agent calls the base data tools and answers from the
// numbers in their results. Results are read as generic JSON, since the
// tools' output types belong to the product.

type dataAsk int

const (
	askClasses dataAsk = iota
	askWeakness
	askStudents
	askScores
	askRubrics
	askDocuments
)

type dataScenario struct {
	ask   dataAsk
	class string // as the teacher said it ("1A") or a picked choice's id; the tools resolve it
	label string // the picked choice's label, what the answer calls the class; "" for class
	skill skill  // zero when none was named
	query string
	// subject is the subject the question names (its data-service name),
	// "" for none: a class that does not teach it is answered about as it
	// is, and the answer says so.
	subject string
}

func dataScenarioFrom(text string) *dataScenario {
	low := strings.ToLower(text)
	d := &dataScenario{class: classMention(text), query: text, subject: askedSubject(low)}
	d.skill, _ = skillMention(text)
	switch {
	case containsAny(low, "评分标准", "评分量规", "rubric"):
		d.ask = askRubrics
	case containsAny(low, "文档", "资料", "教案库", "document", "my files"):
		d.ask = askDocuments
	case containsAny(low, "弱", "最差", "不好", "落后", "需要帮助", "吃力", "weak", "struggl", "worst", "behind", "need help", "lowest"):
		d.ask = askWeakness
	case containsAny(low, "哪些学生", "学生名单", "多少学生", "多少个学生", "多少名学生", "who is in", "who's in", "list the students", "list of students", "how many students"):
		d.ask = askStudents
	case d.class == "":
		d.ask = askClasses
	default:
		d.ask = askScores
	}
	return d
}

// name is what the answer calls the class.
func (d *dataScenario) name() string { return cmp.Or(d.label, d.class) }

func (d *dataScenario) next(st *agentState) action {
	return withNotices(st, d.answerOf(st))
}

// withNotices puts what the tools said about their data (dataNotices:
// sample data, stale, incomplete, ungraded work) before an answer, as a
// careful assistant would: the teacher must not take sample data for theirs.
func withNotices(st *agentState, a action) action {
	if a.final == nil || a.final.Status != statusAnswer {
		return a
	}
	var lines []string
	seen := map[string]bool{}
	for _, s := range st.steps {
		if !s.answered || s.failed {
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(s.result), &obj) != nil {
			continue
		}
		for _, n := range list(obj, "dataNotices") {
			if msg := str(n, "message"); msg != "" && !seen[msg] {
				seen[msg] = true
				lines = append(lines, "> ⚠️ "+msg)
			}
		}
	}
	if len(lines) > 0 {
		fr := *a.final
		fr.Message = strings.Join(lines, "\n") + "\n\n" + fr.Message
		a.final = &fr
	}
	return a
}

func (d *dataScenario) answerOf(st *agentState) action {
	l := st.c.lang
	switch d.ask {
	case askRubrics:
		res, a := st.need(toolRubrics, map[string]any{})
		if a != nil {
			return *a
		}
		return answer(listAnswer(l, res, "评分标准", "rubrics", "name", "title"))
	case askDocuments:
		res, a := st.need(toolDocuments, map[string]any{"query": d.query})
		if a != nil {
			return *a
		}
		return answer(listAnswer(l, res, "相关文档", "matching documents", "title", "name"))
	}
	if d.class == "" {
		res, a := st.need(toolClasses, map[string]any{})
		if a != nil {
			return *a
		}
		if d.ask == askClasses {
			return answer(classesAnswer(l, res))
		}
		return finish(whichClass(l, res))
	}
	switch d.ask {
	case askWeakness:
		args := map[string]any{"classId": d.class}
		if d.skill.key != "" {
			args["skill"] = d.skill.key
		}
		res, a := st.need(toolWeakness, args)
		if a != nil {
			return *a
		}
		return answer(weaknessAnswer(l, d.name(), d.skill, res))
	case askStudents:
		res, a := st.need(toolClassDetail, map[string]any{"classId": d.class})
		if a != nil {
			return *a
		}
		return answer(studentsAnswer(l, d.name(), res))
	}
	detail, a := st.need(toolClassDetail, map[string]any{"classId": d.class})
	if a != nil {
		return *a
	}
	latest := latestAssignment(list(detail, "assignments"))
	if latest == nil {
		return answer(l.pick(className(l, d.name())+"目前还没有布置作业，所以暂时没有成绩可以分析。",
			"There are no assignments in "+className(l, d.name())+" yet, so there are no scores to look at."))
	}
	subs, a := st.need(toolSubmissions, map[string]any{"assignmentId": str(latest, "assignmentId", "id")})
	if a != nil {
		return *a
	}
	return answer(d.otherSubject(l, detail) + scoresAnswer(l, d.name(), latest, subs))
}

// otherSubject says, before the answer, that the class does not teach the
// subject the question names and which one the numbers are of; "" when it
// does (or either is unknown).
func (d *dataScenario) otherSubject(l lang, detail map[string]any) string {
	taught := str(detail["class"], "subject")
	if d.subject == "" || taught == "" || strings.EqualFold(d.subject, taught) {
		return ""
	}
	name := className(l, d.name())
	return l.pick(
		fmt.Sprintf("%s没有%s科的成绩，下面是该班的%s成绩。\n\n", name, subjectName(l, d.subject), subjectName(l, taught)),
		fmt.Sprintf("%s has no %s results; these are its %s results.\n\n", headline(name), d.subject, taught))
}

// subjectName is a data-service subject's name in l.
func subjectName(l lang, subject string) string {
	names := map[string]string{"english": "英语", "mathematics": "数学", "physics": "物理", "chinese language": "语文",
		"chemistry": "化学", "biology": "生物", "history": "历史", "geography": "地理"}
	if zhName, ok := names[strings.ToLower(subject)]; ok && l == zh {
		return zhName
	}
	return subject
}

// finish answers from whatever results are in, or says what is missing.
func (d *dataScenario) finish(st *agentState) finalResult {
	probe := &agentState{c: st.c, steps: st.steps}
	a := d.next(probe)
	if a.final != nil {
		return *a.final
	}
	l := st.c.lang
	return finalResult{Status: statusAnswer, Message: l.pick(
		"我还没来得及查完需要的数据，暂时无法给出准确的回答。可以再问我一次，我会先查询数据再回答。",
		"I haven't finished looking up the data yet, so I can't give an accurate answer. Ask me again and I'll look it up first.")}
}

func (d *dataScenario) artifact() string { return "" }

func (d *dataScenario) describe(l lang) string {
	return l.pick("你要的数据分析", "the analysis you asked for")
}

func (d *dataScenario) inline(lang) string { return "" }

func classesAnswer(l lang, res map[string]any) string {
	classes := list(res, "classes")
	if len(classes) == 0 {
		return l.pick("暂时没有查到你名下的班级。", "I couldn't find any classes under your account.")
	}
	var sb strings.Builder
	sb.WriteString(l.pick(fmt.Sprintf("你目前有 %d 个班：\n\n", len(classes)), fmt.Sprintf("You have %d classes:\n\n", len(classes))))
	for _, cl := range classes {
		var parts []string
		if sub := str(cl, "subject"); sub != "" {
			parts = append(parts, sub)
		}
		if g := str(cl, "grade"); g != "" {
			parts = append(parts, g)
		}
		if n, ok := num(cl, "studentCount"); ok {
			parts = append(parts, l.pick(fmtNum(n)+" 名学生", fmtNum(n)+" students"))
		} else {
			parts = append(parts, l.pick("学生人数未知", "number of students unknown"))
		}
		fmt.Fprintf(&sb, l.pick("- **%s**（%s）\n", "- **%s** (%s)\n"), str(cl, "name", "classId"), strings.Join(parts, " · "))
	}
	sb.WriteString(l.pick("\n想看哪个班的情况？告诉我班级名就可以。", "\nWhich class would you like to look at?"))
	return sb.String()
}

// whichClass asks back which class a data question is about. Each choice
// is the class's name with its id as the value, which the client sends
// back when it is picked (clarifiedData).
func whichClass(l lang, res map[string]any) finalResult {
	q := l.pick("你想看哪个班的数据？", "Which class would you like me to look at?")
	cl := &workflow.Clarify{Question: q, Hint: "needClassId"}
	offerChoices(cl, classChoices(res, -1))
	return finalResult{Status: statusClarify, Message: q, Clarify: cl}
}

// offerChoices sets a clarify's choices and, as the schema also asks,
// its options: their labels.
func offerChoices(cl *workflow.Clarify, choices []protocol.Choice) {
	cl.Choices, cl.Options = choices, nil
	for _, ch := range choices {
		cl.Options = append(cl.Options, ch.Label)
	}
}

// classChoices are the classes of a get_teacher_classes result as clarify
// choices (label: the name, value: the class id), at most n (-1: all).
func classChoices(res map[string]any, n int) []protocol.Choice {
	var out []protocol.Choice
	for _, cl := range list(res, "classes") {
		if len(out) == n {
			break
		}
		if name := str(cl, "name", "classId"); name != "" {
			out = append(out, protocol.Choice{Label: name, Value: str(cl, "classId", "name")})
		}
	}
	return out
}

// clarifiedData is the data question a reply completes: when the last
// turn asked which class a data question is about (whichClass) and the
// teacher answered with a class (the value of a picked choice, which the
// history's "[choices: label = value]" names, or a class they typed), the
// question asked then, about that class, with no second question back.
func clarifiedData(c *call) (*dataScenario, bool) {
	last := lastTurn(c.history)
	if !strings.Contains(last, "Assistant: (asked) 你想看哪个班的数据？") &&
		!strings.Contains(last, "Assistant: (asked) Which class would you like me to look at?") {
		return nil, false
	}
	first, _, _ := strings.Cut(last, "\n")
	d := dataScenarioFrom(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(first), "Teacher:")))
	if label, value, ok := pickedChoice(c); ok {
		d.class, d.label = value, label
		return d, true
	}
	if m := classMention(c.user); m != "" {
		d.class = m
		return d, true
	}
	return nil, false
}

func weaknessAnswer(l lang, class string, sk skill, res map[string]any) string {
	students := list(res, "students")
	asked := l.pick(sk.zh, sk.en)
	if len(students) == 0 {
		return l.pick("暂时没有找到"+className(l, class)+"的相关成绩数据，所以没法判断谁最薄弱。",
			"I couldn't find score data for "+className(l, class)+", so I can't tell who is weakest.")
	}
	top := students[:min(3, len(students))]
	var sb strings.Builder
	switch {
	case sk.key != "":
		sb.WriteString(l.pick(fmt.Sprintf("**%s**%s最薄弱的 %d 位学生是：\n\n", className(l, class), asked, len(top)),
			fmt.Sprintf("In **%s**, the %d students weakest in %s are:\n\n", className(l, class), len(top), asked)))
	default:
		sb.WriteString(l.pick(fmt.Sprintf("**%s**目前最需要关注的 %d 位学生是：\n\n", className(l, class), len(top)),
			fmt.Sprintf("In **%s**, the %d students who most need support are:\n\n", className(l, class), len(top))))
	}
	for i, s := range top {
		name := str(s, "studentName", "name", "studentId")
		avg, _ := num(s, "average", "avg", "score")
		weakest := skillName(l, str(s, "weakestSkill"))
		line := l.pick(fmt.Sprintf("%d. %s：平均 %s 分", i+1, name, fmtNum(avg)), fmt.Sprintf("%d. %s: average %s", i+1, name, fmtNum(avg)))
		if weakest != "" {
			line += l.pick("（最弱项："+weakest+"）", " (weakest skill: "+weakest+")")
		}
		sb.WriteString(line + "\n")
	}
	if sk.key != "" {
		sb.WriteString(l.pick("\n建议针对他们安排一次"+asked+"专项练习；需要的话，我可以直接帮你出几道题。",
			"\nA short, targeted "+asked+" practice could help them; I can create one if you like."))
	} else {
		sb.WriteString(l.pick("\n需要的话，我可以针对他们的薄弱项出一份练习。", "\nI can create a practice set aimed at their weak points if you like."))
	}
	return sb.String()
}

func studentsAnswer(l lang, class string, res map[string]any) string {
	students := list(res, "students")
	var names []string
	for _, s := range students {
		names = append(names, str(s, "name", "studentName", "studentId"))
	}
	shown := names[:min(10, len(names))]
	more := ""
	if len(names) > len(shown) {
		more = l.pick(" 等", " and others")
	}
	nAssign := len(list(res, "assignments"))
	return l.pick(
		fmt.Sprintf("**%s**共有 %d 名学生：%s%s。这个班目前有 %d 份作业。", className(l, class), len(names), strings.Join(shown, "、"), more, nAssign),
		fmt.Sprintf("**%s** has %d students: %s%s. It has %d assignments so far.", headline(className(l, class)), len(names), strings.Join(shown, ", "), more, nAssign))
}

// latestAssignment is the one due last (ISO dates compare as strings).
func latestAssignment(as []any) any {
	var best any
	bestDue := ""
	for _, a := range as {
		if due := str(a, "dueDate"); best == nil || due >= bestDue {
			best, bestDue = a, due
		}
	}
	return best
}

func scoresAnswer(l lang, class string, assignment any, res map[string]any) string {
	title := str(res, "title")
	if title == "" {
		title = str(assignment, "title")
	}
	stats, _ := res["stats"].(map[string]any)
	count, _ := num(stats, "count")
	mean, _ := num(stats, "mean")
	median, _ := num(stats, "median")
	lo, _ := num(stats, "min")
	hi, _ := num(stats, "max")
	maxScore, ok := num(assignment, "maxScore")
	if !ok {
		maxScore = 100
	}
	subs := slices.Clone(list(res, "submissions"))
	if count == 0 {
		count = float64(len(subs))
	}
	if count == 0 {
		return l.pick(fmt.Sprintf("%s最近一次作业「%s」还没有学生提交。", className(l, class), title),
			fmt.Sprintf("No one in %s has submitted the latest assignment, \"%s\", yet.", className(l, class), title))
	}
	slices.SortStableFunc(subs, func(a, b any) int {
		x, _ := num(a, "score")
		y, _ := num(b, "score")
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	// The lowest scores below the mean, at most three; work not graded
	// yet (score null) has no score to compare.
	var lowest []string
	for _, s := range subs {
		score, graded := num(s, "score")
		if !graded {
			continue
		}
		if len(lowest) == 3 || score >= mean {
			break
		}
		lowest = append(lowest, fmt.Sprintf(l.pick("%s（%s 分）", "%s (%s)"), str(s, "studentName", "name", "studentId"), fmtNum(score)))
	}
	due := str(assignment, "dueDate")
	ungraded, _ := num(stats, "ungraded")
	unusable, _ := num(stats, "unusable")
	counted := l.pick(fmtNum(count)+" 份提交", fmtNum(count)+" submissions")
	if ungraded+unusable > 0 {
		counted = l.pick(fmt.Sprintf("%d 份提交，其中 %s 份计入统计", len(subs), fmtNum(count)),
			fmt.Sprintf("%d submissions, %s of them in the figures", len(subs), fmtNum(count)))
	}
	msg := l.pick(
		fmt.Sprintf("**%s**最近一次作业「%s」（截止 %s）共有 %s：平均分 **%s**，中位数 %s，最高 %s，最低 %s（满分 %s）。",
			className(l, class), title, due, counted, fmtNum(mean), fmtNum(median), fmtNum(hi), fmtNum(lo), fmtNum(maxScore)),
		fmt.Sprintf("For **%s**'s latest assignment, \"%s\" (due %s), there are %s: mean **%s**, median %s, highest %s, lowest %s (out of %s).",
			className(l, class), title, due, counted, fmtNum(mean), fmtNum(median), fmtNum(hi), fmtNum(lo), fmtNum(maxScore)))
	var zh, en []string
	if ungraded > 0 {
		zh, en = append(zh, fmtNum(ungraded)+" 份未评分"), append(en, fmtNum(ungraded)+" not graded yet")
	}
	if unusable > 0 {
		zh, en = append(zh, fmtNum(unusable)+" 份缺少满分"), append(en, fmtNum(unusable)+" without a max score")
	}
	if len(zh) > 0 {
		msg += l.pick("另有 "+strings.Join(zh, "、")+"，未计入以上统计。",
			" Not in these figures: "+strings.Join(en, ", ")+".")
	}
	if len(lowest) > 0 {
		msg += l.pick("\n\n低于平均分、得分最低的是："+strings.Join(lowest, "、")+"，建议重点关注。",
			"\n\nThe lowest scores, below the mean, were "+strings.Join(lowest, ", ")+"; they may need a closer look.")
	}
	return msg
}

// listAnswer names the items of the first list in a result.
func listAnswer(l lang, res map[string]any, zhWhat, enWhat string, nameKeys ...string) string {
	var items []any
	keys := make([]string, 0, len(res))
	for k := range res {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if arr, ok := res[k].([]any); ok {
			items = arr
			break
		}
	}
	if len(items) == 0 {
		return l.pick("没有找到"+zhWhat+"。", "I found no "+enWhat+".")
	}
	var names []string
	for _, it := range items[:min(5, len(items))] {
		if n := str(it, nameKeys...); n != "" {
			names = append(names, n)
		}
	}
	return l.pick(fmt.Sprintf("找到 %d 项%s：%s。", len(items), zhWhat, strings.Join(names, "、")),
		fmt.Sprintf("I found %d %s: %s.", len(items), enWhat, strings.Join(names, ", ")))
}

// Generic JSON access.

// str is the first of keys present in object v, as text.
func str(v any, keys ...string) string {
	m, _ := v.(map[string]any)
	for _, k := range keys {
		switch x := m[k].(type) {
		case string:
			if x != "" {
				return x
			}
		case float64:
			return fmtNum(x)
		}
	}
	return ""
}

// num is the first of keys present in object v, as a number.
func num(v any, keys ...string) (float64, bool) {
	m, _ := v.(map[string]any)
	for _, k := range keys {
		switch x := m[k].(type) {
		case float64:
			return x, true
		case string:
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return f, true
			}
		}
	}
	return 0, false
}

// list is the first of keys present in object v, as an array.
func list(v any, keys ...string) []any {
	m, _ := v.(map[string]any)
	for _, k := range keys {
		if arr, ok := m[k].([]any); ok {
			return arr
		}
	}
	return nil
}

// fmtNum writes a number with at most one decimal.
func fmtNum(f float64) string {
	return strconv.FormatFloat(float64(int64(f*10+sign(f)*0.5))/10, 'f', -1, 64)
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// answersDataClarify reports a reply that completes the data question the
// last turn asked back about (clarifiedData).
// answersBuildClarify reports whether the reply picks a choice of the
// question back about an analysis request (which class?): the request goes
// on, with that choice.
func answersBuildClarify(c *call) bool {
	first, _, _ := strings.Cut(lastTurn(c.history), "\n")
	_, _, picked := pickedChoice(c)
	return picked && wantsAnalysis(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(first), "Teacher:")))
}

func answersDataClarify(c *call) bool {
	_, ok := clarifiedData(c)
	return ok
}

// pickedChoice is the choice of the last turn's question back that the
// reply names, by its value (what a client sends when it is picked) or its
// label, as the history lists them ("[choices: Form 1A = class-hk-f1a]").
func pickedChoice(c *call) (label, value string, ok bool) {
	m := submatch(`\[choices: (.*)\]`, lastTurn(c.history))
	if m == nil {
		return "", "", false
	}
	reply := strings.TrimSpace(c.user)
	for _, ch := range strings.Split(m[1], "; ") {
		label, value, _ := strings.Cut(ch, " = ")
		if reply == value || reply == label {
			return label, value, true
		}
	}
	return "", "", false
}
