package sessiontest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/session"
)

// RunLeases is the contract suite of session.Leases; newStore returns an
// empty store for one subtest. Times are whole milliseconds (DynamoDB keeps
// Until as epoch milliseconds).
func RunLeases(t *testing.T, newStore func(t *testing.T) session.Leases) {
	t.Helper()
	ctx := context.Background()
	base := time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	t.Run("HoldGetRenewDrop", func(t *testing.T) {
		s := newStore(t)
		l := session.Lease{Kind: session.LeaseTurn, ID: "turn-1", Owner: "conv-1", Until: base.Add(time.Minute)}
		if _, err := s.GetLease(ctx, l.Kind, l.ID); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("GetLease before HoldLease: %v", err)
		}
		if err := s.HoldLease(ctx, l); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetLease(ctx, l.Kind, l.ID)
		if err != nil || got.Kind != l.Kind || got.ID != l.ID || got.Owner != l.Owner || !got.Until.Equal(l.Until) {
			t.Fatalf("GetLease = %+v, %v; want %+v", got, err, l)
		}
		l.Until = base.Add(2 * time.Minute) // renewal
		if err := s.HoldLease(ctx, l); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.GetLease(ctx, l.Kind, l.ID); !got.Until.Equal(l.Until) {
			t.Errorf("renewed Until = %v, want %v", got.Until, l.Until)
		}
		if _, err := s.GetLease(ctx, session.LeaseBuild, l.ID); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("the same id of another kind: %v", err)
		}
		if err := s.DropLease(ctx, l.Kind, l.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetLease(ctx, l.Kind, l.ID); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("GetLease after DropLease: %v", err)
		}
		if err := s.DropLease(ctx, l.Kind, l.ID); err != nil {
			t.Errorf("dropping a missing lease: %v", err)
		}
	})
	t.Run("Expired", func(t *testing.T) {
		s := newStore(t)
		leases := []session.Lease{
			{Kind: session.LeaseRun, ID: "run-1", Owner: "app-1", Until: base.Add(-3 * time.Second)},
			{Kind: session.LeaseTurn, ID: "turn-2", Owner: "conv-1", Until: base.Add(-time.Second)},
			{Kind: session.LeaseTurn, ID: "turn-1", Owner: "conv-1", Until: base.Add(-2 * time.Second)},
			{Kind: session.LeaseBuild, ID: "build-1", Owner: "build-1", Until: base.Add(-time.Millisecond)},
			{Kind: session.LeaseTurn, ID: "turn-live", Owner: "conv-2", Until: base.Add(time.Minute)},
			{Kind: session.LeaseBuild, ID: "build-now", Owner: "build-now", Until: base}, // not before now
		}
		for _, l := range leases {
			if err := s.HoldLease(ctx, l); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.ExpiredLeases(ctx, base, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"build-1", "turn-1", "turn-2", "run-1"} // builds first, then by Until
		if len(got) != len(want) {
			t.Fatalf("ExpiredLeases = %+v, want %v", got, want)
		}
		for i, l := range got {
			if l.ID != want[i] {
				t.Errorf("ExpiredLeases[%d] = %s, want %s", i, l.ID, want[i])
			}
		}
		if got, _ := s.ExpiredLeases(ctx, base, 2); len(got) != 2 {
			t.Errorf("limit 2: %d leases", len(got))
		}
		if got, _ := s.ExpiredLeases(ctx, base.Add(-time.Hour), 10); len(got) != 0 {
			t.Errorf("nothing had expired an hour before: %+v", got)
		}
	})
	t.Run("Live", func(t *testing.T) {
		s := newStore(t)
		leases := []session.Lease{
			{Kind: session.LeaseReader, ID: session.ReaderLeaseID("turn-1", "r1"), Owner: "conv-1", Until: base.Add(time.Minute)},
			{Kind: session.LeaseReader, ID: session.ReaderLeaseID("turn-1", "r2"), Owner: "conv-1", Until: base},
			{Kind: session.LeaseReader, ID: session.ReaderLeaseID("turn-1", "r3"), Owner: "conv-1", Until: base.Add(-time.Second)}, // gone
			{Kind: session.LeaseReader, ID: session.ReaderLeaseID("turn-10", "r1"), Owner: "conv-1", Until: base.Add(time.Minute)},
			{Kind: session.LeaseTurn, ID: session.ReaderLeaseID("turn-1", "r4"), Owner: "conv-1", Until: base.Add(time.Minute)}, // another kind
		}
		for _, l := range leases {
			if err := s.HoldLease(ctx, l); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.LiveLeases(ctx, session.LeaseReader, session.ReaderLeasePrefix("turn-1"), base, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, l := range got {
			ids = append(ids, l.ID)
		}
		if len(ids) != 2 || ids[0] != "turn-1/r1" || ids[1] != "turn-1/r2" {
			t.Fatalf("LiveLeases = %v, want turn-1/r1 and turn-1/r2", ids)
		}
		if got, _ := s.LiveLeases(ctx, session.LeaseReader, session.ReaderLeasePrefix("turn-1"), base, 1); len(got) != 1 {
			t.Errorf("limit 1: %d leases", len(got))
		}
		if got, _ := s.LiveLeases(ctx, session.LeaseReader, session.ReaderLeasePrefix("turn-2"), base, 10); len(got) != 0 {
			t.Errorf("a turn without readers: %+v", got)
		}
	})
}
