package apigw

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/report"
)

// TestPostable checks that an event larger than a WebSocket message is
// posted as a short system.error naming its seq (so its stream batch is not
// retried forever), and that others go out as they are.
func TestPostable(t *testing.T) {
	s := report.Session{ID: "s-1", Language: "en"}
	small := []byte(`{"event":"agent.final_answer","session_id":"s-1"}`)
	tests := []struct {
		name string
		data []byte
		want string // the posted envelope's event; "" for the data itself
	}{
		{"small", small, ""},
		{"at the limit", bytes.Repeat([]byte("x"), MaxPostBytes), ""},
		{"larger than a message", bytes.Repeat([]byte("x"), MaxPostBytes+1), "system.error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := postable(s, eventlog.Event{Seq: 42, Data: tt.data})
			if tt.want == "" {
				if !bytes.Equal(got, tt.data) {
					t.Fatalf("posted %d bytes, want the event's %d", len(got), len(tt.data))
				}
				return
			}
			var env report.Envelope
			if err := json.Unmarshal(got, &env); err != nil || env.Event != tt.want || env.SessionID != "s-1" ||
				!strings.Contains(string(env.Content), "42") || len(got) > MaxPostBytes {
				t.Fatalf("posted %s (%v), want a short %s naming event 42", got, err, tt.want)
			}
		})
	}
}
