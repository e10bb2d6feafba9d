package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/insightedge/insightedge/shared/agent"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

const answer = "分数加法：先通分，再把分子相加。\n例如 \"1/2 + 1/3 = 5/6\"。Done."

func agentInput(turn workflow.Turn, mode string, attempt int) workflow.AgentInput {
	return workflow.AgentInput{
		Turn: turn,
		Route: workflow.RouteOutput{Path: workflow.PathAgent, Result: workflow.RouterResult{
			Intent: "quiz_generate", ModelTier: "standard", ExpectedMode: mode, CandidateTools: []string{}, SafetyFlags: []string{}}},
		Attempt: attempt,
		Prev:    workflow.AgentOutput{ToolCalls: []workflow.ToolCallRef{}},
	}
}

// liveProbe returns an onFragment hook that notes how many text deltas had
// reached the log before the model's last fragment.
func liveProbe(t *testing.T, f **fixture, before *int) func(i, n int) {
	return func(i, n int) {
		if i == n-2 {
			_, *before = text((*f).chunks(t))
		}
	}
}

// TestTurnTextGating: FinalResult.message streams to the client while the
// final_result arguments arrive only when the result will be accepted; a
// claim that validation will refuse is held back.
func TestTurnTextGating(t *testing.T) {
	clarify := &workflow.Clarify{Question: "哪个班？"}
	cases := []struct {
		name     string
		mode     string
		attempt  int
		final    agent.FinalResult
		wantText bool
	}{
		{"artifact claimed without artifact events", workflow.ExpectArtifact, 1, agent.FinalResult{Status: agent.StatusArtifactReady, Message: "5道题已生成，请查看。"}, false},
		{"artifact claimed again on the retry", workflow.ExpectArtifact, 2, agent.FinalResult{Status: agent.StatusArtifactReady, Message: "5道题已生成，请查看。"}, false},
		{"clarify waits for validation", workflow.ExpectAnswer, 1, agent.FinalResult{Status: agent.StatusClarifyNeeded, Message: "哪个班？", Clarify: clarify}, false},
		{"unknown status", workflow.ExpectAnswer, 1, agent.FinalResult{Status: "done", Message: answer}, false},
		{"answer where an artifact was expected", workflow.ExpectArtifact, 1, agent.FinalResult{Status: agent.StatusAnswerReady, Message: answer}, false},
		{"answer where an artifact was expected, on the retry", workflow.ExpectArtifact, 2, agent.FinalResult{Status: agent.StatusAnswerReady, Message: answer}, true},
		{"answer where an answer was expected", workflow.ExpectAnswer, 1, agent.FinalResult{Status: agent.StatusAnswerReady, Message: answer}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &scriptedModel{fragSize: 4, replies: []modelReply{{calls: []llm.ToolCall{finalCall("call_f", c.final)}}}}
			var f *fixture
			before := -1
			m.onFragment = liveProbe(t, &f, &before)
			f = newFixture(t, m)
			out, err := f.agent.Turn(context.Background(), agentInput(f.turn, c.mode, c.attempt))
			if err != nil {
				t.Fatal(err)
			}
			if out.Next != workflow.NextFinal || out.Round != 1 || len(out.ToolCalls) != 0 {
				t.Errorf("output = %+v, want final after round 1", out)
			}
			cs := f.chunks(t)
			got, deltas := text(cs)
			if !c.wantText {
				if deltas != 0 || slices.Contains(types(cs), "text-start") {
					t.Fatalf("held-back message reached the stream: %v %q", types(cs), got)
				}
				if want := []string{"start-step", "finish-step"}; !slices.Equal(types(cs), want) {
					t.Errorf("chunks = %v, want %v", types(cs), want)
				}
				return
			}
			if got != c.final.Message {
				t.Errorf("streamed text = %q, want %q", got, c.final.Message)
			}
			if before < 1 {
				t.Errorf("%d deltas before the last fragment: the message did not stream as it arrived", before)
			}
			wantTypes(t, cs)
		})
	}
}

// wantTypes checks the frame of a streamed text part: start-step,
// text-start, deltas, text-end, finish-step, one id for the text part.
func wantTypes(t *testing.T, cs []chunk) {
	t.Helper()
	ts := types(cs)
	if len(ts) < 5 || ts[0] != "start-step" || ts[1] != "text-start" || ts[len(ts)-2] != "text-end" || ts[len(ts)-1] != "finish-step" {
		t.Fatalf("chunks = %v", ts)
	}
	for _, c := range cs[2 : len(cs)-2] {
		if c.Type != "text-delta" || c.ID != cs[1].ID {
			t.Errorf("between text-start and text-end: %+v (text id %q)", c, cs[1].ID)
		}
	}
	if cs[len(cs)-2].ID != cs[1].ID {
		t.Errorf("text-end id %q, text-start id %q", cs[len(cs)-2].ID, cs[1].ID)
	}
}

func TestTurnChatStreamsContent(t *testing.T) {
	m := &scriptedModel{fragSize: 3, replies: []modelReply{{content: answer}}}
	var f *fixture
	before := -1
	m.onFragment = liveProbe(t, &f, &before)
	f = newFixture(t, m)
	in := agentInput(f.turn, workflow.ExpectAnswer, 1)
	in.Route.Path = workflow.PathChat
	out, err := f.agent.Turn(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Next != workflow.NextReply {
		t.Errorf("next = %q, want reply", out.Next)
	}
	cs := f.chunks(t)
	if got, _ := text(cs); got != answer {
		t.Errorf("streamed text = %q, want %q", got, answer)
	}
	if before < 1 {
		t.Errorf("%d deltas before the last fragment", before)
	}
	wantTypes(t, cs)
	if len(m.requests[0].Tools) != 0 {
		t.Errorf("the chat path offered %d tools", len(m.requests[0].Tools))
	}
}

// TestTurnInterruptedStreamSendsNothingTwice: the round is called again
// after ErrInterrupted, and the client sees the message once.
func TestTurnInterruptedStreamSendsNothingTwice(t *testing.T) {
	final := finalCall("call_f", agent.FinalResult{Status: agent.StatusAnswerReady, Message: answer})
	m := &scriptedModel{fragSize: 4, replies: []modelReply{
		{calls: []llm.ToolCall{final}, cut: 12, err: fmt.Errorf("reset: %w", llm.ErrInterrupted)},
		{calls: []llm.ToolCall{final}},
	}}
	f := newFixture(t, m)
	if _, err := f.agent.Turn(context.Background(), agentInput(f.turn, workflow.ExpectAnswer, 1)); err != nil {
		t.Fatal(err)
	}
	if len(m.requests) != 2 {
		t.Fatalf("model called %d times, want 2", len(m.requests))
	}
	cs := f.chunks(t)
	if got, _ := text(cs); got != answer {
		t.Errorf("streamed text = %q, want %q", got, answer)
	}
	wantTypes(t, cs)
}

func TestTurnModelErrorFailsTheStep(t *testing.T) {
	interrupted := fmt.Errorf("reset: %w", llm.ErrInterrupted)
	m := &scriptedModel{replies: []modelReply{{err: interrupted}, {err: interrupted}, {content: "unused"}}}
	f := newFixture(t, m)
	_, err := f.agent.Turn(context.Background(), agentInput(f.turn, workflow.ExpectAnswer, 1))
	if !errors.Is(err, llm.ErrInterrupted) {
		t.Errorf("err = %v, want ErrInterrupted", err)
	}
	if len(m.requests) != 2 {
		t.Errorf("model called %d times, want 2 (the bound)", len(m.requests))
	}
}

// TestTurnArtifactClaimAfterTool runs two rounds with the tool step between
// them: the claim streams only when this attempt's tool really emitted an
// artifact event.
func TestTurnArtifactClaimAfterTool(t *testing.T) {
	cases := []struct {
		name     string
		toolErr  error
		wantText bool
	}{
		{"the tool emitted quiz-complete", nil, true},
		{"the tool failed", errors.New("quiz writer down"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			makeQuiz := tools.Define("make_quiz", "Make a quiz.", tools.Generation, i18n.None,
				func(ctx context.Context, call tools.Call, in struct {
					Topic string `json:"topic"`
				}) (tools.Result, error) {
					if c.toolErr != nil {
						return tools.Result{}, c.toolErr
					}
					d, err := protocol.NewData(protocol.DataQuizComplete, call.CallID, protocol.QuizComplete{Total: 5, Topic: in.Topic})
					if err != nil {
						return tools.Result{}, err
					}
					return tools.Result{Output: map[string]int{"total": 5}}, call.Emit(ctx, d)
				})
			claim := agent.FinalResult{Status: agent.StatusArtifactReady, Message: "5道分数加法题已生成。", Artifacts: []string{"quiz"}}
			m := &scriptedModel{fragSize: 4, replies: []modelReply{
				{calls: []llm.ToolCall{toolCall("call_q", "make_quiz", `{"topic":"分数加法"}`)}},
				{calls: []llm.ToolCall{finalCall("call_f", claim)}},
			}}
			f := newFixture(t, m, makeQuiz)
			ctx := context.Background()
			in := agentInput(f.turn, workflow.ExpectArtifact, 1)
			out1, err := f.agent.Turn(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if out1.Next != workflow.NextTools || len(out1.ToolCalls) != 1 || out1.ToolCalls[0].Name != "make_quiz" {
				t.Fatalf("round 1 = %+v, want the make_quiz call", out1)
			}
			if _, err := f.agent.RunTool(ctx, workflow.ToolInput{Turn: f.turn, Attempt: 1, Call: out1.ToolCalls[0]}); err != nil {
				t.Fatal(err)
			}
			in.Prev = out1
			out2, err := f.agent.Turn(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if out2.Next != workflow.NextFinal || out2.Round != 2 {
				t.Errorf("round 2 = %+v", out2)
			}
			got, deltas := text(f.chunks(t))
			if c.wantText && got != claim.Message {
				t.Errorf("streamed text = %q, want %q", got, claim.Message)
			}
			if !c.wantText && deltas != 0 {
				t.Errorf("a refused claim reached the stream: %q", got)
			}
			v, err := f.agent.Validate(ctx, workflow.ValidateInput{Turn: f.turn, Route: in.Route, Attempt: 1})
			if err != nil {
				t.Fatal(err)
			}
			if accepted := v.Verdict == workflow.VerdictOK; accepted != c.wantText {
				t.Errorf("verdict %+v disagrees with what was streamed (text shown: %v)", v, c.wantText)
			}
		})
	}
}

// TestTurnRewrittenMessageIsShownInFull: a model that restarts its message
// with other words after part of it was shown (a second "message" member)
// leaves the teacher with the final message in full, in a part of its own.
func TestTurnRewrittenMessageIsShownInFull(t *testing.T) {
	const first, final = "Newton's first law says that", "An object keeps its state of motion unless a force acts on it."
	args := `{"status":"answer_ready","message":"` + first + `","message":"` + final + `"}`
	m := &scriptedModel{fragSize: 5, replies: []modelReply{{calls: []llm.ToolCall{{ID: "call_f", Type: "function",
		Function: llm.FunctionCall{Name: "final_result", Arguments: args}}}}}}
	f := newFixture(t, m)
	if _, err := f.agent.Turn(context.Background(), agentInput(f.turn, workflow.ExpectAnswer, 1)); err != nil {
		t.Fatal(err)
	}
	cs := f.chunks(t)
	parts := map[string]string{}
	var order []string
	for _, c := range cs {
		switch c.Type {
		case "text-start":
			order = append(order, c.ID)
		case "text-delta":
			parts[c.ID] += c.Delta
		}
	}
	if len(order) != 2 || parts[order[0]] != first || parts[order[1]] != final {
		t.Fatalf("text parts %v %q, want the stale %q then the final %q", order, parts, first, final)
	}
	if ts := types(cs); ts[len(ts)-1] != "finish-step" {
		t.Errorf("chunks end with %v", ts)
	}
}
