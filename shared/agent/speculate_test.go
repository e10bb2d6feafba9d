package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// waitBound bounds a fake's wait for the other call of a turn: a bound,
// not a measure (a failure to overlap fails the test, it does not slow it).
const waitBound = 10 * time.Second

// overlapModel plays the router and the agent at once, as a real model
// does: a call with the router's prompt is the router, any other the agent. The router
// streams its governing fields only once an agent call has started (so a
// first round that waited for the route would never get them), and the
// rest of its answer only once text reached the log (so the teacher's
// first words did not wait for the whole route), when waitText is set.
type overlapModel struct {
	route    string // the router's answer; its first cut bytes are the governing fields
	cut      int
	agent    func(req llm.Request) modelReply
	waitText bool

	started chan struct{} // closed when the first agent call starts
	text    chan struct{} // closed when a text-delta reaches the log
	mu      sync.Mutex
	agents  []llm.Request
	once    sync.Once
}

func newOverlapModel(route string, cut int, agent func(llm.Request) modelReply) *overlapModel {
	return &overlapModel{route: route, cut: cut, agent: agent, started: make(chan struct{}), text: make(chan struct{})}
}

func (m *overlapModel) wait(ctx context.Context, ch chan struct{}, what string) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(waitBound):
		return errors.New("overlapModel: " + what + " never happened")
	}
}

func (m *overlapModel) Stream(ctx context.Context, req llm.Request, h llm.Handler) (llm.Response, error) {
	if strings.HasPrefix(req.Messages[0].Content, prompts.RouterHeader) {
		if err := m.wait(ctx, m.started, "an agent call alongside the router"); err != nil {
			return llm.Response{}, err
		}
		if h.OnContent != nil {
			if err := h.OnContent(m.route[:m.cut]); err != nil {
				return llm.Response{}, err
			}
		}
		if m.waitText {
			if err := m.wait(ctx, m.text, "the first words before the route's end"); err != nil {
				return llm.Response{}, err
			}
		}
		if h.OnContent != nil {
			if err := h.OnContent(m.route[m.cut:]); err != nil {
				return llm.Response{}, err
			}
		}
		return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: m.route}, FinishReason: "stop"}, nil
	}
	m.mu.Lock()
	m.agents = append(m.agents, req)
	r := m.agent(req)
	m.mu.Unlock()
	m.once.Do(func() { close(m.started) })
	s := &scriptedModel{replies: []modelReply{r}, fragSize: 4}
	return s.Stream(ctx, req, h)
}

const (
	routeQA   = "chat_qa standard\n" + `{"expectedMode":"answer","candidateTools":[],"confidence":0.9,"strategy":"answer directly"}`
	routeQuiz = "quiz_generate standard\n" + `{"expectedMode":"artifact","candidateTools":["generate_quiz_questions"],"confidence":0.9,"strategy":"quiz"}`
	routeAsk  = "clarify fast\n" + `{"expectedMode":"clarify","candidateTools":[],"confidence":0.5,"strategy":"ask","clarify":{"question":"Which class?"}}`
	// routeQAJSON is routeQA as one JSON object, as a model that leaves out
	// the route line answers.
	routeQAJSON = `{"intent":"chat_qa","modelTier":"standard","clarifyNeeded":false,"safetyFlags":[],"expectedMode":"answer","candidateTools":[],"confidence":0.9,"strategy":"answer directly"}`
)

// governed is the length of a route's governing fields on its path, up to
// the comma before the field after them.
func governed(route, next string) int { return strings.Index(route, `,"`+next+`"`) + 1 }

// lineEnd is the length of a route's line: what governs a direct answer.
func lineEnd(route string) int { return strings.Index(route, "\n") + 1 }

// harmfulQA is routeQA flagged harmful.
var harmfulQA = strings.Replace(routeQA, "chat_qa standard\n", "chat_qa standard harmful\n", 1)

func answerOrQuiz(req llm.Request) modelReply {
	if len(req.Tools) == 0 {
		return modelReply{content: "Photosynthesis turns light into chemical energy."}
	}
	return modelReply{calls: []llm.ToolCall{toolCall("call_1", "generate_quiz_questions", `{}`)}}
}

func hasTool(req llm.Request, name string) bool {
	for _, t := range req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func TestStartKeepsAConfirmedGuess(t *testing.T) {
	for _, c := range []struct {
		name, route string
		cut         int
	}{
		{"a route line", routeQA, lineEnd(routeQA)},
		{"one JSON object", routeQAJSON, governed(routeQAJSON, "expectedMode")},
	} {
		t.Run(c.name, func(t *testing.T) { testStartKeepsAConfirmedGuess(t, c.route, c.cut) })
	}
}

func testStartKeepsAConfirmedGuess(t *testing.T, route string, cut int) {
	m := newOverlapModel(route, cut, answerOrQuiz)
	m.waitText = true
	f := newFixture(t, &scriptedModel{})
	f.agent.Model = m
	f.agent.Log = &textSignal{Appender: f.log, ch: m.text}
	ctx := context.Background()
	out, err := f.agent.Start(ctx, workflow.RouteInput{Turn: f.turn})
	if err != nil {
		t.Fatal(err)
	}
	if out.Path != workflow.PathChat || out.First == nil || out.First.Next != workflow.NextReply {
		t.Fatalf("route %+v, first %+v; want the chat path with its reply", out, out.First)
	}
	if out.Result.Strategy != "answer directly" || out.Result.Confidence != 0.9 {
		t.Errorf("the rest of the router's answer was lost: %+v", out.Result)
	}
	if len(m.agents) != 1 {
		t.Errorf("%d agent calls, want the one started alongside the router", len(m.agents))
	}
	got, _ := text(f.chunks(t))
	if got != "Photosynthesis turns light into chemical energy." {
		t.Errorf("text %q", got)
	}
	if f.metrics["SpeculationWastedTokens"] != 0 {
		t.Errorf("a kept round counted %v wasted tokens", f.metrics["SpeculationWastedTokens"])
	}
	// AgentTurn takes the round the Route step ran: no second model call.
	round, err := f.agent.Turn(ctx, workflow.AgentInput{Turn: f.turn, Route: out, Attempt: 1,
		Prev: workflow.AgentOutput{ToolCalls: []workflow.ToolCallRef{}}})
	if err != nil || round.Next != workflow.NextReply || len(m.agents) != 1 {
		t.Errorf("AgentTurn: %+v, %v, %d agent calls; want the first round as it was", round, err, len(m.agents))
	}
}

func TestStartDiscardsAGuessTheRouterOverrules(t *testing.T) {
	m := newOverlapModel(routeQuiz, governed(routeQuiz, "confidence"), answerOrQuiz)
	f := newFixture(t, &scriptedModel{})
	f.agent.Model = m
	route, err := f.agent.Start(context.Background(), workflow.RouteInput{Turn: f.turn})
	if err != nil {
		t.Fatal(err)
	}
	if route.Path != workflow.PathAgent || route.First == nil || route.First.Next != workflow.NextTools {
		t.Fatalf("route %+v, first %+v; want the agent path's tool round", route, route.First)
	}
	if len(m.agents) != 2 || len(m.agents[0].Tools) != 0 || !hasTool(m.agents[1], "generate_quiz_questions") {
		t.Fatalf("agent calls %d; want the guessed chat call, then the router's with the quiz tool", len(m.agents))
	}
	if got, _ := text(f.chunks(t)); got != "" {
		t.Errorf("the discarded round reached the teacher: %q", got)
	}
	if f.metrics["SpeculationWastedTokens"] <= 0 {
		t.Error("the discarded round's tokens were not counted")
	}
	// The next turn of the session guesses the route decided here.
	m2 := newOverlapModel(routeQuiz, governed(routeQuiz, "confidence"), answerOrQuiz)
	f.agent.Model = m2
	if err := f.store.EndTurn(context.Background(), "s-1", "u-1", session.TurnCompleted, session.Outcome{Text: "5 questions"}); err != nil {
		t.Fatal(err)
	}
	f.turn = f.beginTurn(t, "u-2", "再出5道")
	wasted := f.metrics["SpeculationWastedTokens"]
	if _, err := f.agent.Start(context.Background(), workflow.RouteInput{Turn: f.turn}); err != nil {
		t.Fatal(err)
	}
	if len(m2.agents) != 1 || !hasTool(m2.agents[0], "generate_quiz_questions") || f.metrics["SpeculationWastedTokens"] != wasted {
		t.Errorf("second turn: %d agent calls; want one, guessed from the last route", len(m2.agents))
	}
}

func TestStartClarifyRunsNoRound(t *testing.T) {
	m := newOverlapModel(routeAsk, len(routeAsk), answerOrQuiz)
	f := newFixture(t, &scriptedModel{})
	f.agent.Model = m
	route, err := f.agent.Start(context.Background(), workflow.RouteInput{Turn: f.turn})
	if err != nil {
		t.Fatal(err)
	}
	if route.Path != workflow.PathClarify || route.First != nil {
		t.Errorf("route %+v, first %+v; want clarify without a round", route, route.First)
	}
	if cs := f.chunks(t); len(cs) != 0 {
		t.Errorf("the discarded round left %v on the stream", types(cs))
	}
}

// TestStartHarmfulKeepsNoGuess: the safety flags are among the governing
// fields (issue 28): a request the router flags harmful never shows the
// round guessed for it, even when its path and tier match the guess; the
// teacher reads the decline once, and AgentTurn adds nothing.
func TestStartHarmfulKeepsNoGuess(t *testing.T) {
	m := newOverlapModel(harmfulQA, lineEnd(harmfulQA), answerOrQuiz)
	f := newFixture(t, &scriptedModel{})
	f.agent.Model = m
	ctx := context.Background()
	route, err := f.agent.Start(ctx, workflow.RouteInput{Turn: f.turn})
	if err != nil {
		t.Fatal(err)
	}
	if route.Decline != workflow.DeclineHarmful {
		t.Fatalf("route %+v; want declined as harmful", route)
	}
	answer, _ := text(f.chunks(t))
	if strings.Contains(answer, "Photosynthesis") || answer == "" {
		t.Fatalf("text %q; want the decline, not the guessed round's answer", answer)
	}
	if _, err := f.agent.Turn(ctx, workflow.AgentInput{Turn: f.turn, Route: route, Attempt: 1,
		Prev: workflow.AgentOutput{ToolCalls: []workflow.ToolCallRef{}}}); err != nil {
		t.Fatal(err)
	}
	if again, _ := text(f.chunks(t)); again != answer {
		t.Errorf("after AgentTurn the text is %q; want the decline once: %q", again, answer)
	}
	if f.metrics["SafetyFlag"] != 1 {
		t.Errorf("SafetyFlag counted %v times, want once", f.metrics["SafetyFlag"])
	}
}

// TestStartGuessCarriesNoDecline: the next turn after a declined one is
// guessed from the call, never from the decline: an innocent message that
// follows a harmful one gets its answer, not the refusal again.
func TestStartGuessCarriesNoDecline(t *testing.T) {
	f := newFixture(t, &scriptedModel{})
	f.agent.Model = newOverlapModel(harmfulQA, lineEnd(harmfulQA), answerOrQuiz)
	ctx := context.Background()
	if _, err := f.agent.Start(ctx, workflow.RouteInput{Turn: f.turn}); err != nil {
		t.Fatal(err)
	}
	if err := f.store.EndTurn(ctx, "s-1", "u-1", session.TurnCompleted, session.Outcome{Text: "declined"}); err != nil {
		t.Fatal(err)
	}
	f.turn = f.beginTurn(t, "u-2", "What is photosynthesis?")
	f.agent.Model = newOverlapModel(routeQA, lineEnd(routeQA), answerOrQuiz)
	route, err := f.agent.Start(ctx, workflow.RouteInput{Turn: f.turn})
	if err != nil {
		t.Fatal(err)
	}
	if route.Decline != "" || route.First == nil || route.First.Next != workflow.NextReply {
		t.Fatalf("route %+v, first %+v; want the chat path's answer", route, route.First)
	}
	if got, _ := text(f.chunks(t)); got != "Photosynthesis turns light into chemical energy." {
		t.Errorf("second turn's text %q, want the answer", got)
	}
}

// listCounter counts the session store's ListTurns calls.
type listCounter struct {
	session.Store
	mu    sync.Mutex
	lists int
}

func (s *listCounter) ListTurns(ctx context.Context, sessionID string) ([]session.Turn, error) {
	s.mu.Lock()
	s.lists++
	s.mu.Unlock()
	return s.Store.ListTurns(ctx, sessionID)
}

// requestLog records the requests of the model it wraps.
type requestLog struct {
	llm.Streamer
	mu   sync.Mutex
	reqs []llm.Request
}

func (m *requestLog) Stream(ctx context.Context, req llm.Request, h llm.Handler) (llm.Response, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	return m.Streamer.Stream(ctx, req, h)
}

// TestStartReadsTheHistoryOnce: the router and the first round started
// alongside it prompt with the same history summary, read from the store
// once (issue 29 item 3), also when the guessed round is discarded and the
// decided one runs.
func TestStartReadsTheHistoryOnce(t *testing.T) {
	for _, c := range []struct {
		name, route string
		cut, calls  int
	}{
		{"the guess kept", routeQA, lineEnd(routeQA), 2},
		{"the guess discarded", routeQuiz, governed(routeQuiz, "confidence"), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, &scriptedModel{})
			ctx := context.Background()
			if err := f.store.EndTurn(ctx, "s-1", "u-1", session.TurnCompleted, session.Outcome{Text: "5 questions"}); err != nil {
				t.Fatal(err)
			}
			f.turn = f.beginTurn(t, "u-2", "再出5道")
			store := &listCounter{Store: f.store}
			model := &requestLog{Streamer: newOverlapModel(c.route, c.cut, answerOrQuiz)}
			f.agent.Store, f.agent.Model = store, model
			if _, err := f.agent.Start(ctx, workflow.RouteInput{Turn: f.turn}); err != nil {
				t.Fatal(err)
			}
			if store.lists != 1 {
				t.Errorf("the turns were listed %d times, want once", store.lists)
			}
			if len(model.reqs) != c.calls {
				t.Fatalf("%d model calls, want %d", len(model.reqs), c.calls)
			}
			for i, req := range model.reqs {
				if len(req.Messages) < 2 || !strings.HasPrefix(req.Messages[1].Content, prompts.HistoryHeader) ||
					!strings.Contains(req.Messages[1].Content, "Assistant: 5 questions") {
					t.Errorf("call %d has no history summary: %+v", i, req.Messages)
				}
			}
		})
	}
}
