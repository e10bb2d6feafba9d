package session

import (
	"context"
	"slices"
	"testing"
)

// turnsPager pages a slice of turns as Store.PageTurns does.
type turnsPager []Turn

func (p turnsPager) PageTurns(_ context.Context, _ string, before, limit int) ([]Turn, bool, error) {
	end := len(p)
	if before > 0 {
		end = slices.IndexFunc(p, func(t Turn) bool { return t.Index >= before })
		if end < 0 {
			end = len(p)
		}
	}
	start := max(0, end-limit)
	return p[start:end], start > 0, nil
}

func indexes(ts []Turn) []int {
	var out []int
	for _, t := range ts {
		out = append(out, t.Index)
	}
	return out
}

// TestPageVisibleMatchesVisible: paging back through the visible turns,
// page by page, gives exactly what Visible gives for the whole session.
func TestPageVisibleMatchesVisible(t *testing.T) {
	cases := []struct {
		name     string
		replaces map[int]int // turn index → Replaces
	}{
		{"no regenerations", nil},
		{"last answer regenerated", map[int]int{10: 9}},
		{"regenerated twice", map[int]int{10: 9, 11: 9}},
		{"a regeneration replaced by an older one", map[int]int{6: 4, 9: 3}},
		{"regenerations throughout", map[int]int{3: 2, 5: 4, 8: 6, 12: 7}},
	}
	for _, tc := range cases {
		var all turnsPager
		for i := 1; i <= 12; i++ {
			all = append(all, Turn{Index: i, Replaces: tc.replaces[i]})
		}
		want := indexes(Visible(all))
		for _, limit := range []int{1, 2, 3, 5, 50} {
			var got []int
			before := 0
			for pages := 0; ; pages++ {
				page, more, err := PageVisible(context.Background(), all, "s", before, limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(page) > limit {
					t.Fatalf("%s, limit %d: a page of %d", tc.name, limit, len(page))
				}
				got = append(indexes(page), got...)
				if !more || len(page) == 0 || pages > 20 {
					break
				}
				before = page[0].Index
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s, limit %d: pages give %v, Visible %v", tc.name, limit, got, want)
			}
		}
	}
}
