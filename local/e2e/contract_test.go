package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/server"
)

// A client that echoes the X-Conversation-Id it got back continues that
// conversation, on both routes; a header and a body that name different
// conversations are a 400; a header naming nobody's conversation is a 404.
func TestConversationHeaderContinues(t *testing.T) {
	s := NewLocal(t, nil)
	first := postStream(t, s.URL, `{"message":"出 3 道牛顿第一定律的选择题"}`)
	conv := first.Header.Get("X-Conversation-Id")
	if first.Status != 200 || conv == "" {
		t.Fatalf("first turn: %d %q", first.Status, conv)
	}
	second := postStream(t, s.URL, `{"message":"再出 2 道"}`, "X-Conversation-Id", conv)
	meta, _ := second.Events[0].chunk(t)["messageMetadata"].(map[string]any)
	if second.Status != 200 || second.Header.Get("X-Conversation-Id") != conv || meta["conversationId"] != conv {
		t.Fatalf("the stream with the header started %v / %q, want %s", meta, second.Header.Get("X-Conversation-Id"), conv)
	}
	code, a := askJSON(t, s, `{"message":"谢谢"}`, "X-Conversation-Id", conv)
	if code != 200 || a.ConversationID != conv {
		t.Fatalf("the JSON turn with the header: %d %+v", code, a)
	}
	var msgs struct {
		Messages []struct{ Role string } `json:"messages"`
	}
	if GetJSON(t, s.URL+"/api/conversation/"+conv+"/messages", &msgs) != 200 || len(msgs.Messages) != 6 {
		t.Errorf("the conversation has %d messages, want three turns (6)", len(msgs.Messages))
	}
	// The second turn continued the first: its quiz follows on the history.
	if txt := second.text(t); !strings.Contains(txt, "牛顿") {
		t.Errorf("the follow-up did not continue the topic: %q", txt)
	}

	var e convAnswer
	if code := PostJSON(t, s.URL+"/api/conversation", fmt.Sprintf(`{"message":"hi","conversationId":%q}`, conv), &e, "X-Conversation-Id", "conv-other"); code != 400 || e.Error == nil || e.Error.Code != "VALIDATION_ERROR" {
		t.Errorf("header and body disagree: %d %+v", code, e.Error)
	}
	if code := PostJSON(t, s.URL+"/api/conversation", `{"message":"hi"}`, &e, "X-Conversation-Id", "conv-nobody"); code != 404 {
		t.Errorf("an unknown conversation in the header: %d", code)
	}
	if code := PostJSON(t, s.URL+"/api/conversation", `{"message":"hi"}`, &e, "X-Conversation-Id", "../x"); code != 400 {
		t.Errorf("a malformed id in the header: %d", code)
	}
}

// A frontend on another origin (a dev server on :3000) can call the local
// server: preflights are answered, and every answer, the SSE stream
// included, carries the CORS headers of template.yaml's policy.
func TestCORS(t *testing.T) {
	const origin = "http://localhost:3000"
	preflight := func(t *testing.T, base, origin, path string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, base+path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,x-conversation-id")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	t.Run("default origins", func(t *testing.T) {
		s := NewLocal(t, nil)
		for _, path := range []string{"/api/conversation/stream", "/api/conversation", "/api/page/generate", "/api/page/patch", "/api/research"} {
			resp := preflight(t, s.URL, origin, path)
			allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
			if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") == "" ||
				!strings.Contains(allowed, "x-conversation-id") || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
				t.Errorf("OPTIONS %s: %d %v", path, resp.StatusCode, resp.Header)
			}
		}
		st := postStream(t, s.URL, `{"message":"你好"}`, "Origin", origin)
		expose := strings.ToLower(st.Header.Get("Access-Control-Expose-Headers"))
		if st.Status != 200 || st.Header.Get("Access-Control-Allow-Origin") == "" || !strings.Contains(expose, "x-conversation-id") ||
			!strings.Contains(expose, "x-vercel-ai-ui-message-stream") {
			t.Errorf("the stream's CORS headers: %v", st.Header)
		}
		if !slices.Contains(st.types(t), "finish") {
			t.Errorf("the stream did not finish: %v", st.types(t))
		}
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/health", nil)
		req.Header.Set("Origin", origin)
		if h := do(t, req); h.Header.Get("Access-Control-Allow-Origin") == "" {
			t.Errorf("a JSON route without CORS headers: %v", h.Header)
		}
	})
	t.Run("configured origins", func(t *testing.T) {
		s := NewLocal(t, map[string]string{"CORS_ALLOW_ORIGINS": "https://teacher.example.com, " + origin})
		if resp := preflight(t, s.URL, origin, "/api/conversation"); resp.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("a listed origin: %v", resp.Header)
		}
		if resp := preflight(t, s.URL, "http://evil.example", "/api/conversation"); resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("an origin not listed is allowed: %v", resp.Header)
		}
	})
	t.Run("bad setting", func(t *testing.T) {
		for _, v := range []string{"localhost:3000", "http://a.example,,http://b.example"} {
			getenv := func(k string) string { return map[string]string{"CORS_ALLOW_ORIGINS": v}[k] }
			_, err := server.Start(context.Background(), server.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir(), Getenv: getenv, Logger: discardLogger()})
			if err == nil || !strings.Contains(err.Error(), "CORS_ALLOW_ORIGINS") {
				t.Errorf("CORS_ALLOW_ORIGINS=%q: %v", v, err)
			}
		}
	})
}
