package edge

// issue 26: fair use. A request over a teacher's or school's limit is
// answered 429 RATE_LIMITED with Retry-After before anything starts: a turn
// in Server.begin (it holds a slot until it ends), a page build, a research
// proposal and a template report's session by LimitStarts, which wraps the
// routes that start them. GET /api/usage shows a teacher their use today;
// /api/admin/limits/{scope}/{id} lets an operator read, set, lift and reset
// an override.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/limits"
)

// Limiter is the fair-use limiter as the routes use it (*limits.Limiter).
type Limiter interface {
	Admit(ctx context.Context, who limits.Who, action limits.Action, holder string) error
	End(ctx context.Context, teacher, holder string) error
}

// RateLimitDetails are a RATE_LIMITED error's details (PROTOCOL.md).
type RateLimitDetails struct {
	Limit      limits.Limit `json:"limit"`
	RetryAfter int64        `json:"retryAfter"`
}

// whoOf is the caller as the limits count them.
func whoOf(id auth.Identity) limits.Who { return limits.Who{Teacher: id.TeacherID, School: id.School} }

// limitMsgs are the refusals' texts, by limit.
var limitMsgs = map[limits.Limit]i18n.Msg{
	limits.ConcurrentTurns:    i18n.LimitConcurrentTurns,
	limits.TurnsPerMinute:     i18n.LimitTurnsPerMinute,
	limits.BuildsPerHour:      i18n.LimitBuildsPerHour,
	limits.ResearchPerDay:     i18n.LimitResearchPerDay,
	limits.ReportsPerDay:      i18n.LimitReportsPerDay,
	limits.TokensPerDay:       i18n.LimitTokensPerDay,
	limits.SchoolTokensPerDay: i18n.LimitSchoolTokensPerDay,
}

// admit asks l (nil: no limits) to admit action for id; a refusal is a
// RATE_LIMITED error in lang.
func admit(ctx context.Context, l Limiter, id auth.Identity, action limits.Action, holder string, lang i18n.Lang) error {
	if l == nil {
		return nil
	}
	err := l.Admit(ctx, whoOf(id), action, holder)
	var ex *limits.Exceeded
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ex):
		return apperr.New(apperr.RateLimited, "%s", lang.Text(limitMsgs[ex.Limit], ex.Max, ex.RetrySeconds())).
			WithDetails(RateLimitDetails{Limit: ex.Limit, RetryAfter: ex.RetrySeconds()})
	default:
		return apperr.Wrap(err, apperr.ServiceUnavailable, "the limits store is unavailable")
	}
}

// endSlot frees the slot of a turn that ended (or never began).
func (s *Server) endSlot(ctx context.Context, teacher, turnID string) {
	if s.o.Limits == nil {
		return
	}
	if err := s.o.Limits.End(context.WithoutCancel(ctx), teacher, turnID); err != nil {
		s.rl.Logger.WarnContext(ctx, "could not free a turn's slot", "turnId", turnID, "err", err)
	}
}

// setRetryAfter is writeError's part for a RATE_LIMITED answer.
func setRetryAfter(h http.Header, e *apperr.Error) {
	if d, ok := e.Details.(RateLimitDetails); ok {
		h.Set("Retry-After", strconv.FormatInt(d.RetryAfter, 10))
	}
}

// startRoutes are the routes LimitStarts admits, with what each starts. A
// research run is counted at its proposal, which every run begins with. A
// template report is admitted by the report wing itself, at its new
// session, for its HTTP route and its socket alike (AdmitStart).
var startRoutes = map[string]limits.Action{
	"POST /api/page/generate": limits.Build,
	"POST /api/research":      limits.Research,
}

// AdmitStart asks l (nil: no limits) to admit id's start of action (not a
// turn: no slot is taken); a refusal is a RATE_LIMITED *apperr.Error in
// the first language of acceptLanguage, with RateLimitDetails.
func AdmitStart(ctx context.Context, l Limiter, id auth.Identity, action limits.Action, acceptLanguage string) error {
	return admit(ctx, l, id, action, "", i18n.Of(firstTag(acceptLanguage)))
}

// LimitStarts admits the requests that start a page build, a research run
// or a template report before next serves them; a refusal is answered by
// Handle. With no limiter it is next. A request whose caller does not
// authenticate goes on to the route, which answers it.
func LimitStarts(next http.Handler, l Limiter, au Authenticator, log *slog.Logger) http.Handler {
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		action, ok := startRoutes[r.Method+" "+r.URL.Path]
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		id, err := au.Authenticate(r)
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		if err := AdmitStart(r.Context(), l, id, action, r.Header.Get("Accept-Language")); err != nil {
			Handle(log, func(http.ResponseWriter, *http.Request) error { return err }).ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// firstTag is the first language of an Accept-Language header.
func firstTag(h string) string {
	tag, _, _ := strings.Cut(h, ",")
	tag, _, _ = strings.Cut(tag, ";")
	return strings.TrimSpace(tag)
}

// Fair serves a teacher's use (GET /api/usage) and the operator's
// overrides (/api/admin/limits/…), which also hold a school's pass mark
// (limits.PassMark, issue 23).
type Fair struct {
	l    *limits.Limiter // nil: no limits on this stage
	ov   *limits.Overrides
	rl   *Relay
	auth Authenticator
}

// NewFair returns the routes of l (nil when no limit is configured) and
// ov, the overrides (nil: l's; with neither the admin routes answer 404).
func NewFair(l *limits.Limiter, ov *limits.Overrides, rl *Relay, au Authenticator) *Fair {
	if ov == nil && l != nil {
		ov = l.Overrides()
	}
	return &Fair{l: l, ov: ov, rl: rl, auth: au}
}

// Mount registers the routes on mux.
func (f *Fair) Mount(mux *http.ServeMux) {
	Mount(mux, f.rl.Logger, map[string]HandlerFunc{
		"GET /api/usage":                                f.handleUsage,
		"GET /api/admin/limits/{scope}/{id}":            f.handleOverride,
		"PUT /api/admin/limits/{scope}/{id}":            f.handleOverride,
		"DELETE /api/admin/limits/{scope}/{id}":         f.handleOverride,
		"DELETE /api/admin/limits/{scope}/{id}/{limit}": f.handleOverride,
	})
}

// UsageResponse is GET /api/usage: the caller's use of each limit today
// (or in its window); max 0 is no limit.
type UsageResponse struct {
	TeacherID string       `json:"teacherId"`
	School    string       `json:"school,omitempty"`
	Enabled   bool         `json:"enabled"`
	Limits    []limits.Use `json:"limits"`
}

func (f *Fair) handleUsage(w http.ResponseWriter, r *http.Request) error {
	id, err := f.auth.Authenticate(r)
	if err != nil {
		return err
	}
	resp := UsageResponse{TeacherID: id.TeacherID, School: id.School, Limits: []limits.Use{}}
	if f.l != nil {
		resp.Enabled = true
		if resp.Limits, err = f.l.Usage(r.Context(), whoOf(id)); err != nil {
			return apperr.Wrap(err, apperr.ServiceUnavailable, "the limits store is unavailable")
		}
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// OverrideRequest is PUT /api/admin/limits/{scope}/{id}: set a limit to a
// value, or lift it.
type OverrideRequest struct {
	Limit limits.Limit `json:"limit"`
	Value int64        `json:"value,omitempty"`
	Lift  bool         `json:"lift,omitempty"`
}

// OverrideResponse is the override of a teacher or school after the
// request, and the stage's limits it changes.
type OverrideResponse struct {
	Scope    limits.Scope    `json:"scope"`
	ID       string          `json:"id"`
	Override limits.Override `json:"override"`
	Stage    limits.Values   `json:"stage"`
}

func (f *Fair) handleOverride(w http.ResponseWriter, r *http.Request) error {
	id, err := f.auth.Authenticate(r)
	if err != nil {
		return err
	}
	if !id.Operator {
		return apperr.New(apperr.AuthError, "the limits are an operator's (role %q)", auth.RoleOperator)
	}
	if f.ov == nil {
		return apperr.New(apperr.EntityNotFound, "no limit is configured on this stage")
	}
	scope, target := limits.Scope(r.PathValue("scope")), r.PathValue("id")
	if (scope != limits.ScopeTeacher && scope != limits.ScopeSchool) || !auth.ValidTeacherID(target) {
		return apperr.New(apperr.ValidationError, "the path is /api/admin/limits/teacher|school/<id>")
	}
	ov, err := f.change(r, scope, target, id.TeacherID)
	if errors.Is(err, limits.ErrBadOverride) {
		return apperr.Wrap(err, apperr.ValidationError, "%s", err.Error())
	}
	if err != nil {
		return err
	}
	stage := limits.Values{}
	if f.l != nil {
		stage = f.l.Config().Values
	}
	writeJSON(w, http.StatusOK, OverrideResponse{Scope: scope, ID: target, Override: ov, Stage: stage})
	return nil
}

// change applies the request's method to the override.
func (f *Fair) change(r *http.Request, scope limits.Scope, target, by string) (limits.Override, error) {
	ov := f.ov
	switch r.Method {
	case http.MethodPut:
		var req OverrideRequest
		if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 4<<10)).Decode(&req); err != nil {
			return limits.Override{}, apperr.Wrap(err, apperr.ValidationError, "the body is {limit, value} or {limit, lift: true}")
		}
		if req.Lift {
			req.Value = limits.Unlimited
		}
		return ov.Set(r.Context(), scope, target, req.Limit, req.Value, by)
	case http.MethodDelete:
		return ov.Reset(r.Context(), scope, target, limits.Limit(r.PathValue("limit")), by)
	default:
		return ov.Get(r.Context(), scope, target)
	}
}
