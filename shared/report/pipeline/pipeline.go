// Package pipeline holds the steps of the template-report workflow (seed 002;
// infra/statemachines/template.asl.json): Plan, Confirm, NextRound, Solve,
// Aggregate and Finish. Each step is plain Go, func(ctx, In) (Out, error);
// functions/report wires them to Lambda, local/ to the in-process
// interpreter. Steps never talk to the client: they append envelopes to the
// session's event log (report.StreamName), and the transport relays it.
//
// A session's runs are numbered (report.Session.Run). Every step checks that
// its run is still the session's run before it acts and before each event it
// appends, so a cancelled or replaced run's late producers are turned away.
package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/clock"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/vfs"
)

// Model is the chat model the agents use.
type Model interface {
	Complete(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Settings are seed 002's TEMPLATE_WS_* settings and the agents' bounds.
type Settings struct {
	Concurrency    int           // TEMPLATE_WS_CONCURRENCY, default 5
	BroadcastTasks bool          // TEMPLATE_WS_BROADCAST_TASKS, default true
	MaxRetry       int           // TEMPLATE_WS_MAX_RETRY, default 1
	RetryDelay     time.Duration // TEMPLATE_WS_RETRY_DELAY, default 3s
	RequireConfirm bool          // TEMPLATE_WS_REQUIRE_CONFIRM, default true
	ConfirmTimeout time.Duration // TEMPLATE_WS_CONFIRM_TIMEOUT, default 600s
	// PlannerRounds and SolverRounds bound the model calls of one agent run.
	PlannerRounds, SolverRounds int
	// MaxRounds bounds the solve rounds of a run (restarted tasks run in a
	// further round).
	MaxRounds int
	// WatchEvery is how often a running solver looks for cancel_task,
	// restart_task and cancel (default 200ms).
	WatchEvery time.Duration
}

// DefaultSettings are the seed's defaults.
func DefaultSettings() Settings {
	return Settings{Concurrency: 5, BroadcastTasks: true, MaxRetry: 1, RetryDelay: 3 * time.Second,
		RequireConfirm: true, ConfirmTimeout: 600 * time.Second, PlannerRounds: 8, SolverRounds: 6, MaxRounds: 3,
		WatchEvery: 200 * time.Millisecond}
}

// PDFRenderer writes a document as PDF (shared/office/pdf.Writer).
type PDFRenderer interface {
	Bytes(doc office.Document, created time.Time) ([]byte, error)
}

// Pipeline runs the steps.
type Pipeline struct {
	store    report.Store
	log      eventlog.Appender
	blobs    blob.Store
	backends *backend.Resolver
	model    Model
	set      Settings
	logger   *slog.Logger
	sleep    func(context.Context, time.Duration) error
	pdf      PDFRenderer
	fileTTL  time.Duration
	marks    PassMarks // issue 23
}

// Deps are what the steps need.
type Deps struct {
	Store    report.Store
	Log      eventlog.Appender
	Blobs    blob.Store
	Backends *backend.Resolver
	Model    Model
	Settings Settings
	Logger   *slog.Logger
	// PDF, when set, also renders the report as PDF (a .docx is always made).
	PDF PDFRenderer
	// FileTTL is how long the report's download links work (default 15 min,
	// FILE_LINK_TTL).
	FileTTL time.Duration
	// PassMarks is each teacher's pass mark, their school's (issue 23): the
	// knowledge base's statistics are asked for at it (nil: the backend's).
	PassMarks PassMarks
}

// PassMarks finds a teacher's pass mark in percent of full marks
// (*limits.PassMarks).
type PassMarks interface {
	Of(ctx context.Context, teacher string) (float64, error)
}

// passMark is the teacher's pass mark, 0 when none is known (the backend
// then uses its own default).
func (p *Pipeline) passMark(ctx context.Context, teacher string) float64 {
	if p.marks == nil {
		return 0
	}
	pm, err := p.marks.Of(ctx, teacher)
	if err != nil {
		p.logger.WarnContext(ctx, "could not read the school's pass mark; the default applies", "teacherId", teacher, "err", err)
	}
	return pm
}

// New returns the pipeline.
func New(d Deps) *Pipeline {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	def, s := DefaultSettings(), d.Settings
	positive(&s.Concurrency, def.Concurrency)
	positive(&s.PlannerRounds, def.PlannerRounds)
	positive(&s.SolverRounds, def.SolverRounds)
	positive(&s.MaxRounds, def.MaxRounds)
	positive(&s.WatchEvery, def.WatchEvery)
	positive(&s.ConfirmTimeout, def.ConfirmTimeout)
	positive(&d.FileTTL, 15*time.Minute)
	return &Pipeline{store: d.Store, log: d.Log, blobs: d.Blobs, backends: d.Backends, model: d.Model, set: s,
		logger: d.Logger, sleep: clock.Sleep, pdf: d.PDF, fileTTL: d.FileTTL, marks: d.PassMarks}
}

// positive sets *v to def unless it is positive.
func positive[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Settings returns the pipeline's settings.
func (p *Pipeline) Settings() Settings { return p.set }

// errStale means the step's run is no longer the session's run.
var errStale = errors.New("pipeline: the run was cancelled or replaced")

// current returns the session when run is still its run.
func (p *Pipeline) current(ctx context.Context, sessionID string, run int) (report.Session, error) {
	s, err := p.store.GetSession(ctx, sessionID)
	if err != nil {
		return s, fmt.Errorf("pipeline: session %s: %w", sessionID, err)
	}
	if s.Run != run || s.Status == report.StatusCancelled || s.Status == report.StatusClosed {
		return s, errStale
	}
	return s, nil
}

// emit appends evs to the session's log if run is still the session's run.
func (p *Pipeline) emit(ctx context.Context, sessionID string, run int, evs ...report.ServerEvent) error {
	if _, err := p.current(ctx, sessionID, run); err != nil {
		return err
	}
	return report.Emitter(p.log, sessionID).Emit(ctx, evs...)
}

// fs opens the session's VFS.
func (p *Pipeline) fs(s report.Session) (*vfs.FS, error) {
	return vfs.Open(p.blobs, s.TeacherID, s.ID)
}

// lang is the session's language for the catalogue's messages (shared/i18n):
// the language decided once when the template was loaded; before that (the
// template failed to load) the one its request is written in.
func lang(s report.Session) i18n.Lang {
	m := s.Message
	return i18n.Of(cmp.Or(s.Language, m.Language), m.Question, m.TemplateName, m.KnowledgeBaseName)
}
