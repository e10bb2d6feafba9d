package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/protocol"
)

// openStream starts a turn and returns the live response, for tests that cut
// or stop it half-way; the test's end cancels and closes it.
func openStream(t *testing.T, base, body string) (*http.Response, *sseReader, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/conversation/stream", strings.NewReader(body))
	resp := doLive(t, req, cancel)
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("status %d", resp.StatusCode)
	}
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
	})
	return resp, newSSEReader(resp.Body), cancel
}

func TestResumeAfterDisconnect(t *testing.T) {
	s := NewLocal(t, nil)
	for _, k := range []int{1, 4, 9} {
		t.Run(fmt.Sprintf("cut after %d events", k), func(t *testing.T) {
			resp, r, cancel := openStream(t, s.URL, `{"message":"出 5 道牛顿第一定律的选择题 [[offline:slow]]"}`)
			conv := resp.Header.Get("X-Conversation-Id")
			got := readEvents(t, r, k)
			cancel() // the client goes away; the turn goes on
			resp.Body.Close()
			req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/conversation/"+conv+"/stream", nil)
			req.Header.Set("Last-Event-ID", strconv.FormatInt(got[len(got)-1].ID, 10))
			rest := do(t, req)
			if rest.Status != http.StatusOK {
				t.Fatalf("resume status %d", rest.Status)
			}
			all := append(got, rest.Events...)
			stitched := stream{Events: all}
			stitched.checkIDs(t, 0) // 1..n, each exactly once
			if ty := stitched.types(t); !slices.Equal(ty, quizChunks) {
				t.Fatalf("stitched stream\n got %v\nwant %v", ty, quizChunks)
			}
			// ?after= works the same once the turn is over.
			again := do(t, mustReq(t, http.MethodGet, fmt.Sprintf("%s/api/conversation/%s/stream?after=%d", s.URL, conv, k), ""))
			if len(again.Events) != len(rest.Events)+len(got)-k {
				t.Fatalf("?after=%d gave %d events", k, len(again.Events))
			}
		})
	}
}

func mustReq(t *testing.T, method, url, body string, headers ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

func TestResumeIdle(t *testing.T) {
	s := NewLocal(t, nil)
	st := postStream(t, s.URL, `{"message":"你好"}`)
	conv := st.Header.Get("X-Conversation-Id")
	// A turn that ended a moment ago is replayed whole to a resume without
	// a cursor (the reload rule, docs/reliability.md); once it is older than
	// the replay window the answer is 204 (shared/edge TestReplayWindow).
	again := do(t, mustReq(t, http.MethodGet, s.URL+"/api/conversation/"+conv+"/stream", ""))
	if again.Status != http.StatusOK || !slices.Equal(again.Events, st.Events) {
		t.Fatalf("resume a moment after the turn: %d\n%s\nwant the turn again:\n%s", again.Status, again.Raw, st.Raw)
	}
	last := st.Events[len(st.Events)-2].ID
	none := do(t, mustReq(t, http.MethodGet, s.URL+"/api/conversation/"+conv+"/stream", "", "Last-Event-ID", strconv.FormatInt(last, 10)))
	if none.Status != http.StatusNoContent {
		t.Fatalf("resume after the last event: %d, want 204", none.Status)
	}
}

func TestStop(t *testing.T) {
	s := NewLocal(t, nil)
	resp, r, _ := openStream(t, s.URL, `{"message":"What is photosynthesis? [[offline:slow]]"}`)
	conv := resp.Header.Get("X-Conversation-Id")
	for {
		ev := readEvents(t, r, 1)[0]
		if ev.typ(t) == "text-delta" {
			break
		}
	}
	var stopped map[string]any
	if code := PostJSON(t, s.URL+"/api/conversation/"+conv+"/stop", "", &stopped); code != http.StatusOK || stopped["stopped"] != true {
		t.Fatalf("stop: %d %v", code, stopped)
	}
	var rest []sseEvent
	for {
		ev := readEvents(t, r, 1)[0]
		rest = append(rest, ev)
		if ev.Data == "[DONE]" {
			break
		}
	}
	fin := rest[len(rest)-2]
	if fin.typ(t) != "finish" || fin.chunk(t)["finishReason"] != "other" {
		t.Fatalf("stopped stream ends with %v", fin.Data)
	}
	if end := rest[len(rest)-3]; end.typ(t) != "text-end" {
		t.Fatalf("the open text part was not closed before finish: %v", end.Data)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.Offline.Cancelled() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the model call was not cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The session stays usable.
	next := postStream(t, s.URL, fmt.Sprintf(`{"message":"你好","conversationId":%q}`, conv))
	if next.Status != http.StatusOK || !slices.Equal(next.types(t), chatChunks) {
		t.Fatalf("after stop: %d %v", next.Status, next.types(t))
	}
}

func TestReloadMessages(t *testing.T) {
	s := NewLocal(t, nil)
	first := postStream(t, s.URL, `{"message":"出 5 道牛顿第一定律的选择题"}`)
	conv := first.Header.Get("X-Conversation-Id")
	second := postStream(t, s.URL, fmt.Sprintf(`{"message":"What is photosynthesis?","conversationId":%q}`, conv))
	var got struct {
		ConversationID string               `json:"conversationId"`
		Messages       []protocol.UIMessage `json:"messages"`
	}
	if code := GetJSON(t, s.URL+"/api/conversation/"+conv+"/messages", &got); code != http.StatusOK {
		t.Fatalf("messages: %d", code)
	}
	if len(got.Messages) != 4 || got.Messages[0].Role != "user" || *got.Messages[0].Parts[0].Text != "出 5 道牛顿第一定律的选择题" {
		t.Fatalf("messages %+v", got.Messages)
	}
	// The reloaded assistant messages equal what the AI SDK assembled live.
	for i, st := range []stream{first, second} {
		live := aiSDK(t, st.Raw)
		a, b := mustJSON(t, live), mustJSON(t, got.Messages[2*i+1])
		if a != b {
			t.Errorf("turn %d reloaded\n%s\nlive\n%s", i+1, b, a)
		}
	}
	// Another teacher sees an empty conversation (as for an id nobody
	// owns): nothing of it, not even that it exists.
	var theirs struct{ Messages []protocol.UIMessage }
	if code := GetJSON(t, s.URL+"/api/conversation/"+conv+"/messages", &theirs, "X-Teacher-Id", "t-002"); code != http.StatusOK || len(theirs.Messages) != 0 {
		t.Fatalf("another teacher reads the conversation: %d, %d messages", code, len(theirs.Messages))
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var norm any
	_ = json.Unmarshal(b, &norm)
	b, _ = json.Marshal(norm)
	return string(b)
}

func TestBadInput(t *testing.T) {
	s := NewLocal(t, nil)
	own := postStream(t, s.URL, `{"message":"你好"}`, "X-Teacher-Id", "t-002").Header.Get("X-Conversation-Id")
	cases := []struct {
		name, body string
		headers    []string
		status     int
		code       string
	}{
		{"malformed JSON", `{"message":`, nil, 400, "VALIDATION_ERROR"},
		{"not an object", `[1,2]`, nil, 400, "VALIDATION_ERROR"},
		{"empty body", ``, nil, 400, "VALIDATION_ERROR"},
		{"missing message", `{"language":"en"}`, nil, 400, "VALIDATION_ERROR"},
		{"blank message", `{"message":"   "}`, nil, 400, "VALIDATION_ERROR"},
		{"wrong type", `{"message":42}`, nil, 400, "VALIDATION_ERROR"},
		{"unknown mode", `{"message":"hi","mode":"turbo"}`, nil, 400, "VALIDATION_ERROR"},
		{"over 1 MiB", `{"message":"` + strings.Repeat("a", 1<<20) + `"}`, nil, 413, "VALIDATION_ERROR"},
		{"unknown conversation", `{"message":"hi","conversationId":"conv-nope"}`, nil, 404, "ENTITY_NOT_FOUND"},
		{"another teacher's conversation", fmt.Sprintf(`{"message":"hi","conversationId":%q}`, own), nil, 404, "ENTITY_NOT_FOUND"},
		{"bad conversation id", `{"message":"hi","conversationId":"../x"}`, nil, 400, "VALIDATION_ERROR"},
		{"bad teacher id", `{"message":"hi"}`, []string{"X-Teacher-Id", "t 1/.."}, 401, "AUTH_ERROR"},
	}
	for _, c := range cases {
		for _, path := range []string{"/api/conversation/stream", "/api/conversation"} {
			t.Run(c.name+" "+path, func(t *testing.T) {
				var body struct {
					Error struct{ Code, Message string }
				}
				code := PostJSON(t, s.URL+path, c.body, &body, c.headers...)
				if code != c.status || body.Error.Code != c.code || body.Error.Message == "" {
					t.Fatalf("got %d %+v, want %d %s", code, body, c.status, c.code)
				}
			})
		}
	}
	t.Run("bad Last-Event-ID", func(t *testing.T) {
		st := do(t, mustReq(t, http.MethodGet, s.URL+"/api/conversation/"+own+"/stream", "", "X-Teacher-Id", "t-002", "Last-Event-ID", "x"))
		if st.Status != 400 {
			t.Fatalf("status %d", st.Status)
		}
	})
	t.Run("second concurrent turn", func(t *testing.T) {
		resp, _, _ := openStream(t, s.URL, `{"message":"What is photosynthesis? [[offline:slow]]"}`)
		conv := resp.Header.Get("X-Conversation-Id")
		var body struct{ Error struct{ Code string } }
		if code := PostJSON(t, s.URL+"/api/conversation/stream", fmt.Sprintf(`{"message":"hi","conversationId":%q}`, conv), &body); code != 409 || body.Error.Code != "CONFLICT" {
			t.Fatalf("second turn: %d %v", code, body)
		}
		PostJSON(t, s.URL+"/api/conversation/"+conv+"/stop", "", nil)
	})
}

// TestConversationJSON holds the one chatKind / legacyAction table of the
// JSON answer (seed 004 §1.3.1; shared/edge responseOf), and that the answer
// carries the turn's artifacts as the stream's data parts: a quiz its
// questions, a file answer its link, an outline its slides.
func TestConversationJSON(t *testing.T) {
	s := NewLocal(t, nil)
	cases := []struct {
		message, action, legacy string
		chatKind                any
		artifacts               []string // the artifact part types, in order
		conversation            string   // a case that continues the previous case's conversation
	}{
		{"你好", "chat", "chat_smalltalk", "smalltalk", nil, ""},
		{"What is photosynthesis?", "chat", "chat_qa", "qa", nil, ""},
		{"出 5 道牛顿第一定律的选择题", "chat", "chat", nil, []string{"data-quiz-question", "data-quiz-question", "data-quiz-question",
			"data-quiz-question", "data-quiz-question", "data-quiz-complete"}, ""},
		{"做一个光合作用的 PPT", "chat", "chat", nil, []string{"data-pptx-outline"}, ""},
		{"可以，就按这个提纲生成", "chat", "chat", nil, []string{"data-file-ready"}, "previous"},
		{"写一份牛顿第一定律的教案", "chat", "chat", nil, []string{"data-file-ready"}, ""},
		{"做一个光合作用的互动网页", "chat", "chat", nil, []string{"data-interactive-content"}, ""},
		{"分析 1A 班英语成绩", "build", "build_workflow", nil, []string{"data-blueprint"}, ""},
		{"帮我弄一下", "clarify", "clarify", nil, nil, ""},
	}
	prev := ""
	for _, c := range cases {
		t.Run(c.message, func(t *testing.T) {
			body := fmt.Sprintf(`{"message":%q,"language":"zh-CN"}`, c.message)
			if c.conversation != "" {
				body = fmt.Sprintf(`{"message":%q,"language":"zh-CN","conversationId":%q}`, c.message, prev)
			}
			var resp map[string]any
			if code := PostJSON(t, s.URL+"/api/conversation", body, &resp); code != 200 {
				t.Fatalf("status %d: %v", code, resp)
			}
			prev, _ = resp["conversationId"].(string)
			for _, k := range []string{"mode", "action", "chatKind", "legacyAction", "chatResponse", "blueprint", "patchPlan", "clarifyOptions", "conversationId", "resolvedEntities", "artifacts"} {
				if _, ok := resp[k]; !ok {
					t.Errorf("ConversationResponse lacks %s", k)
				}
			}
			if resp["mode"] != "entry" || resp["action"] != c.action || resp["legacyAction"] != c.legacy || resp["chatKind"] != c.chatKind {
				t.Errorf("got mode %v action %v legacyAction %v chatKind %v", resp["mode"], resp["action"], resp["legacyAction"], resp["chatKind"])
			}
			if c.action == "clarify" && resp["clarifyOptions"] == nil {
				t.Error("clarify without clarifyOptions")
			}
			if c.action != "clarify" && resp["chatResponse"] == "" {
				t.Error("empty chatResponse")
			}
			var types []string
			arts, _ := resp["artifacts"].([]any)
			for _, a := range arts {
				p := a.(map[string]any)
				types = append(types, p["type"].(string))
				checkArtifact(t, s, p)
			}
			if !slices.Equal(types, c.artifacts) {
				t.Errorf("artifacts %v, want %v", types, c.artifacts)
			}
		})
	}
}

// checkArtifact checks that an artifact part of the JSON answer carries
// what a teacher uses: the question and its answer, a link that downloads
// the file, the slides, the blueprint.
func checkArtifact(t *testing.T, s Local, p map[string]any) {
	t.Helper()
	d, _ := p["data"].(map[string]any)
	switch p["type"] {
	case "data-quiz-question":
		q, _ := d["question"].(map[string]any)
		if q["question"] == "" || q["answer"] == nil || len(q["options"].([]any)) != 4 {
			t.Errorf("quiz question %v", d)
		}
	case "data-pptx-outline":
		if slides, _ := d["slides"].([]any); len(slides) < 3 {
			t.Errorf("outline %v", d)
		}
	case "data-file-ready", "data-interactive-content":
		url, _ := d["url"].(string)
		if strings.HasPrefix(url, "/") {
			url = s.URL + url
		}
		resp, err := http.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n == 0 {
			t.Errorf("the artifact's link %s: %d, %d bytes", url, resp.StatusCode, n)
		}
	case "data-blueprint":
		if _, ok := d["uiComposition"]; !ok {
			t.Errorf("blueprint %v", d)
		}
	}
}

func TestHealth(t *testing.T) {
	s := NewLocal(t, nil)
	var h map[string]any
	if code := GetJSON(t, s.URL+"/api/health", &h); code != 200 || h["status"] != "ok" {
		t.Fatalf("health %d %v", code, h)
	}
}
