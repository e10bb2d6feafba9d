package agent

import (
	"context"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
)

// emitter appends UI chunks to one turn's stream.
type emitter = eventlog.Emitter[protocol.Chunk]

// textWriter streams one text part, coalescing deltas so that an answer is a
// handful of log entries rather than one per token (ARCHITECTURE.md: every
// 50 ms or 200 characters).
type textWriter struct {
	em      emitter
	id      string
	started bool
	buf     []byte
	last    time.Time
	every   time.Duration
	size    int
	now     func() time.Time
}

func newTextWriter(em emitter, id string, every time.Duration, now func() time.Time) *textWriter {
	return &textWriter{em: em, id: id, every: every, size: 200, now: now}
}

// Write queues delta and flushes when the batch is due.
func (w *textWriter) Write(ctx context.Context, delta string) error {
	if delta == "" {
		return nil
	}
	w.buf = append(w.buf, delta...)
	if len(w.buf) >= w.size || w.now().Sub(w.last) >= w.every {
		return w.flush(ctx)
	}
	return nil
}

func (w *textWriter) flush(ctx context.Context) error {
	var chunks []protocol.Chunk
	if !w.started {
		chunks = append(chunks, protocol.TextStart{ID: w.id})
		w.started = true
	}
	if len(w.buf) > 0 {
		chunks = append(chunks, protocol.TextDelta{ID: w.id, Delta: string(w.buf)})
		w.buf = w.buf[:0]
	}
	w.last = w.now()
	if len(chunks) == 0 {
		return nil
	}
	return w.em.Emit(ctx, chunks...)
}

// End flushes and closes the part if anything was written.
func (w *textWriter) End(ctx context.Context) error {
	if !w.started && len(w.buf) == 0 {
		return nil
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	return w.em.Emit(ctx, protocol.TextEnd{ID: w.id})
}
