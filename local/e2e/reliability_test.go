package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/server"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/session"
)

// TestAppRunOutlivesItsCaller: a client that drops during POST …/run does
// not turn a build that succeeds into a failed run (F1).
func TestAppRunOutlivesItsCaller(t *testing.T) {
	s := NewLocal(t, map[string]string{server.SchedulerEveryEnv: "off"})
	bp, _ := PlanViaConversation(t, s, "分析 1A 班英语成绩")
	var app struct{ ID string }
	if code := PostJSON(t, s.URL+"/api/apps", fmt.Sprintf(`{"name":"1A","blueprint":%s,"context":{"classId":"class-hk-f1a"}}`, bp), &app); code != 201 {
		t.Fatalf("save: %d", code)
	}
	s.Java.SetFault(mockserver.Fault{Latency: 300 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/apps/"+app.ID+"/run", nil) // as curl -X POST sends it
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the run answered before the client gave up; the test needs a slower data service")
	}
	var snaps struct {
		Snapshots []struct{ Status, Error string }
	}
	for range 300 { // the run ends within its build's bound; poll ≤ 30 s
		snaps.Snapshots = nil
		if GetJSON(t, s.URL+"/api/apps/"+app.ID+"/snapshots", &snaps); len(snaps.Snapshots) == 1 && snaps.Snapshots[0].Status != "running" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(snaps.Snapshots) != 1 || snaps.Snapshots[0].Status != "succeeded" {
		t.Errorf("the run whose caller left: %+v", snaps.Snapshots)
	}
}

// TestDeadTurnFoundOnDemand: the AWS path of crash recovery, where no
// start-up sweep runs: a turn whose lease ran out is closed when the next
// turn of its conversation meets it, instead of a 409 until TURN_TIMEOUT.
func TestDeadTurnFoundOnDemand(t *testing.T) {
	s := NewLocal(t, nil)
	first := postStream(t, s.URL, `{"message":"What is photosynthesis?"}`)
	conv := first.Header.Get("X-Conversation-Id")
	ctx := context.Background()
	store := s.DB.Sessions()
	if _, err := store.BeginTurn(ctx, session.Turn{SessionID: conv, ID: "turn-dead", Message: "x", MessageID: "msg-dead"}); err != nil {
		t.Fatal(err)
	}
	// Its process died a while ago: the lease was last renewed long ago.
	lease := session.Lease{Kind: session.LeaseTurn, ID: "turn-dead", Owner: conv, Until: time.Now().Add(-time.Minute)}
	if err := store.HoldLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	next := postStream(t, s.URL, fmt.Sprintf(`{"message":"What is gravity?","conversationId":%q}`, conv))
	if ty := next.types(t); next.Status != 200 || ty[len(ty)-2] != "finish" {
		t.Fatalf("the next turn: %d %v", next.Status, ty)
	}
	if dead, _ := store.GetTurn(ctx, conv, "turn-dead"); dead.Status != session.TurnFailed {
		t.Errorf("the dead turn: %+v", dead)
	}
	// A live lease that a client reads still means 409 (one that no
	// client reads is superseded: TestUseChatStopThenSend).
	if _, err := store.BeginTurn(ctx, session.Turn{SessionID: conv, ID: "turn-live", Message: "x", MessageID: "msg-live"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range []session.Lease{
		{Kind: session.LeaseTurn, ID: "turn-live", Owner: conv, Until: time.Now().Add(time.Minute)},
		{Kind: session.LeaseReader, ID: session.ReaderLeaseID("turn-live", "tab-1"), Owner: conv, Until: time.Now().Add(time.Minute)},
	} {
		if err := store.HoldLease(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if busy := postStream(t, s.URL, fmt.Sprintf(`{"message":"What is light?","conversationId":%q}`, conv)); busy.Status != 409 {
		t.Errorf("a turn beside a live one: %d", busy.Status)
	}
}

// TestFinishedWorkLeavesNoLease: a turn and a build that end normally drop
// their leases, so that the lease table holds running work only.
func TestFinishedWorkLeavesNoLease(t *testing.T) {
	s := NewLocal(t, nil)
	postStream(t, s.URL, `{"message":"What is photosynthesis?"}`)
	bp, _ := PlanViaConversation(t, s, "分析 1A 班英语成绩")
	postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, bp))
	var left []session.Lease
	for range 50 { // the last step drops its lease just after the stream closes
		left, _ = s.DB.Sessions().ExpiredLeases(context.Background(), time.Now().Add(time.Hour), 10)
		if len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("leases left: %+v", left)
}
