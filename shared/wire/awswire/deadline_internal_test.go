package awswire

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// startOnly is a Starter whose executions never run (they died).
type startOnly struct{}

func (startOnly) Start(context.Context, string, workflow.ConversationState) error { return nil }
func (startOnly) Stop(context.Context, string) error                              { return nil }

// TestTurnDeadline checks the bound on a turn whose Express execution
// ended without Finish: the timer is armed at start for ExpressLimit +
// TurnDeadlineGrace (5 min 15 s), and when it fires an open turn is ended
// failed with its stream closed by error + finish, while a turn that
// finished is left as it was.
func TestTurnDeadline(t *testing.T) {
	for _, tc := range []struct {
		name     string
		finished bool
	}{{"the execution died", false}, {"the turn finished", true}} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), boltstore.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			store, log := db.Sessions(), db.Events()
			turn := workflow.Turn{SessionID: "s", TurnID: "t", Message: "hi", Language: "en"}
			if err := store.CreateSession(ctx, session.Session{ID: "s", TeacherID: "t-001", Kind: "conversation"}); err != nil {
				t.Fatal(err)
			}
			if _, err := store.BeginTurn(ctx, session.Turn{SessionID: "s", ID: "t", Message: "hi"}); err != nil {
				t.Fatal(err)
			}
			if _, err := log.Append(ctx, workflow.TurnStream("t"), eventlog.Event{Data: []byte(`{"type":"start"}`)}); err != nil {
				t.Fatal(err)
			}
			var armed time.Duration
			var fire func()
			d := turnDeadline{Starter: startOnly{}, store: store, log: log, logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				after: ExpressLimit + TurnDeadlineGrace, afterFunc: func(after time.Duration, f func()) { armed, fire = after, f }}
			if err := d.Start(ctx, "exec", workflow.ConversationState{Turn: turn}); err != nil {
				t.Fatal(err)
			}
			if armed != 5*time.Minute+15*time.Second || fire == nil {
				t.Fatalf("armed for %s, want 5m15s", armed)
			}
			if tc.finished {
				if err := store.EndTurn(ctx, "s", "t", session.TurnCompleted, session.Outcome{}); err != nil {
					t.Fatal(err)
				}
				if _, err := log.Append(ctx, workflow.TurnStream("t"), eventlog.Event{Data: []byte(`{"type":"finish"}`), Close: true}); err != nil {
					t.Fatal(err)
				}
			}
			fire()
			got, err := store.GetTurn(ctx, "s", "t")
			if err != nil {
				t.Fatal(err)
			}
			evs, err := log.Read(ctx, workflow.TurnStream("t"), 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, e := range evs {
				var c struct{ Type string }
				_ = json.Unmarshal(e.Data, &c)
				types = append(types, c.Type)
			}
			want, wantStatus := []string{"start", "error", "finish"}, session.TurnFailed
			if tc.finished {
				want, wantStatus = []string{"start", "finish"}, session.TurnCompleted
			}
			if got.Status != wantStatus || len(types) != len(want) || !evs[len(evs)-1].Close {
				t.Fatalf("turn %s, stream %v; want %s and %v closed", got.Status, types, wantStatus, want)
			}
			for i := range want {
				if types[i] != want[i] {
					t.Fatalf("stream %v, want %v", types, want)
				}
			}
		})
	}
}
