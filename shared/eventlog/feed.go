package eventlog

import (
	"slices"
	"sync"
)

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

// FeedBuffer is the most events a subscription holds for a reader that has
// not taken them yet. A reader that falls further behind is dropped (Take
// says it lagged) and reads the log instead: a slow reader never blocks a
// producer. A subscription holds only what is waiting, so the bound can
// cover a whole answer that a busy process sequenced before its relay ran.
const FeedBuffer = 256

// keptQueue is the largest queue a subscription keeps for reuse once it is
// taken; a larger one (after a burst) is let go.
const keptQueue = 32

// Feed is an in-process publication of sequenced events, by stream, to
// bounded subscriptions. A Log implementation calls Publish in seq order
// per stream (under the lock that assigns the seqs).
type Feed struct {
	mu sync.Mutex
	// subs are a stream's subscriptions: a slice, not a set, since a stream
	// has one or two (its relays) and Publish ranges over them for every
	// append (issue 29 item 3: ranging over a map cost more than the rest
	// of Publish).
	subs map[string][]*Subscription
}

// NewFeed returns a feed without subscribers.
func NewFeed() *Feed { return &Feed{subs: map[string][]*Subscription{}} }

// Subscription receives the events of one stream.
type Subscription struct {
	feed   *Feed
	stream string
	ready  chan struct{} // holds a signal while there is something to take

	mu     sync.Mutex
	queue  []Event
	lagged bool
}

// Subscribe implements Feeder.
func (f *Feed) Subscribe(stream string) *Subscription {
	s := &Subscription{feed: f, stream: stream, ready: make(chan struct{}, 1)}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs[stream] = append(f.subs[stream], s)
	return s
}

// Ready receives when Take has events to return or the subscription
// lagged.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Take appends the events published since the last Take to dst, in seq
// order, and reports whether the subscription lagged: it missed the events
// after these because its queue was full, receives nothing more, and the
// reader goes back to the log.
func (s *Subscription) Take(dst []Event) ([]Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dst = append(dst, s.queue...)
	if cap(s.queue) > keptQueue {
		s.queue = nil
	} else {
		clear(s.queue) // the events' data is not held here
		s.queue = s.queue[:0]
	}
	return dst, s.lagged
}

// Close ends the subscription. It is safe to call more than once.
func (s *Subscription) Close() {
	s.feed.mu.Lock()
	defer s.feed.mu.Unlock()
	s.feed.drop(s)
}

// drop removes s; f.mu is held.
func (f *Feed) drop(s *Subscription) {
	subs := f.subs[s.stream]
	i := slices.Index(subs, s)
	if i < 0 {
		return
	}
	if len(subs) == 1 {
		delete(f.subs, s.stream)
		return
	}
	// A new array: Publish may be ranging over the old one.
	f.subs[s.stream] = slices.Concat(subs[:i], subs[i+1:])
}

// Publish hands evs to the subscribers of stream without blocking: a
// subscriber whose queue would pass FeedBuffer is dropped and told so.
func (f *Feed) Publish(stream string, evs []Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// drop (a lagging subscription) gives the stream a new slice: this
	// loop goes on over the old one.
	for _, s := range f.subs[stream] {
		s.mu.Lock()
		if len(s.queue)+len(evs) > FeedBuffer {
			s.queue, s.lagged = nil, true
			f.drop(s)
		} else {
			s.queue = append(s.queue, evs...)
		}
		s.mu.Unlock()
		select {
		case s.ready <- struct{}{}:
		default: // a signal is waiting already
		}
	}
}
