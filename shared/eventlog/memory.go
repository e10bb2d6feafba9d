package eventlog

import (
	"context"
	"sync"
)

// Memory is an in-process Log, Notifier and Feeder. The embedded store
// persists to disk; Memory serves tests and short-lived streams.
type Memory struct {
	mu      sync.Mutex
	streams map[string]*memStream
	notify  *notifier
	feed    *Feed
}

type memStream struct {
	events []Event
	closed bool
}

// NewMemory returns an empty in-process log.
func NewMemory() *Memory {
	return &Memory{streams: map[string]*memStream{}, notify: newNotifier(), feed: NewFeed()}
}

// Append implements Appender.
func (m *Memory) Append(_ context.Context, stream string, events ...Event) (int64, error) {
	if err := CheckNames(events); err != nil {
		return 0, err
	}
	m.mu.Lock()
	s := m.streams[stream]
	if s == nil {
		s = &memStream{}
		m.streams[stream] = s
	}
	if s.closed {
		m.mu.Unlock()
		return 0, ErrClosed
	}
	first := len(s.events)
	for _, ev := range events {
		if s.closed {
			break
		}
		ev.Seq = int64(len(s.events)) + 1
		s.events = append(s.events, ev)
		s.closed = ev.Close
	}
	last := int64(len(s.events))
	m.feed.Publish(stream, s.events[first:]) // under mu: in seq order
	m.mu.Unlock()
	m.notify.broadcast(stream)
	return last, nil
}

// Read implements Reader.
func (m *Memory) Read(_ context.Context, stream string, after int64, limit int) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.streams[stream]
	if s == nil || after >= int64(len(s.events)) {
		return nil, nil
	}
	evs := s.events[max(after, 0):]
	if limit > 0 && len(evs) > limit {
		evs = evs[:limit]
	}
	return append([]Event(nil), evs...), nil
}

// Subscribe implements Feeder.
func (m *Memory) Subscribe(stream string) *Subscription { return m.feed.Subscribe(stream) }

// Changed implements Notifier.
func (m *Memory) Changed(stream string) <-chan struct{} { return m.notify.wait(stream) }

// notifier hands out per-stream channels that close on the next broadcast.
type notifier struct {
	mu    sync.Mutex
	chans map[string]chan struct{}
}

func newNotifier() *notifier { return &notifier{chans: map[string]chan struct{}{}} }

func (n *notifier) wait(stream string) <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := n.chans[stream]
	if ch == nil {
		ch = make(chan struct{})
		n.chans[stream] = ch
	}
	return ch
}

func (n *notifier) broadcast(stream string) {
	n.mu.Lock()
	ch := n.chans[stream]
	delete(n.chans, stream)
	n.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// NewNotifier returns a Notifier for log implementations in other packages;
// call Broadcast after each successful append.
func NewNotifier() *SharedNotifier { return &SharedNotifier{n: newNotifier()} }

// SharedNotifier is an exported notifier for other Log implementations.
type SharedNotifier struct{ n *notifier }

// Changed implements Notifier.
func (s *SharedNotifier) Changed(stream string) <-chan struct{} { return s.n.wait(stream) }

// Broadcast wakes the waiters of stream.
func (s *SharedNotifier) Broadcast(stream string) { s.n.broadcast(stream) }
