package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// interruptedTries bounds the calls of one round when the model's stream
// breaks after it started (the text already sent is never sent twice).
const interruptedTries = 2

// Turn is the AgentTurn step: one streamed model round of the agent loop (or
// the chat path's single answer). It returns the tool calls to run, or
// "final" once the agent called final_result, or "reply" for a chat answer.
func (a *Agent) Turn(ctx context.Context, in workflow.AgentInput) (workflow.AgentOutput, error) {
	if out, ok := firstRound(in); ok {
		return out, nil // the Route step ran it (Start), a declined turn's answer too
	}
	if in.Route.Decline != "" {
		return a.declined(ctx, in) // issue 28
	}
	chat := in.Route.Path == workflow.PathChat
	mode := in.Turn.Mode.Or(workflow.ModeNatural)
	system := prompts.AgentFor(string(mode))
	if chat {
		system = prompts.ChatFor(string(mode))
	}
	if slices.Contains(in.Route.Result.SafetyFlags, prompts.SafetyPrivacy) {
		system += prompts.PrivacyNote // issue 28
	}
	hist, err := a.attemptHistory(ctx, in, system)
	if err != nil {
		return workflow.AgentOutput{}, err
	}
	// The round's boundaries ride with its first and last text (stepEmitter).
	em := &stepEmitter{em: a.stream(in.Turn.TurnID), gate: a.held}
	if in.Prev.Next == workflow.NextTools {
		em.Hold(protocol.FinishStep{})
	}
	em.Hold(protocol.StartStep{})
	if in.Attempt == 1 && in.Prev.Round == 0 {
		for _, n := range in.Route.Notices { // issue 28: before the answer
			em.Hold(n.Chunk())
		}
	}
	out, err := a.round(ctx, in, hist, em, chat, mode)
	// What is still held goes out whether or not the round failed: a
	// stream that ends in an error still has its step's start.
	if ferr := em.Flush(ctx); err == nil {
		err = ferr
	}
	return out, err
}

// round runs the model round of Turn on its history, emitting to em.
func (a *Agent) round(ctx context.Context, in workflow.AgentInput, hist []llm.Message, em *stepEmitter, chat bool, mode workflow.ChatMode) (workflow.AgentOutput, error) {
	round := in.Prev.Round + 1
	r := &modelRound{a: a, in: in, chat: chat, mode: mode, round: round, em: em, message: llm.PartialField{Field: "message"},
		text:      newTextWriter(em, fmt.Sprintf("text-%d-%d", in.Attempt, round), a.TextFlush, a.Now),
		reasoning: newReasoningWriter(em, fmt.Sprintf("reasoning-%d-%d", in.Attempt, round), a.TextFlush, a.Now)}
	if !chat {
		recs, err := a.attemptTools(ctx, in.Turn.SessionID, in.Turn.TurnID, in.Attempt)
		if err != nil {
			return workflow.AgentOutput{}, err
		}
		r.evidence = a.evidence(recs)
	}
	resp, err := r.call(ctx, hist)
	if err != nil {
		return workflow.AgentOutput{}, err
	}
	hist = append(hist, resp.Message)
	if err := a.saveHistory(ctx, in.Turn.SessionID, in.Turn.TurnID, in.Attempt, hist); err != nil {
		return workflow.AgentOutput{}, err
	}
	return r.conclude(ctx, resp.Message)
}

// modelRound is the state of one model round.
type modelRound struct {
	a         *Agent
	in        workflow.AgentInput
	chat      bool
	mode      workflow.ChatMode
	round     int
	em        *stepEmitter
	text      *textWriter
	reasoning *textWriter
	evidence  Evidence

	drafts        map[string]*draft // the tool calls shown while written, by call id
	announced     map[string]string // the calls whose running progress is shown: id → name
	ext           llm.TextExtractor // across interrupted tries: nothing is sent twice
	message       llm.PartialField  // final_result's message, decoded as it grows
	reasoningSent string            // the reasoning already sent, across tries
	decided       bool              // the final_result status has been seen
	live          bool              // the message streams as it arrives
}

func (r *modelRound) call(ctx context.Context, hist []llm.Message) (llm.Response, error) {
	req := llm.Request{Tier: tierOf(r.in.Route.Result.ModelTier), Messages: hist}
	if !r.chat {
		req.Tools = r.a.toolDefs(r.in.Route)
		if r.round >= r.a.MaxRounds {
			req.ToolChoice = llm.ToolChoice{Tool: prompts.FinalResultTool}
		}
	}
	var lastErr error
	for try := 0; try < interruptedTries; try++ {
		// Builders, not +=: an answer of n deltas costs O(n), and the prefix
		// checks of feedReasoning and Feed compare a string with itself
		// (same bytes, same address) until a builder grows.
		var content, reasoning strings.Builder
		h := llm.Handler{
			OnReasoning: func(d string) error {
				reasoning.WriteString(d)
				return r.feedReasoning(ctx, reasoning.String())
			},
			OnContent: func(d string) error {
				if !r.chat {
					return nil // the agent speaks through final_result only
				}
				content.WriteString(d)
				if err := r.reasoning.End(ctx); err != nil {
					return err
				}
				return r.text.Write(ctx, r.ext.Feed(content.String()))
			},
			OnToolCall: func(_ int, id, name, args string) error {
				if err := r.reasoning.End(ctx); err != nil {
					return err
				}
				if name != prompts.FinalResultTool {
					if err := r.announce(ctx, id, name); err != nil {
						return err
					}
					return r.feedDraft(ctx, id, name, args)
				}
				return r.feedFinal(ctx, args)
			},
		}
		resp, err := r.a.Model.Stream(ctx, req, h)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		if !errors.Is(err, llm.ErrInterrupted) || ctx.Err() != nil {
			break
		}
		r.a.Logger.WarnContext(ctx, "model stream interrupted; calling again", "try", try+1, "err", err)
	}
	return llm.Response{}, fmt.Errorf("agent: model round %d: %w", r.round, lastErr)
}

// feedReasoning streams the reasoning so far, the part not yet sent: a
// call repeated after an interrupted stream sends nothing twice.
func (r *modelRound) feedReasoning(ctx context.Context, sofar string) error {
	if len(sofar) <= len(r.reasoningSent) || !strings.HasPrefix(sofar, r.reasoningSent) {
		return nil
	}
	d := sofar[len(r.reasoningSent):]
	r.reasoningSent = sofar
	return r.reasoning.Write(ctx, d)
}

// announce shows a tool call's data-tool-progress (running) as soon as its
// id and name have arrived, before its arguments are written (issue 29):
// on a quiz or a deck the teacher sees the work start while the model
// writes it. The tool step, told by ToolCallRef.Announced, does not repeat it.
func (r *modelRound) announce(ctx context.Context, id, name string) error {
	if _, done := r.announced[id]; id == "" || name == "" || done {
		return nil
	}
	if _, ok := r.a.Tools.Get(name); !ok {
		return nil // an unknown tool is refused by the tool step, shown there
	}
	if r.announced == nil {
		r.announced = map[string]string{}
	}
	r.announced[id] = name
	return r.a.progress(ctx, r.em, workflow.ToolCallRef{ID: id, Name: name}, r.a.running(r.in.Turn, name))
}

// unannounce ends the progress of the calls shown running that the round
// ends without running (final_result came with them).
func (r *modelRound) unannounce(ctx context.Context) error {
	for _, id := range slices.Sorted(maps.Keys(r.announced)) {
		p := protocol.ToolProgress{Status: protocol.ToolEmpty, Message: i18n.Of(r.in.Turn.Language, r.in.Turn.Message).Text(i18n.ToolNotRun)}
		if err := r.a.progress(ctx, r.em, workflow.ToolCallRef{ID: id, Name: r.announced[id]}, p); err != nil {
			return err
		}
	}
	return nil
}

// draft is one tool call shown while the model writes its arguments.
type draft struct {
	d    tools.Drafter
	part string
	read int // the length of the arguments last read
}

// draftStep is how much a call's arguments grow before they are read
// again: at least draftMin bytes, and an eighth of what is there, so that a
// long page costs a few dozen reads, not one per fragment.
const draftMin = 256

// feedDraft shows a tool call's work while the model writes it (a tool
// with a Drafter: an interactive page's plan and progress), as the tool's
// Drafts part with the call's id, so that the tool's own parts follow
// under the same id.
func (r *modelRound) feedDraft(ctx context.Context, id, name, args string) error {
	if id == "" {
		return nil
	}
	st := r.drafts[id]
	if st == nil {
		t, ok := r.a.Tools.Get(name)
		if !ok || t.NewDrafter == nil {
			return nil
		}
		st = &draft{d: t.NewDrafter(), part: t.Drafts, read: -draftMin}
		if r.drafts == nil {
			r.drafts = map[string]*draft{}
		}
		r.drafts[id] = st
	}
	if len(args)-st.read < max(draftMin, st.read/8) {
		return nil
	}
	st.read = len(args)
	payload, changed := st.d.Draft(args)
	if !changed {
		return nil
	}
	d, err := protocol.NewData(st.part, id, payload)
	if err != nil {
		return err
	}
	return r.em.Emit(ctx, d)
}

// feedFinal streams FinalResult.message out of the final_result arguments as
// they arrive, once the status shows the result will be accepted.
func (r *modelRound) feedFinal(ctx context.Context, args string) error {
	if !r.decided {
		status, done := llm.PartialString(args, "status")
		if !done {
			return nil
		}
		r.decided = true
		// A clarify question is shown with its options, after validation.
		r.live = status != StatusClarifyNeeded && r.accepts(FinalResult{Status: status, Message: "-"})
	}
	if !r.live {
		return nil
	}
	msg, _ := r.message.Value(args)
	return r.text.Write(ctx, r.ext.Feed(msg))
}

func (r *modelRound) accepts(f FinalResult) bool {
	err := CheckAttempt(f, r.evidence, r.in.Route.Result.ExpectedMode, r.mode)
	return accepted(Decide(err, r.in.Attempt))
}

// answerText is the text a round answered with: its content, or, when a
// reasoning model put its reply in reasoning_content and left the content
// empty, the reasoning promoted to the answer (seed 003 §1.2), so that the
// teacher never gets an empty reply.
func (r *modelRound) answerText(ctx context.Context, m llm.Message, content string) string {
	if strings.TrimSpace(content) != "" || strings.TrimSpace(m.ReasoningContent) == "" {
		return content
	}
	r.a.Logger.InfoContext(ctx, "reasoning promoted to the answer", "turn", r.in.Turn.TurnID, "round", r.round)
	r.a.Metrics.Count("ReasoningPromoted", 1, map[string]string{"mode": string(r.mode)})
	return m.ReasoningContent
}

// conclude turns the model's message into the step's output.
func (r *modelRound) conclude(ctx context.Context, m llm.Message) (workflow.AgentOutput, error) {
	out := workflow.AgentOutput{Round: r.round, ToolCalls: []workflow.ToolCallRef{}}
	if err := r.reasoning.End(ctx); err != nil {
		return out, err
	}
	if r.chat {
		text := r.answerText(ctx, m, m.Content)
		if err := r.finishText(ctx, text, true); err != nil {
			return out, err
		}
		out.Next = workflow.NextReply
		return out, r.record(ctx, finalRecord{Result: FinalResult{Status: StatusAnswerReady, Message: text},
			TextID: r.text.id, TextEmitted: true})
	}
	var final *llm.ToolCall
	for i, c := range m.ToolCalls {
		if c.Function.Name == prompts.FinalResultTool {
			final = &m.ToolCalls[i]
			break
		}
		out.ToolCalls = append(out.ToolCalls, workflow.ToolCallRef{ID: c.ID, Name: c.Function.Name, Announced: r.announced[c.ID] != "",
			File: r.a.Tools.DeliversFile(c.Function.Name)})
	}
	if final == nil && len(out.ToolCalls) > 0 && r.round < r.a.MaxRounds+1 {
		out.Next = workflow.NextTools
		return out, nil
	}
	if err := r.unannounce(ctx); err != nil {
		return out, err
	}
	rec := finalRecord{TextID: r.text.id}
	if final != nil {
		rec.Result, rec.Malformed = parseFinal(final.Function.Arguments)
		if rec.Malformed == "" && rec.Result.Status == StatusAnswerReady {
			rec.Result.Message = r.answerText(ctx, m, rec.Result.Message)
		}
	} else {
		// A model that answers in plain text is taken at its word.
		rec.Result = FinalResult{Status: StatusAnswerReady, Message: r.answerText(ctx, m, m.Content)}
	}
	show := rec.Malformed == "" && rec.Result.Status != StatusClarifyNeeded && r.accepts(rec.Result)
	if err := r.finishText(ctx, rec.Result.Message, show); err != nil {
		return out, err
	}
	rec.TextEmitted = r.text.started
	out.ToolCalls = []workflow.ToolCallRef{}
	out.Next = workflow.NextFinal
	return out, r.record(ctx, rec)
}

// finishText completes the text part: the rest of the message if it was
// streaming, all of it if it was held back and is now accepted.
func (r *modelRound) finishText(ctx context.Context, message string, show bool) error {
	if show {
		r.text.queue(r.ext.Feed(message))
	}
	// The rest of the text, its end and the step's end: one append.
	r.em.Hold(r.text.endChunks()...)
	if show && r.ext.Sent() != "" && r.ext.Sent() != message {
		// The model rewrote the message after part of it was shown, and a UI
		// stream cannot edit a text part: the teacher gets the final message
		// in full, as a part of its own after the stale one.
		r.a.Logger.WarnContext(ctx, "the model rewrote its message mid-stream", "turn", r.in.Turn.TurnID)
		fixed := newTextWriter(r.em, r.text.id+"-final", 0, r.a.Now)
		if err := fixed.Write(ctx, message); err != nil {
			return err
		}
		if err := fixed.End(ctx); err != nil {
			return err
		}
	}
	return r.em.Emit(ctx, protocol.FinishStep{})
}

func (r *modelRound) record(ctx context.Context, rec finalRecord) error {
	t := r.in.Turn
	return putJSON(ctx, r.a.Store, t.SessionID, finalKey(t.TurnID, r.in.Attempt), rec)
}

// attemptHistory loads the attempt's history, starting it when new: from the
// previous attempt's full history on the retry (seed 000 §7.3.2), fresh
// otherwise. After a tools round it appends the stored tool results.
func (a *Agent) attemptHistory(ctx context.Context, in workflow.AgentInput, system string) ([]llm.Message, error) {
	t := in.Turn
	h, ok, err := a.loadHistory(ctx, t.SessionID, t.TurnID, in.Attempt)
	if err != nil {
		return nil, err
	}
	if ok {
		if in.Prev.Next == workflow.NextTools && pendingCalls(h, in.Prev.ToolCalls) {
			return a.appendToolResults(ctx, in, h)
		}
		return h, nil
	}
	if in.Attempt > 1 {
		prev, ok, err := a.loadHistory(ctx, t.SessionID, t.TurnID, in.Attempt-1)
		if err != nil {
			return nil, err
		}
		if ok {
			return withRefusal(prev, in.Retry), nil
		}
	}
	return a.initialHistory(ctx, in, system), nil
}

// pendingCalls reports whether the history ends with the assistant message
// that made calls (and so still lacks their results).
func pendingCalls(h []llm.Message, calls []workflow.ToolCallRef) bool {
	if len(h) == 0 || len(calls) == 0 {
		return false
	}
	last := h[len(h)-1]
	return last.Role == llm.RoleAssistant && len(last.ToolCalls) > 0 && last.ToolCalls[0].ID == calls[0].ID
}

func (a *Agent) appendToolResults(ctx context.Context, in workflow.AgentInput, h []llm.Message) ([]llm.Message, error) {
	t := in.Turn
	for _, c := range in.Prev.ToolCalls {
		var rec toolRecord
		found, err := getJSON(ctx, a.Store, t.SessionID, toolKey(t.TurnID, in.Attempt, c.ID), &rec)
		if err != nil {
			return nil, err
		}
		content := rec.Output
		if !found {
			content = `{"error":"the tool did not run"}`
		}
		h = append(h, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: content})
	}
	return h, nil
}

// withRefusal continues a refused attempt's history: every call of its last
// message gets an answer, the final_result call the reason of the refusal.
func withRefusal(h []llm.Message, why *workflow.RetryReason) []llm.Message {
	reason := "the result was not accepted"
	if why != nil && why.Reason != "" {
		reason = why.Reason
	}
	note := fmt.Sprintf("%s %s. Call the tools you need (a claimed artifact must come from a tool in this attempt), then call final_result again.", prompts.RefusedPrefix, reason)
	h = append([]llm.Message(nil), h...)
	last := h[len(h)-1]
	if last.Role != llm.RoleAssistant || len(last.ToolCalls) == 0 {
		return append(h, llm.Message{Role: llm.RoleSystem, Content: note})
	}
	for _, c := range last.ToolCalls {
		content := "not run: final_result ended the round"
		if c.Function.Name == prompts.FinalResultTool {
			content = note
		}
		h = append(h, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Name: c.Function.Name, Content: content})
	}
	return h
}

// toolDefs is the agent's tool list: the tools the intent step chose for the
// chat mode (or, for a route without them, the base tools and the candidate
// generation tools) and final_result.
func (a *Agent) toolDefs(route workflow.RouteOutput) []llm.Tool {
	var defs []llm.Tool
	add := func(t tools.Tool) { defs = append(defs, t.Definition()) }
	if route.Tools == nil {
		for _, t := range a.Tools.ForTurn(route.Result.CandidateTools) {
			add(t)
		}
	}
	for _, n := range route.Tools {
		if t, ok := a.Tools.Get(n); ok {
			add(t)
		}
	}
	return append(defs, finalResultTool())
}

func finalResultTool() llm.Tool {
	return tools.Signature[FinalResult](prompts.FinalResultTool,
		"End the turn: call exactly once, after any tools, with what the teacher should read.")
}

func tierOf(s string) llm.Tier {
	switch t := llm.Tier(s); t {
	case llm.TierFast, llm.TierStandard, llm.TierStrong:
		return t
	}
	return llm.TierStandard
}

// parseFinal decodes final_result's arguments. Arguments that are not valid
// JSON as a whole but carry a complete status and message (a model that
// fumbled a later field) are taken for those two: the message may already
// have streamed to the teacher, and a retry would show it twice. A clarify
// question needs its payload, so it is not salvaged.
func parseFinal(args string) (FinalResult, string) {
	var r FinalResult
	err := json.Unmarshal([]byte(args), &r)
	if err == nil {
		return r, ""
	}
	status, sDone := llm.PartialString(args, "status")
	msg, mDone := llm.PartialString(args, "message")
	if sDone && mDone && status != StatusClarifyNeeded {
		return FinalResult{Status: status, Message: msg}, ""
	}
	return FinalResult{}, err.Error()
}
