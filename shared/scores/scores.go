// Package scores is the product's one definition of score statistics: the
// page's compute graph, the template report's data and the chat answers all
// summarise scores here, so that one class shows one pass rate and one
// median wherever a teacher looks.
//
// The statistics are gonum's (gonum.org/v1/gonum/stat), with these
// definitions, which docs/build-runtime.md states for teachers:
//
//   - mean: the arithmetic mean;
//   - standard deviation: of the population, the class being the whole
//     population;
//   - median: the middle value, or the mean of the two middle values;
//   - percentiles (25th, 75th, 90th): nearest rank, the smallest value with
//     at least p of the values at or below it;
//   - pass rate: the share of values at or above the pass mark, which is
//     DefaultPassMark percent of full marks unless a blueprint node sets
//     another.
package scores

import (
	"slices"

	"gonum.org/v1/gonum/stat"
)

// DefaultPassMark is the pass mark, in percent of full marks, wherever
// none is set.
const DefaultPassMark = 60

// MeaningfulGap is the smallest difference, in percentage points of full
// marks, that a finding may call a strength or a weakness: below it two
// results are "about the same". The page writer's prompt states it
// (shared/prompts.Writer).
const MeaningfulGap = 5

// Meaningful reports whether a and b (in percent of full marks) differ by
// at least MeaningfulGap.
func Meaningful(a, b float64) bool { return a-b >= MeaningfulGap || b-a >= MeaningfulGap }

// A Summary is the order statistics of a sample and how many of its values
// reach the pass mark.
type Summary struct {
	Count                                         int
	Mean, Median, StdDev, Min, Max, P25, P75, P90 float64
	PassMark                                      float64
	PassCount                                     int
}

// PassRate is the share (0..1) of the values at or above the pass mark, 0
// for an empty sample.
func (s Summary) PassRate() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.PassCount) / float64(s.Count)
}

// Summarize returns the summary of xs with the given pass mark (in the
// values' unit). xs is not modified.
func Summarize(xs []float64, passMark float64) Summary {
	if len(xs) == 0 {
		return Summary{PassMark: passMark}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	mean, std := stat.PopMeanStdDev(s, nil)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	below, _ := slices.BinarySearch(s, passMark) // the first index with s[i] >= passMark
	return Summary{
		Count: n, Mean: mean, Median: med, StdDev: std, Min: s[0], Max: s[n-1],
		P25: stat.Quantile(0.25, stat.Empirical, s, nil), P75: stat.Quantile(0.75, stat.Empirical, s, nil),
		P90: stat.Quantile(0.90, stat.Empirical, s, nil), PassMark: passMark, PassCount: n - below,
	}
}

// Percent is score as a percentage of maxScore.
func Percent(score, maxScore float64) float64 { return 100 * score / maxScore }
