package edge_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// idleStarter starts no workflow: the tests play the workflow's part on
// the store and the log.
type idleStarter struct{}

func (idleStarter) Start(context.Context, string, workflow.ConversationState) error { return nil }
func (idleStarter) Stop(context.Context, string) error                              { return nil }

// TestReplayWindow: a resume without a cursor replays the turn that ended
// within the replay window, and is 204 once the window has passed.
func TestReplayWindow(t *testing.T) {
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "r.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	store := db.Sessions()
	if err := store.CreateSession(ctx, session.Session{ID: "conv-1", TeacherID: "t-001", Kind: "conversation"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.BeginTurn(ctx, session.Turn{SessionID: "conv-1", ID: "turn-1", Message: "hi", MessageID: "msg-1"}); err != nil {
		t.Fatal(err)
	}
	em := eventlog.Emitter[protocol.Chunk]{Log: db.Events(), Stream: workflow.TurnStream("turn-1"), Encode: protocol.MarshalChunk}
	if err := em.Close(ctx, protocol.Start{MessageID: "msg-1"}, protocol.Finish{}); err != nil {
		t.Fatal(err)
	}
	if err := store.EndTurn(ctx, "conv-1", "turn-1", session.TurnCompleted, session.Outcome{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	ended, err := store.GetTurn(ctx, "conv-1", "turn-1")
	if err != nil {
		t.Fatal(err)
	}
	var now atomic.Int64
	srv := edge.New(store, db.Events(), idleStarter{}, auth.NewDev("t-001", slog.New(slog.DiscardHandler)),
		edge.Options{ReplayWindow: time.Minute, Now: func() time.Time { return time.Unix(0, now.Load()) }})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	for _, c := range []struct {
		after time.Duration
		want  int
	}{
		{0, 200}, {time.Minute, 200}, {time.Minute + time.Millisecond, 204}, {time.Hour, 204},
	} {
		now.Store(ended.EndedAt.Add(c.after).UnixNano())
		resp, err := http.Get(hs.URL + "/api/conversation/conv-1/stream")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("resume %v after the turn ended: %d, want %d", c.after, resp.StatusCode, c.want)
		}
	}
}
