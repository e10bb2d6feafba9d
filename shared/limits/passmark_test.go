package limits_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/limits"
	"github.com/insightedge/insightedge/shared/records"
)

// TestPassMarks (issue 23): a school's pass mark is a setting of its
// override; a teacher gets their recorded school's mark, else 60; only a
// school may hold one, a whole percent from 1 to 100.
func TestPassMarks(t *testing.T) {
	ctx := context.Background()
	b := records.NewMemory()
	pm := limits.NewPassMarks(b, nil, nil, 0)
	ov := pm.Overrides()
	if _, err := ov.Set(ctx, limits.ScopeSchool, "s-50", limits.PassMark, 50, "op"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		scope limits.Scope
		v     int64
	}{{limits.ScopeTeacher, 50}, {limits.ScopeSchool, 0}, {limits.ScopeSchool, 101}, {limits.ScopeSchool, limits.Unlimited}} {
		if _, err := ov.Set(ctx, bad.scope, "x", limits.PassMark, bad.v, "op"); !errors.Is(err, limits.ErrBadOverride) {
			t.Errorf("%s %d: %v, want ErrBadOverride", bad.scope, bad.v, err)
		}
	}
	for _, who := range []limits.Who{{Teacher: "t-a", School: "s-50"}, {Teacher: "t-b", School: "s-other"}, {Teacher: "t-c"}} {
		if err := pm.Remember(ctx, who); err != nil {
			t.Fatal(err)
		}
	}
	for teacher, want := range map[string]float64{"t-a": 50, "t-b": 60, "t-c": 60, "t-never-seen": 60} {
		if got, err := pm.Of(ctx, teacher); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", teacher, got, err, want)
		}
	}
	// Another instance (another function) reads the same records.
	if got, err := limits.NewPassMarks(b, nil, nil, 0).Of(ctx, "t-a"); err != nil || got != 50 {
		t.Errorf("another instance: %v %v, want 50", got, err)
	}
}

// TestRememberWritesOnlyAChange (issue 25): another instance that sees a
// teacher with the school already recorded writes nothing; a new school,
// or the same one a month later, is written.
func TestRememberWritesOnlyAChange(t *testing.T) {
	ctx := context.Background()
	b := records.NewMemory()
	t0 := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	seen := func() string {
		t.Helper()
		it, err := b.Items("teacher-school").Get(ctx, "t-a")
		if err != nil {
			t.Fatal(err)
		}
		return string(it.Data)
	}
	remember := func(at time.Time, school string) {
		t.Helper()
		pm := limits.NewPassMarks(b, nil, func() time.Time { return at }, 0) // a new instance each time
		if err := pm.Remember(ctx, limits.Who{Teacher: "t-a", School: school}); err != nil {
			t.Fatal(err)
		}
	}
	remember(t0, "s-1")
	first := seen()
	remember(t0.Add(24*time.Hour), "s-1")
	if got := seen(); got != first {
		t.Errorf("the same school a day later was written again: %s, was %s", got, first)
	}
	remember(t0.Add(2*24*time.Hour), "s-2")
	if got := seen(); !strings.Contains(got, `"s-2"`) {
		t.Errorf("a new school was not written: %s", got)
	}
	changed := seen()
	remember(t0.Add(40*24*time.Hour), "s-2")
	if got := seen(); got == changed {
		t.Errorf("the same school 38 days later was not written again: %s", got)
	}
}
