package agent

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Start is the conversation workflow's Route step (issue 29): the router
// and, on the chat and agent paths, the agent's first round, so that the
// teacher's first words do not wait for the router's whole answer. The
// first round starts alongside the router on a guessed route (the
// session's last one, or a direct answer); nothing it does is seen (no
// event, no record) until the router's governing fields have streamed.
// When the decided route asks for the very call that was guessed, the
// round goes on and is the turn's first round; otherwise it is cancelled,
// its tokens are counted as wasted, and the decided round runs. Either
// way the router decides: tools, tier and what validation expects are the
// decided route's. AgentTurn takes the round from RouteOutput.First.
func (a *Agent) Start(ctx context.Context, in workflow.RouteInput) (workflow.RouteOutput, error) {
	ctx = a.withHistoryOnce(ctx, in.Turn)
	guess, stored := a.guessRoute(ctx, in.Turn)
	first := workflow.AgentInput{Turn: in.Turn, Route: guess, Attempt: 1, Prev: workflow.AgentOutput{ToolCalls: []workflow.ToolCallRef{}}}
	g := &gate{done: make(chan struct{})}
	sctx, cancel := context.WithCancel(llm.WithSpeculative(ctx))
	defer cancel()
	spec := *a
	model := &llm.Tally{Streamer: a.Model}
	spec.Model, spec.held, spec.Store = model, g, gatedStore{a.Store, g}
	done := make(chan turnResult, 1)
	go func() {
		out, err := spec.Turn(sctx, first)
		done <- turnResult{out, err}
	}()

	var decided chan turnResult // the decided round, once started
	runDecided := func(r workflow.RouteOutput) {
		if r.Path != workflow.PathChat && r.Path != workflow.PathAgent {
			return // clarify and build have steps of their own
		}
		decided = make(chan turnResult, 1)
		in := first
		in.Route = r
		go func() {
			out, err := a.Turn(ctx, in)
			decided <- turnResult{out, err}
		}()
	}
	route, err := a.route(ctx, in, func(r workflow.RouteOutput) {
		// The governing fields are in: a wrong guess gives way at once.
		if g.open(a.sameCall(guess, r)); !g.keep {
			cancel()
			runDecided(r)
		}
	})
	if g.open(err == nil && a.sameCall(guess, route)); !g.keep {
		cancel()
		if err == nil && decided == nil {
			runDecided(route)
		}
	}
	res := <-done
	if decided != nil {
		res = <-decided
	}
	if err != nil {
		return route, err
	}
	if !stored || !a.sameCall(guess, route) {
		a.rememberRoute(ctx, in.Turn, route) // an unchanged guess is not written again
	}
	if g.keep {
		a.Metrics.Count("Speculation", 1, map[string]string{"outcome": "kept"})
	} else {
		a.wasted(ctx, in.Turn, guess, route, model)
	}
	if decided == nil && !g.keep {
		return route, nil // no round: clarify or build
	}
	if res.err != nil {
		return route, res.err
	}
	route.First = &res.out
	return route, nil
}

type turnResult struct {
	out workflow.AgentOutput
	err error
}

// firstRound is the round the Route step ran (Start), taken by AgentTurn
// in place of calling the model again.
func firstRound(in workflow.AgentInput) (workflow.AgentOutput, bool) {
	if in.Route.First == nil || in.Attempt != 1 || in.Prev.Next != "" || in.Prev.Round != 0 {
		return workflow.AgentOutput{}, false
	}
	return *in.Route.First, true
}

// sameCall reports whether a round on route b makes the very model call a
// round on route a makes and judges its answer the same way: the same
// path, tier, tools and expected mode. Only then may a round started on a
// guess stand for the decided one.
func (a *Agent) sameCall(x, y workflow.RouteOutput) bool {
	chatOrAgent := func(p string) bool { return p == workflow.PathChat || p == workflow.PathAgent }
	// A declined route is answered without the model, and notices go
	// before the answer (issue 28): the guessed round has neither.
	if y.Decline != "" || len(y.Notices) > 0 {
		return false
	}
	if x.Path != y.Path || !chatOrAgent(y.Path) || tierOf(x.Result.ModelTier) != tierOf(y.Result.ModelTier) {
		return false
	}
	if y.Path == workflow.PathChat {
		return true // no tools, no validation
	}
	names := func(r workflow.RouteOutput) []string {
		var ns []string
		for _, t := range a.toolDefs(r) {
			ns = append(ns, t.Name)
		}
		return ns
	}
	return x.Result.ExpectedMode == y.Result.ExpectedMode && slices.Equal(names(x), names(y))
}

// lastRouteKey keeps a session's last chat or agent route: the next turn's
// guess (a teacher who asked for a quiz tends to ask for another).
const lastRouteKey = "route/last"

// guessRoute is the route the first round starts on: the session's last
// chat or agent route (stored true), else a direct answer (the mode's
// intent step applied, so a strict turn guesses guide_user).
func (a *Agent) guessRoute(ctx context.Context, t workflow.Turn) (guess workflow.RouteOutput, stored bool) {
	var last workflow.RouteOutput
	if found, err := getJSON(ctx, a.Store, t.SessionID, lastRouteKey, &last); err == nil && found {
		return last, true
	}
	return a.intentTools(t.Mode, workflow.RouteOutput{Path: workflow.PathChat, Result: workflow.RouterResult{
		Intent: workflow.IntentQA, CandidateTools: []string{}, ModelTier: string(llm.TierStandard),
		ExpectedMode: workflow.ExpectAnswer, SafetyFlags: []string{}}}), false
}

// rememberRoute keeps the decided route for the next turn's guess: the
// call it makes, not what this turn alone was told (its notices) or how it
// was answered (a decline is this message's, never the next one's). A
// failure only costs the next turn its guess.
func (a *Agent) rememberRoute(ctx context.Context, t workflow.Turn, r workflow.RouteOutput) {
	if r.Path != workflow.PathChat && r.Path != workflow.PathAgent || r.Decline != "" {
		return
	}
	r.First, r.Notices = nil, nil
	if err := putJSON(ctx, a.Store, t.SessionID, lastRouteKey, r); err != nil {
		a.Logger.WarnContext(ctx, "could not keep the route for the next guess", "err", err)
	}
}

// wasted reports the tokens of a discarded first round: a log attribute
// and the SpeculationWastedTokens metric. The call was cancelled before
// the model reported its usage, so they are llm.Tally's estimate (the
// same estimate llm.Metered meters against the teacher: the tokens were
// spent).
func (a *Agent) wasted(ctx context.Context, t workflow.Turn, guess, route workflow.RouteOutput, m *llm.Tally) {
	u := m.Estimate()
	prompt, answer := u.PromptTokens, u.CompletionTokens
	n := prompt + answer
	a.Metrics.Count("Speculation", 1, map[string]string{"outcome": "discarded"})
	a.Metrics.Count("SpeculationWastedTokens", float64(n), nil)
	a.Logger.InfoContext(ctx, "speculative first round discarded", "turn", t.TurnID,
		"guessPath", guess.Path, "guessTier", guess.Result.ModelTier, "path", route.Path, "tier", route.Result.ModelTier,
		"wastedTokens", n, "wastedPromptTokens", prompt, "wastedAnswerTokens", answer)
}

// errDiscarded ends a first round started on a guess the router did not
// confirm.
var errDiscarded = errors.New("agent: speculative round discarded")

// gate holds a speculative round's effects until the route is decided.
type gate struct {
	once sync.Once
	done chan struct{}
	keep bool // set before done closes
}

// open decides the round's fate; the first call wins.
func (g *gate) open(keep bool) {
	g.once.Do(func() {
		g.keep = keep
		close(g.done)
	})
}

func (g *gate) wait(ctx context.Context) error {
	select {
	case <-g.done:
		if g.keep {
			return nil
		}
		return errDiscarded
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gatedStore writes a speculative round's records once it is kept.
type gatedStore struct {
	session.Store
	g *gate
}

func (s gatedStore) PutRecord(ctx context.Context, sessionID, key string, value []byte) error {
	if err := s.g.wait(ctx); err != nil {
		return err
	}
	return s.Store.PutRecord(ctx, sessionID, key, value)
}
