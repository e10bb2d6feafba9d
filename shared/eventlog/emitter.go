package eventlog

import (
	"context"
	"fmt"
)

// Emitter appends the events of one vocabulary (UI chunks, page events,
// research events...) to one stream. Every producer, step or edge, writes
// through one, so encoding and the closing event are done the same way.
type Emitter[E any] struct {
	Log    Appender
	Stream string
	// Encode turns an event into its SSE data line.
	Encode func(E) ([]byte, error)
	// Name, when set, gives an event its SSE name (named-event streams).
	Name func(E) string
}

// Emit appends evs in order.
func (e Emitter[E]) Emit(ctx context.Context, evs ...E) error { return e.append(ctx, false, evs) }

// Close appends evs in order, the last one closing the stream. It fails with
// an error wrapping ErrClosed when the stream was closed already.
func (e Emitter[E]) Close(ctx context.Context, evs ...E) error { return e.append(ctx, true, evs) }

func (e Emitter[E]) append(ctx context.Context, closes bool, evs []E) error {
	out := make([]Event, len(evs))
	for i, ev := range evs {
		data, err := e.Encode(ev)
		if err != nil {
			return fmt.Errorf("eventlog: encode event for %s: %w", e.Stream, err)
		}
		out[i] = Event{Data: data, Close: closes && i == len(evs)-1}
		if e.Name != nil {
			out[i].Name = e.Name(ev)
		}
	}
	if _, err := e.Log.Append(ctx, e.Stream, out...); err != nil {
		return fmt.Errorf("eventlog: append to %s: %w", e.Stream, err)
	}
	return nil
}
