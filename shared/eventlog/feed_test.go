package eventlog_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// TestFeedDropWhilePublishing: a subscription that lags is dropped during
// a Publish; the stream's other subscriptions still get the events, and a
// later Publish reaches only them.
func TestFeedDropWhilePublishing(t *testing.T) {
	f := eventlog.NewFeed()
	slow := f.Subscribe("s")
	other := f.Subscribe("s")
	third := f.Subscribe("s")
	defer slow.Close()
	defer other.Close()
	defer third.Close()
	ev := eventlog.Event{Data: json.RawMessage(`{}`)}
	for range eventlog.FeedBuffer {
		f.Publish("s", []eventlog.Event{ev})
	}
	// Drain the other two: only slow is full.
	for _, s := range []*eventlog.Subscription{other, third} {
		if got, lagged := s.Take(nil); len(got) != eventlog.FeedBuffer || lagged {
			t.Fatalf("took %d (lagged %v), want %d", len(got), lagged, eventlog.FeedBuffer)
		}
	}
	f.Publish("s", []eventlog.Event{ev}) // drops slow, reaches the others
	f.Publish("s", []eventlog.Event{ev})
	if _, lagged := slow.Take(nil); !lagged {
		t.Fatal("the full subscription did not lag")
	}
	for _, s := range []*eventlog.Subscription{other, third} {
		if got, lagged := s.Take(nil); len(got) != 2 || lagged {
			t.Fatalf("took %d (lagged %v) after the drop, want 2", len(got), lagged)
		}
	}
}

// BenchmarkFeedPublish is one append's publication to its stream's relay
// and the relay's Take (issue 29 item 3: once per paced chunk), among
// 200 streams with a subscription each.
func BenchmarkFeedPublish(b *testing.B) {
	f := eventlog.NewFeed()
	names := make([]string, 200)
	subs := make([]*eventlog.Subscription, len(names))
	for i := range names {
		names[i] = fmt.Sprintf("turn-%d-text", i)
		subs[i] = f.Subscribe(names[i])
	}
	evs := []eventlog.Event{{Seq: 1, Data: json.RawMessage(`{"type":"text-delta","id":"t","delta":"x"}`)}}
	var taken []eventlog.Event
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		f.Publish(names[i], evs)
		<-subs[i].Ready()
		taken, _ = subs[i].Take(taken[:0])
		i = (i + 1) % len(names)
	}
}
