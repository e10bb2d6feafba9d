package e2e

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// BenchmarkIdleSocketMemory opens 1,000 sockets, each with a session, and
// reports the heap they hold once idle. Client and server share the process,
// so the figure counts both ends of each socket: an upper bound of the
// server's share.
func BenchmarkIdleSocketMemory(b *testing.B) {
	const sockets = 1000
	s := NewLocal(b, templateEnv("SSE_HEARTBEAT", "1h"))
	url := wsURL(s)
	ctx := context.Background()
	for range b.N {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		goroutines := runtime.NumGoroutine()
		conns := make([]*websocket.Conn, 0, sockets)
		for range sockets {
			c, _, err := websocket.Dial(ctx, url, nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Write(ctx, websocket.MessageText, []byte(`{"event":"user.create_session"}`)); err != nil {
				b.Fatal(err)
			}
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, msg, err := c.Read(rctx)
			cancel()
			var env struct{ Event string }
			if err != nil || json.Unmarshal(msg, &env) != nil || env.Event != "agent.session_created" {
				b.Fatalf("create: %v %s", err, msg)
			}
			conns = append(conns, c)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/sockets, "heap-bytes/socket")
		b.ReportMetric(float64(runtime.NumGoroutine()-goroutines)/sockets, "goroutines/socket")
		for _, c := range conns {
			c.CloseNow()
		}
	}
}
