package recovery

// issue 32: template-report runs are recovered as turns are.

import (
	"cmp"
	"context"
	"errors"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/session"
)

// WithReports returns a copy of r that closes dead template-report runs
// too (leases of kind report.LeaseKind). A Recoverer without it leaves
// their leases for one that has it.
func (r *Recoverer) WithReports(s report.Store) *Recoverer {
	c := *r
	c.reports = s
	return &c
}

// errEnded is a run that is no longer its session's running run.
var errEnded = errors.New("recovery: the run has ended")

// report ends a template run that is still its session's running run as
// failed, turning its late producers away (the run number moves on), and
// closes it in the session's stream with agent.error (SERVICE_UNAVAILABLE,
// the catalogue's "interrupted" words) and pipeline.completed. What the run
// logged before stays; the session takes new work.
func (r *Recoverer) report(ctx context.Context, l session.Lease) error {
	if r.reports == nil {
		return errLive
	}
	sid, run, ok := report.LeaseRun(l)
	if !ok {
		return nil
	}
	s, err := r.reports.UpdateSession(ctx, sid, func(x *report.Session) error {
		if x.Run != run || !x.Running() {
			return errEnded
		}
		x.Status, x.StepID = report.StatusFailed, ""
		x.Run++
		return nil
	})
	if errors.Is(err, errEnded) || errors.Is(err, report.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	m := s.Message
	msg := i18n.Of(cmp.Or(s.Language, m.Language), m.Question, m.TemplateName, m.KnowledgeBaseName).Text(i18n.Interrupted)
	return report.Emitter(r.log, sid).Emit(ctx, report.Error{Message: msg, Code: string(apperr.ServiceUnavailable)},
		report.PipelineCompleted{})
}
