package agent

import (
	"context"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
)

// emitter appends UI chunks to one turn's stream.
type emitter = eventlog.Emitter[protocol.Chunk]

// textWriter streams one text part (or one reasoning part), coalescing
// deltas so that an answer is a handful of log entries rather than one per
// token (ARCHITECTURE.md: every 50 ms or 200 characters).
type textWriter struct {
	em        emitter
	id        string
	reasoning bool // a reasoning part: reasoning-start/-delta/-end
	started   bool
	ended     bool
	buf       []byte
	last      time.Time
	every     time.Duration
	size      int
	now       func() time.Time
}

func newTextWriter(em emitter, id string, every time.Duration, now func() time.Time) *textWriter {
	return &textWriter{em: em, id: id, every: every, size: 200, now: now}
}

// newReasoningWriter streams a reasoning model's reasoning_content as the AI
// SDK's reasoning part (seed 003 §1.2).
func newReasoningWriter(em emitter, id string, every time.Duration, now func() time.Time) *textWriter {
	return &textWriter{em: em, id: id, reasoning: true, every: every, size: 200, now: now}
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
		chunks = append(chunks, w.startChunk())
		w.started = true
	}
	if len(w.buf) > 0 {
		chunks = append(chunks, w.deltaChunk(string(w.buf)))
		w.buf = w.buf[:0]
	}
	w.last = w.now()
	if len(chunks) == 0 {
		return nil
	}
	return w.em.Emit(ctx, chunks...)
}

// End flushes and closes the part if anything was written; once.
func (w *textWriter) End(ctx context.Context) error {
	if w.ended || (!w.started && len(w.buf) == 0) {
		return nil
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	w.ended = true
	if w.reasoning {
		return w.em.Emit(ctx, protocol.ReasoningEnd{ID: w.id})
	}
	return w.em.Emit(ctx, protocol.TextEnd{ID: w.id})
}

func (w *textWriter) startChunk() protocol.Chunk {
	if w.reasoning {
		return protocol.ReasoningStart{ID: w.id}
	}
	return protocol.TextStart{ID: w.id}
}

func (w *textWriter) deltaChunk(d string) protocol.Chunk {
	if w.reasoning {
		return protocol.ReasoningDelta{ID: w.id, Delta: d}
	}
	return protocol.TextDelta{ID: w.id, Delta: d}
}
