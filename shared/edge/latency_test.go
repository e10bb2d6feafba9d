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
