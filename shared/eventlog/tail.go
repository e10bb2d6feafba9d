package eventlog

import (
	"context"
	"errors"
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
// closing event has been passed to fn, fn fails, or ctx ends. A Feeder log
// (producer and tailer in one process) feeds the live tail from memory; a
// Notifier log wakes the tailer; any other log is polled.
func Tail(ctx context.Context, r Reader, stream string, after int64, o TailOptions, fn func(Event) error) error {
	o.defaults()
	if f, ok := r.(Feeder); ok {
		return tailFeed(ctx, r, f, stream, after, o, fn)
	}
	if w, ok := r.(Watcher); ok {
		return tailWatch(ctx, r, w, stream, after, o, fn)
	}
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

// tailFeed reads the log for the past and takes the live tail from the
// feed. It subscribes before it reads, so that every event is in the read,
// in the feed, or in both (then skipped by seq). A subscription that lagged
// is dropped by the feed; the tail then reads the log again and subscribes
// anew.
func tailFeed(ctx context.Context, r Reader, f Feeder, stream string, after int64, o TailOptions, fn func(Event) error) error {
	lastEvent, lastIdle := time.Now(), time.Now()
	timer := time.NewTimer(o.IdleEvery)
	defer timer.Stop()
	for {
		sub := f.Subscribe(stream)
		from := after
		closed, err := catchUp(ctx, r, stream, &after, o.Batch, fn)
		if err != nil || closed {
			sub.Close()
			return err
		}
		if after > from {
			lastEvent, lastIdle = time.Now(), time.Now()
		}
		err = func() error {
			defer sub.Close()
			for {
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
				timer.Reset(max(min(o.IdleEvery-now.Sub(lastIdle), o.MaxWait-now.Sub(lastEvent)+time.Millisecond), time.Millisecond))
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-timer.C:
				case <-sub.Lagged():
					return errLagged
				case ev := <-sub.Events():
					if ev.Seq <= after {
						continue
					}
					if ev.Seq != after+1 {
						return errLagged // not expected of a Feeder: read the log again
					}
					if err := fn(ev); err != nil {
						return err
					}
					after = ev.Seq
					if ev.Close {
						return errClosedStream
					}
					lastEvent, lastIdle = time.Now(), time.Now()
				}
			}
		}()
		switch {
		case errors.Is(err, errClosedStream):
			return nil
		case errors.Is(err, errLagged):
			continue
		default:
			return err
		}
	}
}

var (
	errLagged       = errors.New("eventlog: the feed dropped a slow reader")
	errClosedStream = errors.New("eventlog: closing event passed")
)

// catchUp passes the events the log holds after *after to fn, and reports
// whether the closing event was among them.
func catchUp(ctx context.Context, r Reader, stream string, after *int64, batch int, fn func(Event) error) (bool, error) {
	for {
		evs, err := r.Read(ctx, stream, *after, batch)
		if err != nil {
			return false, fmt.Errorf("eventlog: tail %s: %w", stream, err)
		}
		for _, ev := range evs {
			if err := fn(ev); err != nil {
				return false, err
			}
			*after = ev.Seq
			if ev.Close {
				return true, nil
			}
		}
		if len(evs) < batch {
			return false, nil
		}
	}
}

// tailWatch reads the log and, when it has nothing new, waits on the log's
// shared watch instead of polling by itself.
func tailWatch(ctx context.Context, r Reader, w Watcher, stream string, after int64, o TailOptions, fn func(Event) error) error {
	lastEvent, lastIdle := time.Now(), time.Now()
	for {
		from := after
		closed, err := catchUp(ctx, r, stream, &after, o.Batch, fn)
		if err != nil || closed {
			return err
		}
		now := time.Now()
		if after > from {
			lastEvent, lastIdle = now, now
		}
		if now.Sub(lastEvent) > o.MaxWait {
			return ErrTailTimeout
		}
		if o.Idle != nil && now.Sub(lastIdle) >= o.IdleEvery {
			if err := o.Idle(); err != nil {
				return err
			}
			lastIdle = now
		}
		changed, stop := w.Watch(stream, after)
		wait := max(min(o.IdleEvery-now.Sub(lastIdle), o.MaxWait-now.Sub(lastEvent)+time.Millisecond), time.Millisecond)
		err = sleep(ctx, wait, changed)
		stop()
		if err != nil {
			return err
		}
	}
}
