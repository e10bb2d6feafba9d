package agent_test

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/insightedge/insightedge/shared/agent"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// TestTurnContinuesHistoryStoredBySDKType: a turn whose first round was
// stored while the history was go-openai's ChatCompletionMessage (the record
// in testdata, written by that code after the model called make_quiz) goes
// on after the upgrade: the model is sent the stored messages plus the tool's
// result, and the record grows by appending to the same bytes.
func TestTurnContinuesHistoryStoredBySDKType(t *testing.T) {
	old, err := os.ReadFile("testdata/history_round1_go-openai-v1.43.0.json")
	if err != nil {
		t.Fatal(err)
	}
	makeQuiz := tools.Define("make_quiz", "Make a quiz.", tools.Generation, i18n.None,
		func(ctx context.Context, call tools.Call, in struct {
			Topic string `json:"topic"`
		}) (tools.Result, error) {
			d, err := protocol.NewData(protocol.DataQuizComplete, call.CallID, protocol.QuizComplete{Total: 5, Topic: in.Topic})
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Output: map[string]int{"total": 5}}, call.Emit(ctx, d)
		})
	claim := agent.FinalResult{Status: agent.StatusArtifactReady, Message: "5道分数加法题已生成。", Artifacts: []string{"quiz"}}
	m := &scriptedModel{fragSize: 4, replies: []modelReply{{calls: []llm.ToolCall{finalCall("call_f", claim)}}}}
	f := newFixture(t, m, makeQuiz)
	ctx := context.Background()
	key := "turn/" + f.turn.TurnID + "/history/1"
	if err := f.store.PutRecord(ctx, f.turn.SessionID, key, old); err != nil {
		t.Fatal(err)
	}
	call := workflow.ToolCallRef{ID: "call_q", Name: "make_quiz"}
	if _, err := f.agent.RunTool(ctx, workflow.ToolInput{Turn: f.turn, Attempt: 1, Call: call}); err != nil {
		t.Fatal(err)
	}
	in := agentInput(f.turn, workflow.ExpectArtifact, 1)
	in.Prev = workflow.AgentOutput{Next: workflow.NextTools, Round: 1, ToolCalls: []workflow.ToolCallRef{call}}
	out, err := f.agent.Turn(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Next != workflow.NextFinal || out.Round != 2 {
		t.Errorf("round 2 = %+v, want final", out)
	}
	if len(m.requests) != 1 {
		t.Fatalf("model called %d times", len(m.requests))
	}
	sent := m.requests[0].Messages
	if len(sent) != 4 {
		t.Fatalf("model was sent %d messages, want the 3 stored and the tool result: %+v", len(sent), sent)
	}
	if sent[1].Role != llm.RoleUser || sent[1].Content != "帮我出5道分数加法题" {
		t.Errorf("stored user message = %+v", sent[1])
	}
	wantCall := []llm.ToolCall{{ID: "call_q", Type: llm.ToolTypeFunction, Function: llm.FunctionCall{Name: "make_quiz", Arguments: `{"topic":"分数加法"}`}}}
	if sent[2].Role != llm.RoleAssistant || sent[2].Content != "我先出题。" || !reflect.DeepEqual(sent[2].ToolCalls, wantCall) {
		t.Errorf("stored assistant message = %+v", sent[2])
	}
	if want := (llm.Message{Role: llm.RoleTool, ToolCallID: "call_q", Name: "make_quiz", Content: `{"total":5}`}); !reflect.DeepEqual(sent[3], want) {
		t.Errorf("tool result = %+v, want %+v", sent[3], want)
	}
	now, err := f.store.GetRecord(ctx, f.turn.SessionID, key)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(now, old[:len(old)-1]) {
		t.Errorf("the stored messages were rewritten differently:\nbefore %s\nafter  %s", old, now)
	}
	if got, _ := text(f.chunks(t)); got != claim.Message {
		t.Errorf("streamed text = %q, want %q", got, claim.Message)
	}
}
