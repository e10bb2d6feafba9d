package agent

import (
	"context"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
)

// BenchmarkGatedDelta is one text delta of a speculative first round that
// the router kept, appended through its gated step emitter: the paced
// chunk's path from the text writer to the log (issue 29 item 3).
func BenchmarkGatedDelta(b *testing.B) {
	g := &gate{done: make(chan struct{})}
	g.open(true)
	em := &stepEmitter{em: emitter{Log: discardLog{}, Stream: "turn-b", Encode: protocol.MarshalChunk}, gate: g}
	w := newTextWriter(em, "text-1-1", 1, time.Now)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(ctx, "Fractions "); err != nil {
			b.Fatal(err)
		}
	}
}

// discardLog takes appends and keeps nothing: the benchmark measures the
// agent's side of an append.
type discardLog struct{}

func (discardLog) Append(context.Context, string, ...eventlog.Event) (int64, error) { return 0, nil }
