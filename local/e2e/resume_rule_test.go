package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// getWithin GETs url with Last-Event-ID after and fails the test when the
// answer has not ended within limit: the resume rule says a resume of
// something that ended, or past its end, never waits.
func getWithin(t *testing.T, url string, after int64, limit time.Duration) stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	st := do(t, req)
	if ctx.Err() != nil {
		t.Fatalf("GET %s after %d did not end within %v", url, after, limit)
	}
	return st
}

// TestResumeOfAnEndedBuildEnds: an EventSource that reconnects with the
// last id of a finished build gets the closing event again at once (F5),
// and an id beyond the end is a 400 (not 300 s of pings).
func TestResumeOfAnEndedBuildEnds(t *testing.T) {
	s := NewLocal(t, nil)
	bp, _ := PlanViaConversation(t, s, "分析 1A 班英语成绩")
	st := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, bp))
	last := st.Events[len(st.Events)-1]
	if st.Status != 200 || last.typ(t) != "COMPLETE" {
		t.Fatalf("build: %d, last %s", st.Status, last.Data)
	}
	url := s.URL + "/api/page/" + st.Header.Get("X-Build-Id") + "/stream"
	again := getWithin(t, url, last.ID, 10*time.Second)
	if again.Status != 200 || len(again.Events) != 1 || again.Events[0].ID != last.ID || again.Events[0].typ(t) != "COMPLETE" {
		t.Errorf("resume at the end: %d %s", again.Status, again.Raw)
	}
	tail := getWithin(t, url, last.ID-1, 10*time.Second)
	if len(tail.Events) != 1 || tail.Events[0].typ(t) != "COMPLETE" {
		t.Errorf("resume before the end: %s", tail.Raw)
	}
	for _, after := range []int64{last.ID + 1, 1 << 60} {
		past := getWithin(t, url, after, 10*time.Second)
		var e struct{ Error struct{ Code string } }
		if past.Status != 400 || json.Unmarshal(past.Raw, &e) != nil || e.Error.Code != "VALIDATION_ERROR" {
			t.Errorf("resume after %d: %d %s", after, past.Status, past.Raw)
		}
	}
	if strings.Contains(s.Logs.String(), "build abandoned") {
		t.Error(`a build that completed was logged as "build abandoned"`)
	}
}

// TestResumeOfARunningTurnPastItsEnd: a cursor beyond a running turn's last
// event is a 400 at once (F6), and the turn still ends normally.
func TestResumeOfARunningTurnPastItsEnd(t *testing.T) {
	s := NewLocal(t, nil)
	resp, r, _ := openStream(t, s.URL, `{"message":"出 5 道牛顿第一定律的选择题 [[offline:slow]]"}`)
	conv := resp.Header.Get("X-Conversation-Id")
	first := readEvents(t, r, 1)
	past := getWithin(t, s.URL+"/api/conversation/"+conv+"/stream", first[0].ID+10_000, 10*time.Second)
	if past.Status != 400 {
		t.Errorf("resume past the end of a running turn: %d %s", past.Status, past.Raw)
	}
	// The rest of the original stream still ends with finish and [DONE].
	rest := do(t, mustGet(t, s.URL+"/api/conversation/"+conv+"/stream", first[0].ID))
	if ty := rest.types(t); len(ty) < 2 || ty[len(ty)-2] != "finish" || ty[len(ty)-1] != "[DONE]" {
		t.Errorf("the turn's stream: %v", ty)
	}
	if strings.Contains(s.Logs.String(), "turn abandoned") {
		t.Error(`a turn that ended normally was logged as "turn abandoned"`)
	}
}

func mustGet(t *testing.T, url string, after int64) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	return req
}
