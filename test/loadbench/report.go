package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// write prints the run as Markdown: per table, the summary in the shape of
// docs/benchmarks.md, then every level of every side.
func (r *result) write(w io.Writer) {
	fmt.Fprintf(w, "Machine: %s\nPinning: %s\nMock: %s\n", r.Machine, r.Pinned, r.Mock)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	for _, t := range r.Tables {
		fmt.Fprintf(w, "\n### TEXT_FLUSH_INTERVAL=%s\n\n", flushName(t.Flush))
		t.summary(w)
		fmt.Fprintln(w)
		t.details(w)
	}
	r.firstWords(w)
}

// firstWords prints the first-words scenario (issue 29) side by side.
func (r *result) firstWords(w io.Writer) {
	if len(r.FirstWords) == 0 {
		return
	}
	fmt.Fprintf(w, "\n### First words (c=1, model first token %s, router %s, %s a token, default flush)\n\n", milli(firstToken), milli(routerCost), milli(tokenPace))
	by := map[string]firstWord{}
	for _, f := range r.FirstWords {
		by[f.Side] = f
	}
	a, aok := by["aisdk"]
	p, pok := by["product"]
	rows := []struct {
		name string
		get  func(firstWord) time.Duration
	}{
		{"first text-delta p50, a direct answer", func(f firstWord) time.Duration { return f.DeltaP50 }},
		{"first visible part p50, a direct answer", func(f firstWord) time.Duration { return f.PartP50 }},
		{"first visible part p50, a conversation's first quiz turn (Insight Edge: tool progress; AI SDK: its text)", func(f firstWord) time.Duration { return f.QuizP50 }},
		{"first visible part p50, a quiz turn after a quiz turn", func(f firstWord) time.Duration { return f.NextP50 }},
		{"first text-delta p50, a conversation's first quiz turn (Insight Edge: after the quiz)", func(f firstWord) time.Duration { return f.QuizText }},
	}
	fmt.Fprintln(w, "| | AI SDK | Insight Edge | ratio |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: |")
	for _, row := range rows {
		ratio := "—"
		if aok && pok && row.get(a) > 0 {
			ratio = fmt.Sprintf("%.2f×", float64(row.get(p))/float64(row.get(a)))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", row.name, orDash(milli(row.get(a)), aok), orDash(milli(row.get(p)), pok), ratio)
	}
	for _, f := range r.FirstWords {
		fmt.Fprintf(w, "\n%s: %d answers of each kind, %d failed %s", sideName(f.Side), f.Answers, f.Failed, f.FirstErr)
	}
	fmt.Fprintln(w)
}

func (t table) get(side string, pick func(scenario) bool) (measure, bool) {
	for _, m := range t.Measures {
		if m.Side == side && pick(m.Scenario) {
			return m, true
		}
	}
	return measure{}, false
}

// unpaced returns the table's unpaced levels in order.
func (t table) unpaced() []int {
	var cs []int
	for _, m := range t.Measures {
		if m.Scenario.Pace == 0 && !slices.Contains(cs, m.Scenario.C) {
			cs = append(cs, m.Scenario.C)
		}
	}
	slices.Sort(cs)
	return cs
}

// summary is the comparison in the shape: answers per core at the
// loaded levels, CPU per chunk at the first loaded level, first text-delta
// p50 at the lowest level and p99 at the paced one, start-up and memory.
func (t table) summary(w io.Writer) {
	cs := t.unpaced()
	if len(cs) == 0 {
		return
	}
	loaded := cs
	if len(cs) > 1 {
		loaded = cs[1:]
	}
	at := func(c int) func(scenario) bool { return func(s scenario) bool { return s.Pace == 0 && s.C == c } }
	paced := func(s scenario) bool { return s.Pace > 0 }
	type row struct {
		name  string
		value func(side string) (string, []float64, bool) // shown, compared, ok
	}
	perCore := func(side string) (string, []float64, bool) {
		var parts []string
		var vs []float64
		for _, c := range loaded {
			m, ok := t.get(side, at(c))
			if !ok {
				return "", nil, false
			}
			parts = append(parts, fmt.Sprintf("%.0f", m.PerCore()))
			vs = append(vs, m.PerCore())
		}
		return strings.Join(parts, " / "), vs, true
	}
	pick := func(p func(scenario) bool, f func(measure) time.Duration, show func(time.Duration) string) func(string) (string, []float64, bool) {
		return func(side string) (string, []float64, bool) {
			m, ok := t.get(side, p)
			if !ok {
				return "", nil, false
			}
			return show(f(m)), []float64{float64(f(m))}, true
		}
	}
	median := func(side string, f func(measure) int64) (int64, bool) {
		var vs []int64
		for _, m := range t.Measures {
			if m.Side == side {
				vs = append(vs, f(m))
			}
		}
		if len(vs) == 0 {
			return 0, false
		}
		slices.Sort(vs)
		return vs[len(vs)/2], true
	}
	top := cs[len(cs)-1]
	rows := []row{
		{fmt.Sprintf("answers/s per core, %s (mock unpaced)", levels(loaded)), perCore},
		{fmt.Sprintf("CPU per chunk, c=%d (mock unpaced)", loaded[0]),
			pick(at(loaded[0]), func(m measure) time.Duration { return m.CPUPerChunk() }, micro)},
		{fmt.Sprintf("first text-delta p50, c=%d (mock unpaced)", cs[0]),
			pick(at(cs[0]), func(m measure) time.Duration { return m.P50 }, milli)},
	}
	// issue 29: CPU per chunk at every paced level; the p99 row at the
	// busiest one.
	var pacedAt []scenario
	for _, m := range t.Measures {
		if m.Side == "product" && paced(m.Scenario) {
			pacedAt = append(pacedAt, m.Scenario)
		}
	}
	for _, sc := range pacedAt {
		rows = append(rows, row{fmt.Sprintf("CPU per chunk, %s", sc),
			pick(func(s scenario) bool { return s == sc }, func(m measure) time.Duration { return m.CPUPerChunk() }, micro)})
	}
	if len(pacedAt) > 0 {
		sc := pacedAt[len(pacedAt)-1]
		rows = append(rows, row{fmt.Sprintf("first text-delta p99, %s", sc),
			pick(func(s scenario) bool { return s == sc }, func(m measure) time.Duration { return m.P99 }, milli)})
	}
	rows = append(rows,
		row{"spawn → first byte (median of the spawns)", func(side string) (string, []float64, bool) {
			v, ok := median(side, func(m measure) int64 { return int64(m.FirstByte) })
			return milli(time.Duration(v)), []float64{float64(v)}, ok
		}},
		row{"CPU until the first byte (median of the spawns)", func(side string) (string, []float64, bool) {
			v, ok := median(side, func(m measure) int64 { return int64(m.StartCPU) })
			return milli(time.Duration(v)), []float64{float64(v)}, ok
		}},
		row{fmt.Sprintf("peak RSS, c=%d (unpaced)", top), func(side string) (string, []float64, bool) {
			m, ok := t.get(side, at(top))
			return mb(m.PeakRSS), []float64{float64(m.PeakRSS)}, ok
		}},
		row{"idle RSS (median of the spawns)", func(side string) (string, []float64, bool) {
			v, ok := median(side, func(m measure) int64 { return m.IdleRSS })
			return mb(v), []float64{float64(v)}, ok
		}},
	)
	fmt.Fprintln(w, "| | AI SDK | Insight Edge | ratio |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: |")
	for _, r := range rows {
		a, av, aok := r.value("aisdk")
		p, pv, pok := r.value("product")
		ratio := "—"
		if aok && pok && len(av) == len(pv) {
			var rs []string
			for i := range av {
				if av[i] > 0 {
					rs = append(rs, fmt.Sprintf("%.2f×", pv[i]/av[i]))
				}
			}
			ratio = strings.Join(rs, " / ")
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.name, orDash(a, aok), orDash(p, pok), ratio)
	}
}

// details lists every level of every side.
func (t table) details(w io.Writer) {
	fmt.Fprintln(w, "| level | side | answers (failed) | answers/s | server CPU busy | answers/s per core | CPU per chunk | text-deltas per answer | model requests per answer | first delta p50 / p99 | spawn → first byte (CPU) | RSS idle / peak |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, m := range t.Measures {
		ok := max(m.Answers-m.Failed, 1)
		fmt.Fprintf(w, "| %s | %s | %d (%d) | %.0f | %.0f%% | %.0f | %s | %.1f | %.1f | %s / %s | %s (%s) | %s / %s |\n",
			m.Scenario, sideName(m.Side), m.Answers, m.Failed, m.AnswersPerSec(), 100*m.Busy(), m.PerCore(),
			micro(m.CPUPerChunk()), float64(m.Deltas)/float64(ok), float64(m.ModelReqs)/float64(m.Answers),
			milli(m.P50), milli(m.P99), milli(m.FirstByte), milli(m.StartCPU), mb(m.IdleRSS), mb(m.PeakRSS))
	}
}

func levels(cs []int) string {
	var s []string
	for _, c := range cs {
		s = append(s, fmt.Sprintf("c=%d", c))
	}
	return strings.Join(s, " / ")
}

func sideName(s string) string {
	if s == "aisdk" {
		return "AI SDK"
	}
	return "Insight Edge"
}

func orDash(s string, ok bool) string {
	if !ok {
		return "—"
	}
	return s
}

func micro(d time.Duration) string {
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
}

func milli(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/(1<<20)) }
