package edge_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/edge"
)

type recorded struct {
	name string
	d    time.Duration
}

type durations struct{ got []recorded }

func (d *durations) Duration(name string, v time.Duration, _ map[string]string) {
	d.got = append(d.got, recorded{name, v})
}

// TestTurnLatency: the time to the first text-delta and to the finish
// chunk of a new turn's stream, as written to the client (a chunk split
// over two writes counts), and nothing for a resumed stream or a refused
// request.
func TestTurnLatency(t *testing.T) {
	clock := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	writes := []string{
		`data: {"type":"start","messageId":"m"}` + "\n\n",
		`data: {"type":"text-st`, `art","id":"t"}` + "\n\n",
		`data: {"type":"text-del`, `ta","id":"t","delta":"你好"}` + "\n\n",
		`data: {"type":"text-delta","id":"t","delta":"!"}` + "\n\n",
		`data: {"type":"finish"}` + "\n\n", "data: [DONE]\n\n",
	}
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-refuse") != "" {
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, `{"error":{"code":"CONFLICT","message":"a turn is running","details":{"type":"finish"}}}`)
			return
		}
		for _, s := range writes {
			clock = clock.Add(100 * time.Millisecond)
			_, _ = io.WriteString(w, s)
		}
	})
	m := &durations{}
	h := edge.TurnLatency(stream, m, now)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/conversation/stream", strings.NewReader("{}")))
	if rec.Body.String() != strings.Join(writes, "") {
		t.Fatalf("the stream was changed: %q", rec.Body.String())
	}
	want := []recorded{{edge.MetricTimeToFirstText, 500 * time.Millisecond}, {edge.MetricTurnTime, 700 * time.Millisecond}}
	if len(m.got) != 2 || m.got[0] != want[0] || m.got[1] != want[1] {
		t.Errorf("recorded %v, want %v", m.got, want)
	}

	m.got = nil
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/conversation/c-1/stream", nil))
	refused := httptest.NewRequest(http.MethodPost, "/api/conversation/stream", strings.NewReader("{}"))
	refused.Header.Set("x-refuse", "1")
	h.ServeHTTP(httptest.NewRecorder(), refused)
	if len(m.got) != 0 {
		t.Errorf("a resumed stream or a refused turn recorded %v", m.got)
	}
}

// TestTurnLatencyAnySplit writes one stream in pieces of every size, so
// that each pattern straddles two writes (or more) at every offset: both
// metrics are recorded once, at the write that completes them.
func TestTurnLatencyAnySplit(t *testing.T) {
	stream := `data: {"type":"start","messageId":"m"}` + "\n\n" +
		`data: {"type":"text-delta","id":"t","delta":"你好"}` + "\n\n" +
		`data: {"type":"finish"}` + "\n\n" + "data: [DONE]\n\n"
	firstText := strings.Index(stream, `"type":"text-delta"`) + len(`"type":"text-delta"`)
	finish := strings.Index(stream, `"type":"finish"`) + len(`"type":"finish"`)
	for size := 1; size <= len(stream); size++ {
		written := 0 // the clock: bytes written so far, in nanoseconds
		now := func() time.Time { return time.Unix(0, int64(written)) }
		m := &durations{}
		h := edge.TurnLatency(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i < len(stream); i += size {
				written = min(i+size, len(stream))
				_, _ = io.WriteString(w, stream[i:written])
			}
		}), m, now)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/api/conversation/stream", strings.NewReader("{}")))
		// The write that completes a pattern ends at the pattern's end
		// rounded up to a whole piece.
		end := func(at int) time.Duration { return time.Duration(min((at+size-1)/size*size, len(stream))) }
		want := []recorded{{edge.MetricTimeToFirstText, end(firstText)}, {edge.MetricTurnTime, end(finish)}}
		if len(m.got) != 2 || m.got[0] != want[0] || m.got[1] != want[1] {
			t.Fatalf("pieces of %d bytes: recorded %v, want %v", size, m.got, want)
		}
	}
}
