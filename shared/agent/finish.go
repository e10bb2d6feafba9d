package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Finish is the Finish step and every Catch's target: it records the turn's
// outcome in the session and closes the stream. A turn already ended (a stop)
// is left as it is.
func (a *Agent) Finish(ctx context.Context, in workflow.FinishInput) (workflow.FinishOutput, error) {
	t := in.Turn
	em := a.stream(t.TurnID)
	out, status, chunks, err := a.closing(ctx, in)
	if err != nil {
		return workflow.FinishOutput{}, err
	}
	err = a.Store.EndTurn(ctx, t.SessionID, t.TurnID, status, out)
	if err == nil || errors.Is(err, session.ErrConflict) {
		a.endSlot(ctx, t) // issue 26: before the close a client may answer with a new turn
	}
	if err != nil {
		if errors.Is(err, session.ErrConflict) {
			a.logCaught(ctx, in, true)
			return workflow.FinishOutput{Status: "already-ended"}, nil
		}
		return workflow.FinishOutput{}, fmt.Errorf("agent: end turn: %w", err)
	}
	a.logCaught(ctx, in, false)
	fin := protocol.Finish{FinishReason: protocol.FinishStop}
	if status == session.TurnFailed {
		fin.FinishReason = protocol.FinishError
	}
	if len(out.Warnings) > 0 {
		fin.MessageMetadata = &protocol.MessageMetadata{ConversationID: t.SessionID, TurnID: t.TurnID, Warnings: out.Warnings}
	}
	if err := em.Close(ctx, append(chunks, fin)...); err != nil && !errors.Is(err, eventlog.ErrClosed) {
		return workflow.FinishOutput{}, err
	}
	a.Metrics.Count("Turn", 1, map[string]string{"status": string(status), "action": string(out.Action)})
	return workflow.FinishOutput{Status: string(status)}, nil
}

// logCaught logs the step error a turn's Finish caught. A turn that had
// ended already (ended) was stopped by the teacher, or closed by the edge
// or the start-up recovery, which logged why: the error is that of its
// cancelled work, not a failure (issue 32: a Stop is INFO).
func (a *Agent) logCaught(ctx context.Context, in workflow.FinishInput, ended bool) {
	switch {
	case in.Error == nil:
	case ended:
		a.Logger.InfoContext(ctx, "turn cancelled: it had ended (a stop)", "turn", in.Turn.TurnID, "error", in.Error.Error, "cause", in.Error.Cause)
	default:
		a.Logger.ErrorContext(ctx, "turn failed", "turn", in.Turn.TurnID, "error", in.Error.Error, "cause", in.Error.Cause)
	}
}

// closing decides the outcome and the chunks that precede finish.
func (a *Agent) closing(ctx context.Context, in workflow.FinishInput) (session.Outcome, session.TurnStatus, []protocol.Chunk, error) {
	var out session.Outcome
	if in.Route != nil {
		out.Intent = in.Route.Result.Intent
	}
	switch {
	case in.Error != nil:
		code, msg := userError(*in.Error, i18n.Of(in.Turn.Language, in.Turn.Message))
		out.Action, out.Error, out.ErrorCode = session.ActionChat, msg, string(code)
		return out, session.TurnFailed, []protocol.Chunk{protocol.Error{ErrorText: msg}}, nil
	case in.Route == nil:
		// issue 32: stored with its error, as every failed turn is.
		out.Action, out.Error, out.ErrorCode = session.ActionChat, "internal error", string(apperr.Internal)
		return out, session.TurnFailed, []protocol.Chunk{protocol.Error{ErrorText: out.Error}}, nil
	case in.Route.Path == workflow.PathClarify:
		c := in.Route.Result.Clarify
		out.Action, out.Text = session.ActionClarify, c.Question
		var chunks []protocol.Chunk
		var err error
		out.Clarify, chunks, err = askBack(*c)
		return out, session.TurnCompleted, chunks, err
	case in.Route.Path == workflow.PathBuild:
		return a.buildOutcome(ctx, in, out)
	}
	var rec finalRecord
	if _, err := getJSON(ctx, a.Store, in.Turn.SessionID, finalKey(in.Turn.TurnID, in.Attempt), &rec); err != nil {
		return out, "", nil, err
	}
	out.Action, out.Text, out.Artifacts = session.ActionChat, rec.Result.Message, rec.Result.Artifacts
	mem, err := a.memories(ctx, in.Turn, in.Attempt)
	if err != nil {
		return out, "", nil, err
	}
	out.Memory = mem
	if in.Turn.Mode == workflow.ModeStrict {
		if chunks, ok, err := a.strictFallback(ctx, in, rec, &out); ok || err != nil {
			return out, session.TurnCompleted, chunks, err
		}
	}
	if in.Validation != nil {
		switch in.Validation.Verdict {
		case workflow.VerdictGiveUp:
			msg := i18n.Of(in.Turn.Language, in.Turn.Message).Text(i18n.TurnNotVerified)
			out.Text, out.Error, out.ErrorCode = "", msg, string(apperr.AIError)
			return out, session.TurnFailed, []protocol.Chunk{protocol.Error{ErrorText: msg}}, nil
		case workflow.VerdictAccept:
			out.Warnings = append(out.Warnings, in.Validation.Reason)
		}
	}
	var chunks []protocol.Chunk
	if rec.Result.Status == StatusClarifyNeeded && rec.Result.Clarify != nil {
		out.Action = session.ActionClarify
		var err error
		if out.Clarify, chunks, err = askBack(*rec.Result.Clarify); err != nil {
			return out, "", nil, err
		}
	}
	return out, session.TurnCompleted, chunks, nil
}

// strictFallback is the strict reply of seed 003 §4.3, applied before the
// answer is kept: when validation gave up (the StrictMode guard refused
// twice, or an artifact was claimed that no tool made), or when the final
// content is empty and no artifact was produced, the reply is chosen by the
// last tool.end status of the attempt, in the teacher's language. ok is
// false when the answer stands.
func (a *Agent) strictFallback(ctx context.Context, in workflow.FinishInput, rec finalRecord, out *session.Outcome) ([]protocol.Chunk, bool, error) {
	recs, err := a.attemptTools(ctx, in.Turn.SessionID, in.Turn.TurnID, in.Attempt)
	if err != nil {
		return nil, false, err
	}
	ev := a.evidence(recs)
	gaveUp := in.Validation != nil && in.Validation.Verdict == workflow.VerdictGiveUp
	empty := strings.TrimSpace(rec.Result.Message) == "" && rec.Result.Status != StatusClarifyNeeded && !ev.HasArtifact()
	if !gaveUp && !empty {
		return nil, false, nil
	}
	branch, msg := StrictFallback(ev)
	text := i18n.Of(in.Turn.Language, in.Turn.Message).Text(msg)
	out.Text, out.Fallback, out.Artifacts = text, branch, nil
	a.Metrics.Count("StrictFallback", 1, map[string]string{"branch": branch})
	a.Logger.InfoContext(ctx, "strict fallback", "turn", in.Turn.TurnID, "branch", branch, "gaveUp", gaveUp)
	return textChunks(fmt.Sprintf("text-strict-%d", in.Attempt), text), true, nil
}

// askBack is the question a turn asks back: the outcome's record of it and
// its chunks. It is said once, in the data-clarify part (PROTOCOL.md §1:
// question, options, hint, choices), which the frontend renders as the
// question with its choices; a text part with the same words would show
// it twice.
func askBack(c workflow.Clarify) (*session.Clarify, []protocol.Chunk, error) {
	c = withChoices(c)
	d, err := protocol.NewData(protocol.DataClarify, "", protocol.Clarify{Question: c.Question, Options: c.Options, Hint: c.Hint, Choices: c.Choices})
	if err != nil {
		return nil, nil, err
	}
	return &session.Clarify{Question: c.Question, Options: c.Options, Hint: c.Hint, Choices: c.Choices}, []protocol.Chunk{d}, nil
}

// withChoices makes c's options and choices agree (seed 004 S4-12): the
// options are the choices' labels; an option without a choice is sent
// back as its own words. A choice with no value is sent back as its label.
func withChoices(c workflow.Clarify) workflow.Clarify {
	var choices []protocol.Choice
	for _, ch := range c.Choices {
		ch.Label, ch.Value = strings.TrimSpace(ch.Label), strings.TrimSpace(ch.Value)
		if ch.Label == "" {
			continue
		}
		choices = append(choices, protocol.Choice{Label: ch.Label, Value: cmp.Or(ch.Value, ch.Label)})
	}
	if len(choices) == 0 {
		for _, o := range c.Options {
			if o = strings.TrimSpace(o); o != "" {
				choices = append(choices, protocol.Choice{Label: o, Value: o})
			}
		}
	}
	c.Choices, c.Options = choices, nil
	for _, ch := range choices {
		c.Options = append(c.Options, ch.Label)
	}
	return c
}

func textChunks(id, text string) []protocol.Chunk {
	return []protocol.Chunk{protocol.TextStart{ID: id}, protocol.TextDelta{ID: id, Delta: text}, protocol.TextEnd{ID: id}}
}

// buildOutcome is the end of the build path: the planned blueprint (a new
// page, or a rebuild of the page on screen) or patch plan (a refine), sent
// as data-blueprint / data-patch-plan and kept for the JSON API, with a
// notice; or the question the planner asks back about an unknown entity,
// or the planner's failure.
func (a *Agent) buildOutcome(ctx context.Context, in workflow.FinishInput, out session.Outcome) (session.Outcome, session.TurnStatus, []protocol.Chunk, error) {
	out.Action = session.ActionBuild
	switch p := in.Plan; {
	case p == nil:
		// No plan step ran (an execution of an older definition).
		out.Text = i18n.Of(in.Turn.Language, in.Turn.Message).Text(i18n.BuildNotice, i18n.Clip(strings.TrimSpace(in.Turn.Message), 80))
	case p.Status == workflow.PlanClarify && p.Clarify != nil:
		out.Action, out.Text = session.ActionClarify, p.Clarify.Question
		var chunks []protocol.Chunk
		var err error
		out.Clarify, chunks, err = askBack(*p.Clarify)
		return out, session.TurnCompleted, chunks, err
	case p.Status == workflow.PlanPlanned:
		var rec workflow.PlanRecord
		found, err := getJSON(ctx, a.Store, in.Turn.SessionID, workflow.PlanKey(in.Turn.TurnID), &rec)
		if err != nil {
			return out, "", nil, err
		}
		if !found {
			return planFailed(out, in.Turn, string(apperr.Internal), "")
		}
		out.Text, out.Blueprint, out.ResolvedEntities = rec.Notice, rec.Blueprint, rec.ResolvedEntities
		part := protocol.Data{Name: protocol.DataBlueprint, ID: "blueprint-" + in.Turn.TurnID, Data: rec.Blueprint}
		switch p.Action {
		case workflow.PlanActionRefine:
			out.Action, out.PatchPlan = session.ActionRefine, rec.PatchPlan
			part = protocol.Data{Name: protocol.DataPatchPlan, ID: "patch-plan-" + in.Turn.TurnID, Data: rec.PatchPlan}
		case workflow.PlanActionRebuild:
			out.Action = session.ActionRebuild
		}
		chunks := append(textChunks("text-build", out.Text), part)
		for _, n := range rec.Notices {
			chunks = append(chunks, n.Chunk())
		}
		return out, session.TurnCompleted, chunks, nil
	default:
		return planFailed(out, in.Turn, p.Code, p.Message)
	}
	return out, session.TurnCompleted, textChunks("text-build", out.Text), nil
}

func planFailed(out session.Outcome, t workflow.Turn, code, msg string) (session.Outcome, session.TurnStatus, []protocol.Chunk, error) {
	if code == "" {
		code = string(apperr.AIError)
	}
	if msg == "" {
		msg = i18n.Of(t.Language, t.Message).Text(i18n.PlanFailed)
	}
	out.Action, out.Error, out.ErrorCode = session.ActionChat, msg, code
	return out, session.TurnFailed, []protocol.Chunk{protocol.Error{ErrorText: msg}}, nil
}

// userError turns a caught step error into a code and a message for the
// teacher: the error's own code when a step named it, else AI_ERROR.
func userError(e workflow.ErrorInfo, l i18n.Lang) (apperr.Code, string) {
	code := e.Code()
	if code != apperr.DataError && code != apperr.ServiceUnavailable {
		code = apperr.AIError
	}
	return code, l.Failure(i18n.Turn, code, e.TimedOut())
}

// memories collects what the attempt's tools asked later turns to know, in
// call order.
func (a *Agent) memories(ctx context.Context, t workflow.Turn, attempt int) ([]string, error) {
	recs, err := a.Store.ListRecords(ctx, t.SessionID, toolKeyPrefix(t.TurnID, attempt))
	if err != nil {
		return nil, fmt.Errorf("agent: list tool records: %w", err)
	}
	var out []string
	for _, r := range recs {
		var tr toolRecord
		if err := json.Unmarshal(r.Value, &tr); err == nil && tr.Memory != "" {
			out = append(out, tr.Memory)
		}
	}
	return out, nil
}
