package e2e

// issue 32: a failed turn reloads as it streamed, and a Stop is no failure.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/protocol"
)

// TestFailedTurnAfterReload: a turn that fails streams an error; after a
// reload, /messages gives its assistant message with that error, as a
// data-notice part {code, message} (docs/protocol.md), not an empty bubble.
func TestFailedTurnAfterReload(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"upstream down"}}`, http.StatusInternalServerError)
	}))
	t.Cleanup(down.Close)
	cases := []struct {
		name, message string
		env           map[string]string
	}{
		// The answer claims a quiz no tool made, on every attempt: the
		// validation gives up.
		{"answer not verified", "出 2 道牛顿第一定律的选择题 [[offline:claim-always]]", nil},
		// The model answers 500: the step fails and the workflow's Catch
		// ends the turn.
		{"model down", "What is photosynthesis?", map[string]string{"OPENAI_BASE_URL": down.URL + "/v1", "OPENAI_API_KEY": "k",
			"LLM_MODEL_STANDARD": "m", "LLM_MAX_RETRIES": "0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewLocal(t, tc.env)
			st := postStream(t, s.URL, fmt.Sprintf(`{"message":%q}`, tc.message))
			if st.Status != http.StatusOK {
				t.Fatalf("stream: %d %s", st.Status, st.Raw)
			}
			errText := ""
			if e := st.last(t, "error"); e != nil {
				errText, _ = e["errorText"].(string)
			}
			if errText == "" || st.last(t, "finish")["finishReason"] != "error" {
				t.Fatalf("the turn did not fail: %v", st.types(t))
			}
			var page struct {
				Messages []protocol.UIMessage `json:"messages"`
			}
			if code := GetJSON(t, s.URL+"/api/conversation/"+st.Header.Get("X-Conversation-Id")+"/messages", &page); code != http.StatusOK || len(page.Messages) != 2 {
				t.Fatalf("messages: %d, %d messages", code, len(page.Messages))
			}
			m := page.Messages[1]
			last := m.Parts[len(m.Parts)-1]
			var n protocol.Notice
			if m.Role != "assistant" || last.Type != "data-notice" || json.Unmarshal(last.Data, &n) != nil {
				t.Fatalf("the failed turn reloads as %+v", m)
			}
			if n.Message != errText || n.Code != "AI_ERROR" {
				t.Errorf("reloaded notice %+v; the stream said %q", n, errText)
			}
		})
	}
}

// TestStopIsNotAFailure: a teacher's Stop cancels the turn's work; the
// error of that cancelled work is logged at INFO, and nothing about the
// turn at ERROR.
func TestStopIsNotAFailure(t *testing.T) {
	s := NewLocal(t, nil)
	resp, r, _ := openStream(t, s.URL, `{"message":"What is photosynthesis? [[offline:slow]]"}`)
	conv := resp.Header.Get("X-Conversation-Id")
	turnID := ""
	for {
		ev := readEvents(t, r, 1)[0]
		if ev.typ(t) == "start" {
			meta, _ := ev.chunk(t)["messageMetadata"].(map[string]any)
			turnID, _ = meta["turnId"].(string)
		}
		if ev.typ(t) == "text-delta" {
			break
		}
	}
	if code := PostJSON(t, s.URL+"/api/conversation/"+conv+"/stop", "", nil); code != http.StatusOK {
		t.Fatalf("stop: %d", code)
	}
	for ev := readEvents(t, r, 1)[0]; ev.Data != "[DONE]"; ev = readEvents(t, r, 1)[0] {
	}
	type line struct {
		Level, Message string
		Context        struct{ Turn, TurnID string } // seed 004 §4.3's shape (obs.NewLogger)
	}
	lines := func() []line {
		var out []line
		sc := bufio.NewScanner(strings.NewReader(s.Logs.String()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var l line
			if json.Unmarshal(sc.Bytes(), &l) == nil && (l.Context.Turn == turnID || l.Context.TurnID == turnID) {
				out = append(out, l)
			}
		}
		return out
	}
	// The cancelled work ends a moment after the stop: wait (bounded) for
	// its log line.
	deadline := time.Now().Add(20 * time.Second)
	for !slices.ContainsFunc(lines(), func(l line) bool { return l.Level == "INFO" && strings.HasPrefix(l.Message, "turn cancelled") }) {
		if time.Now().After(deadline) {
			t.Fatalf("no INFO line for the stopped turn's cancelled work: %+v", lines())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, l := range lines() {
		if l.Level == "ERROR" {
			t.Errorf("a stopped turn logged at ERROR: %+v", l)
		}
	}
}
