package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// BenchmarkChatTurnLongAnswer is one chat-path model round whose answer
// streams in 2,000 deltas (about 50 KB): the text accumulated across the
// deltas must cost linear time, not quadratic.
func BenchmarkChatTurnLongAnswer(b *testing.B) {
	long := strings.Repeat("光合作用把光能转化为化学能，", 2000*8/14)
	m := &scriptedModel{fragSize: 8, replies: []modelReply{{content: long}}}
	f := newFixture(b, m)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		m.requests = nil
		sid, tid := fmt.Sprintf("s-bench-%d", i), fmt.Sprintf("t-bench-%d", i)
		ctx := context.Background()
		if err := f.store.CreateSession(ctx, session.Session{ID: sid, TeacherID: "t-1", Kind: "chat"}); err != nil {
			b.Fatal(err)
		}
		if _, err := f.store.BeginTurn(ctx, session.Turn{SessionID: sid, ID: tid, Message: "什么是光合作用？", MessageID: "m-" + tid}); err != nil {
			b.Fatal(err)
		}
		turn := workflow.Turn{SessionID: sid, TurnID: tid, TeacherID: "t-1", MessageID: "m-" + tid, Message: "什么是光合作用？"}
		in := agentInput(turn, workflow.ExpectAnswer, 1)
		in.Route.Path = workflow.PathChat
		if _, err := f.agent.Turn(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartWithHistory is the Route step (Start: the router and the
// first round alongside it) of a turn that follows 20 ended turns, whose
// history summary both calls prompt with (issue 29 item 3: read once).
func BenchmarkStartWithHistory(b *testing.B) {
	const earlier = 20
	f := newFixture(b, &scriptedModel{})
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		i++
		sid := fmt.Sprintf("s-bench-%d", i)
		if err := f.store.CreateSession(ctx, session.Session{ID: sid, TeacherID: "t-1", Kind: "chat"}); err != nil {
			b.Fatal(err)
		}
		var turn workflow.Turn
		for j := range earlier + 1 {
			tid := fmt.Sprintf("t-%d", j)
			if j > 0 {
				if err := f.store.EndTurn(ctx, sid, turn.TurnID, session.TurnCompleted, session.Outcome{Text: strings.Repeat("光合作用把光能转化为化学能。", 20)}); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := f.store.BeginTurn(ctx, session.Turn{SessionID: sid, ID: tid, Message: "什么是光合作用？", MessageID: "m-" + tid}); err != nil {
				b.Fatal(err)
			}
			turn = workflow.Turn{SessionID: sid, TurnID: tid, TeacherID: "t-1", MessageID: "m-" + tid, Message: "什么是光合作用？"}
		}
		f.agent.Model = newOverlapModel(routeQA, lineEnd(routeQA), answerOrQuiz)
		b.StartTimer()
		if _, err := f.agent.Start(ctx, workflow.RouteInput{Turn: turn}); err != nil {
			b.Fatal(err)
		}
	}
}
