// Package eventlog is the per-stream ordered event log between the steps that
// produce events and the edge that relays them. Every stream (a conversation
// turn, a page build) is a gap-free sequence: seq 1, 2, 3 ... A stream ends with
// one closing event; nothing can be appended after it, which is how a stopped
// turn's late producers are turned away.
package eventlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Event is one entry of a stream.
type Event struct {
	// Seq is the event's position, assigned by Append.
	Seq int64 `json:"seq"`
	// Name is the SSE event name ("event:" line) of streams whose events are
	// named (the research stream); empty for the others.
	Name string `json:"name,omitempty"`
	// Data is the encoded event, written as the SSE data line.
	Data json.RawMessage `json:"data"`
	// Close marks the stream's last event.
	Close bool `json:"close,omitempty"`
}

// MaxNameLen bounds Event.Name.
const MaxNameLen = 64

// ErrBadName is returned by Append for an event name that is longer than
// MaxNameLen or holds a character that would break the SSE framing.
var ErrBadName = errors.New("eventlog: bad event name")

// CheckNames is the rule every Log applies to the names of appended events.
func CheckNames(events []Event) error {
	for _, ev := range events {
		if len(ev.Name) > MaxNameLen || strings.ContainsAny(ev.Name, "\r\n:") {
			return fmt.Errorf("%w: %q", ErrBadName, ev.Name)
		}
	}
	return nil
}

// ErrClosed is returned by Append once the stream has its closing event.
var ErrClosed = errors.New("eventlog: stream closed")

// Appender adds events to a stream.
type Appender interface {
	// Append adds events in order with consecutive seqs and returns the last
	// seq. It fails with ErrClosed when the stream already has its closing event;
	// then none of events is added.
	Append(ctx context.Context, stream string, events ...Event) (int64, error)
}

// Reader reads a stream.
type Reader interface {
	// Read returns up to limit events with seq > after, in order and without
	// gaps: it stops before the first missing seq.
	Read(ctx context.Context, stream string, after int64, limit int) ([]Event, error)
}

// Log is an event log.
type Log interface {
	Appender
	Reader
}

// Notifier is implemented by logs that can wake a tailer when a stream grows,
// so that it need not poll.
type Notifier interface {
	// Changed returns a channel that is closed after the next append to stream.
	Changed(stream string) <-chan struct{}
}

// Watcher is implemented by logs that learn of new events for many streams
// at once (one shared poll of the store for every tailer in the process),
// so that a tailer waits on it instead of polling the log itself.
type Watcher interface {
	// Watch returns a channel that is closed once the event at seq after+1
	// of stream may exist (a spurious wake is allowed: the tailer reads and
	// watches again), and stop, which releases the watch. after is the
	// last seq the tailer read, and nothing after it was there.
	Watch(stream string, after int64) (changed <-chan struct{}, stop func())
}
