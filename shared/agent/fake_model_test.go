package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/agent"
	"github.com/insightedge/insightedge/shared/boltstore/bolttest"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// modelReply is one scripted model call. Content is streamed through
// OnContent and then each tool call's arguments through OnToolCall, in
// fragments of fragSize runes. With err set, only the first cut fragments
// are delivered and the call fails with err.
type modelReply struct {
	// reasoning streams through OnReasoning before everything else.
	reasoning string
	content   string
	calls     []llm.ToolCall
	err       error
	cut       int
	// usage is what the call reports once it ends.
	usage llm.Usage
}

// scriptedModel is the model at the edge: on call n it replays reply n.
type scriptedModel struct {
	replies  []modelReply
	fragSize int
	// onFragment, when set, runs after fragment i of n of the current call.
	onFragment func(i, n int)
	requests   []llm.Request
}

func (m *scriptedModel) Stream(_ context.Context, req llm.Request, h llm.Handler) (llm.Response, error) {
	m.requests = append(m.requests, req)
	if len(m.requests) > len(m.replies) {
		return llm.Response{}, fmt.Errorf("scriptedModel: unexpected call %d", len(m.requests))
	}
	r := m.replies[len(m.requests)-1]
	size := max(m.fragSize, 1)

	type frag struct {
		call int // -1 for content
		text string
	}
	var frags []frag
	for _, f := range split(r.reasoning, size) {
		frags = append(frags, frag{-2, f})
	}
	for _, f := range split(r.content, size) {
		frags = append(frags, frag{-1, f})
	}
	for i, c := range r.calls {
		for _, f := range split(c.Function.Arguments, size) {
			frags = append(frags, frag{i, f})
		}
	}
	if r.err != nil {
		frags = frags[:r.cut]
	}
	sofar := make([]string, len(r.calls))
	for i, f := range frags {
		var err error
		switch {
		case f.call == -2 && h.OnReasoning != nil:
			err = h.OnReasoning(f.text)
		case f.call == -1 && h.OnContent != nil:
			err = h.OnContent(f.text)
		case f.call >= 0 && h.OnToolCall != nil:
			sofar[f.call] += f.text
			c := r.calls[f.call]
			err = h.OnToolCall(f.call, c.ID, c.Function.Name, sofar[f.call])
		}
		if err != nil {
			return llm.Response{}, err
		}
		if m.onFragment != nil {
			m.onFragment(i, len(frags))
		}
	}
	if r.err != nil {
		return llm.Response{}, r.err
	}
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: r.content,
		ReasoningContent: r.reasoning, ToolCalls: r.calls}, FinishReason: "stop", Model: "scripted", Usage: r.usage}, nil
}

func split(s string, n int) []string {
	var out []string
	r := []rune(s)
	for i := 0; i < len(r); i += n {
		out = append(out, string(r[i:min(i+n, len(r))]))
	}
	return out
}

func toolCall(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Type: llm.ToolTypeFunction, Function: llm.FunctionCall{Name: name, Arguments: args}}
}

func finalCall(id string, f agent.FinalResult) llm.ToolCall {
	b, _ := json.Marshal(f)
	return toolCall(id, "final_result", string(b))
}

// countingMetrics records the counts by metric name.
type countingMetrics map[string]float64

func (m countingMetrics) Count(name string, v float64, _ map[string]string) { m[name] += v }

// fixture is an agent over the real embedded store and the in-memory log.
type fixture struct {
	agent   *agent.Agent
	model   *scriptedModel
	store   session.Store
	log     *eventlog.Memory
	metrics countingMetrics
	turn    workflow.Turn
}

func newFixture(t testing.TB, m *scriptedModel, extra ...tools.Tool) *fixture {
	t.Helper()
	db := bolttest.Open(t)
	noop := func(context.Context, tools.Call, struct{}) (tools.Result, error) { return tools.Result{}, nil }
	reg := tools.NewRegistry(
		tools.Define("get_teacher_classes", "List the teacher's classes.", tools.Base, i18n.None, noop),
		tools.Define("generate_quiz_questions", "Write quiz questions.", tools.Generation, i18n.None, noop).
			Emitting(protocol.DataQuizQuestion, protocol.DataQuizComplete),
		tools.Define("generate_pptx", "Make a slide deck.", tools.Generation, i18n.None, noop).Emitting(protocol.DataFileReady),
	)
	reg.Add(extra...)
	f := &fixture{model: m, store: db.Sessions(), log: eventlog.NewMemory(), metrics: countingMetrics{}}
	// A clock that moves 100 ms per reading: every text write is flushed at
	// once, so the log shows what reached the client and when.
	var tick time.Time
	now := func() time.Time { tick = tick.Add(100 * time.Millisecond); return tick }
	f.agent = agent.New(m, reg, f.store, f.log, agent.Options{Metrics: f.metrics, Now: now, MaxRounds: 4})

	ctx := context.Background()
	if err := f.store.CreateSession(ctx, session.Session{ID: "s-1", TeacherID: "t-1", Kind: "chat"}); err != nil {
		t.Fatal(err)
	}
	f.turn = f.beginTurn(t, "u-1", "帮我出5道分数加法题")
	return f
}

func (f *fixture) beginTurn(t testing.TB, id, msg string) workflow.Turn {
	t.Helper()
	if _, err := f.store.BeginTurn(context.Background(), session.Turn{SessionID: "s-1", ID: id, Message: msg, MessageID: "m-" + id}); err != nil {
		t.Fatal(err)
	}
	return workflow.Turn{SessionID: "s-1", TurnID: id, TeacherID: "t-1", MessageID: "m-" + id, Message: msg}
}

// chunk is a decoded event of the turn's stream.
type chunk struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Delta string `json:"delta"`
}

func (f *fixture) chunks(t *testing.T) []chunk {
	t.Helper()
	evs, err := f.log.Read(context.Background(), workflow.TurnStream(f.turn.TurnID), 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]chunk, len(evs))
	for i, ev := range evs {
		if err := json.Unmarshal(ev.Data, &out[i]); err != nil {
			t.Fatalf("event %d is not a chunk: %s", i, ev.Data)
		}
	}
	return out
}

func types(cs []chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Type
	}
	return out
}

// text is the concatenation of the stream's text deltas and how many there were.
func text(cs []chunk) (string, int) {
	var b strings.Builder
	n := 0
	for _, c := range cs {
		if c.Type == "text-delta" {
			b.WriteString(c.Delta)
			n++
		}
	}
	return b.String(), n
}
