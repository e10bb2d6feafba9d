package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/insightedge/insightedge/shared/agent"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/workflow"
)

// progress is the tool progress of the turn's stream, as "id:status".
func progress(t *testing.T, f *fixture) []string {
	t.Helper()
	evs, err := f.log.Read(context.Background(), workflow.TurnStream(f.turn.TurnID), 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		var c struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Data struct {
				Status string `json:"status"`
			} `json:"data"`
		}
		if json.Unmarshal(ev.Data, &c) == nil && c.Type == "data-tool-progress" {
			out = append(out, c.ID+":"+c.Data.Status)
		}
	}
	return out
}

// TestToolProgressWhileWritten: a call shows running as soon as its name
// arrives, before its arguments are complete; the tool step does not show
// it again; a call the round ends without running is closed.
func TestToolProgressWhileWritten(t *testing.T) {
	args := `{"topic":"fractions","count":5,"questionType":"single_choice"}`
	m := &scriptedModel{replies: []modelReply{{calls: []llm.ToolCall{toolCall("call_1", "generate_quiz_questions", args)}}}, fragSize: 8}
	var f *fixture
	var early []string
	m.onFragment = func(i, n int) {
		if i == 0 {
			early = progress(t, f)
		}
	}
	f = newFixture(t, m)
	ctx := context.Background()
	out, err := f.agent.Turn(ctx, agentInput(f.turn, workflow.ExpectArtifact, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(early, []string{"call_1:running"}) {
		t.Errorf("progress after the call's first fragment: %v, want call_1:running", early)
	}
	if len(out.ToolCalls) != 1 || !out.ToolCalls[0].Announced {
		t.Fatalf("tool calls %+v, want call_1 announced", out.ToolCalls)
	}
	if _, err := f.agent.RunTool(ctx, workflow.ToolInput{Turn: f.turn, Attempt: 1, Call: out.ToolCalls[0]}); err != nil {
		t.Fatal(err)
	}
	if got := progress(t, f); !slices.Equal(got, []string{"call_1:running", "call_1:success"}) {
		t.Errorf("progress %v, want running once, then success", got)
	}
}

func TestToolProgressOfACallNotRun(t *testing.T) {
	final := finalCall("call_2", agent.FinalResult{Status: agent.StatusAnswerReady, Message: answer})
	m := &scriptedModel{replies: []modelReply{{calls: []llm.ToolCall{toolCall("call_1", "generate_pptx", `{}`), final}}}, fragSize: 8}
	f := newFixture(t, m)
	out, err := f.agent.Turn(context.Background(), agentInput(f.turn, workflow.ExpectAnswer, 1))
	if err != nil || out.Next != workflow.NextFinal {
		t.Fatalf("%+v, %v; want the final result", out, err)
	}
	if got := progress(t, f); !slices.Equal(got, []string{"call_1:running", "call_1:empty"}) {
		t.Errorf("progress %v, want call_1 shown running, then closed", got)
	}
}

// textSignal closes ch at the first text-delta appended.
type textSignal struct {
	eventlog.Appender
	ch   chan struct{}
	once sync.Once
}

func (l *textSignal) Append(ctx context.Context, stream string, evs ...eventlog.Event) (int64, error) {
	n, err := l.Appender.Append(ctx, stream, evs...)
	for _, e := range evs {
		if strings.Contains(string(e.Data), `"text-delta"`) {
			l.once.Do(func() { close(l.ch) })
		}
	}
	return n, err
}
