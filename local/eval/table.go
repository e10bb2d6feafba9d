package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the figures per scene, per tag and overall, the failing
// cases, and the verdicts of a baseline comparison.
func WriteTable(w io.Writer, r Report, verdicts []Verdict) {
	fmt.Fprintf(w, "\nInsight Edge eval: %s, %s, %.1f s, protocol check: %s\n\n", r.Target, r.Models, r.Seconds, r.Protocol)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scene\tcases\tsuccess\tfalse promise\ttool success\tvalidate retry\tclarify/case\tP50 total\tP90 total\tP50 first text\tP90 first text\ttokens/turn\tcost/turn\t")
	for _, x := range r.Rows {
		if x.Name == "all" {
			fmt.Fprintln(tw, strings.Repeat("\t", 13))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t\n", x.Name, x.Cases,
			pct(x.SuccessRate), pct(x.FalsePromiseRate), pct(x.ToolSuccessRate), pct(x.ValidateRetryRate), x.ClarifyPerCase,
			msStr(x.TotalP50), msStr(x.TotalP90), msStr(x.FirstTextP50), msStr(x.FirstTextP90), tokStr(x.TokensPerTurn), costStr(x.CostPerTurn))
	}
	tw.Flush()
	var failing []CaseResult
	for _, c := range r.Cases {
		if !c.Pass {
			failing = append(failing, c)
		}
	}
	if len(failing) > 0 {
		fmt.Fprintf(w, "\n%d failing cases:\n", len(failing))
		for _, c := range failing {
			fmt.Fprintf(w, "  %s (%s): %s\n", c.ID, c.Scene, firstFailure(c))
		}
	}
	if len(verdicts) > 0 {
		fmt.Fprintf(w, "\nacceptance rules (seed 000 §6) against the baseline:\n")
		for _, v := range verdicts {
			mark := "pass"
			switch {
			case v.Watched:
				mark = "note"
			case !v.Pass:
				mark = "FAIL"
			}
			note := ""
			if v.Note != "" {
				note = " (" + v.Note + ")"
			}
			fmt.Fprintf(w, "  %s  %-55s %-14s baseline %s, now %s%s\n", mark, v.Rule, v.Row, num(v.Baseline), num(v.Current), note)
		}
	}
}

func firstFailure(c CaseResult) string {
	for i, t := range c.Turns {
		if len(t.Failures) > 0 {
			return fmt.Sprintf("turn %d: %s", i+1, strings.Join(t.Failures, "; "))
		}
	}
	return "a turn did not run"
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", f*100) }

func msStr(f float64) string {
	if f >= 1000 {
		return fmt.Sprintf("%.1fs", f/1000)
	}
	return fmt.Sprintf("%.0fms", f)
}

func tokStr(f float64) string {
	if f == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", f)
}

func costStr(f float64) string {
	if f == 0 {
		return "—"
	}
	return fmt.Sprintf("$%.4f", f)
}

func num(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	if f < 1 {
		return fmt.Sprintf("%.3f", f)
	}
	return fmt.Sprintf("%.1f", f)
}
