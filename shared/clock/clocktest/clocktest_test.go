package clocktest_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/clock/clocktest"
)

func TestFake(t *testing.T) {
	start := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	c := clocktest.New(start)
	c.Advance(time.Minute)
	if got, want := c.Now(), start.Add(time.Minute); !got.Equal(want) {
		t.Fatalf("after Advance, Now = %v, want %v", got, want)
	}
	c.Set(start)
	if got := c.Now(); !got.Equal(start) {
		t.Fatalf("after Set, Now = %v, want %v", got, start)
	}
}

func TestSleeps(t *testing.T) {
	var s clocktest.Sleeps
	if err := s.Sleep(context.Background(), time.Second); err != nil {
		t.Fatalf("Sleep = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Sleep(ctx, 2*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep after cancel = %v, want %v", err, context.Canceled)
	}
	if got, want := s.Got(), []time.Duration{time.Second, 2 * time.Second}; !slices.Equal(got, want) {
		t.Fatalf("Got = %v, want %v", got, want)
	}
}
