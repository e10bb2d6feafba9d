package edge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// flushRecorder is a client's connection: what each Flush sent, handed to
// the test one flush at a time (the relay waits in Flush until released).
type flushRecorder struct {
	header  http.Header
	pending strings.Builder
	writes  int // Write calls since the last flush
	sent    chan sent
	release chan struct{}
}

// sent is one flush: its bytes and the Write calls they took.
type sent struct {
	data   string
	writes int
}

func newFlushRecorder() *flushRecorder {
	return &flushRecorder{header: http.Header{}, sent: make(chan sent), release: make(chan struct{})}
}

func (f *flushRecorder) Header() http.Header { return f.header }
func (f *flushRecorder) WriteHeader(int)     {}
func (f *flushRecorder) Write(p []byte) (int, error) {
	f.writes++
	return f.pending.Write(p)
}
func (f *flushRecorder) Flush() {
	f.sent <- sent{f.pending.String(), f.writes}
	f.pending.Reset()
	f.writes = 0
	<-f.release
}

// next returns the next flush and lets the relay go on.
func (f *flushRecorder) next(t *testing.T, ctx context.Context) sent {
	t.Helper()
	select {
	case s := <-f.sent:
		f.release <- struct{}{}
		return s
	case <-ctx.Done():
		t.Fatal("the relay flushed nothing")
		return sent{}
	}
}

func frame(seq int64, data string) string { return fmt.Sprintf("id: %d\ndata: %s\n\n", seq, data) }

// TestRelayCoalescesReadyEvents: the relay sends each event as soon as it
// is sequenced, never waiting for the next one, and the events that are
// ready together (here: appended while the relay was writing) go out in
// one write and one flush, framed exactly as one by one.
func TestRelayCoalescesReadyEvents(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log := eventlog.NewMemory()
	r := NewRelay(log, RelayOptions{Heartbeat: time.Hour})
	w := newFlushRecorder()
	done := make(chan error, 1)
	go func() {
		done <- r.relay(ctx, w, stream{key: "s", kind: "test", id: "s", maxWait: time.Hour, done: []byte("[DONE]")}, 0)
	}()
	appendEv := func(data string, closing bool) {
		t.Helper()
		if _, err := log.Append(ctx, "s", eventlog.Event{Data: []byte(data), Close: closing}); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.next(t, ctx); got.data != "" {
		t.Fatalf("first flush (the headers) sent %q", got.data)
	}
	appendEv(`"a"`, false)
	if got := w.next(t, ctx); got.data != frame(1, `"a"`) {
		t.Fatalf("event 1 alone: flushed %q, want it at once", got.data)
	}
	appendEv(`"b"`, false)
	// The relay is now in the flush of event 2: the next events are ready
	// when it comes back.
	select {
	case got := <-w.sent:
		if got.data != frame(2, `"b"`) {
			t.Fatalf("event 2: flushed %q", got.data)
		}
	case <-ctx.Done():
		t.Fatal("event 2 was not flushed")
	}
	appendEv(`"c"`, false)
	appendEv(`"d"`, false)
	appendEv(`"end"`, true)
	w.release <- struct{}{}
	want := frame(3, `"c"`) + frame(4, `"d"`) + frame(5, `"end"`) + "data: [DONE]\n\n"
	if got := w.next(t, ctx); got.data != want || got.writes != 1 {
		t.Fatalf("events 3-5 ready together: flushed %q in %d writes, want %q in one", got.data, got.writes, want)
	}
	if err := <-done; err != nil {
		t.Fatalf("relay: %v", err)
	}
}

// TestNewRelayDefaults: the defaults every route group shares are set in
// NewRelay, and what is configured is kept.
func TestNewRelayDefaults(t *testing.T) {
	def := NewRelay(nil, RelayOptions{})
	if def.Heartbeat != DefaultHeartbeat || def.Logger == nil {
		t.Errorf("defaults: heartbeat %v, logger %v", def.Heartbeat, def.Logger)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	set := NewRelay(nil, RelayOptions{Logger: log, Heartbeat: time.Second, PollMin: time.Millisecond, PollMax: time.Second})
	o := set.tailOptions(time.Minute)
	if set.Logger != log || set.Heartbeat != time.Second ||
		o.PollMin != time.Millisecond || o.PollMax != time.Second || o.IdleEvery != time.Second || o.MaxWait != time.Minute {
		t.Errorf("configured: %+v, tail %+v", set.RelayOptions, o)
	}
}
