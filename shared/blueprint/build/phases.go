package build

import (
	"context"
	"errors"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/compute"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Compute is the compute phase: the compute graph over the build's data.
func (b *Builder) Compute(ctx context.Context, in workflow.BuildStepInput) (workflow.BuildStepOutput, error) {
	id := in.Build.BuildID
	req, todo, err := b.pending(ctx, id, blueprint.RecordCompute, new(blueprint.ComputeResults))
	if err != nil || !todo {
		return ok, err
	}
	lang := req.Blueprint.Language
	if err := b.stream(id).Emit(ctx, protocol.PagePhase{Phase: protocol.PhaseCompute,
		Message: i18n.Of(lang).Text(i18n.PageComputing)}); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	var data blueprint.DataContext
	if _, err := b.get(ctx, id, blueprint.RecordData, &data); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	results, err := compute.RunAt(req.Blueprint, data, b.passMark(ctx, in.Build.TeacherID))
	if err != nil {
		return b.fail(ctx, id, failureOf(err, lang))
	}
	if err := b.put(ctx, id, blueprint.RecordCompute, results); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	return ok, nil
}

// passMark is the teacher's pass mark (their school's, issue 23); a store
// that cannot say gives the default, logged.
func (b *Builder) passMark(ctx context.Context, teacher string) float64 {
	if b.o.PassMarks == nil {
		return blueprint.DefaultPassMark
	}
	pm, err := b.o.PassMarks.Of(ctx, teacher)
	if err != nil {
		b.o.Logger.WarnContext(ctx, "could not read the school's pass mark; the default applies", "teacherId", teacher, "err", err)
	}
	return pm
}

// sources returns what a build composes from: the stored data and results
// of this build, or, for a patch, the client's.
func (b *Builder) sources(ctx context.Context, id string, req blueprint.Request) (blueprint.DataContext, blueprint.ComputeResults, error) {
	if req.Mode == blueprint.ModePatch {
		return req.DataContext, req.ComputeResults, nil
	}
	var data blueprint.DataContext
	var results blueprint.ComputeResults
	if _, err := b.get(ctx, id, blueprint.RecordData, &data); err != nil {
		return nil, nil, err
	}
	if _, err := b.get(ctx, id, blueprint.RecordCompute, &results); err != nil {
		return nil, nil, err
	}
	return data, results, nil
}

// Finish is the last phase and every Catch's target: it closes the stream
// with COMPLETE, or with ERROR when a phase recorded a failure or failed.
// A stream already closed is left as it is.
func (b *Builder) Finish(ctx context.Context, in workflow.BuildStepInput) (workflow.BuildStepOutput, error) {
	id := in.Build.BuildID
	em := b.stream(id)
	req, reqErr := b.request(ctx, id)
	lang := req.Blueprint.Language
	var f blueprint.Failure
	found, err := b.get(ctx, id, blueprint.RecordFailure, &f)
	if err != nil {
		return workflow.BuildStepOutput{}, err
	}
	var page blueprint.Page
	if !found && in.Error == nil && reqErr == nil {
		var hasPage bool
		if hasPage, err = b.get(ctx, id, blueprint.RecordPage, &page); err != nil {
			return workflow.BuildStepOutput{}, err
		}
		if hasPage {
			return b.complete(ctx, em, id, req, page)
		}
		in.Error = &workflow.ErrorInfo{Error: "BuildIncomplete", Cause: "the build reached Finish without a page"}
	}
	if !found {
		f = errorFailure(in.Error, reqErr, lang)
	}
	err = em.Close(ctx, protocol.PageError{Message: f.Message, Code: f.Code, Details: f.Details})
	if err != nil && !errors.Is(err, errClosed) {
		return workflow.BuildStepOutput{}, err
	}
	return failed, nil
}

func (b *Builder) complete(ctx context.Context, em emitter, id string, req blueprint.Request, page blueprint.Page) (workflow.BuildStepOutput, error) {
	data, results, err := b.sources(ctx, id, req)
	if err != nil {
		return workflow.BuildStepOutput{}, err
	}
	var res protocol.PageResult
	if res.Page, err = jsonOf(page); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	if res.DataContext, err = jsonOf(orEmpty(data)); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	if res.ComputeResults, err = jsonOf(orEmpty(results)); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	msg := "completed"
	err = em.Close(ctx, protocol.PageComplete{Message: msg, Progress: 100, Result: res})
	if err != nil && !errors.Is(err, errClosed) {
		return workflow.BuildStepOutput{}, err
	}
	return ok, nil
}

// errorFailure is the failure of a build whose phase failed outright: the
// caught error, or the error reading the build's request.
func errorFailure(e *workflow.ErrorInfo, reqErr error, lang string) blueprint.Failure {
	code, timedOut := apperr.Internal, false
	switch {
	case e != nil:
		code, timedOut = e.Code(), e.TimedOut()
	case reqErr != nil:
		code = apperr.As(reqErr).Code
	}
	if timedOut {
		code = apperr.AIError
	}
	return blueprint.Failure{Code: string(code), Message: i18n.Of(lang).Failure(i18n.Page, code, timedOut)}
}

func orEmpty[M ~map[string]V, V any](m M) M {
	if m == nil {
		return M{}
	}
	return m
}
