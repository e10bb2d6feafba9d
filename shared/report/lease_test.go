package report_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/session"
)

// issue 32: TestRunLeaseKeep: a step keeps its run's lease; after the
// confirm step the lease lasts through the confirmation's wait; once the
// run has ended, or another run replaced it, the step lets it go.
func TestRunLeaseKeep(t *testing.T) {
	ctx := context.Background()
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "l.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	store, leases := report.NewStore(records.NewMemory()), db.Sessions()
	now := time.Unix(1_800_000_000, 0)
	rl := report.RunLeases{Leases: leases, Store: store, ConfirmWait: 10 * time.Minute, Now: func() time.Time { return now }}
	if err := store.CreateSession(ctx, report.Session{ID: "s", TeacherID: "t", Status: report.StatusConfirming, Run: 1}); err != nil {
		t.Fatal(err)
	}
	until := func(run int) (time.Time, bool) {
		l, err := leases.GetLease(ctx, report.LeaseKind, report.LeaseID("s", run))
		if errors.Is(err, session.ErrNotFound) {
			return time.Time{}, false
		}
		if err != nil {
			t.Fatal(err)
		}
		if sid, r, ok := report.LeaseRun(l); !ok || sid != "s" || r != run {
			t.Fatalf("lease %+v names %s run %d", l, sid, r)
		}
		return l.Until, true
	}

	done := rl.Keep(ctx, "s", 1, "confirm")
	if u, ok := until(1); !ok || !u.Equal(now.Add(session.LeaseTTL)) {
		t.Fatalf("while the confirm step runs the lease lasts until %v (%v)", u, ok)
	}
	done(nil)
	if u, ok := until(1); !ok || !u.Equal(now.Add(10*time.Minute+session.LeaseTTL)) {
		t.Fatalf("after the confirm step the lease lasts until %v, want the confirmation's deadline + TTL", u)
	}

	// A step of a run another replaced lets its lease go.
	if _, err := store.UpdateSession(ctx, "s", func(x *report.Session) error { x.Run, x.Status = 2, report.StatusSolving; return nil }); err != nil {
		t.Fatal(err)
	}
	rl.Keep(ctx, "s", 1, "solve")(nil)
	if _, ok := until(1); ok {
		t.Error("a replaced run's step kept its lease")
	}
	// A step of the running run keeps it; the last step lets it go.
	rl.Keep(ctx, "s", 2, "solve")(nil)
	if _, ok := until(2); !ok {
		t.Error("a running run's lease was dropped after a step")
	}
	done = rl.Keep(ctx, "s", 2, "aggregate")
	if _, err := store.UpdateSession(ctx, "s", func(x *report.Session) error { x.Status = report.StatusCompleted; return nil }); err != nil {
		t.Fatal(err)
	}
	done(nil)
	if _, ok := until(2); ok {
		t.Error("an ended run's lease is left")
	}
}
