package eventlog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/insightedge/insightedge/shared/clock"
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
	// Batch is the read size, and the most events passed to fn between
	// two calls of Flush.
	Batch int
	// Flush, if set, is called whenever Tail has passed to fn every event
	// it has at hand and is about to wait for more (or has passed Batch
	// events in a row). A caller whose fn only buffers (the SSE relay)
	// sends the buffer then: the events that are ready go out together,
	// and none waits for a later one. It is not called after the closing
	// event: the caller writes what follows it and flushes.
	Flush func() error
}

// quiet is what a tail does at now when no event came: it ends the tail
// once MaxWait has passed since lastEvent, and calls Idle (and moves
// lastIdle) every IdleEvery.
func (o TailOptions) quiet(now, lastEvent time.Time, lastIdle *time.Time) error {
	if now.Sub(lastEvent) > o.MaxWait {
		return ErrTailTimeout
	}
	if o.Idle != nil && now.Sub(*lastIdle) >= o.IdleEvery {
		if err := o.Idle(); err != nil {
			return err
		}
		*lastIdle = now
	}
	return nil
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
	b := batcher{fn: fn, flush: o.Flush, max: o.Batch}
	fn = b.pass
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
		if err := o.quiet(now, lastEvent, &lastIdle); err != nil {
			return err
		}
		wait := min(poll, o.IdleEvery-now.Sub(lastIdle))
		if changed != nil {
			wait = min(o.PollMax, o.IdleEvery-now.Sub(lastIdle)) // the channel wakes us
		}
		if err := b.flushPassed(); err != nil {
			return err
		}
		if err := clock.SleepOrWake(ctx, max(wait, time.Millisecond), changed); err != nil {
			return err
		}
		poll = min(poll*2, o.PollMax)
	}
}

// batcher passes events to fn and calls flush when the tail is about to
// wait with events passed since the last flush, or after max of them in a
// row.
type batcher struct {
	fn    func(Event) error
	flush func() error
	max   int
	n     int // events passed since the last flush
}

func (b *batcher) pass(ev Event) error {
	if err := b.fn(ev); err != nil {
		return err
	}
	b.n++
	if b.n >= b.max {
		return b.flushPassed()
	}
	return nil
}

// flushPassed flushes what was passed since the last flush; the tail calls it
// before it waits.
func (b *batcher) flushPassed() error {
	if b.n == 0 || b.flush == nil {
		b.n = 0
		return nil
	}
	b.n = 0
	return b.flush()
}

// pending reports whether events were passed since the last flush.
func (b *batcher) pending() bool { return b.n > 0 }

// tailFeed reads the log for the past and takes the live tail from the
// feed. It subscribes before it reads, so that every event is in the read,
// in the feed, or in both (then skipped by seq). A subscription that lagged
// is dropped by the feed; the tail then reads the log again and subscribes
// anew.
func tailFeed(ctx context.Context, r Reader, f Feeder, stream string, after int64, o TailOptions, fn func(Event) error) error {
	b := batcher{fn: fn, flush: o.Flush, max: o.Batch}
	lastEvent := time.Now()
	lastIdle := lastEvent
	// The timer wakes a quiet tail. Moving it is a runtime timer update,
	// which a stream paced at one event a wake-up would pay for every event
	// (issue 29 item 3); since the wake-up only moves later as events come,
	// it stays armed while it fires no later than needed (armed), and a
	// tail it wakes early finds itself not quiet and arms it again.
	timer := time.NewTimer(o.IdleEvery)
	armed := lastEvent.Add(o.IdleEvery) // zero: fired
	defer timer.Stop()
	for {
		sub := f.Subscribe(stream)
		from := after
		closed, err := catchUp(ctx, r, stream, &after, o.Batch, b.pass)
		if err != nil || closed {
			sub.Close()
			return err
		}
		if after > from {
			lastEvent = time.Now()
			lastIdle = lastEvent
		}
		err = func() error {
			defer sub.Close()
			// next passes ev on, if it is the next one.
			next := func(ev Event) error {
				if ev.Seq <= after {
					return nil
				}
				if ev.Seq != after+1 {
					return errLagged // not expected of a Feeder: read the log again
				}
				if err := b.pass(ev); err != nil {
					return err
				}
				after = ev.Seq
				if ev.Close {
					return errClosedStream
				}
				return nil
			}
			var taken []Event
			// take passes on what the feed holds; errLagged when it
			// dropped the subscription.
			take := func() error {
				var lagged bool
				taken, lagged = sub.Take(taken[:0])
				defer func() { // the events' data is not held here, nor a burst's array
					if clear(taken); cap(taken) > keptQueue {
						taken = nil
					}
				}()
				for _, ev := range taken {
					if err := next(ev); err != nil {
						return err
					}
				}
				if lagged {
					return errLagged
				}
				return nil
			}
			for {
				if b.pending() {
					// Events were passed: take the ones already in the feed
					// with them, and flush when there are none.
					select {
					case <-sub.Ready():
						if err := take(); err != nil {
							return err
						}
						continue
					default:
					}
					lastEvent = time.Now()
					lastIdle = lastEvent
					if err := b.flushPassed(); err != nil {
						return err
					}
				}
				now := time.Now()
				if err := o.quiet(now, lastEvent, &lastIdle); err != nil {
					return err
				}
				wake := now.Add(max(min(o.IdleEvery-now.Sub(lastIdle), o.MaxWait-now.Sub(lastEvent)+time.Millisecond), time.Millisecond))
				if armed.IsZero() || wake.Before(armed) {
					timer.Reset(wake.Sub(now))
					armed = wake
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-timer.C:
					armed = time.Time{}
				case <-sub.Ready():
					before := after
					if err := take(); err != nil {
						return err
					}
					if after > before && !b.pending() { // passed, and flushed at the batch bound
						lastEvent = time.Now()
						lastIdle = lastEvent
					}
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
	b := batcher{fn: fn, flush: o.Flush, max: o.Batch}
	lastEvent, lastIdle := time.Now(), time.Now()
	for {
		from := after
		closed, err := catchUp(ctx, r, stream, &after, o.Batch, b.pass)
		if err != nil || closed {
			return err
		}
		if err := b.flushPassed(); err != nil {
			return err
		}
		now := time.Now()
		if after > from {
			lastEvent, lastIdle = now, now
		}
		if err := o.quiet(now, lastEvent, &lastIdle); err != nil {
			return err
		}
		changed, stop := w.Watch(stream, after)
		wait := max(min(o.IdleEvery-now.Sub(lastIdle), o.MaxWait-now.Sub(lastEvent)+time.Millisecond), time.Millisecond)
		err = clock.SleepOrWake(ctx, wait, changed)
		stop()
		if err != nil {
			return err
		}
	}
}
