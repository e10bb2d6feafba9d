package wire

// issue 26: fair use. The limiter is built when a LIMIT_* variable is set
// and the caller gives it stores (Backends.LimitRecords and LimitCounters:
// the bbolt file locally, the table in AWS); without either the product
// runs with no limiter and no limit costs a read.

import (
	"net/http"

	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/limits"
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
	edge.NewFair(a.Limits, a.Relay(), a.Authenticator()).Mount(mux)
	return a.LimitStarts(next)
}

// LimitStarts wraps h so that the routes that start a page build, a
// research run or a template report are admitted first (edge.LimitStarts),
// after the operator's switches (edge.PauseStarts, issue 28).
func (a *App) LimitStarts(h http.Handler) http.Handler {
	return edge.PauseStarts(edge.LimitStarts(h, a.edgeLimiter(), a.Authenticator(), a.Logger), a.Switches, a.Logger, a.Agent.Metrics)
}
