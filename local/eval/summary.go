package eval

import (
	"math"
	"slices"
	"sort"
	"time"
)

// Report is a whole run: what ran against what, every case, and the figures.
type Report struct {
	Started   time.Time    `json:"started"`
	Seconds   float64      `json:"seconds"`
	Target    string       `json:"target"`
	Models    string       `json:"models"`
	Protocol  string       `json:"protocolCheck"` // how the AI SDK check ran: "ai-sdk", or why it did not
	Tokens    Usage        `json:"tokens"`
	Unmetered Usage        `json:"tokensUnattributed"`
	Prices    Prices       `json:"prices"`
	Rows      []Row        `json:"rows"`
	Cases     []CaseResult `json:"cases"`
}

// Prices are USD per million tokens, for the cost estimate.
type Prices struct {
	Input  float64 `json:"inputPerMillion"`
	Output float64 `json:"outputPerMillion"`
}

// Row is the figures of one scene, tag, or of all cases: its counts and
// rates, which the golden file pins, then the timings and cost.
type Row struct {
	PinnedRow
	ClarifyPerCase float64 `json:"clarifyPerCase"`
	// Latency in milliseconds, over turns (first text: turns that had text).
	TotalP50     float64   `json:"totalP50Ms"`
	TotalP90     float64   `json:"totalP90Ms"`
	FirstTextP50 float64   `json:"firstTextP50Ms"`
	FirstTextP90 float64   `json:"firstTextP90Ms"`
	TotalMS      []float64 `json:"totalMs"`
	// Tokens and estimated cost per turn (0 when not metered, e.g. with -url).
	TokensPerTurn float64 `json:"tokensPerTurn"`
	CostPerTurn   float64 `json:"costPerTurnUsd"`
}

// Summarise computes the rows: one per scene (in Scenes order, then others),
// one per chat mode that cases name ("mode:strict"), one per tag, and "all".
func Summarise(cases []CaseResult, p Prices) []Row {
	var scenes, modes, tags []string
	for _, c := range cases {
		if c.Mode != "" && !slices.Contains(modes, c.Mode) {
			modes = append(modes, c.Mode)
		}
		if !slices.Contains(scenes, c.Scene) {
			scenes = append(scenes, c.Scene)
		}
		for _, t := range c.Tags {
			if !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
	}
	sort.SliceStable(scenes, func(i, j int) bool { return sceneOrder(scenes[i]) < sceneOrder(scenes[j]) })
	slices.Sort(modes)
	slices.Sort(tags)
	var rows []Row
	for _, s := range scenes {
		rows = append(rows, row(s, cases, func(c CaseResult) bool { return c.Scene == s }, p))
	}
	for _, m := range modes {
		rows = append(rows, row("mode:"+m, cases, func(c CaseResult) bool { return c.Mode == m }, p))
	}
	for _, t := range tags {
		rows = append(rows, row("tag:"+t, cases, func(c CaseResult) bool { return slices.Contains(c.Tags, t) }, p))
	}
	return append(rows, row("all", cases, func(CaseResult) bool { return true }, p))
}

func sceneOrder(s string) int {
	if i := slices.Index(Scenes, s); i >= 0 {
		return i
	}
	return len(Scenes)
}

func row(name string, cases []CaseResult, in func(CaseResult) bool, p Prices) Row {
	r := Row{PinnedRow: PinnedRow{Name: name}}
	var first []float64
	var tokens Usage
	for _, c := range cases {
		if !in(c) {
			continue
		}
		r.Cases++
		if c.Pass {
			r.Passed++
		}
		for _, t := range c.Turns {
			r.Turns++
			r.FalsePromises += b2i(t.FalsePromise)
			r.ToolCalls += t.ToolCalls
			r.ToolErrors += t.ToolErrors
			r.ValidateRetries += b2i(t.ValidateRetry)
			r.ClarifyRounds += t.Clarify
			r.ProtocolBreaks += b2i(len(t.Protocol) > 0)
			r.TotalMS = append(r.TotalMS, t.TotalMS)
			if t.FirstTextMS >= 0 {
				first = append(first, t.FirstTextMS)
			}
			tokens.add(t.Tokens)
		}
	}
	r.SuccessRate = ratio(r.Passed, r.Cases)
	r.FalsePromiseRate = ratio(r.FalsePromises, r.Turns)
	r.ToolSuccessRate = 1
	if r.ToolCalls > 0 {
		r.ToolSuccessRate = ratio(r.ToolCalls-r.ToolErrors, r.ToolCalls)
	}
	r.ValidateRetryRate = ratio(r.ValidateRetries, r.Turns)
	r.ClarifyPerCase = ratio(r.ClarifyRounds, r.Cases)
	slices.Sort(r.TotalMS)
	slices.Sort(first)
	r.TotalP50, r.TotalP90 = percentile(r.TotalMS, 50), percentile(r.TotalMS, 90)
	r.FirstTextP50, r.FirstTextP90 = percentile(first, 50), percentile(first, 90)
	if r.Turns > 0 {
		r.TokensPerTurn = float64(tokens.Prompt+tokens.Completion) / float64(r.Turns)
		r.CostPerTurn = (float64(tokens.Prompt)*p.Input + float64(tokens.Completion)*p.Output) / 1e6 / float64(r.Turns)
	}
	return r
}

// percentile is the nearest-rank percentile of sorted values (0 when empty).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return math.Round(float64(a)/float64(b)*10000) / 10000
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Pinned is the part of a report that does not depend on timing: what a
// golden file pins for the deterministic offline run.
type Pinned struct {
	Rows    []PinnedRow `json:"rows"`
	Failing []string    `json:"failing"`
}

// PinnedRow is a Row's counts and rates.
type PinnedRow struct {
	Name   string `json:"name"`
	Cases  int    `json:"cases"`
	Passed int    `json:"passed"`
	Turns  int    `json:"turns"`
	// SuccessRate is passed / cases.
	SuccessRate     float64 `json:"successRate"`
	FalsePromises   int     `json:"falsePromises"`
	ToolCalls       int     `json:"toolCalls"`
	ToolErrors      int     `json:"toolErrors"`
	ValidateRetries int     `json:"validateRetries"`
	ClarifyRounds   int     `json:"clarifyRounds"`
	ProtocolBreaks  int     `json:"protocolBreaks"`
	// Rates per turn; ToolSuccessRate is per tool call (1 when none ran).
	FalsePromiseRate  float64 `json:"falsePromiseRate"`
	ToolSuccessRate   float64 `json:"toolSuccessRate"`
	ValidateRetryRate float64 `json:"validateRetryRate"`
}

// Pin returns the timing-free part of r.
func (r Report) Pin() Pinned {
	p := Pinned{Failing: []string{}}
	for _, x := range r.Rows {
		p.Rows = append(p.Rows, x.PinnedRow)
	}
	for _, c := range r.Cases {
		if !c.Pass {
			p.Failing = append(p.Failing, c.ID)
		}
	}
	return p
}
