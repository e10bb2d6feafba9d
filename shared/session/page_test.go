package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// issue 32: pages held as references.

// countingPager is a turnsPager that records the limit of each read, and
// the most turn bytes one read returned.
type countingPager struct {
	turnsPager
	reads    []int
	mostRead int
}

func (p *countingPager) PageTurns(ctx context.Context, id string, before, limit int) ([]Turn, bool, error) {
	p.reads = append(p.reads, limit)
	page, more, err := p.turnsPager.PageTurns(ctx, id, before, limit)
	size := 0
	for _, t := range page {
		size += t.size()
	}
	p.mostRead = max(p.mostRead, size)
	return slices.Clone(page), more, err // a store hands out its own copy
}

// TestPageRefsAndEachTurn: PageRefs pages like PageVisible, and EachTurn
// reads the turns its refs name again, oldest first, never more than
// pageRead turns (refRead while choosing them) a store read.
func TestPageRefsAndEachTurn(t *testing.T) {
	cases := []struct {
		name     string
		turns    int
		replaces map[int]int
	}{
		{"short", 12, nil},
		{"long", 300, nil},
		{"regenerations throughout", 60, map[int]int{3: 2, 5: 4, 8: 6, 12: 7, 40: 20, 59: 58}},
		{"one regeneration hides many", 60, map[int]int{50: 10}},
	}
	for _, tc := range cases {
		p := &countingPager{}
		for i := 1; i <= tc.turns; i++ {
			p.turnsPager = append(p.turnsPager, Turn{Index: i, ID: fmt.Sprintf("t%d", i), Replaces: tc.replaces[i]})
		}
		for _, limit := range []int{1, 7, 50, 200} {
			for _, before := range []int{0, 30} {
				want, wantMore, err := PageVisible(context.Background(), p.turnsPager, "s", before, limit)
				if err != nil {
					t.Fatal(err)
				}
				p.reads = nil
				refs, more, err := PageRefs(context.Background(), p, "s", before, limit)
				if err != nil {
					t.Fatal(err)
				}
				if more != wantMore || len(refs) != len(want) {
					t.Fatalf("%s, limit %d before %d: PageRefs %d refs more %v, PageVisible %d more %v", tc.name, limit, before, len(refs), more, len(want), wantMore)
				}
				if m := slices.Max(append(p.reads, 0)); m > refRead {
					t.Errorf("%s, limit %d: PageRefs read %d turns at once", tc.name, limit, m)
				}
				p.reads = nil
				var got []Turn
				for turn, err := range EachTurn(context.Background(), p, "s", refs) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, turn)
				}
				if !slices.EqualFunc(got, want, func(a, b Turn) bool { return a.ID == b.ID && a.Index == b.Index }) {
					t.Errorf("%s, limit %d before %d: EachTurn gives %v, PageVisible %v", tc.name, limit, before, indexes(got), indexes(want))
				}
				if m := slices.Max(append(p.reads, 0)); m > pageRead {
					t.Errorf("%s, limit %d: EachTurn read %d turns at once", tc.name, limit, m)
				}
			}
		}
	}
}

// TestEachTurnLargeTurns: turns of long messages (8,000 characters of
// Chinese, 24 KB) are read again one or two at a time, about pageReadBytes
// a read, and shorter ones more at a time.
func TestEachTurnLargeTurns(t *testing.T) {
	p := &countingPager{}
	for i := 1; i <= 40; i++ {
		msg := strings.Repeat("光合作用", 2000) // 24 KB
		if i > 20 {
			msg = "short"
		}
		p.turnsPager = append(p.turnsPager, Turn{Index: i, ID: fmt.Sprintf("t%d", i), Message: msg})
	}
	refs, _, err := PageRefs(context.Background(), p, "s", 0, 40)
	if err != nil {
		t.Fatal(err)
	}
	p.reads, p.mostRead = nil, 0
	n := 0
	for _, err := range EachTurn(context.Background(), p, "s", refs) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 40 || p.mostRead > pageReadBytes {
		t.Errorf("%d turns; a read of %d bytes, want at most %d", n, p.mostRead, pageReadBytes)
	}
	if !slices.Contains(p.reads, pageRead) {
		t.Errorf("reads %v: the short turns were not read %d at a time", p.reads, pageRead)
	}
}

// TestEachTurnError: a failed read ends the sequence with its error.
func TestEachTurnError(t *testing.T) {
	boom := errors.New("store down")
	var errs []error
	for _, err := range EachTurn(context.Background(), failingPager{boom}, "s", []TurnRef{{Index: 1, ID: "t1"}, {Index: 20, ID: "t20"}}) {
		errs = append(errs, err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], boom) {
		t.Fatalf("EachTurn over a failing store yields %v", errs)
	}
}

type failingPager struct{ err error }

func (p failingPager) PageTurns(context.Context, string, int, int) ([]Turn, bool, error) {
	return nil, false, p.err
}
