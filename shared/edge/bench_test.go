package edge_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
)

func newBenchServer(b *testing.B) *httptest.Server {
	b.Helper()
	db := openDB(b)
	s := edge.New(db.Sessions(), db.Events(), idleStarter{}, auth.Dev{Default: "t-001"},
		edge.Options{Relay: edge.NewRelay(db.Events(), edge.RelayOptions{Heartbeat: time.Hour})})
	s.SetReady(true)
	srv := httptest.NewServer(s.Handler())
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkFirstByte is the edge's overhead from request to the first byte
// of the stream (the start chunk): auth, decode, session and turn writes,
// the start event, the workflow start. The model is not involved.
func BenchmarkFirstByte(b *testing.B) {
	srv := newBenchServer(b)
	client := srv.Client()
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/conversation/stream", strings.NewReader(`{"message":"出 5 道牛顿第一定律的选择题"}`))
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var one [1]byte
		if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkSSEEncode is the edge's encoding rate: chunk to SSE bytes.
func BenchmarkSSEEncode(b *testing.B) {
	d, _ := protocol.NewData(protocol.DataToolProgress, "call_1", protocol.ToolProgress{Tool: "generate_quiz_questions", Status: protocol.ToolRunning, Message: "正在出题…"})
	chunks := []protocol.Chunk{protocol.TextDelta{ID: "text-1-2", Delta: "已为您生成 5 道关于牛顿第一定律的选择题，"}, d}
	w := protocol.NewSSEWriter(io.Discard)
	b.ReportAllocs()
	var n int64
	for b.Loop() {
		for _, c := range chunks {
			raw, err := protocol.MarshalChunk(c)
			if err != nil {
				b.Fatal(err)
			}
			n++
			if err := w.Event(n, "", raw); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkRelay is the rate at which one stream relays logged events.
func BenchmarkRelay(b *testing.B) {
	log := eventlog.NewMemory()
	ev, _ := protocol.MarshalChunk(protocol.TextDelta{ID: "t", Delta: "已为您生成 5 道关于牛顿第一定律的选择题，"})
	const n = 10_000
	for i := range n {
		_, _ = log.Append(context.Background(), "s", eventlog.Event{Data: ev, Close: i == n-1})
	}
	b.ResetTimer()
	for b.Loop() {
		w := protocol.NewSSEWriter(io.Discard)
		err := eventlog.Tail(context.Background(), log, "s", 0, eventlog.TailOptions{}, func(e eventlog.Event) error {
			return w.Event(e.Seq, "", e.Data)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkIdleStreams opens 1,000 streams that stay idle and reports the
// process's memory per stream (heap and goroutine stacks, both the server's
// and the minimal raw-socket clients').
func BenchmarkIdleStreams(b *testing.B) {
	const streams = 1000
	for b.Loop() {
		srv := newBenchServer(b)
		addr := strings.TrimPrefix(srv.URL, "http://")
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		conns := make([]net.Conn, 0, streams)
		body := `{"message":"你好"}`
		for range streams {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(c, "POST /api/conversation/stream HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			// Wait for the start chunk: the stream is open and idle.
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadBytes('\n')
				if err != nil {
					b.Fatal(err)
				}
				if bytes.HasPrefix(line, []byte("data: ")) {
					break
				}
			}
			conns = append(conns, c)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		used := (after.HeapInuse + after.StackInuse) - (before.HeapInuse + before.StackInuse)
		b.ReportMetric(float64(used)/streams/1024, "KiB/stream")
		b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")
		for _, c := range conns {
			c.Close()
		}
		srv.CloseClientConnections()
	}
}

// BenchmarkLiveRelay is a live stream end to end in one process, as the
// local run has it: a producer appends 200 text chunks one by one to the
// embedded store's log while a tailer relays them as SSE, framed and
// flushed the way the relay does (TailOptions.Flush: the events that are
// ready in one write); one op is the whole answer, until the relay has
// written the closing event. It reports the CPU-and-wait cost per chunk
// of appending and relaying, and the writes per chunk.
func BenchmarkLiveRelay(b *testing.B) {
	const chunks = 200
	db, err := boltstore.Open(b.TempDir()+"/bench.db", boltstore.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	log := db.Events()
	ev, _ := protocol.MarshalChunk(protocol.TextDelta{ID: "t", Delta: "已为您生成 5 道关于牛顿第一定律的选择题，"})
	ctx := context.Background()
	run := 0
	var writes countingWriter
	b.ReportAllocs()
	for b.Loop() {
		run++
		stream := fmt.Sprint("turn-", run)
		done := make(chan error, 1)
		go func() {
			w := protocol.NewSSEWriter(&writes)
			done <- eventlog.Tail(ctx, log, stream, 0, eventlog.TailOptions{Flush: w.Flush}, func(e eventlog.Event) error {
				w.Add(e.Seq, "", e.Data)
				return nil
			})
			_ = w.Flush()
		}()
		for i := range chunks {
			if _, err := log.Append(ctx, stream, eventlog.Event{Data: ev, Close: i == chunks-1}); err != nil {
				b.Fatal(err)
			}
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chunks), "ns/chunk")
	b.ReportMetric(float64(writes.n.Load())/float64(b.N*chunks), "writes/chunk")
}

// countingWriter counts the writes it discards.
type countingWriter struct{ n atomic.Int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n.Add(1)
	return len(p), nil
}
