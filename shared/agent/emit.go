package agent

import (
	"context"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
)

// emitter appends UI chunks to one turn's stream.
type emitter = eventlog.Emitter[protocol.Chunk]

// chunkEmitter appends chunks to a turn's stream.
type chunkEmitter interface {
	Emit(ctx context.Context, chunks ...protocol.Chunk) error
}

// stepEmitter is the emitter of one model round: a chunk that shows the
// teacher nothing (start-step, finish-step) is held and rides with the
// round's next append, so that a round's boundaries cost no append of
// their own (one DynamoDB write each in AWS, docs/cost.md). Flush appends
// what is still held; the round calls it before it returns.
type stepEmitter struct {
	em   emitter
	held []protocol.Chunk
	// gate, when set, holds every append until it opens (a speculative
	// first round's, issue 29: Start).
	gate *gate
}

// Hold queues chunks for the next Emit or Flush.
func (e *stepEmitter) Hold(chunks ...protocol.Chunk) { e.held = append(e.held, chunks...) }

// Emit appends the held chunks and then chunks, in one append.
func (e *stepEmitter) Emit(ctx context.Context, chunks ...protocol.Chunk) error {
	if len(e.held) > 0 {
		chunks = append(e.held, chunks...)
		e.held = nil
	}
	if len(chunks) == 0 {
		return nil
	}
	if e.gate != nil {
		if err := e.gate.wait(ctx); err != nil {
			return err
		}
	}
	return e.em.Emit(ctx, chunks...)
}

// Flush appends what is held.
func (e *stepEmitter) Flush(ctx context.Context) error { return e.Emit(ctx) }

// textWriter streams one text part (or one reasoning part), coalescing
// deltas so that an answer is a handful of log entries rather than one per
// token (ARCHITECTURE.md: every 50 ms or 200 characters).
type textWriter struct {
	em        chunkEmitter
	id        string
	reasoning bool // a reasoning part: reasoning-start/-delta/-end
	started   bool
	ended     bool
	buf       []byte
	last      time.Time
	every     time.Duration
	size      int
	now       func() time.Time
	// out is pending's slice, reused: a flush per model chunk (a 1 ns
	// flush interval) would allocate one for each (issue 29 item 3). An
	// Emit does not keep the slice it is passed.
	out []protocol.Chunk
}

func newTextWriter(em chunkEmitter, id string, every time.Duration, now func() time.Time) *textWriter {
	return &textWriter{em: em, id: id, every: every, size: 200, now: now}
}

// newReasoningWriter streams a reasoning model's reasoning_content as the AI
// SDK's reasoning part (seed 003 §1.2).
func newReasoningWriter(em chunkEmitter, id string, every time.Duration, now func() time.Time) *textWriter {
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
	chunks := w.pending()
	if len(chunks) == 0 {
		return nil
	}
	return w.em.Emit(ctx, chunks...)
}

// pending returns the chunks a flush appends now (the part's start, the
// queued text) and clears the queue.
func (w *textWriter) pending() []protocol.Chunk {
	clear(w.out) // the last flush's chunks are not held here
	chunks := w.out[:0]
	if !w.started {
		chunks = append(chunks, w.startChunk())
		w.started = true
	}
	if len(w.buf) > 0 {
		chunks = append(chunks, w.deltaChunk(string(w.buf)))
		w.buf = w.buf[:0]
	}
	w.last = w.now()
	w.out = chunks
	return chunks
}

// queue adds delta to the text without flushing: End follows.
func (w *textWriter) queue(delta string) { w.buf = append(w.buf, delta...) }

// End flushes and closes the part if anything was written; once. The rest
// of the text and the end go in one append.
func (w *textWriter) End(ctx context.Context) error {
	chunks := w.endChunks()
	if len(chunks) == 0 {
		return nil
	}
	return w.em.Emit(ctx, chunks...)
}

// endChunks returns what End appends (nothing if the part was never
// written or has ended) and marks the part ended.
func (w *textWriter) endChunks() []protocol.Chunk {
	if w.ended || (!w.started && len(w.buf) == 0) {
		return nil
	}
	chunks := w.pending()
	w.ended = true
	if w.reasoning {
		return append(chunks, protocol.ReasoningEnd{ID: w.id})
	}
	return append(chunks, protocol.TextEnd{ID: w.id})
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
