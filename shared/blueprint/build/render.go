package build

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/compute"
	"github.com/insightedge/insightedge/shared/i18n"
)

// render fills a data block (kpi_grid, chart, table) from its compute
// result. Display values are rounded to one decimal; the exact numbers stay
// in the compute results. A block whose result is missing (its optional
// binding failed) is left without data.
func render(pb *blueprint.PageBlock, block blueprint.Block, bp blueprint.Blueprint, results blueprint.ComputeResults) error {
	if block.DataBinding == "" {
		return nil
	}
	raw, found := results[block.DataBinding]
	if !found {
		return nil
	}
	node, _ := bp.Node(block.DataBinding)
	l := labels(bp.Language)
	decode := func(v any) error {
		if err := json.Unmarshal(raw, v); err != nil {
			return apperr.Wrap(err, apperr.BlueprintError, "block %q: the result of %q is not a %s result", block.ID, node.ID, node.Op)
		}
		return nil
	}
	switch {
	case block.ComponentType == blueprint.KPIGrid && node.Op == blueprint.OpStats:
		var s compute.Stats
		if err := decode(&s); err != nil {
			return err
		}
		pb.Data = kpis(s, l)
	case block.ComponentType == blueprint.Chart && node.Op == blueprint.OpDistribution:
		var d compute.Distribution
		if err := decode(&d); err != nil {
			return err
		}
		pb.XAxis, pb.Series = []string{}, []blueprint.Series{{Name: l.students(d.Per), Data: []float64{}}}
		for _, bin := range d.Bins {
			pb.XAxis = append(pb.XAxis, bin.Label)
			pb.Series[0].Data = append(pb.Series[0].Data, float64(bin.Count))
		}
	case block.ComponentType == blueprint.Chart && node.Op == blueprint.OpBreakdown:
		var bd compute.Breakdown
		if err := decode(&bd); err != nil {
			return err
		}
		pb.XAxis, pb.Series = []string{}, []blueprint.Series{{Name: l.mean(bd.Metric), Data: []float64{}}}
		for _, g := range bd.Groups {
			pb.XAxis = append(pb.XAxis, l.group(bd.GroupBy, g))
			pb.Series[0].Data = append(pb.Series[0].Data, Round1(g.Mean))
		}
	case block.ComponentType == blueprint.Table && node.Op == blueprint.OpBreakdown:
		var bd compute.Breakdown
		if err := decode(&bd); err != nil {
			return err
		}
		pb.Headers = []string{l.groupHeader(bd.GroupBy), l.count, l.mean(bd.Metric), l.median, l.min, l.max, l.passRate}
		pb.Rows = []blueprint.Row{}
		for _, g := range bd.Groups {
			pb.Rows = append(pb.Rows, blueprint.Row{Status: rowStatus(g.Mean, bd.PassMark, bd.Metric),
				Cells: []any{l.group(bd.GroupBy, g), g.Count, Round1(g.Mean), Round1(g.Median), Round1(g.Min), Round1(g.Max), Round1(g.PassRate * 100)}})
		}
	case block.ComponentType == blueprint.Table && node.Op == blueprint.OpRanking:
		var r compute.Ranking
		if err := decode(&r); err != nil {
			return err
		}
		pb.Headers = []string{l.rank, l.student, l.mean(r.Metric), l.submissions}
		pb.Rows = []blueprint.Row{}
		shown := map[string]bool{}
		for _, e := range r.Top {
			shown[e.StudentID] = true
			pb.Rows = append(pb.Rows, blueprint.Row{Status: "success", Cells: []any{e.Rank, e.StudentName, Round1(e.Value), e.Submissions}})
		}
		// The bottom N, weakest last, unless already shown among the top.
		for i := len(r.Bottom) - 1; i >= 0; i-- {
			e := r.Bottom[i]
			if shown[e.StudentID] {
				continue
			}
			pb.Rows = append(pb.Rows, blueprint.Row{Status: "warning", Cells: []any{e.Rank, e.StudentName, Round1(e.Value), e.Submissions}})
		}
	default:
		return apperr.New(apperr.BlueprintError, "a %s cannot show the %s result %q", block.ComponentType, node.Op, node.ID)
	}
	return nil
}

// kpis are the cards of a stats result.
func kpis(s compute.Stats, l lang) []blueprint.KPIItem {
	pct := s.Metric != blueprint.MetricScore
	v := func(x float64) string {
		if s.Count == 0 {
			return "—" // nothing to average: no figure, rather than a 0 that reads as one
		}
		if pct {
			return FormatPercent(x)
		}
		return Format1(x)
	}
	meanStatus := "neutral"
	switch {
	case s.Count == 0:
	case s.Mean < s.PassMark:
		meanStatus = "down"
	case s.Mean >= s.PassMark+10:
		meanStatus = "up"
	}
	passStatus := "neutral"
	switch {
	case s.Count == 0:
	case s.PassRate < 0.6:
		passStatus = "down"
	case s.PassRate >= 0.8:
		passStatus = "up"
	}
	return []blueprint.KPIItem{
		{Label: l.mean(s.Metric), Value: v(s.Mean), Status: meanStatus, Subtext: l.median + " " + v(s.Median)},
		{Label: l.passRate, Value: passValue(s), Status: passStatus,
			Subtext: fmt.Sprintf("%d / %d ≥ %s", s.PassCount, s.Count, v(s.PassMark))},
		{Label: l.max + " / " + l.min, Value: v(s.Max) + " / " + v(s.Min), Status: "neutral", Subtext: l.stdDev + " " + Format1(s.StdDev)},
		{Label: l.students(s.Per), Value: strconv.Itoa(s.Count), Status: countStatus(s),
			Subtext: l.leftOut(s) + "P25 " + v(s.P25) + " · P75 " + v(s.P75) + " · P90 " + v(s.P90)},
	}
}

func passValue(s compute.Stats) string {
	if s.Count == 0 {
		return "—"
	}
	return FormatPercent(s.PassRate * 100)
}

// countStatus warns when submissions were left out of the statistics.
func countStatus(s compute.Stats) string {
	if s.Ungraded+s.Unusable > 0 {
		return "warning"
	}
	return "neutral"
}

// leftOut says which submissions the statistics leave out ("2 份未评分 · ").
func (l lang) leftOut(s compute.Stats) string {
	il := i18n.English
	if l.zh {
		il = i18n.Chinese
	}
	out := ""
	if s.Ungraded > 0 {
		out += il.Text(i18n.Ungraded, s.Ungraded) + " · "
	}
	if s.Unusable > 0 {
		out += il.Text(i18n.NoMaxScore, s.Unusable) + " · "
	}
	return out
}

func rowStatus(mean, pass float64, metric string) string {
	switch {
	case metric == blueprint.MetricScore:
		return "normal"
	case mean < pass:
		return "warning"
	case mean >= pass+20:
		return "success"
	}
	return "normal"
}

// Round1 rounds to one decimal, half away from zero: the display rounding
// of every number on a page.
func Round1(x float64) float64 { return math.Round(x*10) / 10 }

// Format1 formats x with one decimal.
func Format1(x float64) string { return strconv.FormatFloat(Round1(x), 'f', 1, 64) }

// FormatPercent formats a percentage with one decimal and "%".
func FormatPercent(x float64) string { return Format1(x) + "%" }

// lang holds the page's labels in one language.
type lang struct {
	zh                                                                    bool
	count, median, min, max, passRate, stdDev, rank, student, submissions string
}

func labels(l string) lang {
	if isZH(l) {
		return lang{zh: true, count: "人数", median: "中位数", min: "最低", max: "最高", passRate: "及格率", stdDev: "标准差",
			rank: "排名", student: "学生", submissions: "提交数"}
	}
	return lang{count: "Count", median: "Median", min: "Min", max: "Max", passRate: "Pass rate", stdDev: "Std dev",
		rank: "Rank", student: "Student", submissions: "Submissions"}
}

func (l lang) mean(metric string) string {
	switch metric {
	case blueprint.MetricScore:
		return map[bool]string{true: "平均分", false: "Mean score"}[l.zh]
	case blueprint.MetricPercent, "skill":
		return map[bool]string{true: "平均得分率", false: "Mean (%)"}[l.zh]
	}
	return map[bool]string{true: "平均" + l.skill(metric), false: "Mean " + metric}[l.zh]
}

func (l lang) students(per string) string {
	if per == blueprint.PerSubmission {
		return map[bool]string{true: "提交数", false: "Submissions"}[l.zh]
	}
	return map[bool]string{true: "学生人数", false: "Students"}[l.zh]
}

func (l lang) groupHeader(by string) string {
	zh := map[string]string{blueprint.GroupStudent: "学生", blueprint.GroupAssignment: "作业", blueprint.GroupSkill: "技能"}
	en := map[string]string{blueprint.GroupStudent: "Student", blueprint.GroupAssignment: "Assignment", blueprint.GroupSkill: "Skill"}
	if l.zh {
		return zh[by]
	}
	return en[by]
}

func (l lang) group(by string, g compute.Group) string {
	if by == blueprint.GroupSkill {
		return l.skill(g.Key)
	}
	return g.Label
}

func (l lang) skill(s string) string {
	if !l.zh {
		return s
	}
	if zh, ok := map[string]string{"grammar": "语法", "vocabulary": "词汇", "reading": "阅读", "writing": "写作"}[s]; ok {
		return zh
	}
	return s
}
