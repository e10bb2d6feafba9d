package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/report"
)

// holdQuestion makes the offline model hold the aggregator's last model
// call until the run is stopped: the test acts while the aggregator runs,
// with no sleep standing in for that.
const holdQuestion = "请生成报告 " + string(offlinemodel.MarkerHoldEditor)

// awaitHeld waits until the offline model holds the aggregator's call.
func awaitHeld(t *testing.T, s Local) {
	t.Helper()
	select {
	case <-s.Offline.Holding():
	case <-time.After(30 * time.Second):
		t.Fatal("the aggregator never called the model")
	}
}

// checkStoppedInAggregate checks that user.cancel stopped the run inside
// the aggregator: the held model call was abandoned by its client, the
// execution ended, and the session's log, read once nothing can append to
// it any more, ends aggregate.start → agent.cancelled {run} →
// pipeline.completed, with no report.
func checkStoppedInAggregate(t *testing.T, s Local, sid string, relayed []frame) {
	t.Helper()
	if got := names(relayed); !reflect.DeepEqual(got, []string{"agent.cancelled", "pipeline.completed"}) {
		t.Fatalf("after the cancel the client got %v, want agent.cancelled, pipeline.completed", got)
	}
	var c report.Cancelled
	relayed[0].into(t, &c)
	if c.What != "run" || relayed[0].SessionID != sid {
		t.Errorf("agent.cancelled %s for %s", relayed[0].Content, relayed[0].SessionID)
	}
	select {
	case <-s.Offline.Released():
	case <-time.After(30 * time.Second):
		t.Fatal("the aggregator's model call was not abandoned: the execution did not stop")
	}
	ctx := context.Background()
	sess, err := report.NewStore(s.DB).GetSession(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.TemplateEnded(sess.Execution):
	case <-time.After(30 * time.Second):
		t.Fatalf("execution %s still running", sess.Execution)
	}
	if sess, _ = report.NewStore(s.DB).GetSession(ctx, sid); sess.Status != report.StatusCancelled {
		t.Errorf("session status %s, want cancelled", sess.Status)
	}
	evs, err := s.DB.Events().Read(ctx, report.StreamName(sid), 0, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	for _, ev := range evs {
		var env report.Envelope
		if err := json.Unmarshal(ev.Data, &env); err != nil {
			t.Fatal(err)
		}
		logged = append(logged, env.Event)
	}
	n := len(logged)
	if n < 3 || !reflect.DeepEqual(logged[n-3:], []string{"aggregate.start", "agent.cancelled", "pipeline.completed"}) {
		t.Fatalf("the session's log ends %v, want aggregate.start, agent.cancelled, pipeline.completed", logged[max(0, n-5):])
	}
	for _, e := range logged {
		if e == "aggregate.completed" || e == "agent.final_answer" {
			t.Fatalf("a stopped run still logged %s: %v", e, logged)
		}
	}
}

// TestTemplateCancelWhileAggregating: user.cancel while the aggregator runs
// stops the execution, over the WebSocket.
func TestTemplateCancelWhileAggregating(t *testing.T) {
	s := NewLocal(t, templateEnv())
	c := dialTemplate(t, wsURL(s), nil)
	sid, _, step := planned(t, c, holdQuestion)
	sendEv2(c, sid, step, true)
	fs := c.until("aggregate.start", 60*time.Second)
	if n := names(fs); n[len(n)-2] != "solver.completed" {
		t.Fatalf("before aggregate.start: %v", n)
	}
	awaitHeld(t, s)
	sendEv(c, sid, "user.cancel", nil)
	checkStoppedInAggregate(t, s, sid, c.until("pipeline.completed", 30*time.Second))

	// The session is usable again: a new message plans again.
	c.send(zhMessage(sid, "再生成一次报告"))
	checkPlanPhase(t, sid, c.until("agent.user_confirm", 20*time.Second))
}

// TestTemplateCancelWhileAggregatingSSE: the same over SSE + POST.
func TestTemplateCancelWhileAggregatingSSE(t *testing.T) {
	s := NewLocal(t, templateEnv())
	sid, events, stream := newSSESession(t, s.URL)
	stream.until("agent.session_created", 5*time.Second)
	post := func(v map[string]any) {
		t.Helper()
		b, _ := json.Marshal(v)
		if st, body := postEnvelope(t, events, string(b), nil); st != http.StatusAccepted {
			t.Fatalf("POST %s: %d %v", v["event"], st, body)
		}
	}
	post(map[string]any{"event": "user.message", "content": map[string]any{
		"question": holdQuestion, "template_name": zhTemplate, "knowledge_base_name": "Form 1A"}})
	plan, _ := stream.until("agent.user_confirm", 20*time.Second)
	_, step := checkPlanPhase(t, sid, plan)
	post(map[string]any{"event": "user.response", "step_id": step, "content": map[string]any{"confirmed": true}})
	stream.until("aggregate.start", 60*time.Second)
	awaitHeld(t, s)
	post(map[string]any{"event": "user.cancel"})
	after, _ := stream.until("pipeline.completed", 30*time.Second)
	checkStoppedInAggregate(t, s, sid, after)
}
