package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkTurnFirstByte measures, through the whole local product (edge,
// embedded store, ASL interpreter, offline model over HTTP), the time from
// sending a conversation request to the first byte of its stream, and the
// whole turn.
func BenchmarkTurnFirstByte(b *testing.B) {
	s := newLocal(b, nil)
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
