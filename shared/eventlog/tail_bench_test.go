package eventlog_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// BenchmarkTailPacedHop is the live tail's cost for one event that arrives
// alone (issue 29 item 3: a chunk paced at 10 ms): the producer appends an
// event and waits until the tail has passed and flushed it, so that every
// op is a whole round of the tail's loop — woken by the feed, take, pass,
// flush, re-arm its wait, park. The events are those of one stream tailed
// by one reader, as a turn's relay tails its turn.
func BenchmarkTailPacedHop(b *testing.B) {
	m := eventlog.NewMemory()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const stream = "turn-1-text"
	flushed := make(chan struct{})
	done := make(chan error, 1)
	o := eventlog.TailOptions{Flush: func() error { flushed <- struct{}{}; return nil }}
	go func() {
		done <- eventlog.Tail(ctx, m, stream, 0, o, func(eventlog.Event) error { return nil })
	}()
	ev := eventlog.Event{Data: json.RawMessage(`{"type":"text-delta","id":"t","delta":"x"}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Append(ctx, stream, ev); err != nil {
			b.Fatal(err)
		}
		<-flushed
	}
	cancel()
	if err := <-done; err != nil && ctx.Err() == nil {
		b.Fatal(err)
	}
}
