package apps_test

import (
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apps"
)

func TestSchedule(t *testing.T) {
	cases := []struct {
		every, rate string
		bad         bool
	}{
		{"1m", "rate(1 minute)", false},
		{"30m", "rate(30 minutes)", false},
		{"1h", "rate(1 hour)", false},
		{"90m", "rate(90 minutes)", false},
		{"6h", "rate(6 hours)", false},
		{"24h", "rate(1 day)", false},
		{"168h", "rate(7 days)", false},
		{"30s", "", true},
		{"1m30s", "", true},
		{"daily", "", true},
		{"", "", true},
	}
	for _, c := range cases {
		got, err := apps.Schedule{Every: c.every}.RateExpression()
		if (err != nil) != c.bad || got != c.rate {
			t.Errorf("%q: %q, %v", c.every, got, err)
		}
	}
}

func TestNext(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	h := time.Hour
	cases := []struct {
		prev, now, want time.Duration
	}{
		{2 * h, 0, 2 * h},             // not yet due: unchanged
		{0, 0, h},                     // due now: the next slot
		{0, 30 * time.Minute, h},      // a little late
		{0, 5*h + time.Minute, 6 * h}, // missed runs are skipped
		{0, 5 * h, 6 * h},             // exactly on a slot: the one after
	}
	for _, c := range cases {
		if got := apps.Next(t0.Add(c.prev), t0.Add(c.now), h); !got.Equal(t0.Add(c.want)) {
			t.Errorf("Next(+%v, +%v) = +%v, want +%v", c.prev, c.now, got.Sub(t0), c.want)
		}
	}
}
