package awswire

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/wire"
)

// TestReplayHandlerSweepOnly: the RecoverySweep schedule's input (no app,
// trigger "sweep", issue 25) closes the dead work and runs no app.
func TestReplayHandlerSweepOnly(t *testing.T) {
	ctx := context.Background()
	vars := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL_STANDARD": "m"}
	cfg, err := wire.ConfigFromEnv(func(k string) string { return vars[k] })
	db, dbErr := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{NoSync: true})
	if err = errors.Join(err, dbErr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	app, err := wire.New(cfg, wire.Backends{Store: db.Sessions(), Log: db.Events()})
	if err != nil {
		t.Fatal(err)
	}
	dead := session.Lease{Kind: session.LeaseReader, ID: session.ReaderLeaseID("turn-1", "r1"), Owner: "conv-1", Until: time.Now().Add(-time.Minute)}
	if err := db.Sessions().HoldLease(ctx, dead); err != nil {
		t.Fatal(err)
	}
	h, err := (&App{App: app, BuildStarter: nopBuildStarter{}}).ReplayHandler()
	if err != nil {
		t.Fatal(err)
	}
	out, err := h(ctx, apps.ReplayInput{Trigger: TriggerSweep})
	if err != nil || out.Status != TriggerSweep || out.RunID != "" {
		t.Fatalf("sweep = %+v, %v; want status %q and no run", out, err, TriggerSweep)
	}
	if _, err := db.Sessions().GetLease(ctx, dead.Kind, dead.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("the expired lease is still there after the sweep: %v", err)
	}
}
