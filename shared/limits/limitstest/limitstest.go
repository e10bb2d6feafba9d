// Package limitstest is the contract suite of the fair-use limits' stores:
// a records.Backend (the teachers' admissions, the overrides) and a
// limits.Counters (the token counts). The embedded bbolt file, the
// DynamoDB table and the in-memory pair run it, so that every limit holds
// the same on each, under 100 concurrent requests too.
package limitstest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/limits"
	"github.com/insightedge/insightedge/shared/records"
)

// Stores are the stores a limiter keeps its counts in.
type Stores struct {
	Records  records.Backend
	Counters limits.Counters
}

// Run runs the suite; newStores returns empty stores for each case.
func Run(t *testing.T, newStores func(t *testing.T) Stores) {
	run := func(name string, test func(*testing.T, Stores)) {
		t.Run(name, func(t *testing.T) { test(t, newStores(t)) })
	}
	run("Counters", testCounters)
	run("ConcurrentTurnsRace", testConcurrentRace)
	run("TurnsPerMinuteRace", testPerMinuteRace)
	run("SlotReleasedAndLeased", testSlots)
	run("StartsPerWindow", testStartsPerWindow)
	run("TokenBudgets", testTokens)
	run("Overrides", testOverrides)
}

// Start is the suite's time: 10:00:30 in Hong Kong, mid-minute.
var Start = time.Date(2026, 11, 28, 2, 0, 30, 0, time.UTC)

// newLimiter is a limiter of v on st with a fake clock at Start.
func newLimiter(t *testing.T, st Stores, v limits.Values) (*limits.Limiter, *clocktest.Fake) {
	t.Helper()
	c, err := limits.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c.Values = v
	clk := clocktest.New(Start)
	return limits.New(c, st.Records, st.Counters, limits.Options{Now: clk.Now}), clk
}

// exceeded returns the limit err names (fails on another error).
func exceeded(t *testing.T, err error) *limits.Exceeded {
	t.Helper()
	var ex *limits.Exceeded
	if !errors.As(err, &ex) {
		t.Fatalf("got %v, want a refusal", err)
	}
	return ex
}

func testCounters(t *testing.T, st Stores) {
	ctx := context.Background()
	got, err := st.Counters.Counts(ctx, []string{"a", "b"})
	if err != nil || got[0] != 0 || got[1] != 0 {
		t.Fatalf("empty counts %v %v", got, err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if err := st.Counters.Add(ctx, "a", int64(i%3+1), Start.Add(time.Hour)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	want := int64(0)
	for i := range 50 {
		want += int64(i%3 + 1)
	}
	got, err = st.Counters.Counts(ctx, []string{"a", "missing", "a"})
	if err != nil || got[0] != want || got[1] != 0 || got[2] != want {
		t.Fatalf("counts %v %v, want [%d 0 %d]", got, err, want, want)
	}
}

// admitAll runs n admissions of action at once and returns how many were
// admitted; every other one must be a refusal of limit.
func admitAll(t *testing.T, l *limits.Limiter, n int, action limits.Action, limit limits.Limit, tag string) int {
	t.Helper()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		admitted int
	)
	for i := range n {
		wg.Go(func() {
			err := l.Admit(context.Background(), limits.Who{Teacher: "t-race"}, action, fmt.Sprintf("%s-%d", tag, i))
			var ex *limits.Exceeded
			switch {
			case err == nil:
				mu.Lock()
				admitted++
				mu.Unlock()
			case errors.As(err, &ex) && ex.Limit == limit:
			default:
				t.Errorf("admission %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	return admitted
}

func testConcurrentRace(t *testing.T, st Stores) {
	l, _ := newLimiter(t, st, limits.Values{limits.ConcurrentTurns: 2})
	if got := admitAll(t, l, 100, limits.Turn, limits.ConcurrentTurns, "a"); got != 2 {
		t.Fatalf("100 concurrent turns against 2: %d admitted", got)
	}
}

func testPerMinuteRace(t *testing.T, st Stores) {
	l, clk := newLimiter(t, st, limits.Values{limits.TurnsPerMinute: 5})
	if got := admitAll(t, l, 100, limits.Turn, limits.TurnsPerMinute, "a"); got != 5 {
		t.Fatalf("100 concurrent turns against 5 a minute: %d admitted", got)
	}
	ex := exceeded(t, l.Admit(context.Background(), limits.Who{Teacher: "t-race"}, limits.Turn, "late"))
	if ex.RetryAfter != 30*time.Second || ex.RetrySeconds() != 30 || ex.Max != 5 {
		t.Fatalf("refusal %+v, want retry after the minute's 30 s left", ex)
	}
	clk.Advance(30 * time.Second) // the next minute
	if got := admitAll(t, l, 100, limits.Turn, limits.TurnsPerMinute, "b"); got != 5 {
		t.Fatalf("the next minute: %d admitted", got)
	}
}

func testSlots(t *testing.T, st Stores) {
	ctx := context.Background()
	l, clk := newLimiter(t, st, limits.Values{limits.ConcurrentTurns: 1})
	me := limits.Who{Teacher: "t-1"}
	if err := l.Admit(ctx, me, limits.Turn, "turn-1"); err != nil {
		t.Fatal(err)
	}
	if ex := exceeded(t, l.Admit(ctx, me, limits.Turn, "turn-2")); ex.Limit != limits.ConcurrentTurns || ex.RetryAfter <= 0 {
		t.Fatalf("second turn %+v", ex)
	}
	// Another teacher has slots of their own; a build takes none.
	if err := l.Admit(ctx, limits.Who{Teacher: "t-2"}, limits.Turn, "turn-x"); err != nil {
		t.Fatal(err)
	}
	if err := l.Admit(ctx, me, limits.Build, "b-1"); err != nil {
		t.Fatal(err)
	}
	if err := l.End(ctx, "t-1", "turn-1"); err != nil {
		t.Fatal(err)
	}
	if err := l.End(ctx, "t-1", "turn-1"); err != nil {
		t.Fatalf("a second end: %v", err)
	}
	if err := l.Admit(ctx, me, limits.Turn, "turn-3"); err != nil {
		t.Fatalf("after the end: %v", err)
	}
	// turn-3's process dies: its slot is free once the lease runs out.
	clk.Advance(limits.DefaultLease - time.Second)
	exceeded(t, l.Admit(ctx, me, limits.Turn, "turn-4"))
	clk.Advance(time.Second)
	if err := l.Admit(ctx, me, limits.Turn, "turn-4"); err != nil {
		t.Fatalf("after the lease: %v", err)
	}
	use := usage(t, l, me)
	if use[limits.ConcurrentTurns].Used != 1 || use[limits.ConcurrentTurns].Max != 1 {
		t.Fatalf("usage %+v", use[limits.ConcurrentTurns])
	}
}

func usage(t *testing.T, l *limits.Limiter, who limits.Who) map[limits.Limit]limits.Use {
	t.Helper()
	us, err := l.Usage(context.Background(), who)
	if err != nil {
		t.Fatal(err)
	}
	out := map[limits.Limit]limits.Use{}
	for _, u := range us {
		out[u.Limit] = u
	}
	return out
}

// testStartsPerWindow: builds an hour, research runs and reports a day
// (the day of Hong Kong), each counted apart.
func testStartsPerWindow(t *testing.T, st Stores) {
	ctx := context.Background()
	l, clk := newLimiter(t, st, limits.Values{limits.BuildsPerHour: 2, limits.ResearchPerDay: 1, limits.ReportsPerDay: 3})
	me := limits.Who{Teacher: "t-1", School: "s-1"}
	cases := []struct {
		action limits.Action
		limit  limits.Limit
		n      int
		retry  time.Duration
	}{
		{limits.Build, limits.BuildsPerHour, 2, 59*time.Minute + 30*time.Second},
		{limits.Research, limits.ResearchPerDay, 1, 13*time.Hour + 59*time.Minute + 30*time.Second},
		{limits.Report, limits.ReportsPerDay, 3, 13*time.Hour + 59*time.Minute + 30*time.Second},
	}
	for _, c := range cases {
		for i := range c.n {
			if err := l.Admit(ctx, me, c.action, ""); err != nil {
				t.Fatalf("%s %d: %v", c.action, i, err)
			}
		}
		ex := exceeded(t, l.Admit(ctx, me, c.action, ""))
		if ex.Limit != c.limit || ex.RetryAfter != c.retry {
			t.Fatalf("%s refused %+v, want %s retry %v", c.action, ex, c.limit, c.retry)
		}
		if got := usage(t, l, me)[c.limit]; got.Used != int64(c.n) || got.Max != int64(c.n) || got.ResetsAt == nil {
			t.Fatalf("usage %+v", got)
		}
	}
	if err := l.Admit(ctx, me, limits.Turn, "turn-1"); err != nil {
		t.Fatalf("turns are not limited here: %v", err)
	}
	clk.Advance(time.Hour)
	if err := l.Admit(ctx, me, limits.Build, ""); err != nil {
		t.Fatalf("the next hour: %v", err)
	}
	exceeded(t, l.Admit(ctx, me, limits.Research, ""))
	clk.Advance(14 * time.Hour) // past midnight in Hong Kong
	if err := l.Admit(ctx, me, limits.Research, ""); err != nil {
		t.Fatalf("the next day: %v", err)
	}
}

// testTokens: a teacher's and a school's day of tokens, metered after the
// calls; the school is shared by its teachers, a teacher without one is
// their own.
func testTokens(t *testing.T, st Stores) {
	ctx := context.Background()
	l, clk := newLimiter(t, st, limits.Values{limits.TokensPerDay: 1000, limits.SchoolTokensPerDay: 1500})
	a, b, c := limits.Who{Teacher: "t-a", School: "s-1"}, limits.Who{Teacher: "t-b", School: "s-1"}, limits.Who{Teacher: "t-c"}
	for _, w := range []limits.Who{a, b, c} {
		if err := l.Admit(ctx, w, limits.Turn, "turn-"+w.Teacher); err != nil {
			t.Fatal(err)
		}
	}
	// a's turn crosses the budget mid-answer: it was admitted, it is
	// metered in full, the next is refused.
	for _, n := range []int64{600, 500} {
		if err := l.Meter(ctx, "t-a", n); err != nil {
			t.Fatal(err)
		}
	}
	if ex := exceeded(t, l.Admit(ctx, a, limits.Turn, "turn-2")); ex.Limit != limits.TokensPerDay || ex.RetryAfter != 13*time.Hour+59*time.Minute+30*time.Second {
		t.Fatalf("a: %+v", ex)
	}
	if err := l.Admit(ctx, b, limits.Build, ""); err != nil {
		t.Fatalf("b has spent nothing, the school 1100 of 1500: %v", err)
	}
	if err := l.Meter(ctx, "t-b", 400); err != nil {
		t.Fatal(err)
	}
	if ex := exceeded(t, l.Admit(ctx, b, limits.Research, "")); ex.Limit != limits.SchoolTokensPerDay {
		t.Fatalf("b: %+v", ex)
	}
	if err := l.Meter(ctx, "t-c", 900); err != nil {
		t.Fatal(err)
	}
	if err := l.Admit(ctx, c, limits.Turn, "turn-c2"); err != nil {
		t.Fatalf("c is their own school: %v", err)
	}
	use := usage(t, l, b)
	if use[limits.TokensPerDay].Used != 400 || use[limits.SchoolTokensPerDay].Used != 1500 {
		t.Fatalf("b's usage %+v", use)
	}
	// A limiter in another process knows the school from the admission.
	other := limits.New(l.Config(), st.Records, st.Counters, limits.Options{Now: clk.Now})
	if err := other.Meter(ctx, "t-a", 1); err != nil {
		t.Fatal(err)
	}
	if got := usage(t, other, a)[limits.SchoolTokensPerDay].Used; got != 1501 {
		t.Fatalf("school tokens %d, want 1501", got)
	}
	clk.Advance(14 * time.Hour)
	if err := l.Admit(ctx, a, limits.Turn, "turn-3"); err != nil {
		t.Fatalf("a new day: %v", err)
	}
}

func testOverrides(t *testing.T, st Stores) {
	ctx := context.Background()
	l, clk := newLimiter(t, st, limits.Values{limits.TurnsPerMinute: 1, limits.ReportsPerDay: 1})
	a, b := limits.Who{Teacher: "t-a", School: "s-1"}, limits.Who{Teacher: "t-b", School: "s-1"}
	ov := l.Overrides()
	if _, err := ov.Set(ctx, limits.ScopeTeacher, "t-a", limits.TurnsPerMinute, 3, "ops"); err != nil {
		t.Fatal(err)
	}
	if _, err := ov.Set(ctx, limits.ScopeSchool, "s-1", limits.ReportsPerDay, limits.Unlimited, "ops"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := l.Admit(ctx, a, limits.Turn, fmt.Sprint(i)); err != nil {
			t.Fatalf("raised to 3: %d: %v", i, err)
		}
	}
	exceeded(t, l.Admit(ctx, a, limits.Turn, "x"))
	for i := range 5 {
		if err := l.Admit(ctx, b, limits.Report, ""); err != nil {
			t.Fatalf("reports lifted for the school: %d: %v", i, err)
		}
	}
	if _, err := ov.Set(ctx, limits.ScopeTeacher, "t-a", limits.Limit("nope"), 3, "ops"); !errors.Is(err, limits.ErrBadOverride) {
		t.Fatalf("an unknown limit: %v", err)
	}
	if _, err := ov.Set(ctx, limits.ScopeTeacher, "t-a", limits.TurnsPerMinute, 0, "ops"); !errors.Is(err, limits.ErrBadOverride) {
		t.Fatalf("a zero: %v", err)
	}
	got, err := ov.Reset(ctx, limits.ScopeTeacher, "t-a", limits.TurnsPerMinute, "ops")
	if err != nil || len(got.Values) != 0 || got.By != "ops" {
		t.Fatalf("reset %+v %v", got, err)
	}
	clk.Advance(time.Minute) // a new minute, and past the cache of overrides
	if err := l.Admit(ctx, a, limits.Turn, "y"); err != nil {
		t.Fatal(err)
	}
	if ex := exceeded(t, l.Admit(ctx, a, limits.Turn, "z")); ex.Max != 1 {
		t.Fatalf("back to the stage's: %+v", ex)
	}
	if eff, err := l.Effective(ctx, b); err != nil || eff[limits.ReportsPerDay] != 0 || eff[limits.TurnsPerMinute] != 1 {
		t.Fatalf("effective %v %v", eff, err)
	}
}

// Bench measures what the limits add to one turn with every turn limit
// on: the admission (token counts read, one conditional write) and the
// slot freed at its end.
func Bench(b *testing.B, st Stores) {
	c, err := limits.FromEnv(func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	c.Values = limits.Values{limits.ConcurrentTurns: 1 << 30, limits.TurnsPerMinute: 1 << 40,
		limits.TokensPerDay: 1 << 40, limits.SchoolTokensPerDay: 1 << 40}
	l := limits.New(c, st.Records, st.Counters, limits.Options{})
	ctx := context.Background()
	who := limits.Who{Teacher: "t-bench", School: "s-bench"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		holder := "turn-" + strconv.Itoa(i%8)
		if err := l.Admit(ctx, who, limits.Turn, holder); err != nil {
			b.Fatal(err)
		}
		if err := l.End(ctx, who.Teacher, holder); err != nil {
			b.Fatal(err)
		}
	}
}
