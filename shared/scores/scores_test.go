package scores_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/scores"
)

func TestSummarize(t *testing.T) {
	cases := []struct {
		name      string
		xs        []float64
		pass      float64
		median    float64
		passCount int
		rate      float64
	}{
		{"empty", nil, 60, 0, 0, 0},
		{"odd", []float64{70, 50, 90}, 60, 70, 2, 2.0 / 3},
		{"even: the mean of the middle two", []float64{40, 90, 60, 70}, 60, 65, 3, 0.75},
		{"at the mark passes", []float64{60, 59.9}, 60, 59.95, 1, 0.5},
		{"ties at the mark", []float64{60, 60, 60, 10}, 60, 60, 3, 0.75},
	}
	for _, c := range cases {
		s := scores.Summarize(c.xs, c.pass)
		if s.Count != len(c.xs) || s.Median != c.median || s.PassCount != c.passCount || s.PassRate() != c.rate || s.PassMark != c.pass {
			t.Errorf("%s: %+v (rate %g)", c.name, s, s.PassRate())
		}
	}
	xs := []float64{3, 1, 2}
	scores.Summarize(xs, 0)
	if xs[0] != 3 {
		t.Error("Summarize sorted its input")
	}
}

func TestMeaningful(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		want bool
	}{{70, 69.5, false}, {70, 65, true}, {60, 66, true}, {80, 75.1, false}} {
		if got := scores.Meaningful(c.a, c.b); got != c.want {
			t.Errorf("Meaningful(%g, %g) = %v", c.a, c.b, got)
		}
	}
}

// The page writer is told the same rule the product checks.
func TestWriterStatesTheRule(t *testing.T) {
	if want := fmt.Sprintf("at least %d percentage points", scores.MeaningfulGap); !strings.Contains(prompts.Writer, want) {
		t.Errorf("prompts.Writer does not say %q", want)
	}
}
