// Package clock waits on the wall clock under a context.
package clock

import (
	"context"
	"time"
)

// Sleep waits d or until ctx is done, and returns ctx.Err() in the second
// case. A d of zero or less does not wait: it returns ctx.Err() at once.
func Sleep(ctx context.Context, d time.Duration) error {
	return SleepOrWake(ctx, d, nil)
}

// SleepOrWake is Sleep that also ends, returning nil, when wake is ready
// (a nil wake never is): a poll that a notification may cut short.
func SleepOrWake(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	case <-wake:
	}
	return nil
}
