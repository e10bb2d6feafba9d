// Package launch starts page builds and waits for their outcome: what the
// edge does for POST /api/page/generate and /api/page/patch, and what a
// scheduled replay does with no client attached. A build is a session of
// kind "page-build" owned by the teacher (so that only they can resume its
// stream), its request stored as a record (the claim check the build steps
// read), and an execution of the Build workflow named after it.
package launch

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Starter starts Build workflow executions: the in-process interpreter
// locally, Step Functions in AWS.
type Starter interface {
	Start(ctx context.Context, name string, input workflow.BuildState) error
}

// Store is the part of the session store a launch uses.
type Store interface {
	CreateSession(ctx context.Context, s session.Session) error
	GetSession(ctx context.Context, id string) (session.Session, error)
	session.ClaimChecks
}

// SessionKind is the kind of a build's session.
const SessionKind = "page-build"

// Options configure a Launcher.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	NewID  func() string
	// TTL is how long a build's session and records are kept (7 days).
	TTL time.Duration
	// MaxWait bounds the wait for a build's next event (5 min: an Express
	// workflow's limit).
	MaxWait time.Duration
	// PollMin and PollMax pace a tail when the log cannot notify.
	PollMin, PollMax time.Duration
	// Leases, when set, gets a lease for every build begun; the build's
	// steps renew it (wire), and a build left by a dead process is closed
	// when it runs out (shared/recovery).
	Leases session.Leases
}

// Launcher begins builds and awaits them.
type Launcher struct {
	store   Store
	log     eventlog.Log
	starter Starter
	o       Options
}

// New returns a Launcher.
func New(store Store, log eventlog.Log, st Starter, o Options) *Launcher {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = func() string { return "build-" + uuid.Must(uuid.NewV7()).String() }
	}
	if o.TTL <= 0 {
		o.TTL = 7 * 24 * time.Hour
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 5 * time.Minute
	}
	return &Launcher{store: store, log: log, starter: st, o: o}
}

// MaxWait is the wait bound for a build's next event.
func (l *Launcher) MaxWait() time.Duration { return l.o.MaxWait }

// Begin stores the request and starts its build; it returns the build's id.
// The build outlives ctx: a client that goes away does not stop it.
func (l *Launcher) Begin(ctx context.Context, teacherID, traceID string, req blueprint.Request) (string, error) {
	id := l.o.NewID()
	now := l.o.Now()
	title := req.Blueprint.Name
	if len([]rune(title)) > 40 {
		title = string([]rune(title)[:40]) + "…"
	}
	if err := l.store.CreateSession(ctx, session.Session{ID: id, TeacherID: teacherID, Kind: SessionKind, Title: title,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(l.o.TTL)}); err != nil {
		return "", apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("launch: encode the request: %w", err)
	}
	if err := l.store.PutRecord(ctx, id, blueprint.RecordRequest, raw); err != nil {
		return "", apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	var leaseUntil time.Time
	if l := l.o.Leases; l != nil {
		leaseUntil = now.Add(session.LeaseTTL)
		if err := l.HoldLease(ctx, session.Lease{Kind: session.LeaseBuild, ID: id, Owner: id, Until: leaseUntil}); err != nil {
			return "", apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
		}
	}
	in := workflow.NewBuildState(workflow.Build{BuildID: id, TeacherID: teacherID, Mode: req.Mode, TraceID: traceID, LeaseUntil: leaseUntil})
	if err := l.starter.Start(context.WithoutCancel(ctx), id, in); err != nil {
		l.Abandon(ctx, id, "the build workflow could not start: "+err.Error())
		return "", apperr.Wrap(err, apperr.ServiceUnavailable, "the build could not start")
	}
	l.o.Logger.InfoContext(ctx, "build started", "buildId", id, "teacherId", teacherID, "mode", req.Mode,
		"blueprintId", req.Blueprint.ID, "traceId", traceID)
	return id, nil
}

// Owned checks that the build exists and belongs to the teacher; another
// teacher's build is reported as not found, so that ids cannot be probed.
func (l *Launcher) Owned(ctx context.Context, teacherID, buildID string) error {
	s, err := l.store.GetSession(ctx, buildID)
	if errors.Is(err, session.ErrNotFound) || (err == nil && (s.TeacherID != teacherID || s.Kind != SessionKind)) {
		return apperr.New(apperr.EntityNotFound, "build %q not found", buildID)
	}
	if err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	return nil
}

// Abandon closes the stream of a build that cannot go on (its workflow did
// not start, or sent nothing within the wait bound) with an ERROR.
func (l *Launcher) Abandon(ctx context.Context, buildID, why string) {
	ctx = context.WithoutCancel(ctx)
	em := eventlog.Emitter[protocol.PageEvent]{Log: l.log, Stream: workflow.BuildStream(buildID), Encode: protocol.MarshalPageEvent}
	err := em.Close(ctx, protocol.PageError{Code: string(apperr.ServiceUnavailable),
		Message: i18n.Of(l.language(ctx, buildID)).Text(i18n.PageServiceUnavailable)})
	if err != nil && !errors.Is(err, eventlog.ErrClosed) {
		l.o.Logger.ErrorContext(ctx, "could not close an abandoned build", "buildId", buildID, "err", err)
	}
	l.o.Logger.ErrorContext(ctx, "build abandoned", "buildId", buildID, "why", why)
}

// Outcome is how a build ended.
type Outcome struct {
	// Status is "succeeded" (COMPLETE) or "failed" (ERROR).
	Status string
	// Result is the COMPLETE event's result.
	Result protocol.PageResult
	// Code and Message are the ERROR's.
	Code, Message string
	// Events is the number of events the stream had.
	Events int
}

// Outcome statuses.
const (
	Succeeded = "succeeded"
	Failed    = "failed"
)

// Await follows the build's stream to its closing event. A build that
// sends nothing within MaxWait is abandoned (its stream closed with an
// ERROR), so that Await always returns.
func (l *Launcher) Await(ctx context.Context, buildID string) (Outcome, error) {
	var out Outcome
	var last json.RawMessage
	opts := eventlog.TailOptions{PollMin: l.o.PollMin, PollMax: l.o.PollMax, MaxWait: l.o.MaxWait}
	collect := func(ev eventlog.Event) error {
		out.Events++
		if ev.Close {
			last = ev.Data
		}
		return nil
	}
	err := eventlog.Tail(ctx, l.log, workflow.BuildStream(buildID), 0, opts, collect)
	if errors.Is(err, eventlog.ErrTailTimeout) {
		l.Abandon(ctx, buildID, "no event within the wait bound")
		out.Events = 0
		err = eventlog.Tail(ctx, l.log, workflow.BuildStream(buildID), 0, opts, collect)
	}
	if err != nil {
		return out, err
	}
	var head struct {
		Type    string              `json:"type"`
		Code    string              `json:"code"`
		Message string              `json:"message"`
		Result  protocol.PageResult `json:"result"`
	}
	if err := json.Unmarshal(last, &head); err != nil {
		return out, fmt.Errorf("launch: the closing event of %s: %w", buildID, err)
	}
	if head.Type == "COMPLETE" {
		out.Status, out.Result = Succeeded, head.Result
		return out, nil
	}
	out.Status, out.Code, out.Message = Failed, head.Code, head.Message
	if head.Type == "DATA_ERROR" {
		// The terminal DATA_ERROR (PROTOCOL.md §2) is an entity the data
		// service does not know; it carries no code of its own.
		out.Code = string(apperr.EntityNotFound)
	}
	return out, nil
}

// language is the build's language tag, read from its stored request ("" when
// it cannot be read: the catalogue's default then applies).
func (l *Launcher) language(ctx context.Context, buildID string) string {
	raw, err := l.store.GetRecord(ctx, buildID, blueprint.RecordRequest)
	if err != nil {
		return ""
	}
	var req struct {
		Language  string `json:"language"`
		Blueprint struct {
			Language string `json:"language"`
		} `json:"blueprint"`
	}
	if json.Unmarshal(raw, &req) != nil {
		return ""
	}
	return cmp.Or(req.Blueprint.Language, req.Language)
}
