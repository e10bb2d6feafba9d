package session_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/insightedge/insightedge/shared/session"
)

// holds counts HoldLease calls: the store is the outside world here.
type holds struct {
	session.Leases
	mu sync.Mutex
	n  int
}

func (h *holds) HoldLease(context.Context, session.Lease) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	return nil
}

// TestKeepLeaseWritesOnlyWhatTheTTLNeeds: a lease the caller knows to be
// held for more than 2/3 of LeaseTTL is not written when kept (a step of a
// turn the edge just began); an older one, or one of unknown age, is.
func TestKeepLeaseWritesOnlyWhatTheTTLNeeds(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	for _, tc := range []struct {
		name   string
		until  time.Time
		writes int
	}{
		{"unknown", time.Time{}, 1},
		{"just taken", now.Add(session.LeaseTTL), 0},
		{"taken 29 s ago", now.Add(session.LeaseTTL - 29*time.Second), 0},
		{"taken 31 s ago", now.Add(session.LeaseTTL - 31*time.Second), 1},
		{"run out", now.Add(-time.Second), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &holds{}
			stop := session.KeepLease(context.Background(), h, session.Lease{Kind: session.LeaseTurn, ID: "turn-1", Owner: "s", Until: tc.until}, clock)
			stop()
			if h.n != tc.writes {
				t.Fatalf("%d lease writes, want %d", h.n, tc.writes)
			}
		})
	}
}

func (h *holds) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// TestKeepLeaseRenewsUntilStopped: in a bubble of fake time, a kept lease
// is written every LeaseTTL/3 while its work runs, and never after stop or
// after its context ends.
func TestKeepLeaseRenewsUntilStopped(t *testing.T) {
	for _, end := range []string{"stop", "context"} {
		t.Run(end, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := &holds{}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				stop := session.KeepLease(ctx, h, session.Lease{Kind: session.LeaseTurn, ID: "turn-1", Owner: "s"}, time.Now)
				for want := 1; want <= 4; want++ { // written at once, then at each third of the TTL
					synctest.Wait()
					if n := h.count(); n != want {
						t.Fatalf("after %d thirds of the TTL: %d writes, want %d", want-1, n, want)
					}
					time.Sleep(session.LeaseTTL / 3)
				}
				// 4 writes so far; the fifth is due now.
				if end == "stop" {
					stop()
				} else {
					cancel()
				}
				before := h.count()
				time.Sleep(3 * session.LeaseTTL)
				synctest.Wait()
				if n := h.count(); n > before+1 || (end == "stop" && n != before) {
					t.Fatalf("after %s: %d writes, had %d", end, n, before)
				}
				stop()
			})
		})
	}
}
