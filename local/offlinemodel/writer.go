package offlinemodel

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/insightedge/insightedge/shared/blueprint/compute"
	"github.com/insightedge/insightedge/shared/scores"
)

// The page writer (prompts.WriterHeader): one slot of one block, written
// from the computed numbers in the request — a caption, a Markdown summary,
// findings or suggestions — in the requested language. Every number it
// writes is one of the request's, rounded to one decimal.

// writerRequest is the writer's user message (blueprint/build's).
type writerRequest struct {
	Page       string `json:"page"`
	DataSource string `json:"dataSource"`
	Block      struct {
		ID    string `json:"id"`
		Type  string `json:"type"`
		Title string `json:"title"`
	} `json:"block"`
	Slot        string                     `json:"slot"`
	Instruction string                     `json:"instruction"`
	Change      string                     `json:"change"`
	Language    string                     `json:"language"`
	Data        map[string]json.RawMessage `json:"data"`
}

// facts are the numbers of a request (blueprint/compute's results),
// sorted by kind.
type facts struct {
	stats       *compute.Stats
	bins        []compute.Bin
	top, bottom []compute.Entry
	assignments []compute.Group
	skills      []compute.Group
	students    []compute.Group
}

func readFacts(data map[string]json.RawMessage) facts {
	var f facts
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var probe struct {
			PassRate *float64        `json:"passRate"`
			Bins     []compute.Bin   `json:"bins"`
			Top      []compute.Entry `json:"top"`
			Bottom   []compute.Entry `json:"bottom"`
			GroupBy  string          `json:"groupBy"`
			Groups   []compute.Group `json:"groups"`
		}
		if json.Unmarshal(data[k], &probe) != nil {
			continue
		}
		switch {
		case probe.Groups != nil:
			switch probe.GroupBy {
			case "skill":
				f.skills = probe.Groups
			case "assignment":
				f.assignments = probe.Groups
			default:
				f.students = probe.Groups
			}
		case probe.Top != nil:
			f.top, f.bottom = probe.Top, probe.Bottom
		case probe.Bins != nil:
			f.bins = probe.Bins
		case probe.PassRate != nil && f.stats == nil:
			var s compute.Stats
			if json.Unmarshal(data[k], &s) == nil {
				f.stats = &s
			}
		}
	}
	return f
}

func writerReply(c *call) reply {
	var req writerRequest
	if err := json.Unmarshal([]byte(c.user), &req); err != nil {
		return textReply(c.lang.pick("（无法读取这次写作请求。）", "(The request could not be read.)"))
	}
	l := en
	if req.Language == "" || strings.HasPrefix(strings.ToLower(req.Language), "zh") {
		l = zh
	}
	f := readFacts(req.Data)
	var text string
	switch {
	case req.Slot == "caption":
		text = caption(l, req.Block.Type, f)
	case req.Block.Type == "insight_list":
		text = findings(l, f)
	case req.Block.Type == "suggestion_list":
		text = suggestions(l, f)
	default:
		text = summary(l, req, f)
	}
	if req.Change != "" {
		text = revise(l, req.Change, text)
	}
	return textReply(text)
}

// revise applies a patch's request to a text: shorter keeps the first
// paragraph (or line); anything else is acknowledged at the top.
func revise(l lang, change, text string) string {
	low := strings.ToLower(change)
	if containsAny(low, "短", "简", "short", "brief", "concise") {
		paras := strings.Split(strings.TrimSpace(text), "\n\n")
		if len(paras) > 1 {
			return strings.Join(paras[:min(2, len(paras)-1)], "\n\n")
		}
		lines := strings.Split(text, "\n")
		return strings.Join(lines[:min(2, len(lines))], "\n")
	}
	return l.pick("（已按要求调整：", "(Adjusted as asked: ") + change + l.pick("）\n", ")\n") + text
}

// pct formats a percentage (or a 0–1 rate when rate) with one decimal.
func pct(x float64, rate bool) string {
	if rate {
		x *= 100
	}
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', 1, 64) + "%"
}

func caption(l lang, blockType string, f facts) string {
	switch {
	case blockType == "chart" && len(f.bins) > 0:
		top := slices.MaxFunc(f.bins, func(a, b compute.Bin) int { return cmp.Compare(a.Count, b.Count) })
		return l.pick(fmt.Sprintf("%s 区间的学生最多（%d 人）。", top.Label, top.Count),
			fmt.Sprintf("Most students are in the %s band (%d).", top.Label, top.Count))
	case len(f.assignments) > 0:
		hi, lo := extremes(f.assignments)
		if len(f.assignments) > 1 && !scores.Meaningful(hi.Mean, lo.Mean) {
			return l.pick(fmt.Sprintf("各项作业表现相近：平均得分率在 %s 到 %s 之间。", pct(lo.Mean, false), pct(hi.Mean, false)),
				fmt.Sprintf("The assignments went about evenly: means between %s and %s.", pct(lo.Mean, false), pct(hi.Mean, false)))
		}
		return l.pick(fmt.Sprintf("「%s」表现最好（%s），「%s」最弱（%s）。", hi.Label, pct(hi.Mean, false), lo.Label, pct(lo.Mean, false)),
			fmt.Sprintf("%q went best (%s) and %q worst (%s).", hi.Label, pct(hi.Mean, false), lo.Label, pct(lo.Mean, false)))
	case len(f.skills) > 0:
		hi, lo := extremes(f.skills)
		if !scores.Meaningful(hi.Mean, lo.Mean) {
			return l.pick(fmt.Sprintf("各项技能相近：得分率在 %s 到 %s 之间。", pct(lo.Mean, false), pct(hi.Mean, false)),
				fmt.Sprintf("The skills are about even: between %s and %s.", pct(lo.Mean, false), pct(hi.Mean, false)))
		}
		return l.pick(fmt.Sprintf("%s 最强（%s），%s 最弱（%s）。", skillName(l, hi.Key), pct(hi.Mean, false), skillName(l, lo.Key), pct(lo.Mean, false)),
			fmt.Sprintf("%s is strongest (%s), %s weakest (%s).", skillName(l, hi.Key), pct(hi.Mean, false), skillName(l, lo.Key), pct(lo.Mean, false)))
	case f.stats != nil:
		s := f.stats
		return l.pick(fmt.Sprintf("平均得分率 %s，及格率 %s。", pct(s.Mean, false), pct(s.PassRate, true)),
			fmt.Sprintf("Mean %s, pass rate %s.", pct(s.Mean, false), pct(s.PassRate, true)))
	}
	return l.pick("数据见上。", "See the figures above.")
}

func extremes(gs []compute.Group) (hi, lo compute.Group) {
	byMean := func(a, b compute.Group) int { return cmp.Compare(a.Mean, b.Mean) }
	return slices.MaxFunc(gs, byMean), slices.MinFunc(gs, byMean)
}

func skillName(l lang, key string) string {
	if l == zh {
		if s, ok := map[string]string{"grammar": "语法", "vocabulary": "词汇", "reading": "阅读", "writing": "写作"}[key]; ok {
			return s
		}
	}
	return key
}

func summary(l lang, req writerRequest, f facts) string {
	var b strings.Builder
	who := req.DataSource
	if who == "" {
		who = l.pick("本班", "The class")
	}
	if s := f.stats; s != nil {
		b.WriteString(l.pick(
			fmt.Sprintf("%s 共 %d 名学生，平均得分率 %s，中位数 %s；%d 人达到 %s 的及格线（及格率 %s）。最高 %s，最低 %s，标准差 %.1f。",
				who, s.Count, pct(s.Mean, false), pct(s.Median, false), s.PassCount, pct(s.PassMark, false), pct(s.PassRate, true),
				pct(s.Max, false), pct(s.Min, false), s.StdDev),
			fmt.Sprintf("%s: %d students, mean %s, median %s; %d reach the %s pass mark (pass rate %s). Highest %s, lowest %s, standard deviation %.1f.",
				who, s.Count, pct(s.Mean, false), pct(s.Median, false), s.PassCount, pct(s.PassMark, false), pct(s.PassRate, true),
				pct(s.Max, false), pct(s.Min, false), s.StdDev)))
	}
	if len(f.assignments) > 0 {
		hi, lo := extremes(f.assignments)
		b.WriteString(l.pick(fmt.Sprintf("\n\n- 表现最好的作业：「%s」（%s）\n- 最需要关注的作业：「%s」（%s，及格率 %s）",
			hi.Label, pct(hi.Mean, false), lo.Label, pct(lo.Mean, false), pct(lo.PassRate, true)),
			fmt.Sprintf("\n\n- Best assignment: %q (%s)\n- Needs attention: %q (%s, pass rate %s)",
				hi.Label, pct(hi.Mean, false), lo.Label, pct(lo.Mean, false), pct(lo.PassRate, true))))
	}
	if _, lo, ok := weakSkill(f); ok {
		b.WriteString(l.pick(fmt.Sprintf("\n- 最弱的技能：%s（%s）", skillName(l, lo.Key), pct(lo.Mean, false)),
			fmt.Sprintf("\n- Weakest skill: %s (%s)", skillName(l, lo.Key), pct(lo.Mean, false))))
	}
	return strings.TrimSpace(b.String())
}

func findings(l lang, f facts) string {
	var lines []string
	if s := f.stats; s != nil {
		lines = append(lines, l.pick(fmt.Sprintf("- 整体水平：平均得分率 %s，及格率 %s。", pct(s.Mean, false), pct(s.PassRate, true)),
			fmt.Sprintf("- Overall level: mean %s, pass rate %s.", pct(s.Mean, false), pct(s.PassRate, true))))
	}
	if len(f.skills) > 1 {
		hi, lo := extremes(f.skills)
		if scores.Meaningful(hi.Mean, lo.Mean) {
			lines = append(lines, l.pick(fmt.Sprintf("- %s是短板：平均 %s，比%s低 %.1f 个百分点。", skillName(l, lo.Key), pct(lo.Mean, false), skillName(l, hi.Key), hi.Mean-lo.Mean),
				fmt.Sprintf("- %s is the weak spot: mean %s, %.1f points below %s.", skillName(l, lo.Key), pct(lo.Mean, false), hi.Mean-lo.Mean, skillName(l, hi.Key))))
		} else {
			lines = append(lines, l.pick(fmt.Sprintf("- 各项技能相近：最高的%s与最低的%s相差不到 %d 个百分点。", skillName(l, hi.Key), skillName(l, lo.Key), scores.MeaningfulGap),
				fmt.Sprintf("- Skills are about even: %s and %s are less than %d points apart.", skillName(l, hi.Key), skillName(l, lo.Key), scores.MeaningfulGap)))
		}
	}
	if len(f.bottom) > 0 && len(f.top) > 0 {
		lines = append(lines, l.pick(fmt.Sprintf("- 差距明显：最高的 %s（%s）与最低的 %s（%s）。", f.top[0].StudentName, pct(f.top[0].Value, false), f.bottom[0].StudentName, pct(f.bottom[0].Value, false)),
			fmt.Sprintf("- A wide gap: %s at %s against %s at %s.", f.top[0].StudentName, pct(f.top[0].Value, false), f.bottom[0].StudentName, pct(f.bottom[0].Value, false))))
	}
	if len(f.assignments) > 0 {
		hi, lo := extremes(f.assignments)
		if len(f.assignments) > 1 && !scores.Meaningful(hi.Mean, lo.Mean) {
			lines = append(lines, l.pick(fmt.Sprintf("- 各项作业难度相近：平均得分率相差不到 %d 个百分点。", scores.MeaningfulGap),
				fmt.Sprintf("- The assignments were about as hard as each other: their means are less than %d points apart.", scores.MeaningfulGap)))
		} else {
			lines = append(lines, l.pick(fmt.Sprintf("- 「%s」最难：平均 %s。", lo.Label, pct(lo.Mean, false)),
				fmt.Sprintf("- %q was the hardest: mean %s.", lo.Label, pct(lo.Mean, false))))
		}
	}
	if len(lines) == 0 {
		lines = append(lines, l.pick("- 数据不足：没有可分析的成绩。", "- Not enough data: no scores to analyse."))
	}
	return strings.Join(lines, "\n")
}

func suggestions(l lang, f facts) string {
	var lines []string
	if _, lo, ok := weakSkill(f); ok {
		lines = append(lines, l.pick(fmt.Sprintf("- [high] 针对%s的专项练习：每周两次 15 分钟的%s小练习，先从平均 %s 的薄弱处入手。", skillName(l, lo.Key), skillName(l, lo.Key), pct(lo.Mean, false)),
			fmt.Sprintf("- [high] Targeted %s practice: two 15-minute %s drills a week, starting where the mean is %s.", skillName(l, lo.Key), skillName(l, lo.Key), pct(lo.Mean, false))))
	}
	if s := f.stats; s != nil && s.PassCount < s.Count {
		lines = append(lines, l.pick(fmt.Sprintf("- [high] 辅导未及格的 %d 名学生：安排小组辅导，并在下次作业前复查。", s.Count-s.PassCount),
			fmt.Sprintf("- [high] Support the %d students below the pass mark: small-group sessions, checked before the next assignment.", s.Count-s.PassCount)))
	}
	if len(f.assignments) > 0 {
		_, lo := extremes(f.assignments)
		lines = append(lines, l.pick(fmt.Sprintf("- [medium] 讲评「%s」：挑出最常见的错误，在课堂上集中讲解。", lo.Label),
			fmt.Sprintf("- [medium] Review %q: take its most common mistakes through in class.", lo.Label)))
	}
	lines = append(lines, l.pick("- [low] 为高分学生准备拓展任务：让他们带领同伴讨论。", "- [low] Extension tasks for the strongest students: let them lead peer discussions."))
	return strings.Join(lines, "\n")
}

// weakSkill returns the class's strongest and weakest skills when the gap
// between them is one a teacher should act on (scores.Meaningful): a page
// must not call a skill the weak spot for half a point.
func weakSkill(f facts) (hi, lo compute.Group, ok bool) {
	if len(f.skills) < 2 {
		return hi, lo, false
	}
	hi, lo = extremes(f.skills)
	return hi, lo, scores.Meaningful(hi.Mean, lo.Mean)
}
