package edge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The Build runtime's routes (seed 004 §1.3.2, PROTOCOL.md §2 and §5):
//
//	POST /api/page/generate        run a blueprint, stream the page build
//	POST /api/page/patch           re-compose or restyle blocks (or rebuild), streamed
//	GET  /api/page/{id}/stream     resume a build's stream after Last-Event-ID / ?after=
//	POST /api/workflow/generate    plan a blueprint and return it
//
// The streams carry the page vocabulary (protocol.PageEvent) with id lines,
// a ": ping" heartbeat, and end after COMPLETE or ERROR. A bad blueprint is
// a 422 BLUEPRINT_ERROR before any streaming; an unknown entity is a
// DATA_ERROR event in the stream.

// BuildLauncher begins page builds (launch.Launcher is one).
type BuildLauncher interface {
	Begin(ctx context.Context, teacherID, traceID string, req blueprint.Request) (string, error)
	// Owned fails with ENTITY_NOT_FOUND unless the teacher owns the build.
	Owned(ctx context.Context, teacherID, buildID string) error
	// Abandon closes a build's stream with an ERROR.
	Abandon(ctx context.Context, buildID, why string)
	// MaxWait bounds the wait for a build's next event.
	MaxWait() time.Duration
}

// Planner plans a blueprint for a request (plan.Planner, adapted by wire).
type Planner interface {
	PlanBlueprint(ctx context.Context, teacherID, traceID string, req WorkflowRequest) (blueprint.Blueprint, error)
}

// PagesOptions configure Pages.
type PagesOptions struct {
	// Tools are the data tools a blueprint may call (nil: not checked).
	Tools []string
	// Recover, when set, closes a resumed build whose process died.
	Recover Recoverer
}

// Pages serves the Build runtime's routes.
type Pages struct {
	builds  BuildLauncher
	rl      *Relay
	auth    Authenticator
	planner Planner
	o       PagesOptions
}

// NewPages returns the Build runtime's handler, whose streams go through
// rl. planner may be nil: then /api/workflow/generate answers
// SERVICE_UNAVAILABLE.
func NewPages(builds BuildLauncher, rl *Relay, au Authenticator, planner Planner, o PagesOptions) *Pages {
	return &Pages{builds: builds, rl: rl, auth: au, planner: planner, o: o}
}

// Mount registers the routes on mux.
func (p *Pages) Mount(mux *http.ServeMux) {
	Mount(mux, p.rl.Logger, map[string]HandlerFunc{
		"POST /api/page/generate":     p.handleGenerate,
		"POST /api/page/patch":        p.handlePatch,
		"GET /api/page/{id}/stream":   p.handleResume,
		"POST /api/workflow/generate": p.handleWorkflow,
	})
}

// PageBody is what every page request carries: the blueprint, the client's
// input choices and the caller.
type PageBody struct {
	Blueprint json.RawMessage `json:"blueprint"`
	Context   map[string]any  `json:"context"`
	TeacherID string          `json:"teacherId"`
	Language  string          `json:"language"`
}

// PageGenerateRequest is the body of POST /api/page/generate (seed 004 §1.3.2).
type PageGenerateRequest struct {
	PageBody
}

// PagePatchRequest is the body of POST /api/page/patch: the blueprint, the
// page and what it was built from (seed 004 §1.5), and the PatchPlan.
type PagePatchRequest struct {
	PageBody
	Page           json.RawMessage          `json:"page"`
	DataContext    blueprint.DataContext    `json:"dataContext"`
	ComputeResults blueprint.ComputeResults `json:"computeResults"`
	PatchPlan      json.RawMessage          `json:"patchPlan"`
}

// WorkflowRequest is the body of POST /api/workflow/generate.
type WorkflowRequest struct {
	Message   string         `json:"message"`
	Language  string         `json:"language"`
	TeacherID string         `json:"teacherId"`
	Context   map[string]any `json:"context"`
}

func (p *Pages) handleGenerate(w http.ResponseWriter, r *http.Request) error {
	var body PageGenerateRequest
	id, bp, err := p.decodePage(w, r, &body, &body.PageBody)
	if err != nil {
		return err
	}
	req, err := buildRequest(bp, body.Context, cmp.Or(bp.Language, body.Language))
	if err != nil {
		return err
	}
	return p.start(w, r, id, req)
}

// decodePage reads a page request into body, whose PageBody is pb, and
// checks its caller and its blueprint.
func (p *Pages) decodePage(w http.ResponseWriter, r *http.Request, body any, pb *PageBody) (auth.Identity, blueprint.Blueprint, error) {
	id, err := decodeCaller(w, r, p.auth, maxPageBody, body, &pb.TeacherID)
	if err != nil {
		return id, blueprint.Blueprint{}, err
	}
	if !i18n.ValidTag(pb.Language) {
		return id, blueprint.Blueprint{}, badLanguage()
	}
	bp, err := parseBlueprint(pb.Blueprint, p.o.Tools)
	return id, bp, err
}

// buildRequest is a whole build of bp with the client's input choices.
func buildRequest(bp blueprint.Blueprint, ctx map[string]any, lang string) (blueprint.Request, error) {
	inputs, err := blueprint.ResolveInputs(bp, ctx)
	if err != nil {
		return blueprint.Request{}, err
	}
	return blueprint.Request{Mode: blueprint.ModeBuild, Blueprint: bp, Inputs: inputs, Context: ctx, Language: lang}, nil
}

func (p *Pages) handlePatch(w http.ResponseWriter, r *http.Request) error {
	var body PagePatchRequest
	id, bp, err := p.decodePage(w, r, &body, &body.PageBody)
	if err != nil {
		return err
	}
	var plan blueprint.PatchPlan
	if err := strictJSON(body.PatchPlan, &plan); err != nil {
		return apperr.New(apperr.BlueprintError, "patchPlan is not a PatchPlan: %v", err).
			WithDetails(blueprint.Details{Problems: []blueprint.Problem{{Path: "patchPlan", Message: err.Error()}}})
	}
	if err := blueprint.ValidatePatch(plan, bp); err != nil {
		return err
	}
	var page blueprint.Page
	hasPage := len(body.Page) > 0 && string(body.Page) != "null" && json.Unmarshal(body.Page, &page) == nil
	req := blueprint.Request{Mode: blueprint.ModePatch, Blueprint: bp, Context: body.Context,
		Language: cmp.Or(bp.Language, body.Language), Page: &page, DataContext: body.DataContext,
		ComputeResults: body.ComputeResults, Patch: &plan}
	// A structural change is a rebuild: a rebuild scope, or a page, data or
	// results that no longer fit the blueprint.
	if plan.Scope == blueprint.ScopeRebuild || !hasPage || !blueprint.SameStructure(bp, page) ||
		len(body.DataContext) == 0 || !hasResults(bp, body.ComputeResults) {
		var err error
		if req, err = buildRequest(bp, body.Context, req.Language); err != nil {
			return err
		}
	}
	w.Header().Set("X-Build-Mode", req.Mode)
	return p.start(w, r, id, req)
}

// hasResults reports whether results has every compute node a block shows.
func hasResults(bp blueprint.Blueprint, results blueprint.ComputeResults) bool {
	for _, b := range bp.Blocks() {
		if _, ok := results[b.DataBinding]; b.DataBinding != "" && !ok {
			return false
		}
	}
	return true
}

// start begins the build and relays its stream.
func (p *Pages) start(w http.ResponseWriter, r *http.Request, id auth.Identity, req blueprint.Request) error {
	buildID, err := p.builds.Begin(r.Context(), id.TeacherID, TraceID(r.Context()), req)
	if err != nil {
		return err
	}
	return p.relay(w, r, buildID, 0)
}

func (p *Pages) handleResume(w http.ResponseWriter, r *http.Request) error {
	buildID, after, err := ownedStream(r, p.auth, p.builds.Owned)
	if err != nil {
		return err
	}
	if p.o.Recover != nil {
		if _, err := p.o.Recover.IfDead(r.Context(), session.LeaseBuild, buildID); err != nil {
			p.rl.Logger.WarnContext(r.Context(), "could not check the build", "buildId", buildID, "err", err)
		}
	}
	return p.relay(w, r, buildID, after)
}

// relay writes the build's events after seq as SSE until the closing event.
func (p *Pages) relay(w http.ResponseWriter, r *http.Request, buildID string, after int64) error {
	return p.rl.relay(r.Context(), w, stream{header: func(h http.Header) { h.Set("X-Build-Id", buildID) },
		key: workflow.BuildStream(buildID), kind: "build", id: buildID, maxWait: p.builds.MaxWait(),
		abandon: func(ctx context.Context) { p.builds.Abandon(ctx, buildID, "no event within the wait bound") }}, after)
}

func (p *Pages) handleWorkflow(w http.ResponseWriter, r *http.Request) error {
	var body WorkflowRequest
	id, err := decodeCaller(w, r, p.auth, maxPageBody, &body, &body.TeacherID)
	if err != nil {
		return err
	}
	if !i18n.ValidTag(body.Language) {
		return badLanguage()
	}
	body.Message = strings.TrimSpace(body.Message)
	if body.Message == "" || len([]rune(body.Message)) > MaxMessageRunes {
		return apperr.New(apperr.ValidationError, "message is required, at most %d characters", MaxMessageRunes)
	}
	if p.planner == nil {
		return apperr.New(apperr.ServiceUnavailable, "the page planner is not configured")
	}
	bp, err := p.planner.PlanBlueprint(r.Context(), id.TeacherID, TraceID(r.Context()), body)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, bp)
	return nil
}

func badLanguage() error {
	return apperr.New(apperr.ValidationError, "language must be a tag such as en or zh-CN, at most %d characters", i18n.MaxTagLen)
}

// parseBlueprint parses and validates a request's blueprint (422 when bad).
func parseBlueprint(raw json.RawMessage, tools []string) (blueprint.Blueprint, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return blueprint.Blueprint{}, apperr.New(apperr.BlueprintError, "blueprint is required").
			WithDetails(blueprint.Details{Problems: []blueprint.Problem{{Path: "blueprint", Message: "is required"}}})
	}
	bp, err := blueprint.Parse(raw)
	if err != nil {
		return bp, err
	}
	return bp, blueprint.Validate(bp, tools)
}

// decodeBody reads one JSON object (unknown fields are ignored: the
// blueprint inside is decoded strictly on its own).
func decodeBody(w http.ResponseWriter, r *http.Request, maxBody int64, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(v); err != nil {
		return bodyError(err, maxBody)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return apperr.New(apperr.ValidationError, "the body must be one JSON object")
	}
	return nil
}

func strictJSON(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return errors.New("it is missing")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
