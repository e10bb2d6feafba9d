package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Data is the data phase: every binding's tool calls, in order, their
// outputs kept as the build's DataContext. A phase already done (a retried
// step) does nothing more.
func (b *Builder) Data(ctx context.Context, in workflow.BuildStepInput) (workflow.BuildStepOutput, error) {
	id := in.Build.BuildID
	req, todo, err := b.pending(ctx, id, blueprint.RecordData, new(blueprint.DataContext))
	if err != nil || !todo {
		return ok, err
	}
	em := b.stream(id)
	lang := req.Blueprint.Language
	if err := em.Emit(ctx, protocol.PagePhase{Phase: protocol.PhaseData,
		Message: i18n.Of(lang).Text(i18n.PageFetching)}); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	// One Report for every binding: the page's data comes from one source
	// (a partial outage never blends mock rows into real ones), and what
	// it found is told on the page.
	ctx, rep := javaapi.WithReport(ctx)
	data := blueprint.DataContext{}
	decoded := map[string]any{} // the same data, decoded, for $data references
	dctx, cancel := context.WithTimeout(ctx, b.o.DataBound)
	defer cancel()
	for _, bd := range req.Blueprint.DataContract.Bindings {
		out, err := b.bind(dctx, em, in.Build, req, bd, decoded)
		if err != nil && ctx.Err() == nil && dctx.Err() != nil {
			b.o.Logger.WarnContext(ctx, "the data phase ran out of time", "buildId", id, "bound", b.o.DataBound, "err", err)
			return b.dataFailure(ctx, em, id, lang, apperr.New(apperr.DataError, "the data service did not answer within %s", b.o.DataBound))
		}
		if isFault(ctx, err) {
			return workflow.BuildStepOutput{}, err
		}
		if err != nil {
			if bd.Optional {
				b.o.Logger.WarnContext(ctx, "optional binding failed", "buildId", id, "binding", bd.ID, "err", err)
				continue
			}
			return b.dataFailure(ctx, em, id, lang, err)
		}
		data[bd.ID] = out
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			return workflow.BuildStepOutput{}, fmt.Errorf("build: decode binding %s: %w", bd.ID, err)
		}
		decoded[bd.ID] = v
	}
	if err := b.put(ctx, id, blueprint.RecordData, data); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	// The stream tells the teacher at once; the page keeps the notices
	// (meta.notices).
	for _, n := range dataNotices(data) {
		if err := em.Emit(ctx, protocol.PagePhase{Phase: protocol.PhaseData, Message: n.Message}); err != nil {
			return workflow.BuildStepOutput{}, err
		}
	}
	if s := rep.Summary(); s.Mock || s.Incomplete() {
		b.o.Logger.WarnContext(ctx, "build data degraded", "buildId", id, "mock", s.Mock, "violations", s.Violations)
	}
	return ok, nil
}

// bind runs one binding: one call, or one per element of its forEach list.
func (b *Builder) bind(ctx context.Context, em emitter, build workflow.Build, req blueprint.Request, bd blueprint.Binding,
	decoded map[string]any) (json.RawMessage, error) {
	tool, known := b.tools.Get(bd.ToolName)
	if !known || tool.Kind != tools.Base {
		return nil, apperr.New(apperr.BlueprintError, "binding %q calls %q, which is not a data tool", bd.ID, bd.ToolName)
	}
	if bd.ForEach == "" {
		args, err := resolveArgs(bd, req, decoded, nil)
		if err != nil {
			return nil, err
		}
		return b.call(ctx, em, build, req, tool, bd.ID+"-1", args)
	}
	ref, err := blueprint.ParseRef(bd.ForEach)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.BlueprintError, "binding %q: forEach", bd.ID)
	}
	list, _ := blueprint.Lookup(decoded[ref.Name], ref.Path)
	items, isList := list.([]any)
	switch {
	case list == nil:
		items = nil
	case !isList:
		return nil, apperr.New(apperr.BlueprintError, "binding %q: forEach %s is not a list", bd.ID, bd.ForEach)
	case len(items) > blueprint.MaxForEach:
		return nil, apperr.New(apperr.BlueprintError, "binding %q: forEach %s has %d elements, more than %d",
			bd.ID, bd.ForEach, len(items), blueprint.MaxForEach)
	}
	outs := make([]json.RawMessage, 0, len(items))
	for i, item := range items {
		args, err := resolveArgs(bd, req, decoded, item)
		if err != nil {
			return nil, err
		}
		out, err := b.call(ctx, em, build, req, tool, fmt.Sprintf("%s-%d", bd.ID, i+1), args)
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
	}
	return json.Marshal(outs)
}

// call runs one tool call between its TOOL_CALL and TOOL_RESULT events.
func (b *Builder) call(ctx context.Context, em emitter, build workflow.Build, req blueprint.Request, tool tools.Tool,
	callID string, args map[string]string) (json.RawMessage, error) {
	shown := make(map[string]any, len(args))
	for k, v := range args {
		shown[k] = v
	}
	if err := em.Emit(ctx, protocol.PageToolCall{Tool: tool.Name, Args: shown}); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	res, err := tool.Run(ctx, tools.Call{TeacherID: build.TeacherID, SessionID: build.BuildID, TurnID: build.BuildID,
		CallID: build.BuildID + "-" + callID, Language: req.Language, TraceID: build.TraceID,
		Emit: func(context.Context, protocol.Chunk) error { return nil }}, raw)
	if isFault(ctx, err) {
		return nil, err
	}
	var out json.RawMessage
	if err == nil {
		if out, err = json.Marshal(res.Output); err != nil {
			err = fmt.Errorf("build: encode the output of %s: %w", tool.Name, err)
		}
	}
	status := protocol.PageToolSuccess
	if err != nil {
		status = protocol.PageToolError
	}
	if eerr := em.Emit(ctx, protocol.PageToolResult{Tool: tool.Name, Status: status}); eerr != nil {
		return nil, eerr
	}
	var ae *tools.ArgumentError
	if errors.As(err, &ae) {
		err = apperr.Wrap(err, apperr.BlueprintError, "the blueprint's arguments for %s do not fit the tool: %v", tool.Name, ae.Err)
	}
	return out, err
}

// resolveArgs gives each argument of a binding its value for one call.
func resolveArgs(bd blueprint.Binding, req blueprint.Request, decoded map[string]any, item any) (map[string]string, error) {
	out := make(map[string]string, len(bd.Args))
	for name, v := range bd.Args {
		ref, err := blueprint.ParseRef(v)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.BlueprintError, "binding %q: argument %s", bd.ID, name)
		}
		var val any
		found := true
		switch ref.Kind {
		case blueprint.RefLiteral:
			val = ref.Literal
		case blueprint.RefInput:
			val, found = req.Inputs[ref.Name]
		case blueprint.RefContext:
			val, found = req.Context[ref.Name]
		case blueprint.RefData:
			val, found = blueprint.Lookup(decoded[ref.Name], ref.Path)
		case blueprint.RefItem:
			val, found = blueprint.Lookup(item, ref.Path)
		}
		s, scalar := scalarString(val)
		switch {
		case !found || val == nil:
			return nil, apperr.New(apperr.BlueprintError, "binding %q: argument %s = %s has no value", bd.ID, name, v)
		case !scalar:
			return nil, apperr.New(apperr.BlueprintError, "binding %q: argument %s = %s is not a single value", bd.ID, name, v)
		}
		out[name] = s
	}
	return out, nil
}

func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	}
	return "", false
}

// dataFailure ends the build on a failed required binding: an entity the
// data service does not know is a DATA_ERROR event with the teacher's
// closest entities, then the failure Finish closes the stream with.
func (b *Builder) dataFailure(ctx context.Context, em emitter, buildID, lang string, err error) (workflow.BuildStepOutput, error) {
	f := failureOf(err, lang)
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Code == apperr.EntityNotFound {
		nf, isNF := ae.Details.(javaapi.NotFound)
		if isNF {
			ev := protocol.PageDataError{Entity: nf.Mention, EntityType: nf.Kind, Message: entityMessage(lang, nf)}
			for _, s := range nf.Suggestions {
				ev.Suggestions = append(ev.Suggestions, protocol.PageSuggestion{Label: s.Label, Value: s.Value})
			}
			// DATA_ERROR is terminal (PROTOCOL.md §2): it closes the stream,
			// and Finish finds it closed and adds no ERROR.
			if err := em.Close(ctx, ev); err != nil {
				return workflow.BuildStepOutput{}, err
			}
			f = blueprint.Failure{Code: string(apperr.EntityNotFound), Message: ev.Message,
				Details: map[string]any{"entity": nf.Mention, "entityType": nf.Kind, "suggestions": ev.Suggestions}}
		}
	}
	return b.fail(ctx, buildID, f)
}

// entityMessage is what the teacher reads of a mention that matches no or
// several classes, students...: the catalogue's words, as when planning.
func entityMessage(lang string, nf javaapi.NotFound) string {
	l := i18n.Of(lang)
	switch {
	case nf.Ambiguous:
		return l.Text(i18n.PlanAmbiguous, nf.Mention)
	case len(nf.Suggestions) == 0:
		return l.Text(i18n.EntityNotFound, nf.Mention)
	}
	return l.Text(i18n.PlanNotFound, nf.Mention)
}
