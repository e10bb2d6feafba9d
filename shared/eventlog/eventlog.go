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
)

// Event is one entry of a stream.
type Event struct {
	// Seq is the event's position, assigned by Append.
	Seq int64 `json:"seq"`
	// Data is the encoded event, written as the SSE data line.
	Data json.RawMessage `json:"data"`
	// Close marks the stream's last event.
	Close bool `json:"close,omitempty"`
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
