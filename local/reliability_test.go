package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

// TestAppRunOutlivesItsCaller: a client that drops during POST …/run does
// not turn a build that succeeds into a failed run (F1).
func TestAppRunOutlivesItsCaller(t *testing.T) {
	s := newLocal(t, map[string]string{schedulerEveryEnv: "off"})
	bp, _ := planViaConversation(t, s, "分析 1A 班英语成绩")
	var app struct{ ID string }
	if code := postJSON(t, s.URL+"/api/apps", fmt.Sprintf(`{"name":"1A","blueprint":%s,"context":{"classId":"class-hk-f1a"}}`, bp), &app); code != 201 {
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
		if getJSON(t, s.URL+"/api/apps/"+app.ID+"/snapshots", &snaps); len(snaps.Snapshots) == 1 && snaps.Snapshots[0].Status != "running" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(snaps.Snapshots) != 1 || snaps.Snapshots[0].Status != "succeeded" {
		t.Errorf("the run whose caller left: %+v", snaps.Snapshots)
	}
}
