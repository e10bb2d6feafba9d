package agent_test

import (
	"context"
	"testing"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/workflow"
)

// TestToolCallsNameTheFileTools: a round's call of a tool that delivers a
// file is marked, so that the workflow runs it on the file tool function;
// the others run on the small tool function (issue 25).
func TestToolCallsNameTheFileTools(t *testing.T) {
	m := &scriptedModel{fragSize: 4, replies: []modelReply{
		{calls: []llm.ToolCall{toolCall("call_q", "generate_quiz_questions", `{}`), toolCall("call_p", "generate_pptx", `{}`)}},
	}}
	f := newFixture(t, m)
	out, err := f.agent.Turn(context.Background(), agentInput(f.turn, workflow.ExpectArtifact, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := []workflow.ToolCallRef{{ID: "call_q", Name: "generate_quiz_questions"}, {ID: "call_p", Name: "generate_pptx", File: true}}
	if out.Next != workflow.NextTools || len(out.ToolCalls) != len(want) {
		t.Fatalf("round = %+v, want the two calls", out)
	}
	for i, c := range out.ToolCalls {
		if c.ID != want[i].ID || c.File != want[i].File {
			t.Errorf("call %d = %+v, want %+v", i, c, want[i])
		}
	}
}
