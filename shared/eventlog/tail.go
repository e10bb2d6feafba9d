package eventlog

import (
	"context"
	"fmt"
	"time"
)

// TailOptions bound and pace a Tail.
type TailOptions struct {
	// PollMin and PollMax bound the adaptive poll interval used when the log
	// is not a Notifier (and as a safety net when it is).
	PollMin, PollMax time.Duration
	// Idle is called after IdleEvery without an event (the SSE heartbeat).
	Idle      func() error
	IdleEvery time.Duration
	// MaxWait ends the tail with ErrTailTimeout when no event arrives for this long.
	MaxWait time.Duration
	// Batch is the read size.
	Batch int
}

// ErrTailTimeout is returned by Tail when MaxWait passed with no event.
var ErrTailTimeout = fmt.Errorf("eventlog: no event within the wait bound")

func (o *TailOptions) defaults() {
	if o.PollMin <= 0 {
		o.PollMin = 20 * time.Millisecond
	}
	if o.PollMax <= 0 {
		o.PollMax = 500 * time.Millisecond
	}
	if o.IdleEvery <= 0 {
		o.IdleEvery = 15 * time.Second
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 15 * time.Minute
	}
	if o.Batch <= 0 {
		o.Batch = 100
	}
}

// Tail calls fn for each event of stream after seq after, in order, until the
// closing event has been passed to fn, fn fails, or ctx ends.
func Tail(ctx context.Context, r Reader, stream string, after int64, o TailOptions, fn func(Event) error) error {
	o.defaults()
	n, _ := r.(Notifier)
	poll := o.PollMin
	lastEvent, lastIdle := time.Now(), time.Now()
	for {
		var changed <-chan struct{}
		if n != nil {
			changed = n.Changed(stream) // before Read, so no append is missed
		}
		evs, err := r.Read(ctx, stream, after, o.Batch)
		if err != nil {
			return fmt.Errorf("eventlog: tail %s: %w", stream, err)
		}
		for _, ev := range evs {
			if err := fn(ev); err != nil {
				return err
			}
			after = ev.Seq
			if ev.Close {
				return nil
			}
		}
		if len(evs) > 0 {
			poll = o.PollMin
			lastEvent, lastIdle = time.Now(), time.Now()
			continue
		}
		now := time.Now()
		if now.Sub(lastEvent) > o.MaxWait {
			return ErrTailTimeout
		}
		if o.Idle != nil && now.Sub(lastIdle) >= o.IdleEvery {
			if err := o.Idle(); err != nil {
				return err
			}
			lastIdle = now
		}
		wait := min(poll, o.IdleEvery-now.Sub(lastIdle))
		if changed != nil {
			wait = min(o.PollMax, o.IdleEvery-now.Sub(lastIdle)) // the channel wakes us
		}
		if err := sleep(ctx, max(wait, time.Millisecond), changed); err != nil {
			return err
		}
		poll = min(poll*2, o.PollMax)
	}
}

func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
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
