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
	return a.route(ctx, in, nil)
}

// routerMaxTokens caps the router's answer (issue 29): a classification
// is a short JSON object, and a router that rambles delays the turn.
const routerMaxTokens = 300

// route is Route; early, when set, is told the route as soon as the
// fields that govern it have streamed (routerPrefix), before the rest of
// the answer, and that route then stands whatever follows.
func (a *Agent) route(ctx context.Context, in workflow.RouteInput, early func(workflow.RouteOutput)) (workflow.RouteOutput, error) {
	page, editable := a.pageNote(ctx, in.Turn)
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: a.routerPrompt(editable)}}
	if h := a.historySummary(ctx, in.Turn); h != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: h})
	}
	if page != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: page})
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: in.Turn.Message})
	var decided *workflow.RouterResult
	var h llm.Handler
	if early != nil {
		var sofar strings.Builder
		h.OnContent = func(d string) error {
			if decided != nil {
				return nil
			}
			sofar.WriteString(d)
			if r, ok := routerEarly(sofar.String()); ok {
				r = a.normalizeRoute(r, editable)
				decided = &r
				early(a.decided(ctx, in.Turn, a.intentTools(in.Turn.Mode, workflow.RouteOutput{Path: pathOf(r), Result: r})))
			}
			return nil
		}
	}
	// Not JSON mode: the answer starts with its route line (workflow.FormatRouterAnswer).
	req := llm.Request{Tier: llm.TierFast, Messages: msgs, MaxTokens: routerMaxTokens}
	resp, err := a.Model.Stream(ctx, req, h)
	if err != nil && ctx.Err() != nil {
		return workflow.RouteOutput{}, err
	}
	if err != nil && decided == nil {
		a.Logger.WarnContext(ctx, "router model failed; the agent decides", "err", err)
		a.Metrics.Count("RouterFallback", 1, nil)
		return a.gate(ctx, in.Turn, a.intentTools(in.Turn.Mode, a.fallbackRoute("router unavailable"))), nil
	}
	var r workflow.RouterResult
	if err == nil {
		r, err = workflow.ParseRouterAnswer(llm.StripFence(resp.Message.Content))
	}
	if err != nil && decided == nil {
		a.Logger.WarnContext(ctx, "router answer is not a RouterResult; the agent decides", "err", err)
		a.Metrics.Count("RouterFallback", 1, nil)
		return a.gate(ctx, in.Turn, a.intentTools(in.Turn.Mode, a.fallbackRoute("router answer unreadable"))), nil
	}
	if decided != nil {
		// The route was acted on when its governing fields arrived; the
		// rest of the answer only completes it.
		r = withGoverning(r, *decided)
	}
	r = a.normalizeRoute(r, editable)
	out := a.gate(ctx, in.Turn, a.intentTools(in.Turn.Mode, workflow.RouteOutput{Path: pathOf(r), Result: r}))
	a.Logger.InfoContext(ctx, "routed", "intent", r.Intent, "path", out.Path, "candidates", r.CandidateTools,
		"tools", out.Tools, "tier", r.ModelTier, "mode", in.Turn.Mode, "early", decided != nil)
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

// routerEarly reads the route from the start of a streamed router answer:
// ok once every field governing its path has streamed, after which the
// route stands whatever follows (issue 29). The route line holds the
// intent, tier and safety flags; the agent path also needs its tools and
// what validation expects, the first fields of the JSON after the line.
// A clarify needs its question, which comes last: it is never decided
// early. An answer without a route line is read as JSON (routerPrefix).
func routerEarly(sofar string) (workflow.RouterResult, bool) {
	if body := llm.StripFence(sofar); !workflow.HasRouteLine(body) {
		return routerPrefix(body)
	}
	r, rest, ok := workflow.RouteLine(sofar)
	if !ok || r.ClarifyNeeded {
		return workflow.RouterResult{}, false
	}
	if pathOf(r) != workflow.PathAgent {
		return r, true
	}
	if i := strings.IndexByte(rest, '{'); i > 0 {
		rest = rest[i:] // what a model may write before the object ("2.")
	}
	var d workflow.RouterResult
	if fields, ok := jsonHead(rest, &d); !ok || fields["expectedMode"] == nil || fields["candidateTools"] == nil {
		return workflow.RouterResult{}, false
	}
	r.ExpectedMode, r.CandidateTools = d.ExpectedMode, d.CandidateTools
	return r, true
}

// routerGoverning are the fields of a router answer given as one JSON
// object that decide the route, by path: whether it asks back and the
// intent decide the path; the safety flags may decline it or add a notice
// (issue 28), so every path waits for them; the chat path's call needs its
// tier too, the agent path's also its tools and what validation expects.
var routerGoverning = map[string][]string{
	workflow.PathBuild: {"intent", "clarifyNeeded", "safetyFlags"},
	workflow.PathChat:  {"intent", "clarifyNeeded", "safetyFlags", "modelTier"},
	workflow.PathAgent: {"intent", "clarifyNeeded", "safetyFlags", "modelTier", "expectedMode", "candidateTools"},
}

// routerPrefix reads the route from the start of a router answer given as
// one JSON object: ok once every field governing its path is complete.
func routerPrefix(body string) (workflow.RouterResult, bool) {
	var r workflow.RouterResult
	fields, ok := jsonHead(body, &r)
	if !ok || fields["clarifyNeeded"] == nil || r.ClarifyNeeded || r.Intent == workflow.IntentClarify {
		return workflow.RouterResult{}, false
	}
	for _, k := range routerGoverning[pathOf(r)] {
		if _, ok := fields[k]; !ok {
			return workflow.RouterResult{}, false
		}
	}
	return r, true
}

// jsonHead decodes the complete top-level fields of a JSON object streamed
// so far into v (the object is cut after its last complete field and
// closed), and returns them by name.
func jsonHead(sofar string, v any) (map[string]json.RawMessage, bool) {
	cut := lastTopLevelComma(sofar)
	if cut < 0 {
		return nil, false
	}
	head := sofar[:cut] + "}"
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(head), &fields) != nil || json.Unmarshal([]byte(head), v) != nil {
		return nil, false
	}
	return fields, true
}

// lastTopLevelComma is the index of the last comma between two fields of
// the outermost JSON object in s, or -1.
func lastTopLevelComma(s string) int {
	last, depth, inString, escaped := -1, 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 1:
			last = i
		}
	}
	return last
}

// withGoverning is the full answer r with the governing fields of the
// route decided early: what was acted on stands (a field the path did not
// need is the full answer's).
func withGoverning(r, early workflow.RouterResult) workflow.RouterResult {
	r.Intent, r.ClarifyNeeded = early.Intent, early.ClarifyNeeded
	switch pathOf(early) {
	case workflow.PathAgent:
		r.ModelTier, r.ExpectedMode, r.CandidateTools = early.ModelTier, early.ExpectedMode, early.CandidateTools
	case workflow.PathChat:
		r.ModelTier = early.ModelTier
	}
	return r
}
