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
	l := i18n.Of(bp.Language)
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
		pb.XAxis, pb.Series = []string{}, []blueprint.Series{{Name: countLabel(l, d.Per), Data: []float64{}}}
		for _, bin := range d.Bins {
			pb.XAxis = append(pb.XAxis, bin.Label)
			pb.Series[0].Data = append(pb.Series[0].Data, float64(bin.Count))
		}
	case block.ComponentType == blueprint.Chart && node.Op == blueprint.OpBreakdown:
		var bd compute.Breakdown
		if err := decode(&bd); err != nil {
			return err
		}
		pb.XAxis, pb.Series = []string{}, []blueprint.Series{{Name: meanLabel(l, bd.Metric), Data: []float64{}}}
		for _, g := range bd.Groups {
			pb.XAxis = append(pb.XAxis, groupLabel(l, bd.GroupBy, g))
			pb.Series[0].Data = append(pb.Series[0].Data, Round1(g.Mean))
		}
	case block.ComponentType == blueprint.Table && node.Op == blueprint.OpBreakdown:
		var bd compute.Breakdown
		if err := decode(&bd); err != nil {
			return err
		}
		pb.Headers = []string{l.Text(groupHeaders[bd.GroupBy]), l.Text(i18n.LabelCount), meanLabel(l, bd.Metric),
			l.Text(i18n.LabelMedian), l.Text(i18n.LabelMin), l.Text(i18n.LabelMax), l.Text(i18n.LabelPassRateAt, markText(bd.Metric, bd.PassMark))}
		pb.Rows = []blueprint.Row{}
		for _, g := range bd.Groups {
			pb.Rows = append(pb.Rows, blueprint.Row{Status: rowStatus(g.Mean, bd.PassMark, bd.Metric),
				Cells: []any{groupLabel(l, bd.GroupBy, g), g.Count, Round1(g.Mean), Round1(g.Median), Round1(g.Min), Round1(g.Max), Round1(g.PassRate * 100)}})
		}
	case block.ComponentType == blueprint.Table && node.Op == blueprint.OpRanking:
		var r compute.Ranking
		if err := decode(&r); err != nil {
			return err
		}
		pb.Headers = []string{l.Text(i18n.LabelRank), l.Text(i18n.LabelStudent), meanLabel(l, r.Metric), l.Text(i18n.LabelSubmissions)}
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
func kpis(s compute.Stats, l i18n.Lang) []blueprint.KPIItem {
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
		{Label: meanLabel(l, s.Metric), Value: v(s.Mean), Status: meanStatus, Subtext: l.Text(i18n.LabelMedian) + " " + v(s.Median)},
		{Label: l.Text(i18n.LabelPassRate), Value: passValue(s), Status: passStatus,
			Subtext: fmt.Sprintf("%d / %d ≥ %s", s.PassCount, s.Count, v(s.PassMark))},
		{Label: l.Text(i18n.LabelMax) + " / " + l.Text(i18n.LabelMin), Value: v(s.Max) + " / " + v(s.Min), Status: "neutral",
			Subtext: l.Text(i18n.LabelStdDev) + " " + Format1(s.StdDev)},
		{Label: countLabel(l, s.Per), Value: strconv.Itoa(s.Count), Status: countStatus(s),
			Subtext: leftOut(l, s) + "P25 " + v(s.P25) + " · P75 " + v(s.P75) + " · P90 " + v(s.P90)},
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
func leftOut(l i18n.Lang, s compute.Stats) string {
	out := ""
	if s.Ungraded > 0 {
		out += l.Text(i18n.Ungraded, s.Ungraded) + " · "
	}
	if s.Unusable > 0 {
		out += l.Text(i18n.NoMaxScore, s.Unusable) + " · "
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

// meanLabel names a mean of metric.
func meanLabel(l i18n.Lang, metric string) string {
	switch metric {
	case blueprint.MetricScore:
		return l.Text(i18n.LabelMeanScore)
	case blueprint.MetricPercent, "skill":
		return l.Text(i18n.LabelMeanPercent)
	}
	return l.Text(i18n.LabelMeanOf, l.Skill(metric))
}

// markText is a pass mark as the page shows it: in percent of full marks,
// or in points for a score metric.
func markText(metric string, mark float64) string {
	if metric == blueprint.MetricScore {
		return Format1(mark)
	}
	return FormatPercent(mark)
}

// countLabel names a count of students or of submissions (per).
func countLabel(l i18n.Lang, per string) string {
	if per == blueprint.PerSubmission {
		return l.Text(i18n.LabelSubmissions)
	}
	return l.Text(i18n.LabelStudents)
}

// groupHeaders name the groups of a breakdown.
var groupHeaders = map[string]i18n.Msg{
	blueprint.GroupStudent: i18n.LabelStudent, blueprint.GroupAssignment: i18n.LabelAssignment, blueprint.GroupSkill: i18n.LabelSkill,
}

// groupLabel names a group of a breakdown: a skill by its name, others by
// their label.
func groupLabel(l i18n.Lang, by string, g compute.Group) string {
	if by == blueprint.GroupSkill {
		return l.Skill(g.Key)
	}
	return g.Label
}
