package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/obs"
)

// TestActiveStreamsGauge (seed 004 §4.2): a relay connection raises the
// ActiveStreams gauge while it is open and lowers it when it ends, each an
// EMF line.
func TestActiveStreamsGauge(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log := eventlog.NewMemory()
	if _, err := log.Append(ctx, "s", eventlog.Event{Data: []byte(`"end"`), Close: true}); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	r := NewRelay(log, RelayOptions{Heartbeat: time.Hour, Logger: obs.NewLogger(&logs, slog.LevelInfo, "edge")})
	if err := r.relay(ctx, httptest.NewRecorder(), stream{key: "s", kind: "test", id: "s", maxWait: time.Hour, done: []byte("[DONE]")}, 0); err != nil {
		t.Fatal(err)
	}
	gauge := map[string]float64{}
	for l := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		if v, ok := m[MetricActiveStreams].(float64); ok && m["_aws"] != nil {
			gauge[m["message"].(string)] = v
		}
	}
	opened, ok1 := gauge["stream opened"]
	closed, ok2 := gauge["stream closed"]
	if !ok1 || !ok2 || opened < 1 || closed != opened-1 {
		t.Errorf("gauge lines %v, want opened ≥ 1 and closed one less:\n%s", gauge, logs.String())
	}
}
