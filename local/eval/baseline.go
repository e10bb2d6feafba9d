package eval

import (
	"encoding/json"
	"fmt"
	"os"
)

// Verdict is one acceptance rule applied to a run and its baseline.
type Verdict struct {
	Rule     string  `json:"rule"`
	Row      string  `json:"row"`
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	// Pass is false when the rule fails; watched figures always pass.
	Pass    bool   `json:"pass"`
	Watched bool   `json:"watched,omitempty"`
	Note    string `json:"note,omitempty"`
}

// CompareOptions tune the latency rule.
type CompareOptions struct {
	// LatencySlackMS is added to the allowed P50: a run measured in
	// milliseconds (the offline model) varies by more than 20% from noise.
	LatencySlackMS float64
}

// LoadReport reads a report written by an earlier run.
func LoadReport(name string) (Report, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return Report{}, fmt.Errorf("eval: baseline: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return Report{}, fmt.Errorf("eval: baseline %s is not a report: %w", name, err)
	}
	return r, nil
}

// Compare applies the acceptance rules of seed 000 §6 to cur against base,
// and reports the figures §7.8 watches. A rule about a scene that is not in
// both runs is skipped.
func Compare(cur, base Report, o CompareOptions) []Verdict {
	c, b := byName(cur.Rows), byName(base.Rows)
	var out []Verdict
	atLeast := func(rule, scene string) {
		cr, ok1 := c[scene]
		br, ok2 := b[scene]
		if !ok1 || !ok2 {
			return
		}
		out = append(out, Verdict{Rule: rule, Row: scene, Baseline: br.SuccessRate, Current: cr.SuccessRate,
			Pass: cr.SuccessRate >= br.SuccessRate-1e-9})
	}
	atLeast("quiz success rate ≥ baseline", "quiz")
	if cr, ok := c["quiz"]; ok {
		if br, ok := b["quiz"]; ok {
			limit := br.TotalP50*1.2 + o.LatencySlackMS
			out = append(out, Verdict{Rule: "quiz P50 no more than 20% worse", Row: "quiz", Baseline: br.TotalP50, Current: cr.TotalP50,
				Pass: cr.TotalP50 <= limit, Note: fmt.Sprintf("limit %.0f ms", limit)})
		}
	}
	for _, s := range []string{"ppt", "document", "pdf", "interactive"} {
		atLeast(s+" success rate ≥ baseline", s)
	}
	atLeast("cross-scene (quiz → PPT → page) success rate ≥ baseline", "cross-scene")
	atLeast("build path unaffected: success rate ≥ baseline", "build")
	if cc, bc, ok := clarifyPerCase(c, b); ok {
		out = append(out, Verdict{Rule: "clarify rounds not more", Row: "scenes in both", Baseline: bc, Current: cc, Pass: cc <= bc+1e-9})
	}
	all := c["all"]
	out = append(out, Verdict{Rule: "zero breakage of the frontend protocol", Row: "all", Baseline: 0,
		Current: float64(all.ProtocolBreaks), Pass: all.ProtocolBreaks == 0})
	ba := b["all"]
	for _, w := range []struct {
		name     string
		cur, bas float64
	}{
		{"false-promise rate (watched)", all.FalsePromiseRate, ba.FalsePromiseRate},
		{"tool-call success rate (watched)", all.ToolSuccessRate, ba.ToolSuccessRate},
		{"validate retry rate (watched)", all.ValidateRetryRate, ba.ValidateRetryRate},
		{"P50 total ms (watched)", all.TotalP50, ba.TotalP50},
	} {
		out = append(out, Verdict{Rule: w.name, Row: "all", Baseline: w.bas, Current: w.cur, Pass: true, Watched: true})
	}
	return out
}

// clarifyPerCase is the clarify rounds per case over the scenes of both runs.
func clarifyPerCase(c, b map[string]Row) (cur, base float64, ok bool) {
	var cr, cc, br, bc int
	for _, s := range Scenes {
		x, ok1 := c[s]
		y, ok2 := b[s]
		if !ok1 || !ok2 {
			continue
		}
		cr, cc, br, bc = cr+x.ClarifyRounds, cc+x.Cases, br+y.ClarifyRounds, bc+y.Cases
	}
	if cc == 0 || bc == 0 {
		return 0, 0, false
	}
	return float64(cr) / float64(cc), float64(br) / float64(bc), true
}

func byName(rows []Row) map[string]Row {
	m := make(map[string]Row, len(rows))
	for _, r := range rows {
		m[r.Name] = r
	}
	return m
}

// Failed returns the verdicts that fail.
func Failed(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if !v.Pass {
			out = append(out, v)
		}
	}
	return out
}
