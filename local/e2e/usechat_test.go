package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
)

// These tests drive the server with the AI SDK's own chat client
// (test/aisdk/chat.mjs: AbstractChat and DefaultChatTransport, what useChat
// runs), configured as a stock useChat app with resume: true would be.

// chatStep is one step of a chat.mjs script and what the chat showed after it.
type chatStep struct {
	Do         string               `json:"do"`
	Text       string               `json:"text,omitempty"`
	StopOnText bool                 `json:"stopOnText,omitempty"`
	MessageID  string               `json:"messageId,omitempty"`
	URL        string               `json:"url,omitempty"`
	HTTPStatus int                  `json:"httpStatus,omitempty"`
	Body       string               `json:"body,omitempty"`
	Status     string               `json:"status,omitempty"`
	Error      *string              `json:"error,omitempty"`
	Messages   []protocol.UIMessage `json:"messages,omitempty"`
	Stopped    bool                 `json:"stopped,omitempty"`
}

// runChat runs the AI SDK's chat client through steps against base as
// chat chatId and returns what it showed after each step. In CI a missing
// node or test/aisdk fails the test.
func runChat(t *testing.T, base, chatID string, headers map[string]string, steps ...chatStep) []chatStep {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"base": base, "chatId": chatID, "headers": headers, "steps": steps})
	out, err := runAISDK(t, "chat.mjs", in)
	if err != nil {
		t.Fatalf("chat.mjs: %v", err)
	}
	var res struct {
		Steps []chatStep `json:"steps"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("chat.mjs output: %v: %s", err, out)
	}
	return res.Steps
}

// shown is what a chat page shows: one line per message, role and text.
func shown(msgs []protocol.UIMessage) []string {
	var out []string
	for _, m := range msgs {
		var b strings.Builder
		for _, p := range m.Parts {
			if p.Type == "text" {
				b.WriteString(deref(p.Text))
			}
		}
		out = append(out, m.Role+": "+b.String())
	}
	return out
}

// TestUseChatNewChatOpensIdle: a stock useChat page with resume: true opens
// a brand-new chat id (nobody's yet, or another teacher's) as an idle,
// empty conversation, and the first message then works.
func TestUseChatNewChatOpensIdle(t *testing.T) {
	s := NewLocal(t, nil)
	for _, c := range []struct{ name, id string }{
		{"nobody's id", "chat-new-1"},
		{"another teacher's id", "chat-taken-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.id == "chat-taken-1" { // t-002 holds it
				runChat(t, s.URL, c.id, map[string]string{"X-Teacher-Id": "t-002"}, chatStep{Do: "send", Text: "你好"})
			}
			got := runChat(t, s.URL, c.id, nil, chatStep{Do: "load"}, chatStep{Do: "resume"})
			if got[0].HTTPStatus != 200 || len(got[0].Messages) != 0 {
				t.Fatalf("GET /messages of a new id: %d, %d messages; want 200 and none", got[0].HTTPStatus, len(got[0].Messages))
			}
			if got[1].Status != "ready" || got[1].Error != nil {
				t.Fatalf("resume on a new id left the page %q, error %v; want ready", got[1].Status, deref(got[1].Error))
			}
		})
	}
	// The same answers as seen on the wire.
	for _, id := range []string{"chat-new-2", "chat-taken-1"} {
		if st := do(t, mustReq(t, "GET", s.URL+"/api/conversation/"+id+"/stream", "")); st.Status != 204 || len(st.Raw) != 0 {
			t.Errorf("GET %s/stream: %d %q, want 204", id, st.Status, st.Raw)
		}
		var page map[string]any
		if code := GetJSON(t, s.URL+"/api/conversation/"+id+"/messages", &page); code != 200 ||
			page["conversationId"] != id || len(page["messages"].([]any)) != 0 {
			t.Errorf("GET %s/messages: %d %v, want 200 and no messages", id, code, page)
		}
		var stop map[string]any
		if code := PostJSON(t, s.URL+"/api/conversation/"+id+"/stop", "", &stop); code != 200 || stop["stopped"] != false {
			t.Errorf("POST %s/stop: %d %v, want stopped: false", id, code, stop)
		}
	}
	// t-002's conversation is untouched and still theirs.
	var theirs struct{ Messages []protocol.UIMessage }
	GetJSON(t, s.URL+"/api/conversation/chat-taken-1/messages", &theirs, "X-Teacher-Id", "t-002")
	if len(theirs.Messages) != 2 {
		t.Fatalf("the owner sees %d messages, want 2", len(theirs.Messages))
	}
	// A first message on the new id starts the conversation.
	got := runChat(t, s.URL, "chat-new-1", nil, chatStep{Do: "load"}, chatStep{Do: "resume"}, chatStep{Do: "send", Text: "你好"})
	if last := got[2]; last.Status != "ready" || len(last.Messages) != 2 || last.Messages[1].Role != "assistant" {
		t.Fatalf("first message: status %q, messages %v", last.Status, shown(last.Messages))
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestUseChatClarifySaysItsQuestionOnce: a turn that asks back shows its
// question once, live and after a reload: in the data-clarify part, with
// its options, and in no text part.
func TestUseChatClarifySaysItsQuestionOnce(t *testing.T) {
	s := NewLocal(t, nil)
	got := runChat(t, s.URL, "chat-clarify", nil, chatStep{Do: "send", Text: "帮我弄一下"}, chatStep{Do: "load"})
	for i, step := range got {
		if len(step.Messages) != 2 {
			t.Fatalf("step %s: %d messages", step.Do, len(step.Messages))
		}
		answer := step.Messages[1]
		var question string
		var texts []string
		for _, p := range answer.Parts {
			switch p.Type {
			case "data-clarify":
				var c protocol.Clarify
				if err := json.Unmarshal(p.Data, &c); err != nil {
					t.Fatal(err)
				}
				if len(c.Options) == 0 {
					t.Errorf("clarify without options: %+v", c)
				}
				question = c.Question
			case "text":
				texts = append(texts, deref(p.Text))
			}
		}
		if question == "" {
			t.Fatalf("step %d (%s): no data-clarify question in %s", i, step.Do, mustJSON(t, answer))
		}
		if said := strings.Count(strings.Join(append(texts, question), "\n"), question); said != 1 {
			t.Errorf("step %d (%s): the question %q is said %d times (texts %q)", i, step.Do, question, said, texts)
		}
	}
}

// TestUseChatRegenerate: regenerate() replaces the named answer (the last
// one when none is named) and every turn after it; a reload shows each
// question once with its new answer, and the model no longer sees what
// was replaced.
func TestUseChatRegenerate(t *testing.T) {
	s := NewLocal(t, nil)
	const id = "chat-regen"
	got := runChat(t, s.URL, id, nil,
		chatStep{Do: "send", Text: "What is photosynthesis?"},
		chatStep{Do: "send", Text: "你好"},
		chatStep{Do: "regenerate"},
		chatStep{Do: "load"})
	before, regen, loaded := got[1].Messages, got[2].Messages, got[3].Messages
	want := []string{"user", "assistant", "user", "assistant"}
	for _, step := range got[2:] {
		if step.Status != "ready" || len(step.Messages) != 4 {
			t.Fatalf("%s: status %q, messages %q", step.Do, step.Status, shown(step.Messages))
		}
		for i, m := range step.Messages {
			if m.Role != want[i] {
				t.Fatalf("%s: messages %q", step.Do, shown(step.Messages))
			}
		}
	}
	if regen[3].ID == before[3].ID || loaded[3].ID != regen[3].ID || loaded[1].ID != before[1].ID {
		t.Fatalf("regenerated answer ids: before %s, live %s, reloaded %s (first answer %s → %s)",
			before[3].ID, regen[3].ID, loaded[3].ID, before[1].ID, loaded[1].ID)
	}
	if shown(loaded)[2] != "user: 你好" || shown(loaded)[3] == "assistant: " {
		t.Fatalf("reloaded %q", shown(loaded))
	}

	// Regenerating the first answer drops the turn after it.
	first := loaded[1].ID
	got = runChat(t, s.URL, id, nil, chatStep{Do: "load"}, chatStep{Do: "regenerate", MessageID: first}, chatStep{Do: "load"})
	if live, reloaded := shown(got[1].Messages), shown(got[2].Messages); len(live) != 2 || len(reloaded) != 2 ||
		reloaded[0] != "user: What is photosynthesis?" || got[2].Messages[1].ID == first || got[2].Messages[1].ID != got[1].Messages[1].ID {
		t.Fatalf("after regenerating the first answer: live %q, reloaded %q", live, reloaded)
	}
	last := s.Offline.Requests()
	for _, m := range last[len(last)-1].Messages {
		if strings.Contains(m.Content, "你好") {
			t.Fatalf("the model still sees the replaced turn: %q", m.Content)
		}
	}

	// A messageId that names nothing is a 400.
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	body := `{"id":"chat-regen","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"}]}],"trigger":"regenerate-message","messageId":"msg-nope"}`
	if code := PostJSON(t, s.URL+"/api/conversation/stream", body, &e); code != 400 || e.Error.Code != "VALIDATION_ERROR" {
		t.Fatalf("regenerate an unknown message: %d %+v", code, e)
	}
}

// TestUseChatReloadAsTheTurnEnds: a page reloaded in the last moments of a
// turn reads /messages while the answer is half-written, and resumes only
// after the turn ended. The stock client must still end on the stored turn:
// the resume replays the turn that just ended (docs/reliability.md, the
// reload rule). The model holds the answer half-way ([[offline:hold]]) until
// the page's hook releases it and the turn's own stream has ended: no sleep.
func TestUseChatReloadAsTheTurnEnds(t *testing.T) {
	s := NewLocal(t, nil)
	const id = "chat-reload"
	_, r, _ := openStream(t, s.URL, `{"id":"chat-reload","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"What is photosynthesis? [[offline:hold]]"}]}],"trigger":"submit-message"}`)
	for readEvents(t, r, 1)[0].typ(t) != "text-delta" { // the answer is being written
	}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.Offline.Release()
		for readEvents(t, r, 1)[0].Data != "[DONE]" { // the turn ended
		}
	}))
	defer hook.Close()
	got := runChat(t, s.URL, id, nil, chatStep{Do: "load"}, chatStep{Do: "get", URL: hook.URL}, chatStep{Do: "resume"})
	var stored struct{ Messages []protocol.UIMessage }
	GetJSON(t, s.URL+"/api/conversation/"+id+"/messages", &stored)
	half, final, want := shown(got[0].Messages), shown(got[2].Messages), shown(stored.Messages)
	if len(half) != 2 || len(want) != 2 || len(half[1]) >= len(want[1]) {
		t.Fatalf("the reload did not read a half-written answer: read %q, stored %q", half, want)
	}
	if !slices.Equal(final, want) || got[2].Status != "ready" || got[2].Messages[1].ID != stored.Messages[1].ID {
		t.Fatalf("the page shows\n%q (%s)\nthe stored turn is\n%q", final, got[2].Status, want)
	}
}

// TestUseChatLinksThroughAProxy: a frontend reaches the API through its own
// proxy (another origin). The links of generated files and interactive
// pages, live and after a reload, point at the origin the page is on, never
// at the server's own listening address, and download through the proxy:
// relative by default; under PUBLIC_BASE_URL when the API sits below a
// path (a root-relative link would miss it). The links stay signed.
func TestUseChatLinksThroughAProxy(t *testing.T) {
	for _, c := range []struct {
		name, mount string
		public      bool
	}{
		{"relative links, proxy at the root", "", false},
		{"PUBLIC_BASE_URL, proxy under /ai", "/ai", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var target atomic.Pointer[url.URL]
			// Its own transport: another test's httptest.Server.Close
			// closes http.DefaultTransport's idle connections.
			upstream := http.DefaultTransport.(*http.Transport).Clone()
			defer upstream.CloseIdleConnections()
			rp := &httputil.ReverseProxy{
				Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target.Load()) },
				Transport:     upstream,
				FlushInterval: -1,
			}
			proxy := httptest.NewServer(http.StripPrefix(c.mount, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// The proxy still reads the request body (its end) while
				// it writes the answer the server began: without full
				// duplex that read fails once the answer's headers are
				// out, the transport closes the upstream connection, and
				// the client's stream is cut ("terminated").
				_ = http.NewResponseController(w).EnableFullDuplex()
				rp.ServeHTTP(w, r)
			})))
			defer proxy.Close()
			base := proxy.URL + c.mount
			env := map[string]string{}
			if c.public {
				env["PUBLIC_BASE_URL"] = base
			}
			s := NewLocal(t, env)
			u, _ := url.Parse(s.URL)
			target.Store(u)
			got := runChat(t, base, "chat-links", nil,
				chatStep{Do: "send", Text: "写一份牛顿第一定律的教案"},
				chatStep{Do: "send", Text: "做一个简单的网页介绍牛顿第一定律"},
				chatStep{Do: "load"})
			page, _ := url.Parse(base + "/chat") // where the frontend's page is
			for _, step := range got[1:] {
				links := map[string]string{}
				for _, m := range step.Messages {
					for _, p := range m.Parts {
						if p.Type == "data-file-ready" || p.Type == "data-interactive-content" {
							var d struct{ URL string }
							_ = json.Unmarshal(p.Data, &d)
							links[p.Type] = d.URL
						}
					}
				}
				if len(links) != 2 {
					var parts []string
					for _, m := range step.Messages {
						for _, p := range m.Parts {
							parts = append(parts, m.Role+":"+p.Type)
						}
					}
					errText := ""
					if step.Error != nil {
						errText = *step.Error
					}
					t.Fatalf("%s: links %v, want a file and a page (client status %q, error %q, parts %v)", step.Do, links, step.Status, errText, parts)
				}
				for typ, link := range links {
					switch {
					case c.public && !strings.HasPrefix(link, base+"/files/"):
						t.Errorf("%s %s: %q does not start with PUBLIC_BASE_URL %s", step.Do, typ, link, base)
					case !c.public && !strings.HasPrefix(link, "/files/"):
						t.Errorf("%s %s: %q is not relative", step.Do, typ, link)
					case !strings.Contains(link, "sig="):
						t.Errorf("%s %s: %q is not signed", step.Do, typ, link)
					}
					abs, err := page.Parse(link)
					if err != nil || abs.Host != page.Host {
						t.Fatalf("%s %s: %q resolves to %v, not to the page's origin %s", step.Do, typ, link, abs, page.Host)
					}
					status, _, body := download(t, page.String(), link)
					if status != http.StatusOK || len(body) == 0 {
						t.Fatalf("%s %s: GET %s through the proxy: %d", step.Do, typ, abs, status)
					}
				}
			}
		})
	}
}

// TestUseChatStopThenSend: useChat's stop() aborts only its fetch. When that
// was the turn's only reader, the next message wins: the old turn is
// stopped (its record ends stopped, its model call is cancelled) and the
// new one answers, instead of a 409 that leaves the message stuck.
func TestUseChatStopThenSend(t *testing.T) {
	s := NewLocal(t, nil)
	const id = "chat-stop"
	got := runChat(t, s.URL, id, nil,
		chatStep{Do: "send", Text: "What is photosynthesis? [[offline:hold]]", StopOnText: true},
		chatStep{Do: "send", Text: "你好"})
	if !got[0].Stopped {
		t.Fatal("the client never saw text to stop on")
	}
	last := got[1]
	if last.Status != "ready" || last.Error != nil || len(last.Messages) != 4 || shown(last.Messages)[3] == "assistant: " {
		t.Fatalf("the message after stop(): status %q, error %q, messages %q", last.Status, deref(last.Error), shown(last.Messages))
	}
	turns, err := s.DB.Sessions().ListTurns(context.Background(), id)
	if err != nil || len(turns) != 2 || turns[0].Status != session.TurnStopped || turns[1].Status != session.TurnCompleted {
		t.Fatalf("turns %+v, %v; want the first stopped, the second completed", turns, err)
	}
	waitFor(t, func() bool { // the model is the outside world: its call ends on its own clock
		for _, r := range s.Offline.Requests() {
			if slices.Contains(r.Markers, offlinemodel.MarkerHold) && r.Cancelled {
				return true
			}
		}
		return false
	})
}

// TestNewMessageWhileAClientReads: a new message for a turn that a client
// still reads is refused with 409, whichever client began the turn; once
// the last reader has gone, the new message wins.
func TestNewMessageWhileAClientReads(t *testing.T) {
	s := NewLocal(t, nil)
	body := func(text string) string {
		return fmt.Sprintf(`{"id":"chat-two","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":%q}]}],"trigger":"submit-message"}`, text)
	}
	respA, a, cancelA := openStream(t, s.URL, body("What is photosynthesis? [[offline:hold]]"))
	defer cancelA()
	for readEvents(t, a, 1)[0].typ(t) != "text-delta" {
	}
	// B: another tab resumes the same turn.
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	respB, err := http.DefaultClient.Do(mustReq(t, http.MethodGet, s.URL+"/api/conversation/chat-two/stream", "").WithContext(ctxB))
	if err != nil || respB.StatusCode != http.StatusOK {
		t.Fatalf("resume: %v %v", err, respB)
	}
	readEvents(t, newSSEReader(respB.Body), 1)
	conflict := func(when string) {
		t.Helper()
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		if code := PostJSON(t, s.URL+"/api/conversation/stream", body("你好"), &e); code != http.StatusConflict || e.Error.Code != "CONFLICT" {
			t.Fatalf("%s: a new message got %d %s, want 409", when, code, e.Error.Code)
		}
	}
	conflict("two clients read the turn")
	cancelA()
	respA.Body.Close()
	conflict("the tab that began the turn has gone, the other still reads")
	cancelB()
	respB.Body.Close()
	st := postStream(t, s.URL, body("你好"))
	if st.Status != http.StatusOK || st.text(t) == "" {
		t.Fatalf("after the last reader left: %d %s", st.Status, st.Raw)
	}
	turns, _ := s.DB.Sessions().ListTurns(context.Background(), "chat-two")
	if len(turns) != 2 || turns[0].Status != session.TurnStopped {
		t.Fatalf("turns %+v", turns)
	}
}
