package session

import (
	"context"
	"sync"
	"time"
)

// LeaseKind names what a lease is held for.
type LeaseKind string

// The work that holds leases, in the order a recovery handles them: a
// build before the turn or app run that may wait for it.
const (
	LeaseBuild LeaseKind = "build"
	LeaseTurn  LeaseKind = "turn"
	LeaseRun   LeaseKind = "run"
	// LeaseReader is held by a client reading a turn's stream; its ID is
	// ReaderLeaseID(turn, reader). It is no work to recover: an expired one
	// is only dropped.
	LeaseReader LeaseKind = "reader"
)

// ReaderLeaseID is the lease id of one reader of a turn's stream; the
// readers of a turn are the live leases under ReaderLeasePrefix(turnID).
func ReaderLeaseID(turnID, readerID string) string { return ReaderLeasePrefix(turnID) + readerID }

// ReaderLeasePrefix is the id prefix of the reader leases of a turn.
func ReaderLeasePrefix(turnID string) string { return turnID + "/" }

// Lease says that a live process is doing a piece of work: a turn, a page
// build, an app run. Whoever runs the work renews the lease (moves Until)
// while it runs; a lease whose Until has passed was left by a process that
// died, and its work is recovered (closed as failed, its output so far kept).
type Lease struct {
	Kind LeaseKind `json:"kind"`
	// ID is the work's id: the turn's, the build's, the run's.
	ID string `json:"id"`
	// Owner is where the work is kept: a turn's session id, a run's app id
	// (a build's own id).
	Owner string    `json:"owner"`
	Until time.Time `json:"until"`
}

// Expired reports whether the lease had run out at now.
func (l Lease) Expired(now time.Time) bool { return l.Until.Before(now) }

// Leases keeps the leases of running work. Every method is one item write
// or one read, so that the DynamoDB store needs no transaction.
type Leases interface {
	// HoldLease creates the lease (Kind, ID) or replaces its Owner and
	// Until: taking and renewing are the same write.
	HoldLease(ctx context.Context, l Lease) error
	// GetLease returns the lease or ErrNotFound.
	GetLease(ctx context.Context, kind LeaseKind, id string) (Lease, error)
	// DropLease removes the lease; a missing lease is no error.
	DropLease(ctx context.Context, kind LeaseKind, id string) error
	// ExpiredLeases returns up to limit leases whose Until is before now,
	// in the order of LeaseKind (builds first), then by Until.
	ExpiredLeases(ctx context.Context, now time.Time, limit int) ([]Lease, error)
	// LiveLeases returns up to limit leases of kind whose ID starts with
	// idPrefix and whose Until is not before now (one query of the lease
	// partition's key range).
	LiveLeases(ctx context.Context, kind LeaseKind, idPrefix string, now time.Time, limit int) ([]Lease, error)
}

// LeaseOrder sorts leases as ExpiredLeases returns them.
func LeaseOrder(a, b Lease) int {
	rank := func(k LeaseKind) int {
		switch k {
		case LeaseBuild:
			return 0
		case LeaseTurn:
			return 1
		}
		return 2
	}
	if d := rank(a.Kind) - rank(b.Kind); d != 0 {
		return d
	}
	return a.Until.Compare(b.Until)
}

// LeaseTTL is how long a lease lasts without renewal. KeepLease renews it
// three times within that, so one missed renewal does not kill live work.
const LeaseTTL = 90 * time.Second

// KeepLease holds l (its Until set to now+LeaseTTL) and renews it every
// LeaseTTL/3 until stop is called or ctx ends. A failed renewal is only
// retried at the next tick: the lease's TTL is the bound.
//
// l.Until, when set, is how long the caller knows the lease to be held
// already (the work's lease taken when the work began, passed along with
// it): a lease held for more than LeaseTTL*2/3 more is not written at once
// but at the first tick, which leaves it more than LeaseTTL/3 then, as a
// lease renewed every LeaseTTL/3 always has; so one missed renewal still
// does not kill live work. The steps of a turn or build that take less
// than LeaseTTL/3 in all write no lease at all (docs/cost.md).
func KeepLease(ctx context.Context, ls Leases, l Lease, now func() time.Time) (stop func()) {
	if ls == nil || l.ID == "" {
		return func() {}
	}
	hold := func() {
		l.Until = now().Add(LeaseTTL)
		_ = ls.HoldLease(context.WithoutCancel(ctx), l)
	}
	if !fresh(l.Until, now()) {
		hold()
	}
	// A timer, not a goroutine: thousands of turns may hold leases at once,
	// and each would keep a goroutine's stack alive only to wait 30 s.
	var (
		mu      sync.Mutex
		stopped bool
		t       *time.Timer
	)
	mu.Lock()
	defer mu.Unlock()
	t = time.AfterFunc(LeaseTTL/3, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped || ctx.Err() != nil {
			return
		}
		hold()
		t.Reset(LeaseTTL / 3)
	})
	// stop waits for a renewal under way: after it, nothing is written.
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		t.Stop()
	}
}

// fresh reports whether a lease held until until needs no renewal at now:
// more than LeaseTTL*2/3 of it is left.
func fresh(until, now time.Time) bool { return until.Sub(now) > LeaseTTL*2/3 }
