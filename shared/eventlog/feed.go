package eventlog

import "sync"

// Feeder is implemented by logs that hand each event to the tailers of its
// stream in the same process the moment it is sequenced, before it is
// committed. Its contract: an event is returned by the log's Read no later
// than it is published, so that a tailer that subscribes first and then
// reads misses nothing.
type Feeder interface {
	// Subscribe returns a subscription to the events of stream sequenced
	// from now on. The caller must Close it.
	Subscribe(stream string) *Subscription
}

// FeedBuffer is the number of events a subscription holds for a reader that
// has not taken them yet. A reader that falls further behind is dropped
// (its Lagged channel closes) and reads the log instead: a slow reader
// never blocks a producer.
const FeedBuffer = 64

// Feed is an in-process publication of sequenced events, by stream, to
// bounded subscriptions. A Log implementation calls Publish in seq order
// per stream (under the lock that assigns the seqs).
type Feed struct {
	mu   sync.Mutex
	subs map[string]map[*Subscription]struct{}
}

// NewFeed returns a feed without subscribers.
func NewFeed() *Feed { return &Feed{subs: map[string]map[*Subscription]struct{}{}} }

// Subscription receives the events of one stream.
type Subscription struct {
	feed   *Feed
	stream string
	ch     chan Event
	lagged chan struct{}
}

// Subscribe implements Feeder.
func (f *Feed) Subscribe(stream string) *Subscription {
	s := &Subscription{feed: f, stream: stream, ch: make(chan Event, FeedBuffer), lagged: make(chan struct{})}
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.subs[stream]
	if m == nil {
		m = map[*Subscription]struct{}{}
		f.subs[stream] = m
	}
	m[s] = struct{}{}
	return s
}

// Events delivers the stream's events in seq order.
func (s *Subscription) Events() <-chan Event { return s.ch }

// Lagged is closed when the subscription missed an event because its
// buffer was full; it receives nothing more, and the reader goes back to
// the log.
func (s *Subscription) Lagged() <-chan struct{} { return s.lagged }

// Close ends the subscription. It is safe to call more than once.
func (s *Subscription) Close() {
	s.feed.mu.Lock()
	defer s.feed.mu.Unlock()
	s.feed.drop(s)
}

// drop removes s; f.mu is held.
func (f *Feed) drop(s *Subscription) {
	m := f.subs[s.stream]
	if _, ok := m[s]; !ok {
		return
	}
	delete(m, s)
	if len(m) == 0 {
		delete(f.subs, s.stream)
	}
}

// Publish hands evs to the subscribers of stream without blocking: a
// subscriber whose buffer is full is dropped and told so.
func (f *Feed) Publish(stream string, evs []Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.subs[stream] {
		for _, ev := range evs {
			select {
			case s.ch <- ev:
				continue
			default:
			}
			f.drop(s)
			close(s.lagged)
			break
		}
	}
}
