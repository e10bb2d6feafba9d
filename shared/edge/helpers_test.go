package edge_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// openDB is an embedded store of the test's own.
func openDB(tb testing.TB) *boltstore.DB {
	tb.Helper()
	db, err := boltstore.Open(filepath.Join(tb.TempDir(), "e.db"), boltstore.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// idleStarter starts no workflow: the tests play the workflow's part on
// the store and the log, and a benchmark's stream stays open and idle.
type idleStarter struct{}

func (idleStarter) Start(context.Context, string, workflow.ConversationState) error { return nil }
func (idleStarter) Stop(context.Context, string) error                              { return nil }

// endedTurn plays a whole turn on db as its workflow would: begun, its
// chunks logged (the last closes the stream), ended as completed.
func endedTurn(t *testing.T, db *boltstore.DB, turn session.Turn, chunks ...protocol.Chunk) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.Sessions().BeginTurn(ctx, turn); err != nil {
		t.Fatal(err)
	}
	em := eventlog.Emitter[protocol.Chunk]{Log: db.Events(), Stream: workflow.TurnStream(turn.ID), Encode: protocol.MarshalChunk}
	if err := em.Close(ctx, chunks...); err != nil {
		t.Fatal(err)
	}
	if err := db.Sessions().EndTurn(ctx, turn.SessionID, turn.ID, session.TurnCompleted, session.Outcome{}); err != nil {
		t.Fatal(err)
	}
}

// do sends a request as teacher ("": the development default) and returns
// the status and the body.
func do(t *testing.T, method, url, teacher string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, url, nil)
	if teacher != "" {
		req.Header.Set("X-Teacher-Id", teacher)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
