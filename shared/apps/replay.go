package apps

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/session"
)

// Launcher begins a build and awaits its outcome (*launch.Launcher).
type Launcher interface {
	Begin(ctx context.Context, teacherID, traceID string, req blueprint.Request) (string, error)
	Await(ctx context.Context, buildID string) (launch.Outcome, error)
}

// ReplayOptions configure a Replayer.
type ReplayOptions struct {
	Logger *slog.Logger
	Now    func() time.Time
	NewID  func() string
	// Tools are the data tools a blueprint may call (nil: not checked).
	Tools []string
	// Leases, when set, keeps a lease on every run while it runs, so that
	// a run left by a dead process is found and closed (shared/recovery).
	Leases session.Leases
}

// Replayer runs saved apps.
type Replayer struct {
	store    Store
	launcher Launcher
	o        ReplayOptions
}

// NewReplayer returns a Replayer.
func NewReplayer(store Store, l Launcher, o ReplayOptions) *Replayer {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = func() string { return "run-" + uuid.Must(uuid.NewV7()).String() }
	}
	return &Replayer{store: store, launcher: l, o: o}
}

// ReplayInput is the replay function's input (the EventBridge Scheduler
// target's payload).
type ReplayInput struct {
	AppID   string `json:"appId"`
	Trigger string `json:"trigger,omitempty"`
}

// ReplayOutput is the replay function's output.
type ReplayOutput struct {
	RunID   string `json:"runId"`
	Status  string `json:"status"`
	BuildID string `json:"buildId,omitempty"`
}

// Replay runs an app once: it records a running snapshot, builds the page
// with no client attached, and records how the build ended. A failed build
// is a failed snapshot, not an error; the error is for a run that could not
// be recorded at all (the app does not exist, the store is down).
func (r *Replayer) Replay(ctx context.Context, in ReplayInput) (ReplayOutput, error) {
	app, err := r.store.GetApp(ctx, in.AppID)
	if errors.Is(err, ErrNotFound) {
		return ReplayOutput{}, apperr.New(apperr.EntityNotFound, "app %q not found", in.AppID)
	}
	if err != nil {
		return ReplayOutput{}, apperr.Wrap(err, apperr.ServiceUnavailable, "app store unavailable")
	}
	snap := Snapshot{AppID: app.ID, RunID: r.o.NewID(), Status: StatusRunning, Trigger: in.Trigger, StartedAt: r.o.Now().UTC()}
	if snap.Trigger == "" {
		snap.Trigger = TriggerSchedule
	}
	if err := r.store.PutSnapshot(ctx, snap); err != nil {
		return ReplayOutput{}, apperr.Wrap(err, apperr.ServiceUnavailable, "app store unavailable")
	}
	// The run does not depend on its caller staying: a client that drops
	// during POST …/run must not turn a build that succeeds into a failed
	// run. A deadline of the caller (the replay function's, less its margin
	// to record the outcome) still bounds it, as does Launcher.Await.
	deadline, hasDeadline := ctx.Deadline()
	ctx = context.WithoutCancel(ctx)
	if hasDeadline {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	stop := session.KeepLease(ctx, r.o.Leases, session.Lease{Kind: session.LeaseRun, ID: snap.RunID, Owner: app.ID}, r.o.Now)
	r.run(ctx, app, &snap)
	stop()
	snap.EndedAt = r.o.Now().UTC()
	// The outcome is recorded even when the deadline has passed: the run happened.
	if err := r.store.PutSnapshot(context.WithoutCancel(ctx), snap); err != nil {
		return ReplayOutput{}, apperr.Wrap(err, apperr.ServiceUnavailable, "app store unavailable")
	}
	r.o.Logger.InfoContext(ctx, "app replayed", "appId", app.ID, "runId", snap.RunID, "buildId", snap.BuildID,
		"status", snap.Status, "code", snap.ErrorCode)
	return ReplayOutput{RunID: snap.RunID, Status: snap.Status, BuildID: snap.BuildID}, nil
}

// run builds the app's page and fills the snapshot with the outcome.
func (r *Replayer) run(ctx context.Context, app App, snap *Snapshot) {
	fail := func(err error) {
		e := apperr.As(err)
		snap.Status, snap.ErrorCode, snap.Error = StatusFailed, string(e.Code), e.Message
	}
	bp, err := blueprint.Parse(app.Blueprint)
	if err == nil {
		err = blueprint.Validate(bp, r.o.Tools)
	}
	var inputs map[string]string
	if err == nil {
		inputs, err = blueprint.ResolveInputs(bp, app.Context)
	}
	if err != nil {
		fail(err)
		return
	}
	req := blueprint.Request{Mode: blueprint.ModeBuild, Blueprint: bp, Inputs: inputs, Context: app.Context, Language: bp.Language}
	if snap.BuildID, err = r.launcher.Begin(ctx, app.TeacherID, snap.RunID, req); err != nil {
		fail(err)
		return
	}
	// The build id is recorded at once: a recovery of this run reads the
	// build's outcome from it.
	if err := r.store.PutSnapshot(ctx, *snap); err != nil {
		r.o.Logger.WarnContext(ctx, "could not record the run's build", "runId", snap.RunID, "err", err)
	}
	out, err := r.launcher.Await(ctx, snap.BuildID)
	if err != nil {
		fail(apperr.Wrap(err, apperr.ServiceUnavailable, "the build's outcome could not be read"))
		return
	}
	snap.Settle(out)
}

// Settle records a build's outcome as the run's.
func (s *Snapshot) Settle(out launch.Outcome) {
	if out.Status == launch.Succeeded {
		s.Status, s.Page = StatusSucceeded, out.Result.Page
		return
	}
	s.Status, s.ErrorCode, s.Error = StatusFailed, out.Code, out.Message
}

// Scheduler runs the apps that are due, locally (in AWS, EventBridge
// Scheduler invokes Replay directly).
type Scheduler struct {
	store interface {
		Store
		DueLister
	}
	replayer *Replayer
	log      *slog.Logger
	// limit bounds the apps run by one RunDue.
	limit int
}

// NewScheduler returns a Scheduler over a store that can list due apps.
func NewScheduler(store interface {
	Store
	DueLister
}, r *Replayer, log *slog.Logger) *Scheduler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{store: store, replayer: r, log: log, limit: 50}
}

// RunDue runs every app due at now, one after the other, and returns how
// many ran. Each app's next run time is moved past now before it runs, so
// that a run that fails, or a process that stops during it, never stops the
// schedule.
func (s *Scheduler) RunDue(ctx context.Context, now time.Time) (int, error) {
	due, err := s.store.DueApps(ctx, now, s.limit)
	if err != nil {
		return 0, fmt.Errorf("apps: list due apps: %w", err)
	}
	ran := 0
	for _, app := range due {
		if ctx.Err() != nil {
			return ran, ctx.Err()
		}
		if app.Schedule == nil {
			continue
		}
		every, err := app.Schedule.Interval()
		if err != nil {
			s.log.WarnContext(ctx, "app with a bad schedule skipped", "appId", app.ID, "err", err)
			continue
		}
		app.NextRunAt = Next(app.NextRunAt, now, every)
		if err := s.store.PutApp(ctx, app); err != nil {
			return ran, fmt.Errorf("apps: reschedule %s: %w", app.ID, err)
		}
		if _, err := s.replayer.Replay(ctx, ReplayInput{AppID: app.ID, Trigger: TriggerSchedule}); err != nil {
			s.log.ErrorContext(ctx, "replay could not run", "appId", app.ID, "err", err)
			continue
		}
		ran++
	}
	return ran, nil
}

// Loop calls RunDue every interval until ctx ends.
func (s *Scheduler) Loop(ctx context.Context, every time.Duration, now func() time.Time) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.RunDue(ctx, now()); err != nil && ctx.Err() == nil {
				s.log.ErrorContext(ctx, "scheduled replays failed", "err", err)
			}
		}
	}
}
