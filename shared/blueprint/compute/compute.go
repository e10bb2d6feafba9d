// Package compute runs a blueprint's compute graph: deterministic statistics
// over the submissions the data phase fetched. Numbers on a page come from
// here, never from a model.
//
// The summary statistics (mean, median, standard deviation, percentiles,
// pass rate) are the product's one definition, shared/scores; the rest are
// gonum's (gonum.org/v1/gonum/stat), with these definitions, which
// docs/build-runtime.md states for teachers:
//
//   - distribution: counts per bin, each bin [lower, upper) except the last,
//     which includes its upper edge (stat.Histogram);
//   - ranking: by value, ties by student id, top N descending and bottom N
//     ascending.
//
// With Per "student" (the default), each student's values are averaged
// first, so that a student with more submissions does not weigh more.
package compute

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/scores"
)

// Stats is the result of a stats node.
type Stats struct {
	Metric    string  `json:"metric"`
	Per       string  `json:"per"`
	Count     int     `json:"count"`
	Mean      float64 `json:"mean"`
	Median    float64 `json:"median"`
	StdDev    float64 `json:"stdDev"`
	Min       float64 `json:"min"`
	Max       float64 `json:"max"`
	P25       float64 `json:"p25"`
	P75       float64 `json:"p75"`
	P90       float64 `json:"p90"`
	PassMark  float64 `json:"passMark"`
	PassCount int     `json:"passCount"`
	PassRate  float64 `json:"passRate"` // 0..1
	// Ungraded and Unusable count the submissions left out: not graded yet,
	// or without a usable max score (per submission, before any averaging).
	Ungraded int `json:"ungraded"`
	Unusable int `json:"unusable"`
}

// Distribution is the result of a distribution node.
type Distribution struct {
	Metric string `json:"metric"`
	Per    string `json:"per"`
	Count  int    `json:"count"`
	Bins   []Bin  `json:"bins"`
}

// Bin is one bin of a Distribution.
type Bin struct {
	Label string  `json:"label"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	Count int     `json:"count"`
	Share float64 `json:"share"` // 0..1
}

// Ranking is the result of a ranking node.
type Ranking struct {
	Metric string  `json:"metric"`
	Per    string  `json:"per"`
	Count  int     `json:"count"`
	Top    []Entry `json:"top"`
	Bottom []Entry `json:"bottom"`
}

// Entry is one ranked value.
type Entry struct {
	Rank        int     `json:"rank"`
	StudentID   string  `json:"studentId"`
	StudentName string  `json:"studentName"`
	Value       float64 `json:"value"`
	Submissions int     `json:"submissions"`
}

// Breakdown is the result of a breakdown node.
type Breakdown struct {
	Metric   string  `json:"metric"`
	GroupBy  string  `json:"groupBy"`
	PassMark float64 `json:"passMark"`
	Groups   []Group `json:"groups"`
}

// Group is one group of a Breakdown.
type Group struct {
	Key      string  `json:"key"`
	Label    string  `json:"label"`
	Count    int     `json:"count"`
	Mean     float64 `json:"mean"`
	Median   float64 `json:"median"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	PassRate float64 `json:"passRate"`
}

// Run computes every node of bp over data, in order, at the default pass
// mark where a node sets none.
func Run(bp blueprint.Blueprint, data blueprint.DataContext) (blueprint.ComputeResults, error) {
	return RunAt(bp, data, blueprint.DefaultPassMark)
}

// RunAt is Run with passMark (the school's, issue 23) where a node sets
// none; a node's own passMark wins.
func RunAt(bp blueprint.Blueprint, data blueprint.DataContext, passMark float64) (blueprint.ComputeResults, error) {
	out := make(blueprint.ComputeResults, len(bp.ComputeGraph.Nodes))
	subs := map[string][]Submission{}
	for _, n := range bp.ComputeGraph.Nodes {
		if n.PassMark == nil {
			n.PassMark = &passMark
		}
		s, ok := subs[n.Source]
		if !ok {
			raw, found := data[n.Source]
			if !found {
				// An optional binding that failed: its nodes have no result.
				continue
			}
			var err error
			if s, err = Submissions(raw); err != nil {
				return nil, apperr.Wrap(err, apperr.DataError, "the data of binding %q cannot be computed over", n.Source)
			}
			subs[n.Source] = s
		}
		res, err := Node(n, s)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, fmt.Errorf("compute: encode %s: %w", n.ID, err)
		}
		out[n.ID] = b
	}
	return out, nil
}

// Node computes one node over subs.
func Node(n blueprint.ComputeNode, subs []Submission) (any, error) {
	metric := cmp.Or(n.Metric, blueprint.MetricPercent)
	per := cmp.Or(n.Per, blueprint.PerStudent)
	pass := float64(blueprint.DefaultPassMark)
	if n.PassMark != nil {
		pass = *n.PassMark
	}
	switch n.Op {
	case blueprint.OpStats:
		st := stats(units(subs, metric, per), metric, per, pass)
		st.Ungraded, st.Unusable = leftOut(subs)
		return st, nil
	case blueprint.OpDistribution:
		bins := n.Bins
		if len(bins) == 0 {
			bins = blueprint.DefaultBins()
		}
		return distribution(units(subs, metric, per), metric, per, bins), nil
	case blueprint.OpRanking:
		return ranking(units(subs, metric, blueprint.PerStudent), metric, cmp.Or(n.Limit, blueprint.DefaultLimit)), nil
	case blueprint.OpBreakdown:
		return breakdown(subs, metric, n.GroupBy, pass), nil
	}
	return nil, apperr.New(apperr.BlueprintError, "compute node %q: unknown operation %q", n.ID, n.Op)
}

// Submission is one submission as the compute graph sees it.
type Submission struct {
	StudentID       string
	StudentName     string
	AssignmentID    string
	AssignmentTitle string
	// Score is nil for work not graded yet; MaxScore is nil when the
	// service sent none usable. Neither is ever taken as 0.
	Score    *float64
	MaxScore *float64
	Skills   *javaapi.Skills
}

// Value returns the submission's metric, and false when it has none (not
// graded, no maxScore for a percent or a score, no sub-scores for a skill).
func (s Submission) Value(metric string) (float64, bool) {
	if s.Score == nil {
		return 0, false
	}
	switch metric {
	case blueprint.MetricPercent:
		if s.MaxScore == nil || *s.MaxScore <= 0 {
			return 0, false
		}
		return *s.Score / *s.MaxScore * 100, true
	case blueprint.MetricScore:
		// A raw score without its scale cannot be compared with others.
		if s.MaxScore == nil || *s.MaxScore <= 0 {
			return 0, false
		}
		return *s.Score, true
	}
	if s.Skills == nil {
		return 0, false
	}
	return s.Skills.Get(metric)
}

// leftOut counts the submissions no statistic can use.
func leftOut(subs []Submission) (ungraded, unusable int) {
	for _, s := range subs {
		switch {
		case s.Score == nil:
			ungraded++
		case s.MaxScore == nil || *s.MaxScore <= 0:
			unusable++
		}
	}
	return ungraded, unusable
}

// submissionSet is a data tool's output that holds submissions: one
// assignment's (get_assignment_submissions) or one student's
// (get_student_grades).
type submissionSet struct {
	AssignmentID string                     `json:"assignmentId"`
	Title        string                     `json:"title"`
	StudentID    string                     `json:"studentId"`
	StudentName  string                     `json:"studentName"`
	Submissions  []javaapi.SubmissionRecord `json:"submissions"`
}

// Submissions extracts the submissions of a binding's data: one tool
// output or a list of them (a forEach binding).
func Submissions(raw json.RawMessage) ([]Submission, error) {
	var sets []submissionSet
	trimmed := strings.TrimSpace(string(raw))
	switch {
	case strings.HasPrefix(trimmed, "["):
		if err := json.Unmarshal(raw, &sets); err != nil {
			return nil, fmt.Errorf("compute: decode submission lists: %w", err)
		}
	case strings.HasPrefix(trimmed, "{"):
		var one submissionSet
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("compute: decode submissions: %w", err)
		}
		sets = []submissionSet{one}
	default:
		return nil, errors.New("compute: the data is neither an object nor a list")
	}
	var out []Submission
	for _, set := range sets {
		for _, r := range set.Submissions {
			s := Submission{StudentID: cmp.Or(r.StudentID, set.StudentID), StudentName: cmp.Or(r.StudentName, set.StudentName),
				AssignmentID: cmp.Or(r.AssignmentID, set.AssignmentID), AssignmentTitle: cmp.Or(r.AssignmentTitle, set.Title),
				Score: r.Score, MaxScore: r.MaxScore, Skills: r.Skills}
			out = append(out, s)
		}
	}
	return out, nil
}

// unit is one value computed over: a submission, or a student's mean.
type unit struct {
	studentID, studentName string
	value                  float64
	n                      int
}

// units returns the values of metric, one per submission or per student
// (in order of first appearance).
func units(subs []Submission, metric, per string) []unit {
	if per == blueprint.PerSubmission {
		var out []unit
		for _, s := range subs {
			if v, ok := s.Value(metric); ok {
				out = append(out, unit{s.StudentID, s.StudentName, v, 1})
			}
		}
		return out
	}
	idx := map[string]int{}
	var sums []unit
	for _, s := range subs {
		v, ok := s.Value(metric)
		if !ok {
			continue
		}
		i, seen := idx[s.StudentID]
		if !seen {
			i = len(sums)
			idx[s.StudentID] = i
			sums = append(sums, unit{studentID: s.StudentID, studentName: s.StudentName})
		}
		sums[i].value += v
		sums[i].n++
	}
	for i := range sums {
		sums[i].value /= float64(sums[i].n)
	}
	return sums
}

func values(us []unit) []float64 {
	xs := make([]float64, len(us))
	for i, u := range us {
		xs[i] = u.value
	}
	return xs
}

func stats(us []unit, metric, per string, pass float64) Stats {
	s := scores.Summarize(values(us), pass)
	return Stats{Metric: metric, Per: per, Count: s.Count, Mean: s.Mean, Median: s.Median, StdDev: s.StdDev,
		Min: s.Min, Max: s.Max, P25: s.P25, P75: s.P75, P90: s.P90, PassMark: pass, PassCount: s.PassCount,
		PassRate: s.PassRate()}
}

func distribution(us []unit, metric, per string, edges []float64) Distribution {
	xs := values(us)
	slices.Sort(xs)
	lo, hi := edges[0], edges[len(edges)-1]
	// stat.Histogram counts x into [d[j], d[j+1]) and needs every x inside
	// the dividers: values beyond the edges are clamped into the outer
	// bins, and the top edge is nudged so that the last bin includes it.
	dividers := slices.Clone(edges)
	dividers[len(dividers)-1] = math.Nextafter(hi, math.Inf(1))
	clamped := make([]float64, len(xs))
	for i, x := range xs {
		clamped[i] = min(max(x, lo), hi)
	}
	counts := make([]float64, len(edges)-1)
	if len(clamped) > 0 {
		stat.Histogram(counts, dividers, clamped, nil)
	}
	out := Distribution{Metric: metric, Per: per, Count: len(xs), Bins: make([]Bin, len(counts))}
	for i, c := range counts {
		b := Bin{Label: binLabel(edges[i], edges[i+1], i == len(counts)-1), Lower: edges[i], Upper: edges[i+1], Count: int(c)}
		if len(xs) > 0 {
			b.Share = c / float64(len(xs))
		}
		out.Bins[i] = b
	}
	return out
}

// binLabel names a bin the way a teacher reads it: "60–69" for whole-number
// edges (the bin holds values below 70), "90–100" for the last.
func binLabel(lo, hi float64, last bool) string {
	if lo == math.Trunc(lo) && hi == math.Trunc(hi) && !last {
		return fmt.Sprintf("%g–%g", lo, hi-1)
	}
	return fmt.Sprintf("%g–%g", lo, hi)
}

func ranking(us []unit, metric string, limit int) Ranking {
	desc := slices.Clone(us)
	slices.SortStableFunc(desc, func(a, b unit) int {
		return cmp.Or(cmp.Compare(b.value, a.value), strings.Compare(a.studentID, b.studentID))
	})
	asc := slices.Clone(us)
	slices.SortStableFunc(asc, func(a, b unit) int {
		return cmp.Or(cmp.Compare(a.value, b.value), strings.Compare(a.studentID, b.studentID))
	})
	entries := func(us []unit, rank func(i int) int) []Entry {
		out := []Entry{}
		for i, u := range us[:min(limit, len(us))] {
			out = append(out, Entry{Rank: rank(i), StudentID: u.studentID, StudentName: u.studentName, Value: u.value, Submissions: u.n})
		}
		return out
	}
	n := len(us)
	return Ranking{Metric: metric, Per: blueprint.PerStudent, Count: n,
		Top:    entries(desc, func(i int) int { return i + 1 }),
		Bottom: entries(asc, func(i int) int { return n - i })}
}

func breakdown(subs []Submission, metric, groupBy string, pass float64) Breakdown {
	type acc struct {
		key, label string
		xs         []float64
	}
	var groups []*acc
	idx := map[string]*acc{}
	add := func(key, label string, v float64) {
		g := idx[key]
		if g == nil {
			g = &acc{key: key, label: label}
			idx[key] = g
			groups = append(groups, g)
		}
		g.xs = append(g.xs, v)
	}
	switch groupBy {
	case blueprint.GroupSkill:
		// Each skill is a group; its values are the skill's sub-scores.
		for _, skill := range javaapi.SkillNames() {
			for _, s := range subs {
				if v, ok := s.Value(skill); ok {
					add(skill, skill, v)
				}
			}
		}
		metric = "skill"
	default:
		for _, s := range subs {
			v, ok := s.Value(metric)
			if !ok {
				continue
			}
			if groupBy == blueprint.GroupAssignment {
				add(s.AssignmentID, s.AssignmentTitle, v)
			} else {
				add(s.StudentID, s.StudentName, v)
			}
		}
	}
	out := Breakdown{Metric: metric, GroupBy: groupBy, PassMark: pass, Groups: []Group{}}
	for _, g := range groups {
		s := scores.Summarize(g.xs, pass)
		out.Groups = append(out.Groups, Group{Key: g.key, Label: g.label, Count: s.Count, Mean: s.Mean, Median: s.Median,
			Min: s.Min, Max: s.Max, PassRate: s.PassRate()})
	}
	return out
}
