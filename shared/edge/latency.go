package edge

import (
	"bytes"
	"net/http"
	"time"
)

// Durations records latencies (obs.EMF is one).
type Durations interface {
	Duration(name string, d time.Duration, dims map[string]string)
}

// The latency metrics of a conversation turn, as the teacher sees them on
// the stream (seed 000 §7.8: P50, and P90/P99 for the operator).
const (
	// MetricTimeToFirstText is from the request to the first text-delta
	// written to the client.
	MetricTimeToFirstText = "TimeToFirstText"
	// MetricTurnTime is from the request to the finish chunk.
	MetricTurnTime = "TurnTime"
)

// TurnLatency wraps the edge and records, for every new conversation turn
// on the stream (POST /api/conversation/stream; a resumed stream is not a
// new turn), the time to its first text and to its finish chunk, measured
// on the bytes written to the client: what the teacher waits for, whatever
// the steps did. now is the clock (time.Now).
func TurnLatency(next http.Handler, m Durations, now func() time.Time) http.Handler {
	if now == nil {
		now = time.Now
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/conversation/stream" {
			next.ServeHTTP(w, r)
			return
		}
		lw := &latencyWriter{ResponseWriter: w, start: now(), now: now, m: m}
		next.ServeHTTP(lw, r)
	})
}

// textDeltaPattern is the longer of the two patterns watched for.
const textDeltaPattern = `"type":"text-delta"`

var (
	textDelta   = []byte(textDeltaPattern)
	finishChunk = []byte(`"type":"finish"`)
)

// latencyWriter watches the SSE bytes for the first text-delta and the
// finish chunk.
type latencyWriter struct {
	http.ResponseWriter
	start      time.Time
	now        func() time.Time
	m          Durations
	tail       [len(textDeltaPattern) - 1]byte // the end of the bytes written: a pattern may straddle two writes
	ntail      int
	sawText    bool
	sawFinish  bool
	wroteError bool
}

func (w *latencyWriter) WriteHeader(code int) {
	w.wroteError = code >= 400
	w.ResponseWriter.WriteHeader(code)
}

func (w *latencyWriter) Write(p []byte) (int, error) {
	if !w.wroteError && !w.sawFinish {
		if !w.sawText && w.seen(p, textDelta) {
			w.sawText = true
			w.m.Duration(MetricTimeToFirstText, w.now().Sub(w.start), nil)
		}
		if w.seen(p, finishChunk) {
			w.sawFinish = true
			w.m.Duration(MetricTurnTime, w.now().Sub(w.start), nil)
		}
		w.keepTail(p)
	}
	return w.ResponseWriter.Write(p)
}

// seen reports whether pat is in p or straddles the previous writes' end
// and p, without copying p.
func (w *latencyWriter) seen(p, pat []byte) bool {
	if bytes.Contains(p, pat) {
		return true
	}
	var b [2 * len(textDeltaPattern)]byte
	joint := append(append(b[:0], w.tail[:w.ntail]...), p[:min(len(p), len(pat)-1)]...)
	return bytes.Contains(joint, pat)
}

// keepTail keeps the last bytes written, as many as a pattern can have
// before a write's start.
func (w *latencyWriter) keepTail(p []byte) {
	n := len(w.tail)
	if len(p) >= n {
		w.ntail = copy(w.tail[:], p[len(p)-n:])
		return
	}
	keep := min(w.ntail, n-len(p)) // of the old tail, then all of p
	copy(w.tail[:], w.tail[w.ntail-keep:w.ntail])
	w.ntail = keep + copy(w.tail[keep:], p)
}

// Flush passes on to the client's writer, which the SSE encoder flushes
// when it can (lambdaurl's cannot and needs not).
func (w *latencyWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the client's writer.
func (w *latencyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
