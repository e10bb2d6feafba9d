package limits_test

import (
	"context"
	"errors"
	"testing"

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
