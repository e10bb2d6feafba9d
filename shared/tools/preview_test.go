package tools_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/tools"
)

func TestCounted(t *testing.T) {
	long := strings.Repeat("光", 50)
	tests := []struct {
		name   string
		labels []string
		want   []string
	}{
		{"none", nil, nil},
		{"blanks skipped, spaces folded", []string{" ", "Form  1A\n", ""}, []string{"Form 1A"}},
		{"at most three", []string{"a", "b", "c", "d"}, []string{"a", "b", "c"}},
		{"clipped", []string{long}, []string{strings.Repeat("光", 40) + "…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tools.Result{Preview: []string{"stale"}}.Counted(7, tt.labels...)
			if r.Count != 7 || !slices.Equal(r.Preview, tt.want) {
				t.Fatalf("Counted = %d %q, want 7 %q", r.Count, r.Preview, tt.want)
			}
		})
	}
	if got := tools.Labels([]int{1, 0, 2, 3, 4}, func(i int) string { return strings.Repeat("x", i) }); !slices.Equal(got, []string{"x", "xx", "xxx"}) {
		t.Fatalf("Labels = %q", got)
	}
}
