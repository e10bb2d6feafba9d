package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/insightedge/insightedge/shared/limits"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/workflow"
)

// streamer is the scripted model as a whole llm.Model (the agent only
// streams).
type streamer struct{ *scriptedModel }

func (streamer) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errors.New("the agent streams")
}

// TestTokenBudgetMeteredFromUsage (issue 26): each model call of a turn is
// metered from the usage it reports, when it ends, by the metered model
// client against the turn's teacher (whom wire.Typed names in every step's
// context); the turn that crosses the day's budget finishes, its slot is
// freed, and the next is refused.
func TestTokenBudgetMeteredFromUsage(t *testing.T) {
	ctx := context.Background()
	m := &scriptedModel{fragSize: 50, replies: []modelReply{
		{content: `{"intent":"chat"}`, usage: llm.Usage{PromptTokens: 250, CompletionTokens: 50, TotalTokens: 300}},
		{content: answer, usage: llm.Usage{PromptTokens: 600, CompletionTokens: 200, TotalTokens: 800}},
	}}
	f := newFixture(t, m)
	c, err := limits.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c.Values = limits.Values{limits.TokensPerDay: 1000, limits.ConcurrentTurns: 1}
	l := limits.New(c, records.NewMemory(), limits.NewMemory(), limits.Options{})
	f.agent.Limits = l
	f.agent.Model = llm.Metered{Model: streamer{m}, Meter: l}
	ctx = llm.WithPayer(ctx, f.turn.TeacherID)
	who := limits.Who{Teacher: f.turn.TeacherID}
	if err := l.Admit(ctx, who, limits.Turn, f.turn.TurnID); err != nil {
		t.Fatal(err)
	}

	route, err := f.agent.Route(ctx, workflow.RouteInput{Turn: f.turn})
	if err != nil {
		t.Fatal(err)
	}
	in := agentInput(f.turn, workflow.ExpectAnswer, 1)
	in.Route.Path = workflow.PathChat
	if _, err := f.agent.Turn(ctx, in); err != nil {
		t.Fatalf("the turn that crosses the budget finishes: %v", err)
	}
	if _, err := f.agent.Finish(ctx, workflow.FinishInput{Turn: f.turn, Attempt: 1, Route: &route}); err != nil {
		t.Fatal(err)
	}

	use, err := l.Usage(ctx, who)
	if err != nil {
		t.Fatal(err)
	}
	if got := use[5]; got.Limit != limits.TokensPerDay || got.Used != 1100 {
		t.Fatalf("metered %+v, want the 300 + 800 tokens the calls reported", got)
	}
	if got := use[0]; got.Limit != limits.ConcurrentTurns || got.Used != 0 {
		t.Fatalf("running turns %+v after Finish, want 0", got)
	}
	var ex *limits.Exceeded
	if err := l.Admit(ctx, who, limits.Turn, "u-2"); !errors.As(err, &ex) || ex.Limit != limits.TokensPerDay {
		t.Fatalf("the next turn: %v, want a tokensPerDay refusal", err)
	}
}
