package eventlog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// waitBound bounds every wait in these tests; reaching it is a failure.
const waitBound = 10 * time.Second

// pollOnly hides Memory's Notifier, so that Tail has to poll.
type pollOnly struct{ m *eventlog.Memory }

func (p pollOnly) Read(ctx context.Context, stream string, after int64, limit int) ([]eventlog.Event, error) {
	return p.m.Read(ctx, stream, after, limit)
}

// failingReader fails every Read.
type failingReader struct{ err error }

func (f failingReader) Read(context.Context, string, int64, int) ([]eventlog.Event, error) {
	return nil, f.err
}

func event(s string) eventlog.Event {
	return eventlog.Event{Data: json.RawMessage(fmt.Sprintf("%q", s))}
}

func closeEvent(s string) eventlog.Event {
	e := event(s)
	e.Close = true
	return e
}

func appendAll(t *testing.T, m *eventlog.Memory, stream string, evs ...eventlog.Event) {
	t.Helper()
	if _, err := m.Append(context.Background(), stream, evs...); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

// notifyOnly hides Memory's Feeder, so that Tail reads the log when woken.
type notifyOnly struct{ m *eventlog.Memory }

func (n notifyOnly) Read(ctx context.Context, stream string, after int64, limit int) ([]eventlog.Event, error) {
	return n.m.Read(ctx, stream, after, limit)
}

func (n notifyOnly) Changed(stream string) <-chan struct{} { return n.m.Changed(stream) }

// watchOnly plays a log with a shared poll (eventlog.Watcher) over Memory.
type watchOnly struct{ m *eventlog.Memory }

func (w watchOnly) Read(ctx context.Context, stream string, after int64, limit int) ([]eventlog.Event, error) {
	return w.m.Read(ctx, stream, after, limit)
}

func (w watchOnly) Watch(stream string, after int64) (<-chan struct{}, func()) {
	ch := w.m.Changed(stream) // first, so that no append is missed
	if evs, _ := w.m.Read(context.Background(), stream, after, 1); len(evs) > 0 {
		done := make(chan struct{})
		close(done)
		return done, func() {}
	}
	return ch, func() {}
}

// readerKinds are the ways Tail waits: fed from memory by a Feeder, woken
// by a Notifier or a Watcher, or polling.
func readerKinds() []string { return []string{"feed", "notifier", "watcher", "polling"} }

func readerOf(m *eventlog.Memory, kind string) eventlog.Reader {
	switch kind {
	case "watcher":
		return watchOnly{m}
	case "polling":
		return pollOnly{m}
	case "notifier":
		return notifyOnly{m}
	}
	return m
}

// fastTail is a TailOptions that polls often, so the tests finish quickly;
// correctness does not depend on it.
func fastTail() eventlog.TailOptions {
	return eventlog.TailOptions{PollMin: time.Millisecond, PollMax: 5 * time.Millisecond, Batch: 3}
}

// collect tails stream and returns the seqs it was given and Tail's error.
func collect(ctx context.Context, r eventlog.Reader, stream string, after int64, o eventlog.TailOptions) ([]int64, error) {
	var seqs []int64
	err := eventlog.Tail(ctx, r, stream, after, o, func(e eventlog.Event) error {
		seqs = append(seqs, e.Seq)
		return nil
	})
	return seqs, err
}

func seqRange(from, to int64) []int64 {
	var s []int64
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

func TestTailWrittenStream(t *testing.T) {
	tests := []struct {
		name  string
		after int64
		want  []int64
	}{
		{"from the start", 0, seqRange(1, 8)},
		{"resume in the middle", 3, seqRange(4, 8)},
		{"resume at a batch edge", 6, seqRange(7, 8)},
		{"resume before the close", 7, []int64{8}},
	}
	for _, tt := range tests {
		m := eventlog.NewMemory()
		for i := 1; i <= 7; i++ {
			appendAll(t, m, "s", event(fmt.Sprint(i)))
		}
		// Events after the close are never written; Tail must stop at it.
		appendAll(t, m, "s", closeEvent("end"), event("dropped"))
		for _, kind := range readerKinds() {
			t.Run(tt.name+"/"+kind, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), waitBound)
				defer cancel()
				got, err := collect(ctx, readerOf(m, kind), "s", tt.after, fastTail())
				if err != nil {
					t.Fatalf("Tail: %v", err)
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("Tail delivered %v, want %v", got, tt.want)
				}
			})
		}
	}
}

// TestTailLive tails a stream while a producer appends to it; every event
// arrives once, in order, and Tail returns after the closing event. Now and
// then the producer waits until the tailer caught up, so that the tailer also
// waits on a stream with nothing new, not only reads a full one.
func TestTailLive(t *testing.T) {
	const n = 30
	for _, kind := range readerKinds() {
		t.Run(kind, func(t *testing.T) {
			m := eventlog.NewMemory()
			reader := readerOf(m, kind)
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()

			delivered := make(chan int64, n+1)
			done := make(chan error, 1)
			go func() {
				done <- eventlog.Tail(ctx, reader, "live", 0, fastTail(), func(e eventlog.Event) error {
					delivered <- e.Seq
					return nil
				})
			}()
			var got []int64
			for i := int64(1); i <= n; i++ {
				appendAll(t, m, "live", event(fmt.Sprint(i)))
				for i%10 == 0 && (len(got) == 0 || got[len(got)-1] < i) {
					select {
					case s := <-delivered:
						got = append(got, s)
					case <-ctx.Done():
						t.Fatalf("tail stalled after %v", got)
					}
				}
			}
			appendAll(t, m, "live", closeEvent("end"))
			if err := <-done; err != nil {
				t.Fatalf("Tail: %v", err)
			}
			close(delivered)
			for s := range delivered {
				got = append(got, s)
			}
			if !slices.Equal(got, seqRange(1, n+1)) {
				t.Fatalf("Tail delivered %v, want 1..%d in order", got, n+1)
			}
		})
	}
}

func TestTailIdleHeartbeat(t *testing.T) {
	for _, kind := range readerKinds() {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			reader := readerOf(eventlog.NewMemory(), kind)
			o, beats := beating()
			done := make(chan error, 1)
			go func() {
				done <- eventlog.Tail(ctx, reader, "quiet", 0, o, func(eventlog.Event) error { return nil })
			}()
			waitBeats(ctx, t, beats, "on a quiet stream")
			stopTail(t, cancel, done)
		})
	}
}

// beating returns fastTail calling Idle every 20 ms, and the channel
// through which Idle tells of its calls.
func beating() (eventlog.TailOptions, <-chan struct{}) {
	beats := make(chan struct{}, 1)
	o := fastTail()
	o.IdleEvery = 20 * time.Millisecond
	o.Idle = func() error {
		select {
		case beats <- struct{}{}:
		default:
		}
		return nil
	}
	return o, beats
}

// waitBeats waits for two calls of Idle: called again after the first,
// not only once.
func waitBeats(ctx context.Context, t *testing.T, beats <-chan struct{}, when string) {
	t.Helper()
	for range 2 {
		select {
		case <-beats:
		case <-ctx.Done():
			t.Fatal("Idle was not called " + when)
		}
	}
}

// stopTail cancels a tail and checks that it ended for that.
func stopTail(t *testing.T, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Tail after cancel: %v, want context.Canceled", err)
	}
}

// TestTailIdleAfterEvents: a tail whose wake-up timer was armed before a
// run of events (and so fires while the stream is not quiet) still calls
// Idle once the stream goes quiet (issue 29 item 3: the timer is not moved
// for every event).
func TestTailIdleAfterEvents(t *testing.T) {
	for _, kind := range readerKinds() {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			m := eventlog.NewMemory()
			o, beats := beating()
			var passed atomic.Int64
			done := make(chan error, 1)
			go func() {
				done <- eventlog.Tail(ctx, readerOf(m, kind), "paced", 0, o, func(eventlog.Event) error {
					passed.Add(1)
					return nil
				})
			}()
			// A paced producer: its events span more than IdleEvery, so the
			// timer armed at the start fires amid them.
			const n = 8
			for i := range n {
				appendAll(t, m, "paced", event(fmt.Sprint(i)))
				time.Sleep(5 * time.Millisecond)
			}
			waitBeats(ctx, t, beats, "once the stream went quiet")
			stopTail(t, cancel, done)
			if got := passed.Load(); got != n {
				t.Fatalf("passed %d events, want %d", got, n)
			}
		})
	}
}

func TestTailErrors(t *testing.T) {
	errIdle := errors.New("client gone")
	errFn := errors.New("write failed")
	errRead := errors.New("store down")

	m := eventlog.NewMemory()
	appendAll(t, m, "two", event("1"), event("2"), closeEvent("end"))

	tests := []struct {
		name string
		r    eventlog.Reader
		o    eventlog.TailOptions
		fn   func(eventlog.Event) error
		want error
	}{
		{
			name: "MaxWait without events",
			r:    m,
			o:    eventlog.TailOptions{PollMin: time.Millisecond, PollMax: 5 * time.Millisecond, MaxWait: 30 * time.Millisecond},
			want: eventlog.ErrTailTimeout,
		},
		{
			name: "MaxWait woken by a notifier",
			r:    notifyOnly{m},
			o:    eventlog.TailOptions{PollMin: time.Millisecond, PollMax: 5 * time.Millisecond, MaxWait: 30 * time.Millisecond},
			want: eventlog.ErrTailTimeout,
		},
		{
			name: "MaxWait on a watcher",
			r:    watchOnly{m},
			o:    eventlog.TailOptions{MaxWait: 30 * time.Millisecond},
			want: eventlog.ErrTailTimeout,
		},
		{
			name: "MaxWait while polling",
			r:    pollOnly{m},
			o:    eventlog.TailOptions{PollMin: time.Millisecond, PollMax: 5 * time.Millisecond, MaxWait: 30 * time.Millisecond},
			want: eventlog.ErrTailTimeout,
		},
		{
			name: "Idle fails",
			r:    m,
			o:    eventlog.TailOptions{IdleEvery: 5 * time.Millisecond, Idle: func() error { return errIdle }},
			want: errIdle,
		},
		{
			name: "fn fails",
			r:    m,
			o:    fastTail(),
			fn:   func(eventlog.Event) error { return errFn },
			want: errFn,
		},
		{
			name: "Read fails",
			r:    failingReader{errRead},
			o:    fastTail(),
			want: errRead,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			stream := "empty"
			if tt.fn != nil {
				stream = "two"
			} else {
				tt.fn = func(eventlog.Event) error { return nil }
			}
			err := eventlog.Tail(ctx, tt.r, stream, 0, tt.o, tt.fn)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Tail: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestTailStopsAtFnErrorWithoutMore(t *testing.T) {
	m := eventlog.NewMemory()
	appendAll(t, m, "s", event("1"), event("2"), event("3"), closeEvent("end"))
	errStop := errors.New("stop")
	var got []int64
	err := eventlog.Tail(context.Background(), m, "s", 0, fastTail(), func(e eventlog.Event) error {
		got = append(got, e.Seq)
		if e.Seq == 2 {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Tail: %v, want errStop", err)
	}
	if !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("fn was called for %v, want [1 2]", got)
	}
}

func TestTailContextCancel(t *testing.T) {
	for _, kind := range readerKinds() {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := eventlog.NewMemory()
			reader := readerOf(m, kind)
			appendAll(t, m, "open", event("1"))
			got := make(chan eventlog.Event, 1)
			done := make(chan error, 1)
			go func() {
				done <- eventlog.Tail(ctx, reader, "open", 0, fastTail(), func(e eventlog.Event) error {
					got <- e
					return nil
				})
			}()
			select {
			case <-got: // the tail is running and now waits for more
			case <-time.After(waitBound):
				t.Fatal("the first event was not delivered")
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Tail: %v, want context.Canceled", err)
				}
			case <-time.After(waitBound):
				t.Fatal("Tail did not return after cancel")
			}
		})
	}
}

// TestTailSlowReaderFallsBack has a producer run far ahead of a reader that
// takes its time: the feed drops the reader instead of blocking the
// producer, and the reader gets every event once, in order, from the log.
func TestTailSlowReaderFallsBack(t *testing.T) {
	const n = 3 * eventlog.FeedBuffer
	m := eventlog.NewMemory()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	first := make(chan struct{})
	release := make(chan struct{})
	var got []int64
	done := make(chan error, 1)
	go func() {
		done <- eventlog.Tail(ctx, m, "fast", 0, fastTail(), func(e eventlog.Event) error {
			if e.Seq == 1 {
				close(first)
				<-release // the producer appends everything meanwhile
			}
			got = append(got, e.Seq)
			return nil
		})
	}()
	appendAll(t, m, "fast", event("1"))
	<-first
	for i := 2; i <= n; i++ { // must not block on the held reader
		appendAll(t, m, "fast", event(fmt.Sprint(i)))
	}
	appendAll(t, m, "fast", closeEvent("end"))
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Tail: %v", err)
	}
	if !slices.Equal(got, seqRange(1, n+1)) {
		t.Fatalf("Tail delivered %d events (%v...), want 1..%d in order", len(got), got[:min(len(got), 5)], n+1)
	}
}

func TestFeedDropsAFullSubscription(t *testing.T) {
	f := eventlog.NewFeed()
	slow, fast := f.Subscribe("s"), f.Subscribe("s")
	defer slow.Close()
	defer fast.Close()
	other := f.Subscribe("other")
	defer other.Close()
	var got []eventlog.Event
	for i := range eventlog.FeedBuffer + 1 {
		f.Publish("s", []eventlog.Event{{Seq: int64(i + 1)}})
		if i%7 == 0 { // the fast one takes now and then
			<-fast.Ready()
			var lagged bool
			if got, lagged = fast.Take(got); lagged {
				t.Fatalf("a subscription that kept up lagged at seq %d", i+1)
			}
		}
	}
	<-fast.Ready()
	got, lagged := fast.Take(got)
	if lagged || len(got) != eventlog.FeedBuffer+1 || got[len(got)-1].Seq != eventlog.FeedBuffer+1 {
		t.Fatalf("fast subscriber: %d events, lagged %v", len(got), lagged)
	}
	for i, ev := range got {
		if ev.Seq != int64(i+1) {
			t.Fatalf("fast subscriber's event %d has seq %d", i, ev.Seq)
		}
	}
	select {
	case <-slow.Ready():
	default:
		t.Fatal("a subscription past its bound was not woken")
	}
	if evs, lagged := slow.Take(nil); !lagged || len(evs) != 0 {
		t.Fatalf("a subscription past its bound: %d events, lagged %v", len(evs), lagged)
	}
	f.Publish("s", []eventlog.Event{{Seq: eventlog.FeedBuffer + 2}})
	if evs, _ := slow.Take(nil); len(evs) != 0 {
		t.Fatal("a dropped subscription still receives")
	}
	select {
	case <-other.Ready():
		t.Fatal("a subscriber of another stream was woken")
	default:
	}
}

// TestTailFlush: Flush comes after the events that were ready, at the
// latest every Batch events, and before Tail waits, so that a caller that
// buffers never holds an event back; never after the closing event (the
// caller's to flush with what it writes after it).
func TestTailFlush(t *testing.T) {
	for _, kind := range readerKinds() {
		t.Run("written/"+kind, func(t *testing.T) {
			m := eventlog.NewMemory()
			for i := 1; i <= 7; i++ {
				appendAll(t, m, "s", event(fmt.Sprint(i)))
			}
			appendAll(t, m, "s", closeEvent("end"))
			var last int64
			var flushedAt []int64
			o := fastTail() // Batch 3
			o.Flush = func() error { flushedAt = append(flushedAt, last); return nil }
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			err := eventlog.Tail(ctx, readerOf(m, kind), "s", 0, o, func(e eventlog.Event) error { last = e.Seq; return nil })
			if err != nil {
				t.Fatalf("Tail: %v", err)
			}
			if !slices.Equal(flushedAt, []int64{3, 6}) {
				t.Fatalf("flushed after seqs %v, want [3 6] (every 3 events, not after the close)", flushedAt)
			}
		})
		t.Run("live/"+kind, func(t *testing.T) {
			m := eventlog.NewMemory()
			reader := readerOf(m, kind)
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			var last atomic.Int64
			flushed := make(chan int64, 100)
			o := fastTail()
			o.Flush = func() error { flushed <- last.Load(); return nil }
			done := make(chan error, 1)
			go func() {
				done <- eventlog.Tail(ctx, reader, "live", 0, o, func(e eventlog.Event) error { last.Store(e.Seq); return nil })
			}()
			for i := int64(1); i <= 3; i++ {
				appendAll(t, m, "live", event(fmt.Sprint(i)))
				// Nothing more is appended until the tail flushed event i.
				for got := int64(0); got < i; {
					select {
					case got = <-flushed:
					case <-ctx.Done():
						t.Fatalf("event %d was not flushed while the tail waited for more", i)
					}
				}
			}
			appendAll(t, m, "live", closeEvent("end"))
			if err := <-done; err != nil {
				t.Fatalf("Tail: %v", err)
			}
		})
	}
}
