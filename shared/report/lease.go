package report

// issue 32: a template run holds a lease (docs/reliability.md, "Template
// reports and research runs"), so that a run whose process died is found
// and closed as a dead turn is.

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/session"
)

// LeaseKind is the kind of a template run's lease; its ID is LeaseID, its
// Owner the session.
const LeaseKind session.LeaseKind = "template"

// LeaseID is the lease id of a session's run.
func LeaseID(sessionID string, run int) string { return sessionID + "/" + strconv.Itoa(run) }

// LeaseRun is the session and run of a template run's lease.
func LeaseRun(l session.Lease) (sessionID string, run int, ok bool) {
	sid, n, found := strings.Cut(l.ID, "/")
	run, err := strconv.Atoi(n)
	return sid, run, found && err == nil && l.Kind == LeaseKind && sid != ""
}

// RunLeases keeps the leases of template runs: control takes one when it
// starts a run, and every step of the run keeps it while it works (Keep).
type RunLeases struct {
	Leases session.Leases
	Store  Store
	// ConfirmWait is how long a run may wait for user.response without a
	// step running (TEMPLATE_WS_CONFIRM_TIMEOUT).
	ConfirmWait time.Duration
	Now         func() time.Time
}

func (r RunLeases) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// Take holds a new run's lease for session.LeaseTTL.
func (r RunLeases) Take(ctx context.Context, sessionID string, run int) error {
	return r.Leases.HoldLease(ctx, session.Lease{Kind: LeaseKind, ID: LeaseID(sessionID, run), Owner: sessionID,
		Until: r.now().Add(session.LeaseTTL)})
}

// Drop lets a run's lease go (best effort: a lease left behind is dropped
// by the recovery sweep, which finds its run ended).
func (r RunLeases) Drop(ctx context.Context, sessionID string, run int) {
	_ = r.Leases.DropLease(context.WithoutCancel(ctx), LeaseKind, LeaseID(sessionID, run))
}

// Keep renews the lease of run while one of its steps works
// (session.KeepLease). The function it returns, called when the step has
// returned, leaves the lease as the run needs it next: held until the
// confirmation's deadline after the confirm step (no step runs while the
// workflow waits for user.response), dropped once the run has ended or
// another run replaced it.
func (r RunLeases) Keep(ctx context.Context, sessionID string, run int, step string) (done func(stepErr error)) {
	l := session.Lease{Kind: LeaseKind, ID: LeaseID(sessionID, run), Owner: sessionID}
	stop := session.KeepLease(ctx, r.Leases, l, r.now)
	return func(stepErr error) {
		stop()
		ctx := context.WithoutCancel(ctx)
		s, err := r.Store.GetSession(ctx, sessionID)
		switch {
		case err != nil:
		case s.Run != run || !s.Running():
			r.Drop(ctx, sessionID, run)
		case step == "confirm" && stepErr == nil && s.Status == StatusConfirming:
			l.Until = r.now().Add(r.ConfirmWait + session.LeaseTTL)
			_ = r.Leases.HoldLease(ctx, l)
		}
	}
}
