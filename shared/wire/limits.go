package wire

// issue 26: fair use. The limiter is built when a LIMIT_* variable is set
// and the caller gives it stores (Backends.LimitRecords and LimitCounters:
// the bbolt file locally, the table in AWS); without either the product
// runs with no limiter and no limit costs a read.

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/blueprint/build"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/limits"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/report/control"
	"github.com/insightedge/insightedge/shared/report/pipeline"
)

// newLimiter is the limiter of c over b's stores, or nil.
func newLimiter(c limits.Config, b Backends) *limits.Limiter {
	if !c.On() || b.LimitRecords == nil || b.LimitCounters == nil {
		return nil
	}
	return limits.New(c, b.LimitRecords, b.LimitCounters, limits.Options{Logger: b.Logger, Metrics: b.Metrics, Now: b.LimitNow})
}

// edgeLimiter is the limiter as the edge takes it (a nil interface when off).
func (a *App) edgeLimiter() edge.Limiter {
	if a.Limits == nil {
		return nil
	}
	return a.Limits
}

// FairUse mounts GET /api/usage and the operator's /api/admin/limits/…
// routes on mux and returns next wrapped so that the routes that start a
// page build, a research run or a template report are admitted first.
func (a *App) FairUse(mux *http.ServeMux, next http.Handler) http.Handler {
	var ov *limits.Overrides
	if a.PassMarks != nil {
		ov = a.PassMarks.Overrides()
	}
	edge.NewFair(a.Limits, ov, a.Relay(), a.Authenticator()).Mount(mux)
	return a.LimitStarts(next)
}

// LimitStarts wraps h so that the routes that start a page build, a
// research run or a template report are admitted first (edge.LimitStarts),
// after the operator's switches (edge.PauseStarts, issue 28).
func (a *App) LimitStarts(h http.Handler) http.Handler {
	return edge.PauseStarts(edge.LimitStarts(h, a.edgeLimiter(), a.Authenticator(), a.Logger), a.Switches, a.Logger, a.Agent.Metrics)
}

// metered is the model every part of the product calls: with limits on,
// each call's reported usage is metered against the teacher its context
// names (llm.Metered: the one seam, so a turn's router and agent rounds,
// the tools' calls, page builds, research runs and template reports are
// each counted once).
func metered(client *llm.Client, lim *limits.Limiter, log *slog.Logger) llm.Model {
	if lim == nil {
		return client
	}
	return llm.Metered{Model: client, Meter: lim, Logger: log}
}

// withPayer is ctx with the teacher raw's step works for as the payer of
// its model calls (taskHead.payer); ctx as it is when raw names none. A
// task under renewing has had raw's head decoded already, and its payer
// with it (withKnownPayer).
func withPayer(ctx context.Context, raw json.RawMessage) context.Context {
	id, known := ctx.Value(knownPayer{}).(string)
	if !known {
		var h taskHead
		if json.Unmarshal(raw, &h) != nil {
			return ctx
		}
		id = h.payer()
	}
	if id != "" {
		return llm.WithPayer(ctx, id)
	}
	return ctx
}

// knownPayer is the context key of the payer renewing read from a task's
// input (issue 29 item 3: the input is decoded once for both).
type knownPayer struct{}

// withKnownPayer is ctx telling withPayer the payer of the input h was
// decoded from.
func withKnownPayer(ctx context.Context, h taskHead) context.Context {
	return context.WithValue(ctx, knownPayer{}, h.payer())
}

// reportAdmitter admits a template report's new session against
// reportsPerDay (and the token budgets), as the edge admits its starts.
type reportAdmitter struct{ l edge.Limiter }

func (r reportAdmitter) AdmitReport(ctx context.Context, c control.Caller) error {
	return edge.AdmitStart(ctx, r.l, auth.Identity{TeacherID: c.TeacherID, School: c.School}, limits.Report, c.Language)
}

// issue 23: one pass mark per school, kept beside the limits' overrides.

// newPassMarks is the schools' pass marks over b's limit records, or nil;
// they share lim's overrides (nil: no limits).
func newPassMarks(b Backends, lim *limits.Limiter) *limits.PassMarks {
	if b.LimitRecords == nil {
		return nil
	}
	var ov *limits.Overrides
	if lim != nil {
		ov = lim.Overrides()
	}
	return limits.NewPassMarks(b.LimitRecords, ov, b.LimitNow, 0)
}

// buildPassMarks is pm as the builder takes it (a nil interface when nil).
func buildPassMarks(pm *limits.PassMarks) build.PassMarks {
	if pm == nil {
		return nil
	}
	return pm
}

// schoolRecorder records each authenticated teacher's school, so that the
// work that knows only the teacher finds their school's pass mark
// (limits.PassMarks.Remember: no write once a teacher is known here).
type schoolRecorder struct {
	edge.Authenticator
	pm  *limits.PassMarks
	log *slog.Logger
}

func rememberSchools(au edge.Authenticator, pm *limits.PassMarks, log *slog.Logger) edge.Authenticator {
	if pm == nil {
		return au
	}
	return schoolRecorder{au, pm, log}
}

func (s schoolRecorder) Authenticate(r *http.Request) (auth.Identity, error) {
	id, err := s.Authenticator.Authenticate(r)
	if err == nil {
		if rerr := s.pm.Remember(r.Context(), limits.Who{Teacher: id.TeacherID, School: id.School}); rerr != nil {
			s.log.WarnContext(r.Context(), "could not record the teacher's school", "teacherId", id.TeacherID, "err", rerr)
		}
	}
	return id, err
}

// ReportPassMarks is PassMarks as the template pipeline takes it (a nil
// interface when there are none).
func (a *App) ReportPassMarks() pipeline.PassMarks {
	if a.PassMarks == nil {
		return nil
	}
	return a.PassMarks
}
