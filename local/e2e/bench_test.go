package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/server"
)

// BenchmarkTurnFirstByte measures, through the whole local product (edge,
// embedded store, ASL interpreter, offline model over HTTP), the time from
// sending a conversation request to the first byte of its stream, and the
// whole turn.
func BenchmarkTurnFirstByte(b *testing.B) {
	s := NewLocal(b, nil)
	for _, msg := range []string{"你好", "出 5 道牛顿第一定律的选择题"} {
		b.Run(msg, func(b *testing.B) {
			var first time.Duration
			for b.Loop() {
				start := time.Now()
				resp, err := http.Post(s.URL+"/api/conversation/stream", "application/json", strings.NewReader(`{"message":"`+msg+`"}`))
				if err != nil {
					b.Fatal(err)
				}
				var one [1]byte
				if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
					b.Fatal(err)
				}
				first += time.Since(start)
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
			b.ReportMetric(float64(first.Microseconds())/float64(b.N)/1000, "ms-first-byte")
		})
	}
}

// BenchmarkStartFirstByte measures the start-up of the local product in
// process (package initialisation excluded: GODEBUG=inittrace=1 shows it):
// start (the store, the offline model, the data service, the workflow
// interpreters, the routes) until the first byte of a chat answer
// (ms-first-byte), then the answer read to its end and Close.
// docs/benchmarks.md, "Start-up".
func BenchmarkStartFirstByte(b *testing.B) {
	logger := slog.New(slog.DiscardHandler)
	body := `{"id":"w","messages":[{"id":"msg-w","role":"user","parts":[{"type":"text","text":"What is photosynthesis?"}]}],"trigger":"submit-message"}`
	var first time.Duration
	for b.Loop() {
		begin := time.Now()
		s, err := server.Start(context.Background(), server.Options{Addr: "127.0.0.1:0", DataDir: b.TempDir(),
			Getenv: func(string) string { return "" }, Logger: logger})
		if err != nil {
			b.Fatal(err)
		}
		resp, err := http.Post(s.URL+"/api/conversation/stream", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		first += time.Since(begin)
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := s.Close(ctx); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.ReportMetric(float64(first.Microseconds())/float64(b.N)/1000, "ms-first-byte")
}
