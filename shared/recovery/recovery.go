// Package recovery closes the work a dead process left running: turns,
// page builds, app runs and template-report runs whose lease
// (session.Leases) was not renewed.
// A recovered turn ends failed with an error and a finish in its stream
// (the parts it streamed are kept); a recovered build's stream ends with an
// ERROR; a recovered app run takes its build's outcome, or fails. Locally
// every lease found at start-up is dead (the process that held it is gone);
// in AWS a lease past its Until is, and the edge recovers one when a client
// meets it (a new turn refused with 409, a resume).
package recovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Store is the part of the session store a recovery uses.
type Store interface {
	session.Leases
	GetTurn(ctx context.Context, sessionID, turnID string) (session.Turn, error)
	EndTurn(ctx context.Context, sessionID, turnID string, status session.TurnStatus, out session.Outcome) error
}

// Builds closes builds and reads their outcome (*launch.Launcher).
type Builds interface {
	Abandon(ctx context.Context, buildID, why string)
	Await(ctx context.Context, buildID string) (launch.Outcome, error)
}

// Snapshots are the app runs' records (apps.Store).
type Snapshots interface {
	GetSnapshot(ctx context.Context, appID, runID string) (apps.Snapshot, error)
	PutSnapshot(ctx context.Context, s apps.Snapshot) error
}

// Recoverer finds and closes dead work.
type Recoverer struct {
	store  Store
	log    eventlog.Log
	builds Builds
	snaps  Snapshots
	// reports are the template sessions (WithReports; nil: none).
	reports report.Store
	logger  *slog.Logger
	now     func() time.Time
}

// New returns a Recoverer; builds and snaps may be nil where there are no
// builds or apps.
func New(store Store, log eventlog.Log, builds Builds, snaps Snapshots, logger *slog.Logger) *Recoverer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Recoverer{store: store, log: log, builds: builds, snaps: snaps, logger: logger, now: time.Now}
}

// errLive is a run whose build is still alive elsewhere: it is left for a
// later sweep.
var errLive = errors.New("recovery: the work it waits for is alive")

// maxSweep bounds the leases one Sweep handles.
const maxSweep = 10_000

// Sweep recovers the work of every lease expired at now and returns how
// many it closed. The local run calls it at start-up with a time far ahead:
// then every lease is dead.
func (r *Recoverer) Sweep(ctx context.Context, now time.Time) (int, error) {
	n, seen := 0, map[session.Lease]bool{}
	for n < maxSweep {
		leases, err := r.store.ExpiredLeases(ctx, now, 100)
		if err != nil {
			return n, fmt.Errorf("recovery: %w", err)
		}
		fresh := 0
		for _, l := range leases {
			if seen[l] {
				continue
			}
			seen[l], fresh = true, fresh+1
			switch err := r.recover(ctx, l); {
			case errors.Is(err, errLive):
			case err != nil:
				r.logger.ErrorContext(ctx, "could not recover", "kind", l.Kind, "id", l.ID, "err", err)
			default:
				n++
			}
		}
		if fresh == 0 {
			return n, nil
		}
	}
	return n, nil
}

// IfDead recovers the work of one lease when it has expired, and reports
// whether it did. Work without a lease is left alone.
func (r *Recoverer) IfDead(ctx context.Context, kind session.LeaseKind, id string) (bool, error) {
	l, err := r.store.GetLease(ctx, kind, id)
	if errors.Is(err, session.ErrNotFound) {
		return false, nil
	}
	if err != nil || !l.Expired(r.now()) {
		return false, err
	}
	err = r.recover(ctx, l)
	return err == nil, err
}

// recover closes the work of l and drops l.
func (r *Recoverer) recover(ctx context.Context, l session.Lease) error {
	ctx = context.WithoutCancel(ctx)
	var err error
	switch l.Kind {
	case session.LeaseReader:
		// A reader that went away without dropping its lease: there is no
		// work to close.
		return r.store.DropLease(ctx, l.Kind, l.ID)
	case session.LeaseTurn:
		err = r.turn(ctx, l.Owner, l.ID)
	case session.LeaseBuild:
		err = r.build(ctx, l.ID)
	case session.LeaseRun:
		err = r.run(ctx, l.Owner, l.ID)
	case report.LeaseKind:
		err = r.report(ctx, l)
	}
	if err != nil {
		return err
	}
	r.logger.WarnContext(ctx, "recovered work left by a dead process", "kind", l.Kind, "id", l.ID, "owner", l.Owner)
	return r.store.DropLease(ctx, l.Kind, l.ID)
}

// turn ends a turn that is still running as failed and closes its stream
// with an error and a finish; what it streamed before stays.
func (r *Recoverer) turn(ctx context.Context, sessionID, turnID string) error {
	t, err := r.store.GetTurn(ctx, sessionID, turnID)
	if errors.Is(err, session.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	msg := i18n.Of(t.Language, t.Message).Text(i18n.Interrupted)
	if t.Status == session.TurnRunning {
		err := r.store.EndTurn(ctx, sessionID, turnID, session.TurnFailed,
			session.Outcome{Error: msg, ErrorCode: string(apperr.ServiceUnavailable)})
		if err != nil && !errors.Is(err, session.ErrConflict) {
			return err
		}
	}
	em := eventlog.Emitter[protocol.Chunk]{Log: r.log, Stream: workflow.TurnStream(turnID), Encode: protocol.MarshalChunk}
	if err := em.Close(ctx, protocol.Error{ErrorText: msg}, protocol.Finish{FinishReason: protocol.FinishError}); err != nil && !errors.Is(err, eventlog.ErrClosed) {
		return err
	}
	return nil
}

// build closes a build's stream with an ERROR unless it is closed.
func (r *Recoverer) build(ctx context.Context, buildID string) error {
	if r.builds == nil {
		return nil
	}
	if closed, err := r.closed(ctx, workflow.BuildStream(buildID)); err != nil || closed {
		return err
	}
	r.builds.Abandon(ctx, buildID, "the process running it died")
	return nil
}

// closed reports whether a stream has its closing event.
func (r *Recoverer) closed(ctx context.Context, stream string) (bool, error) {
	var after int64
	for range 1000 {
		evs, err := r.log.Read(ctx, stream, after, 500)
		if err != nil {
			return false, err
		}
		if len(evs) == 0 {
			return false, nil
		}
		if last := evs[len(evs)-1]; last.Close {
			return true, nil
		} else {
			after = last.Seq
		}
	}
	return false, nil
}

// run settles a run still recorded as running: with its build's outcome
// once that build has ended (a build whose own lease is alive is waited for
// by a later sweep), else as failed.
func (r *Recoverer) run(ctx context.Context, appID, runID string) error {
	if r.snaps == nil {
		return nil
	}
	snap, err := r.snaps.GetSnapshot(ctx, appID, runID)
	if errors.Is(err, apps.ErrNotFound) {
		return nil
	}
	if err != nil || snap.Status != apps.StatusRunning {
		return err
	}
	snap.Status, snap.ErrorCode = apps.StatusFailed, string(apperr.ServiceUnavailable)
	snap.Error = i18n.Of("").Text(i18n.Interrupted)
	if snap.BuildID != "" && r.builds != nil {
		if dead, err := r.IfDead(ctx, session.LeaseBuild, snap.BuildID); err != nil {
			return err
		} else if !dead {
			if l, err := r.store.GetLease(ctx, session.LeaseBuild, snap.BuildID); err == nil && !l.Expired(r.now()) {
				return errLive
			}
		}
		if err := r.build(ctx, snap.BuildID); err != nil {
			return err
		}
		out, err := r.builds.Await(ctx, snap.BuildID)
		if err == nil {
			snap.ErrorCode, snap.Error = "", ""
			snap.Settle(out)
		}
	}
	snap.EndedAt = r.now().UTC()
	return r.snaps.PutSnapshot(ctx, snap)
}
