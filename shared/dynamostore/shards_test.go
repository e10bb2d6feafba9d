package dynamostore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/session"
)

// TestSharedPartitionsPaged drives every operation that touches a
// partition kept for the whole product (the leases, the due apps: the
// package's pk… constants, dynamotest.SharedKeys) through a metered
// client, and fails on a Scan or on a Query of such a key without a Limit:
// a read that takes a whole hot partition at once. It also checks that
// their writes spread over the shards: no shard takes more than a tenth of
// 320 leases' writes or 320 apps'.
func TestSharedPartitionsPaged(t *testing.T) {
	shared, bases, err := dynamotest.SharedKeys()
	if err != nil {
		t.Fatal(err)
	}
	srv := dynamotest.Start(t)
	meter := dynamotest.NewMeter()
	db := dynamotest.NewClient(srv.Endpoint, meter.Option)
	table := srv.NewTable(t)
	ls := dynamostore.New(db, table, dynamostore.Options{}).Sessions()
	as := dynamostore.NewAppStore(db, table, dynamostore.Options{})
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)

	const n = 320
	for i := range n {
		turn := fmt.Sprintf("turn-%03d", i)
		must(t, ls.HoldLease(ctx, session.Lease{Kind: session.LeaseTurn, ID: turn, Owner: "conv", Until: now.Add(time.Duration(i%3-1) * time.Minute)}))
		must(t, ls.HoldLease(ctx, session.Lease{Kind: session.LeaseReader, ID: session.ReaderLeaseID(turn, "origin"), Owner: "conv", Until: now.Add(time.Minute)}))
		must(t, as.PutApp(ctx, scheduledApp(fmt.Sprintf("app-%03d", i), "t-001", now.Add(time.Duration(i-n/2)*time.Minute))))
	}
	expired, err := ls.ExpiredLeases(ctx, now, 100)
	if err != nil || len(expired) != 100 {
		t.Fatalf("ExpiredLeases = %d leases, %v; want 100", len(expired), err)
	}
	if !slices.IsSortedFunc(expired, session.LeaseOrder) {
		t.Error("ExpiredLeases are not in LeaseOrder")
	}
	if live, err := ls.LiveLeases(ctx, session.LeaseReader, session.ReaderLeasePrefix("turn-007"), now, 10); err != nil || len(live) != 1 {
		t.Errorf("LiveLeases of turn-007's readers = %v, %v; want its origin", live, err)
	}
	if live, err := ls.LiveLeases(ctx, session.LeaseTurn, "turn-", now, 50); err != nil || len(live) != 50 {
		t.Errorf("LiveLeases of every turn, limit 50 = %d, %v", len(live), err)
	}
	due, err := as.DueApps(ctx, now, 20)
	if err != nil || len(due) != 20 || due[0].ID != "app-000" || due[19].ID != "app-019" {
		t.Fatalf("DueApps = %v, %v; want app-000 to app-019, the earliest", ids(due), err)
	}
	must(t, as.DeleteApp(ctx, "app-000"))
	must(t, ls.DropLease(ctx, session.LeaseTurn, "turn-000"))

	for _, q := range meter.Unbounded(shared) {
		t.Errorf("%s of %q without a Limit: it reads the whole partition (shared keys: %v)", q.Op, q.PK, bases)
	}
	sharedWrites := 0
	for pk, u := range meter.Keys() {
		if !shared(pk) {
			continue
		}
		if sharedWrites += u.Writes; u.Writes > 2*n/10 {
			t.Errorf("%s took %d of the writes of %d leases and %d apps: not spread", pk, u.Writes, n, n)
		}
	}
	if sharedWrites < 3*n { // a lease and a reader lease a turn, a due pointer an app
		t.Errorf("%d writes to the shared keys (%v) metered, want at least %d", sharedWrites, bases, 3*n)
	}
}

func ids(as []apps.App) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.ID)
	}
	return out
}
