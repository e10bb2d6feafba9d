package agent

// issue 28: the operator's switches and the router's safety flags, acted
// on at the start of a turn (the Route step) and answered by the AgentTurn
// step. A harmful request is declined without the model or a tool; a
// private one gets a notice and a note to the model; a paused capability
// gets a notice (and, for a page build, nothing else); a teacher outside
// the unified agent's rollout gets the chat path for the artifact intents
// (seed 000 §7.8 stage A: only quiz_generate and content_create take the
// unified protocol; the chat path stays as it was).

import (
	"context"
	"fmt"
	"slices"

	"github.com/insightedge/insightedge/shared/flags"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Metric names of issue 28.
const (
	MetricSafetyFlag       = "SafetyFlag"       // dimension flag
	MetricCapabilityPaused = "CapabilityPaused" // dimension capability
	MetricRolloutFallback  = "RolloutFallback"  // a turn outside the unified agent's rollout
)

// gate applies the safety flags and the switches to a routed turn, and
// logs and counts what it acted on.
func (a *Agent) gate(ctx context.Context, t workflow.Turn, out workflow.RouteOutput) workflow.RouteOutput {
	out, acts := a.decide(ctx, t, out)
	a.record(ctx, t, out, acts)
	return out
}

// decided is decide's route alone.
func (a *Agent) decided(ctx context.Context, t workflow.Turn, out workflow.RouteOutput) workflow.RouteOutput {
	out, _ = a.decide(ctx, t, out)
	return out
}

// gateActs is what the gate acted on, for the logs and metrics.
type gateActs struct {
	flags    []string           // the safety flags the product acts on
	paused   []flags.Capability // the paused capabilities the turn asked for
	fallback bool               // outside the unified agent's rollout
}

// decide is the gate's decision alone: the route as the safety flags and
// the switches leave it, and what it acted on. It records nothing, so the
// route read early from the router's stream can be gated, and gated again
// (and recorded once) when the answer is whole.
func (a *Agent) decide(ctx context.Context, t workflow.Turn, out workflow.RouteOutput) (workflow.RouteOutput, gateActs) {
	var acts gateActs
	l := i18n.Of(t.Language, t.Message)
	acts.flags = actedOn(out.Result.SafetyFlags)
	if slices.Contains(acts.flags, prompts.SafetyHarmful) {
		return decline(out, workflow.DeclineHarmful), acts
	}
	if slices.Contains(acts.flags, prompts.SafetyPrivacy) {
		out.Notices = append(out.Notices, protocol.Notice{Code: protocol.NoticePrivacy, Message: l.Text(i18n.Privacy)})
	}
	pause := func(c flags.Capability) {
		acts.paused = append(acts.paused, c)
		out.Notices = append(out.Notices, flags.Notice(c, l))
	}
	sw := flags.Read(ctx, a.Switches)
	switch {
	case out.Path == workflow.PathBuild && !sw.On(flags.PageBuilds):
		out = decline(out, workflow.DeclinePaused)
		pause(flags.PageBuilds)
	case out.Path != workflow.PathAgent:
	case artifactIntent(out.Result.Intent) && !sw.UnifiedV2.Enabled(t.TeacherID):
		acts.fallback = true
		out.Path, out.Tools = workflow.PathChat, nil
	case !sw.On(flags.Tools):
		out.Path, out.Tools = workflow.PathChat, nil
		pause(flags.Tools)
	case !sw.On(flags.FileGeneration):
		asked := slices.ContainsFunc(out.Result.CandidateTools, a.makesFiles)
		out.Tools = slices.DeleteFunc(out.Tools, a.makesFiles)
		out.Result.CandidateTools = slices.DeleteFunc(out.Result.CandidateTools, a.makesFiles)
		if asked {
			pause(flags.FileGeneration)
		}
	}
	return out, acts
}

// record logs and counts what the gate acted on, without the message's
// text.
func (a *Agent) record(ctx context.Context, t workflow.Turn, out workflow.RouteOutput, acts gateActs) {
	who := []any{"teacher", t.TeacherID, "turn", t.TurnID, "trace", t.TraceID}
	for _, f := range acts.flags {
		a.Logger.WarnContext(ctx, "safety flag", append([]any{"flag", f}, who...)...)
		a.Metrics.Count(MetricSafetyFlag, 1, map[string]string{"flag": f})
	}
	for _, c := range acts.paused {
		a.Logger.InfoContext(ctx, "capability paused", append([]any{"capability", c}, who...)...)
		a.Metrics.Count(MetricCapabilityPaused, 1, map[string]string{"capability": string(c)})
	}
	if acts.fallback {
		a.Logger.InfoContext(ctx, "outside the unified agent's rollout: chat path", append(who, "intent", out.Result.Intent)...)
		a.Metrics.Count(MetricRolloutFallback, 1, map[string]string{"intent": string(out.Result.Intent)})
	}
}

// actedOn returns the safety flags the product acts on, once each.
func actedOn(fs []string) []string {
	var known []string
	for _, f := range fs {
		if f != prompts.SafetyHarmful && f != prompts.SafetyPrivacy || slices.Contains(known, f) {
			continue
		}
		known = append(known, f)
	}
	return known
}

// makesFiles reports whether the tool named n makes files.
func (a *Agent) makesFiles(n string) bool {
	t, ok := a.Tools.Get(n)
	return ok && slices.Contains(t.Emits, protocol.DataFileReady)
}

func artifactIntent(i workflow.Intent) bool {
	return i == workflow.IntentQuiz || i == workflow.IntentContent
}

// decline sends the turn to the AgentTurn step, which answers it without
// the model, for why.
func decline(out workflow.RouteOutput, why string) workflow.RouteOutput {
	out.Path, out.Tools, out.Decline = workflow.PathChat, nil, why
	return out
}

// declined is the AgentTurn step of a declined turn: the notices and, for
// a harmful request, a short explanation and a guide to what the
// assistant does; no model call, no tool.
func (a *Agent) declined(ctx context.Context, in workflow.AgentInput) (workflow.AgentOutput, error) {
	l := i18n.Of(in.Turn.Language, in.Turn.Message)
	chunks := []protocol.Chunk{protocol.StartStep{}}
	for _, n := range in.Route.Notices {
		chunks = append(chunks, n.Chunk())
	}
	rec := finalRecord{Result: FinalResult{Status: StatusAnswerReady}}
	if in.Route.Decline == workflow.DeclineHarmful {
		rec.Result.Message, rec.TextID, rec.TextEmitted = l.Text(i18n.Declined), fmt.Sprintf("text-%d-declined", in.Attempt), true
		g, err := protocol.NewData(protocol.DataGuide, "guide-declined", protocol.Guide{Message: l.Text(i18n.DeclinedGuide),
			Missing: []string{}, Suggestions: []string{l.Text(i18n.DeclinedSuggestData), l.Text(i18n.DeclinedSuggestQuiz), l.Text(i18n.DeclinedSuggestLesson)}})
		if err != nil {
			return workflow.AgentOutput{}, err
		}
		chunks = append(append(chunks, textChunks(rec.TextID, rec.Result.Message)...), g)
	} else if len(in.Route.Notices) > 0 {
		rec.Result.Message = in.Route.Notices[len(in.Route.Notices)-1].Message // kept for the history
	}
	if err := a.stream(in.Turn.TurnID).Emit(ctx, append(chunks, protocol.FinishStep{})...); err != nil {
		return workflow.AgentOutput{}, err
	}
	err := putJSON(ctx, a.Store, in.Turn.SessionID, finalKey(in.Turn.TurnID, in.Attempt), rec)
	return workflow.AgentOutput{Round: 1, Next: workflow.NextReply, ToolCalls: []workflow.ToolCallRef{}}, err
}
