package offlinemodel

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/scores"
)

// The template report agents of seed 002 (prompts.ReportPlannerHeader and
// the others): the planner lists the datasets, splits the template and
// submits one task per leaf with the datasets its title calls for; a
// section writer reads its required inputs and writes the section from the
// figures in them; the editor sums the report up. Their heuristics (which
// dataset a heading needs) live here only.

// Kinds of the template-report calls.
const (
	KindReportPlanner Kind = "report-planner"
	KindReportSolver  Kind = "report-solver"
	KindReportEditor  Kind = "report-editor"
)

// Report misbehaviours.
const (
	// MarkerSolverFailsOnce: every section writer's first attempt (each
	// distinct request) answers with empty content; the retry succeeds.
	MarkerSolverFailsOnce Marker = "[[offline:solver-fails-once]]"
	// MarkerPlanUnknownIDs: the planner also submits tasks whose ids the
	// template does not have.
	MarkerPlanUnknownIDs Marker = "[[offline:plan-unknown-ids]]"
	// MarkerSolverRepeatsHeading: section writers start with their heading.
	MarkerSolverRepeatsHeading Marker = "[[offline:solver-repeats-heading]]"
	// MarkerHoldEditor: the report editor's answer (the aggregator's last
	// call) is held until its client gives up (at most holdBound), so that a
	// test can act while the aggregator runs: Server.Holding says when a
	// request is held, Server.Released when its client went away.
	MarkerHoldEditor Marker = "[[offline:hold-editor]]"
)

// reportMarkers are passed from the question to every task's notes, so the
// section writers see them.
var reportMarkers = []Marker{MarkerSolverFailsOnce, MarkerSolverRepeatsHeading, MarkerSlow}

// section kinds, by what a heading asks for.
type sectionKind int

const (
	kindProfile sectionKind = iota
	kindScores
	kindStrong
	kindSupport
	kindErrors
	kindReflect
	kindPlan
	kindSummary
)

func kindOfTitle(title string) sectionKind {
	t := strings.ToLower(title)
	switch {
	case containsAny(t, "突出", "优秀", "strongest", "top"):
		return kindStrong
	case containsAny(t, "关注", "support", "individual", "个别"):
		return kindSupport
	case containsAny(t, "错误", "薄弱", "问题", "error", "skill", "分项"):
		return kindErrors
	case containsAny(t, "反思", "reflection"):
		return kindReflect
	case containsAny(t, "计划", "改进", "建议", "next", "action", "recommend"):
		return kindPlan
	case containsAny(t, "成绩", "分", "学业", "attainment", "result", "score", "distribution", "统计"):
		return kindScores
	case containsAny(t, "总结", "summary"):
		return kindSummary
	}
	return kindProfile
}

func datasetsFor(k sectionKind) []string {
	switch k {
	case kindScores, kindStrong, kindSupport:
		return []string{"datasets/grades.json"}
	case kindErrors:
		return []string{"datasets/error_patterns.json", "datasets/grades.json"}
	case kindReflect, kindPlan:
		return []string{"datasets/teaching_log.json", "datasets/error_patterns.json", "datasets/grades.json"}
	case kindSummary:
		return []string{"datasets/grades.json", "datasets/class.json"}
	}
	return []string{"datasets/class.json"}
}

// toolTurns returns the tool calls made so far (name → arguments) and the
// tool results by call id.
func toolTurns(c *call) (calls []replyCall, results map[string]string, ids map[string]string) {
	results, ids = map[string]string{}, map[string]string{}
	for _, m := range c.req.Messages {
		switch m.Role {
		case "assistant":
			for _, tc := range m.ToolCalls {
				calls = append(calls, replyCall{name: tc.Function.Name, args: tc.Function.Arguments})
				ids[tc.ID] = tc.Function.Name + " " + tc.Function.Arguments
			}
		case "tool":
			results[ids[m.ToolCallID]] = string(m.Content)
		}
	}
	return calls, results, ids
}

func reportPlannerReply(c *call) reply {
	var in struct {
		Question string   `json:"question"`
		Template string   `json:"template"`
		Datasets []string `json:"datasets"`
		Language string   `json:"language"`
	}
	_ = json.Unmarshal([]byte(firstUserRaw(c)), &in)
	l := langCode(in.Language, in.Question)
	calls, results, _ := toolTurns(c)
	called := func(name string) (string, bool) {
		for _, k := range slices.Backward(calls) {
			if k.name == name {
				return results[k.name+" "+k.args], true
			}
		}
		return "", false
	}
	if _, ok := called(toolListDir); !ok {
		return c.toolCall(toolListDir, map[string]any{"path": "datasets"})
	}
	tree, ok := called(toolSplitTree)
	if !ok {
		return c.toolCall(toolSplitTree, map[string]any{"path": in.Template})
	}
	var doc struct {
		Title  string `json:"title"`
		Leaves []struct {
			ID    int    `json:"id"`
			Title string `json:"title"`
		} `json:"leaves"`
	}
	_ = json.Unmarshal([]byte(tree), &doc)
	var notes []string
	for _, m := range reportMarkers {
		if c.has(m) {
			notes = append(notes, string(m))
		}
	}
	type task struct {
		ID             int      `json:"id"`
		RequiredInputs []string `json:"required_inputs,omitempty"`
		Hints          []string `json:"hints,omitempty"`
		Notes          string   `json:"notes,omitempty"`
	}
	var tasks []task
	for _, lf := range doc.Leaves {
		k := kindOfTitle(lf.Title)
		var req []string
		for _, d := range datasetsFor(k) {
			if slices.Contains(in.Datasets, d) {
				req = append(req, d)
			}
		}
		tasks = append(tasks, task{ID: lf.ID, RequiredInputs: req, Hints: []string{hintFor(l, k)}, Notes: strings.Join(notes, " ")})
	}
	if c.has(MarkerPlanUnknownIDs) {
		n := len(doc.Leaves)
		tasks = append(tasks, task{ID: n + 1, Hints: []string{"extra"}}, task{ID: n + 5}, task{ID: 0})
	}
	summary := l.pick(fmt.Sprintf("按模板《%s》的 %d 个最小章节逐节撰写，数据取自知识库的 %d 个文件。", doc.Title, len(doc.Leaves), len(in.Datasets)),
		fmt.Sprintf("Write the %d sections of %q one by one from the %d files of the knowledge base.", len(doc.Leaves), doc.Title, len(in.Datasets)))
	return c.toolCall(prompts.SubmitPlanTool, map[string]any{"tasks": tasks, "plan_summary": summary})
}

func hintFor(l lang, k sectionKind) string {
	switch k {
	case kindScores:
		return l.pick("引用各次评估的平均分、中位数与及格率", "cite each assessment's mean, median and pass rate")
	case kindStrong:
		return l.pick("列出各次评估的前三名", "name the top three of each assessment")
	case kindSupport:
		return l.pick("列出后三名与缺交的学生", "name the bottom three and missing submissions")
	case kindErrors:
		return l.pick("归纳最常见的错误类型", "group the most frequent error patterns")
	case kindReflect, kindPlan:
		return l.pick("结合教学记录与错误类型提出措施", "tie actions to the teaching log and error patterns")
	case kindSummary:
		return l.pick("概括全班表现", "sum up the class's performance")
	}
	return l.pick("说明班级、科目、人数与学年", "state class, subject, size and year")
}

func langCode(code, sample string) lang {
	switch code {
	case "zh":
		return zh
	case "en":
		return en
	}
	return detectLang(sample)
}

// firstUserRaw is the first user message with markers (JSON stays parseable:
// markers sit inside strings).
func firstUserRaw(c *call) string {
	for _, m := range c.req.Messages {
		if m.Role == "user" {
			return string(m.Content)
		}
	}
	return ""
}

func reportSolverReply(c *call, firstAttempt bool) reply {
	var t struct {
		ID             int      `json:"id"`
		Title          string   `json:"title"`
		RequiredInputs []string `json:"required_inputs"`
		Notes          string   `json:"notes"`
		Language       string   `json:"language"`
	}
	_ = json.Unmarshal([]byte(firstUserRaw(c)), &t)
	l := langCode(t.Language, t.Title)
	calls, results, _ := toolTurns(c)
	read := map[string]string{}
	for _, k := range calls {
		if k.name != toolReadFile {
			continue
		}
		var a struct{ Path string }
		_ = json.Unmarshal([]byte(k.args), &a)
		read[a.Path] = results[k.name+" "+k.args]
	}
	for _, p := range t.RequiredInputs {
		if _, ok := read[p]; !ok {
			return c.toolCall(toolReadFile, map[string]any{"path": p})
		}
	}
	if strings.Contains(t.Notes, string(MarkerSolverFailsOnce)) && firstAttempt {
		return textReply("")
	}
	body := writeSection(l, kindOfTitle(t.Title), read)
	if strings.Contains(t.Notes, string(MarkerSolverRepeatsHeading)) {
		body = "## " + t.Title + "\n\n" + body
	}
	return textReply(body)
}

// kbData is what a section writer read, decoded.
type kbData struct {
	class struct {
		Class struct {
			Name         string `json:"name"`
			Subject      string `json:"subject"`
			Grade        string `json:"grade"`
			StudentCount int    `json:"student_count"`
			AcademicYear string `json:"academic_year"`
		} `json:"class"`
		Teacher string `json:"teacher"`
	}
	grades struct {
		Class       string          `json:"class"`
		Assignments []assignmentRow `json:"assignments"`
		Students    []studentRow    `json:"students"`
	}
	errors struct {
		Students []struct {
			Student  string `json:"student"`
			Patterns []struct {
				Pattern string `json:"pattern"`
				Skill   string `json:"skill"`
				Count   int    `json:"count"`
			} `json:"patterns"`
		} `json:"students"`
	}
	log struct {
		Entries []struct {
			Title     string `json:"title"`
			UpdatedAt string `json:"updated_at"`
		} `json:"entries"`
	}
}

type assignmentRow struct {
	Title    string   `json:"title"`
	MaxScore float64  `json:"max_score"`
	Mean     float64  `json:"mean"`
	Median   float64  `json:"median"`
	PassRate float64  `json:"pass_rate"`
	PassMark float64  `json:"pass_mark_percent"`
	Missing  []string `json:"missing"`
	Late     []string `json:"late"`
	Top3     []scored `json:"top3"`
	Bottom3  []scored `json:"bottom3"`
}

type studentRow struct {
	Name    string  `json:"name"`
	Average float64 `json:"average_percent"`
}

type scored struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// fileJSON is a read_local_file result: the file's text as a JSON string.
func fileJSON(result string, into any) bool {
	var text string
	if json.Unmarshal([]byte(result), &text) != nil {
		return false
	}
	return json.Unmarshal([]byte(text), into) == nil
}

func writeSection(l lang, k sectionKind, read map[string]string) string {
	var d kbData
	hasClass := fileJSON(read["datasets/class.json"], &d.class)
	hasGrades := fileJSON(read["datasets/grades.json"], &d.grades)
	hasErrors := fileJSON(read["datasets/error_patterns.json"], &d.errors)
	hasLog := fileJSON(read["datasets/teaching_log.json"], &d.log)
	var b strings.Builder
	line := func(zh, en string, args ...any) { b.WriteString(fmt.Sprintf(l.pick(zh, en), args...) + "\n") }
	switch {
	case k == kindProfile && hasClass:
		c := d.class.Class
		line("%s（%s）%s科共有学生 %d 人，学年 %s，任教老师为 %s。", "%s (%s) %s has %d students in %s, taught by %s.",
			c.Name, c.Grade, subjectName(l, c.Subject), c.StudentCount, c.AcademicYear, d.class.Teacher)
	case k == kindSummary && hasGrades:
		var sum float64
		for _, st := range d.grades.Students {
			sum += st.Average
		}
		mean := 0.0
		if n := len(d.grades.Students); n > 0 {
			mean = math.Round(sum/float64(n)*10) / 10
		}
		line("本学期 %s 共完成 %d 次评估，全班平均得分率约 %g%%。", "This term %s completed %d assessments with an average score of about %g%%.",
			d.grades.Class, len(d.grades.Assignments), mean)
		if best, worst, ok := passExtremes(d.grades.Assignments); ok && scores.Meaningful(best.PassRate, worst.PassRate) {
			line("「%s」表现最好，「%s」仍是短板。", "%q went best, while %q remains the weak spot.", best.Title, worst.Title)
		}
		if top, low := topStudents(d, 1, true), topStudents(d, 3, false); top != "" {
			line("%s 全学期领先；%s 需要持续跟进。", "%s led all term; %s need continued follow-up.", top, low)
		}
	case k == kindPlan && (hasGrades || hasErrors):
		n := 1
		if _, worst, ok := passExtremes(d.grades.Assignments); ok {
			line("%d. 「%s」及格率 %g%%（≥ 满分的 %g%%）：下学期目标提高到 %g%% 以上，每两周一次小测跟踪。", "%d. %q had a %g%% pass rate (≥ %g%% of full marks): aim above %g%% next term, with a short quiz every two weeks.",
				n, worst.Title, worst.PassRate, worst.PassMark, math.Min(100, math.Round(worst.PassRate)+5))
			n++
		}
		errs := commonErrors(d, 4)
		for _, p := range errs[min(2, len(errs)):] {
			line("%d. 把「%s」（%s）纳入每周练习。", "%d. Add %q (%s) to the weekly practice.", n, p.pattern, skillIn(l, p.skill))
			n++
		}
		late, missing := 0, 0
		for _, a := range d.grades.Assignments {
			late, missing = late+len(a.Late), missing+len(a.Missing)
		}
		if late+missing > 0 {
			line("%d. 本学期有 %d 份作业迟交、%d 份缺交：建立截止前提醒与补交登记。", "%d. %d submissions were late and %d missing this term: remind before deadlines and log late work.", n, late, missing)
		}
	case k == kindScores && hasGrades:
		line("| 评估 | 满分 | 平均分 | 中位数 | 及格率（≥ 满分的 %g%%） |", "| Assessment | Max | Mean | Median | Pass rate (≥ %g%% of full marks) |",
			passMark(d.grades.Assignments))
		b.WriteString("| --- | --- | --- | --- | --- |\n")
		for _, a := range d.grades.Assignments {
			fmt.Fprintf(&b, "| %s | %g | %g | %g | %g%% |\n", a.Title, a.MaxScore, a.Mean, a.Median, a.PassRate)
		}
		if best, worst, ok := passExtremes(d.grades.Assignments); ok {
			b.WriteString("\n")
			line("及格率（≥ 满分的 %g%%）最高的是「%s」（%g%%），最低的是「%s」（%g%%）。", "The highest pass rate (≥ %g%% of full marks) was in %q (%g%%), the lowest in %q (%g%%).",
				passMark(d.grades.Assignments), best.Title, best.PassRate, worst.Title, worst.PassRate)
		}
	case k == kindStrong && hasGrades:
		for _, a := range d.grades.Assignments {
			line("- %s：%s", "- %s: %s", a.Title, names(a.Top3))
		}
		if top := topStudents(d, 3, true); top != "" {
			line("\n按平均得分率，全学期表现最稳定的是 %s。", "\nBy average percentage, the most consistent students were %s.", top)
		}
	case k == kindSupport && hasGrades:
		if low := topStudents(d, 5, false); low != "" {
			line("平均得分率最低的学生：%s。", "Lowest average percentage: %s.", low)
		}
		for _, a := range d.grades.Assignments {
			if len(a.Missing) > 0 {
				line("- 「%s」缺交：%s", "- %s not submitted by: %s", a.Title, strings.Join(a.Missing, ", "))
			}
			if len(a.Late) > 0 {
				line("- 「%s」迟交：%s", "- %s handed in late by: %s", a.Title, strings.Join(a.Late, ", "))
			}
		}
	case k == kindErrors && hasErrors:
		for _, p := range commonErrors(d, 4) {
			line("- %s（%s）：%d 次", "- %s (%s): %d times", p.pattern, skillIn(l, p.skill), p.count)
		}
	case k == kindReflect && (hasLog || hasErrors):
		if hasLog && len(d.log.Entries) > 0 {
			var ts []string
			for _, e := range d.log.Entries[:min(3, len(d.log.Entries))] {
				ts = append(ts, "「"+e.Title+"」")
			}
			line("本学期的教学材料包括 %s。", "This term's materials included %s.", strings.Join(ts, l.pick("、", ", ")))
		}
		errs := commonErrors(d, 2)
		for _, p := range errs {
			line("- 针对「%s」（%d 次），安排专项练习与课堂讲评。", "- Target %q (%d occurrences) with focused practice and class review.", p.pattern, p.count)
		}
		if low := topStudents(d, 3, false); low != "" {
			line("- 对 %s 安排个别辅导并跟进作业提交。", "- Give %s one-to-one support and follow up their submissions.", low)
		}
	default:
		line("知识库中没有本节所需的数据，本节请老师补充。", "The knowledge base has no data for this section; please complete it by hand.")
	}
	return strings.TrimSpace(b.String())
}

// passMark is the pass mark the rows' pass rates are computed at (one for
// all: the product's), in percent of full marks.
func passMark(as []assignmentRow) float64 {
	for _, a := range as {
		if a.PassMark > 0 {
			return a.PassMark
		}
	}
	return 0
}

func passExtremes(as []assignmentRow) (best, worst assignmentRow, ok bool) {
	if len(as) == 0 {
		return best, worst, false
	}
	best, worst = as[0], as[0]
	for _, a := range as {
		if a.PassRate > best.PassRate {
			best = a
		}
		if a.PassRate < worst.PassRate {
			worst = a
		}
	}
	return best, worst, true
}

func names(ss []scored) string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s (%g)", s.Name, s.Score))
	}
	return strings.Join(out, ", ")
}

func topStudents(d kbData, n int, best bool) string {
	st := slices.Clone(d.grades.Students)
	slices.SortFunc(st, func(a, b studentRow) int {
		if best {
			return cmp.Compare(b.Average, a.Average)
		}
		return cmp.Compare(a.Average, b.Average)
	})
	var out []string
	for _, s := range st[:min(n, len(st))] {
		out = append(out, fmt.Sprintf("%s (%g%%)", s.Name, s.Average))
	}
	return strings.Join(out, ", ")
}

// skillIn is a skill's name (the data service's key, "vocabulary") in the
// report's language: "词汇" in a Chinese report.
func skillIn(l lang, key string) string {
	if l == zh {
		return i18n.Chinese.Skill(key)
	}
	return key
}

type errCount struct {
	pattern, skill string
	count          int
}

func commonErrors(d kbData, n int) []errCount {
	by := map[string]*errCount{}
	for _, s := range d.errors.Students {
		for _, p := range s.Patterns {
			e := by[p.Pattern]
			if e == nil {
				e = &errCount{pattern: p.Pattern, skill: p.Skill}
				by[p.Pattern] = e
			}
			e.count += p.Count
		}
	}
	var out []errCount
	for _, e := range by {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b errCount) int {
		return cmp.Or(cmp.Compare(b.count, a.count), strings.Compare(a.pattern, b.pattern))
	})
	return out[:min(n, len(out))]
}

func reportEditorReply(c *call) reply {
	var in struct {
		Title     string   `json:"title"`
		Language  string   `json:"language"`
		Downloads []string `json:"downloads"`
		Sections  []struct {
			Title  string `json:"title"`
			Status string `json:"status"`
		} `json:"sections"`
	}
	_ = json.Unmarshal([]byte(firstUserRaw(c)), &in)
	l := langCode(in.Language, in.Title)
	var done, missing []string
	for _, s := range in.Sections {
		if s.Status == "completed" {
			done = append(done, s.Title)
		} else {
			missing = append(missing, s.Title)
		}
	}
	var b strings.Builder
	b.WriteString(fmt.Sprintf(l.pick("《%s》已按模板生成，%d 个章节写入了知识库中的数据", "%q follows its template: %d sections were written from the knowledge base"), in.Title, len(done)))
	if len(done) > 0 {
		b.WriteString(fmt.Sprintf(l.pick("，从「%s」到「%s」。", ", from %q to %q. "), done[0], done[len(done)-1]))
	} else {
		b.WriteString(l.pick("。", ". "))
	}
	if len(missing) > 0 {
		b.WriteString(fmt.Sprintf(l.pick("未完成的章节：%s。", "Not written: %s. "), strings.Join(missing, l.pick("、", ", "))))
	}
	if len(in.Downloads) > 0 {
		names := map[string]string{"docx": "Word", "pdf": "PDF"}
		var fs []string
		for _, f := range in.Downloads {
			fs = append(fs, cmp.Or(names[f], f))
		}
		b.WriteString(fmt.Sprintf(l.pick("报告可以用下方的链接下载（%s）。", "Download it with the links below (%s)."), strings.Join(fs, l.pick("、", ", "))))
	}
	return textReply(strings.TrimSpace(b.String()))
}
