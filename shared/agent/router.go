package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Route is the router step: the model classifies the message; the path
// follows from its classification. A router failure does not fail the turn:
// the agent path with every tool lets the agent decide.
func (a *Agent) Route(ctx context.Context, in workflow.RouteInput) (workflow.RouteOutput, error) {
	page, editable := a.pageNote(ctx, in.Turn)
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: a.routerPrompt(editable)}}
	if h := a.historySummary(ctx, in.Turn); h != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: h})
	}
	if page != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: page})
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: in.Turn.Message})
	resp, err := a.Model.Stream(ctx, llm.Request{Tier: llm.TierFast, Messages: msgs, JSON: true}, llm.Handler{})
	if err != nil {
		if ctx.Err() != nil {
			return workflow.RouteOutput{}, err
		}
		a.Logger.WarnContext(ctx, "router model failed; the agent decides", "err", err)
		a.Metrics.Count("RouterFallback", 1, nil)
		return a.intentTools(in.Turn.Mode, a.fallbackRoute("router unavailable")), nil
	}
	var r workflow.RouterResult
	if err := json.Unmarshal([]byte(llm.StripFence(resp.Message.Content)), &r); err != nil {
		a.Logger.WarnContext(ctx, "router answer is not a RouterResult; the agent decides", "err", err)
		a.Metrics.Count("RouterFallback", 1, nil)
		return a.intentTools(in.Turn.Mode, a.fallbackRoute("router answer unreadable")), nil
	}
	r = a.normalizeRoute(r, editable)
	out := a.intentTools(in.Turn.Mode, workflow.RouteOutput{Path: pathOf(r), Result: r})
	a.Logger.InfoContext(ctx, "routed", "intent", r.Intent, "path", out.Path, "candidates", r.CandidateTools,
		"tools", out.Tools, "tier", r.ModelTier, "mode", in.Turn.Mode)
	return out, nil
}

// intentTools is the intent step of seed 003 (its IntentRecognition
// middleware): the chat mode turns the router's classification into the
// agent's tools. natural offers the router's candidates (base tools, then
// the candidate generation tools) and guide_user; free filters nothing and
// forces nothing; strict always keeps guide_user, and sends greetings and
// open questions down the agent path with guide_user as the only tool, so
// that even they are answered through a tool.
func (a *Agent) intentTools(m workflow.ChatMode, out workflow.RouteOutput) workflow.RouteOutput {
	guides := a.Tools.Names(tools.Guidance)
	mode := m.Or(workflow.ModeNatural)
	if mode == workflow.ModeStrict && out.Path == workflow.PathChat && len(guides) > 0 {
		out.Path, out.Tools = workflow.PathAgent, guides
		return out
	}
	if out.Path != workflow.PathAgent {
		return out // the chat path has no tools; clarify and build have their own steps
	}
	candidates := out.Result.CandidateTools
	if mode == workflow.ModeFree {
		candidates = nil // every generation tool
	}
	for _, t := range a.Tools.ForTurn(candidates) {
		out.Tools = append(out.Tools, t.Name)
	}
	out.Tools = append(out.Tools, guides...)
	return out
}

// routerPrompt is the router's system prompt; a follow-up's on a page whose
// blueprint the client sent adds the refine and rebuild intents (before the
// tool list, which ends the prompt).
func (a *Agent) routerPrompt(followup bool) string {
	var b strings.Builder
	if followup {
		head, tail, _ := strings.Cut(prompts.Router, "\nAvailable generation tools:")
		b.WriteString(head + prompts.RouterFollowup + "\nAvailable generation tools:" + tail)
	} else {
		b.WriteString(prompts.Router)
	}
	for _, n := range a.Tools.Names(tools.Generation) {
		t, _ := a.Tools.Get(n)
		fmt.Fprintf(&b, "- %s: %s\n", t.Name, t.Description)
	}
	return b.String()
}

func (a *Agent) fallbackRoute(why string) workflow.RouteOutput {
	return workflow.RouteOutput{Path: workflow.PathAgent, Result: workflow.RouterResult{
		Intent: "unknown", Confidence: 0, CandidateTools: []string{}, ModelTier: string(llm.TierStandard),
		ExpectedMode: workflow.ExpectAnswer, Strategy: why + ": agent with every tool", SafetyFlags: []string{},
	}}
}

// normalizeRoute keeps the router's answer within what exists: refine and
// rebuild need a page's blueprint; without one, the teacher asks for a page
// (build).
func (a *Agent) normalizeRoute(r workflow.RouterResult, page bool) workflow.RouterResult {
	if !page && (r.Intent == workflow.IntentRefine || r.Intent == workflow.IntentRebuild) {
		r.Intent = workflow.IntentBuild
	}
	r.CandidateTools = slices.DeleteFunc(r.CandidateTools, func(n string) bool {
		t, ok := a.Tools.Get(n)
		return !ok || t.Kind != tools.Generation
	})
	if r.CandidateTools == nil {
		r.CandidateTools = []string{}
	}
	if r.SafetyFlags == nil {
		r.SafetyFlags = []string{}
	}
	switch llm.Tier(r.ModelTier) {
	case llm.TierFast, llm.TierStandard, llm.TierStrong:
	default:
		r.ModelTier = string(llm.TierStandard)
	}
	switch r.ExpectedMode {
	case workflow.ExpectAnswer, workflow.ExpectArtifact, workflow.ExpectClarify:
	default:
		r.ExpectedMode = workflow.ExpectAnswer
	}
	r.Confidence = min(max(r.Confidence, 0), 1)
	if r.Intent == workflow.IntentClarify {
		r.ClarifyNeeded = true
	}
	if r.ClarifyNeeded && (r.Clarify == nil || r.Clarify.Question == "") {
		// A clarify route without a question cannot be shown: let the agent ask.
		r.ClarifyNeeded = false
		r.Intent = "unknown"
	}
	return r
}

// pathOf maps the router's classification to a workflow path.
func pathOf(r workflow.RouterResult) string {
	switch {
	case r.ClarifyNeeded:
		return workflow.PathClarify
	case r.Intent == workflow.IntentSmalltalk || r.Intent == workflow.IntentQA:
		return workflow.PathChat
	case r.Intent == workflow.IntentBuild, r.Intent == workflow.IntentRefine, r.Intent == workflow.IntentRebuild:
		// One plan step plans a page, a revised page or a patch plan.
		return workflow.PathBuild
	default:
		return workflow.PathAgent
	}
}
