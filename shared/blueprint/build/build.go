// Package build runs a blueprint: the phases of the Build workflow
// (infra/statemachines/build.asl.json), each a plain step over the build's
// records, appending page events (protocol.PageEvent) to the build's event
// log stream for the edge to relay.
//
//   - Data calls the blueprint's data tools, one TOOL_CALL / TOOL_RESULT per
//     call, and keeps their outputs as the build's DataContext; an entity the
//     data service does not know is a DATA_ERROR event with suggestions.
//   - Compute runs the compute graph (package compute).
//   - Compose streams each block: BLOCK_START, the model's SLOT_DELTAs,
//     BLOCK_COMPLETE. A patch composes only the blocks it names, over the
//     data and results the client sent.
//   - Finish closes the stream: COMPLETE with {page, dataContext,
//     computeResults}, or ERROR.
//
// A phase that ends the build early (unknown entity, data service down)
// records a blueprint.Failure and returns status "failed"; the workflow then
// goes to Finish, which turns the failure into the closing ERROR. An error
// returned by a phase is a fault (store down, stream closed): the workflow's
// Catch sends it to Finish as well.
package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Model is the language model as the slot writers use it.
type Model = llm.Streamer

// Records is where a build's claim checks live (session.Store is one),
// keyed by the build's id.
type Records = session.ClaimChecks

// Builder holds the dependencies of the build phases.
type Builder struct {
	tools   *tools.Registry
	model   Model
	records Records
	log     eventlog.Appender
	o       Options
}

// Options configure a Builder.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	// FlushEvery and FlushSize coalesce SLOT_DELTAs, so that a block's text
	// is a handful of log entries rather than one per token (50 ms, 200 bytes).
	FlushEvery time.Duration
	FlushSize  int
	// Tier is the model tier of the slot writers (standard).
	Tier llm.Tier
	// DataBound bounds the data phase (60 s, under the ASL's 120 s), so that
	// a slow data service ends the build in DATA_ERROR, not in a timeout
	// taken for the AI's.
	DataBound time.Duration
	// PassMarks is each teacher's pass mark, their school's (issue 23; nil:
	// blueprint.DefaultPassMark for everyone). A node's passMark wins.
	PassMarks PassMarks
}

// PassMarks finds a teacher's pass mark in percent of full marks
// (*limits.PassMarks).
type PassMarks interface {
	Of(ctx context.Context, teacher string) (float64, error)
}

// New returns a Builder. reg holds the data tools a binding may call.
func New(reg *tools.Registry, m Model, records Records, log eventlog.Appender, o Options) *Builder {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.DataBound <= 0 {
		o.DataBound = 60 * time.Second
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = 50 * time.Millisecond
	}
	if o.FlushSize <= 0 {
		o.FlushSize = 200
	}
	if o.Tier == "" {
		o.Tier = llm.TierStandard
	}
	return &Builder{tools: reg, model: m, records: records, log: log, o: o}
}

// DataTools returns the names of the tools a binding may call: the base
// (data) tools of the registry.
func (b *Builder) DataTools() []string { return b.tools.Names(tools.Base) }

// Step runs the phase named in the input: the buildstep function's handler.
func (b *Builder) Step(ctx context.Context, in workflow.BuildStepInput) (workflow.BuildStepOutput, error) {
	switch in.Phase {
	case workflow.PhaseData:
		return b.Data(ctx, in)
	case workflow.PhaseCompute:
		return b.Compute(ctx, in)
	case workflow.PhaseCompose:
		return b.Compose(ctx, in)
	case workflow.PhaseFinish:
		return b.Finish(ctx, in)
	}
	return workflow.BuildStepOutput{}, fmt.Errorf("build: unknown phase %q", in.Phase)
}

var (
	ok     = workflow.BuildStepOutput{Status: workflow.BuildOK}
	failed = workflow.BuildStepOutput{Status: workflow.BuildFailed}
)

// emitter appends page events to one build's stream.
type emitter = eventlog.Emitter[protocol.PageEvent]

func (b *Builder) stream(buildID string) emitter {
	return emitter{Log: b.log, Stream: workflow.BuildStream(buildID), Encode: protocol.MarshalPageEvent}
}

// put and get store a build's records as JSON.
func (b *Builder) put(ctx context.Context, buildID, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("build: encode %s: %w", key, err)
	}
	if err := b.records.PutRecord(ctx, buildID, key, raw); err != nil {
		return fmt.Errorf("build: store %s: %w", key, err)
	}
	return nil
}

// get reads a record; found is false when it does not exist.
func (b *Builder) get(ctx context.Context, buildID, key string, v any) (found bool, err error) {
	raw, err := b.records.GetRecord(ctx, buildID, key)
	if errors.Is(err, session.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("build: load %s: %w", key, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("build: decode %s: %w", key, err)
	}
	return true, nil
}

func (b *Builder) request(ctx context.Context, buildID string) (blueprint.Request, error) {
	var req blueprint.Request
	found, err := b.get(ctx, buildID, blueprint.RecordRequest, &req)
	if err == nil && !found {
		err = fmt.Errorf("build: %s has no request record", buildID)
	}
	return req, err
}

// pending returns the request of build id while the phase whose record is
// key (decoded into done) is still to do; todo is false once the phase is
// done, as a retried step finds it.
func (b *Builder) pending(ctx context.Context, id, key string, done any) (req blueprint.Request, todo bool, err error) {
	if found, err := b.get(ctx, id, key, done); err != nil || found {
		return req, false, err
	}
	req, err = b.request(ctx, id)
	return req, err == nil, err
}

// fail records why the build ends and returns the failed status.
func (b *Builder) fail(ctx context.Context, buildID string, f blueprint.Failure) (workflow.BuildStepOutput, error) {
	b.o.Logger.WarnContext(ctx, "build failed", "buildId", buildID, "code", f.Code, "message", f.Message)
	if err := b.put(ctx, buildID, blueprint.RecordFailure, f); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	return failed, nil
}

// failureOf turns an error of a phase into the failure the teacher sees.
func failureOf(err error, lang string) blueprint.Failure {
	e := apperr.As(err)
	switch e.Code {
	case apperr.Internal:
		return blueprint.Failure{Code: string(apperr.Internal), Message: i18n.Of(lang).Failure(i18n.Page, e.Code, false)}
	case apperr.DataError, apperr.ServiceUnavailable, apperr.AIError, apperr.AuthError:
		// The teacher reads the catalogue's words; what went wrong inside
		// (a decoder's error, the service's message) is in the log.
		return blueprint.Failure{Code: string(e.Code), Message: i18n.Of(lang).Failure(i18n.Page, e.Code, false)}
	}
	return blueprint.Failure{Code: string(e.Code), Message: e.Message, Details: e.Details}
}

// isFault reports whether err is the build's own failure to run (the
// stream closed, the caller gone), rather than something to tell the teacher.
func isFault(ctx context.Context, err error) bool {
	return errors.Is(err, eventlog.ErrClosed) || ctx.Err() != nil
}

var errClosed = eventlog.ErrClosed

// jsonOf encodes v as the stream carries it (protocol.Marshal): the page's
// text reaches the client as written ("<" stays "<").
func jsonOf(v any) (json.RawMessage, error) {
	b, err := protocol.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("build: encode: %w", err)
	}
	return b, nil
}
