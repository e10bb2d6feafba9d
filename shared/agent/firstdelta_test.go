package agent

import (
	"context"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/protocol"
)

type recordEmitter struct{ chunks []protocol.Chunk }

func (r *recordEmitter) Emit(_ context.Context, cs ...protocol.Chunk) error {
	r.chunks = append(r.chunks, cs...)
	return nil
}

// TestFirstDeltaIsNotHeld: however long the flush interval, an answer's
// first words go out with its first write (issue 29); only what follows
// is batched.
func TestFirstDeltaIsNotHeld(t *testing.T) {
	rec := &recordEmitter{}
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	w := newTextWriter(rec, "text-1-1", time.Hour, func() time.Time { return now })
	ctx := context.Background()
	if err := w.Write(ctx, "Photosynthesis "); err != nil {
		t.Fatal(err)
	}
	if len(rec.chunks) != 2 || rec.chunks[1] != (protocol.TextDelta{ID: "text-1-1", Delta: "Photosynthesis "}) {
		t.Fatalf("after the first write: %v, want text-start and the first delta", rec.chunks)
	}
	if err := w.Write(ctx, "turns light "); err != nil {
		t.Fatal(err)
	}
	if len(rec.chunks) != 2 {
		t.Errorf("the second write within the interval went out: %v", rec.chunks)
	}
}
