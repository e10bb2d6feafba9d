package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// writeRaw writes req on a fresh connection to base that gives up after
// timeout; the caller closes it.
func writeRaw(t *testing.T, base, req string, timeout time.Duration) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(conn, req); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	return conn
}

// rawRequest writes req on a fresh connection and returns the answer's
// status line, headers and body.
func rawRequest(t *testing.T, base, req string) (*http.Response, string) {
	t.Helper()
	conn := writeRaw(t, base, req, 10*time.Second)
	defer conn.Close()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// TestUncleanPathsAnswerJSON: a ".." in any path is a JSON 400, not the
// mux's text/html redirect (F9).
func TestUncleanPathsAnswerJSON(t *testing.T) {
	s := NewLocal(t, nil)
	for _, p := range []string{"/api/conversation/../health", "/api/apps/x/../../health", "/files/../api/health",
		"/files/a/../../etc/passwd", "/api//health", "/api/%2e%2e/health", "/api/./health"} {
		resp, body := rawRequest(t, s.URL, "GET "+p+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		var e struct{ Error struct{ Code string } }
		if resp.StatusCode != 400 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
			json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != "VALIDATION_ERROR" {
			t.Errorf("GET %s: %d %s %q", p, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

// TestTraceIDIsChecked: a sane X-Trace-ID is echoed, anything else is
// replaced by a new one.
func TestTraceIDIsChecked(t *testing.T) {
	s := NewLocal(t, nil)
	for in, echoed := range map[string]bool{"<script>alert(1)</script>": false, strings.Repeat("a", 129): false,
		"a b": false, "0af7651916cd43dd8448eb211c80319c": true, "Root=1-5759e988-bd862e3fe1be46a994272793": true} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/health", nil)
		req.Header.Set("X-Trace-ID", in)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("X-Trace-ID")
		if (got == in) != echoed || got == "" {
			t.Errorf("X-Trace-ID %q answered %q", in, got)
		}
	}
}

// TestConnectionBounds: a body that never arrives and an idle keep-alive
// connection are closed by the server's timeouts (F8), while a stream that
// runs longer than them is not cut.
func TestConnectionBounds(t *testing.T) {
	s := NewLocal(t, map[string]string{"HTTP_READ_TIMEOUT": "1s", "HTTP_WRITE_TIMEOUT": "1s", "HTTP_IDLE_TIMEOUT": "1s"})
	closed := func(name, req string) {
		t.Helper()
		conn := writeRaw(t, s.URL, req, 15*time.Second)
		defer conn.Close()
		// Read until the server closes: EOF (or a reset) before our deadline.
		_, err := io.Copy(io.Discard, conn)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("%s: the server kept the connection open", name)
		}
	}
	closed("slow body", "POST /api/conversation HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"mess")
	closed("idle keep-alive", "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")

	st := postStream(t, s.URL, `{"message":"出 5 道牛顿第一定律的选择题 [[offline:slow]]"}`)
	if ty := st.types(t); st.Status != 200 || len(ty) < 2 || ty[len(ty)-2] != "finish" || ty[len(ty)-1] != "[DONE]" {
		t.Errorf("a stream longer than the write timeout: %d %v", st.Status, ty)
	}
}

// TestMessagesArePaged: /messages answers a page of the latest turns with
// a cursor to the earlier ones (F7), and refuses a bad limit or cursor.
func TestMessagesArePaged(t *testing.T) {
	s := NewLocal(t, nil)
	first := postStream(t, s.URL, `{"message":"What is photosynthesis? (1)"}`)
	conv := first.Header.Get("X-Conversation-Id")
	for i := 2; i <= 5; i++ {
		st := postStream(t, s.URL, fmt.Sprintf(`{"message":"What is photosynthesis? (%d)","conversationId":%q}`, i, conv))
		if st.Status != 200 {
			t.Fatalf("turn %d: %d", i, st.Status)
		}
	}
	type page struct {
		Messages []struct {
			Role  string
			Parts []struct{ Type, Text string }
		}
		NextCursor string
	}
	var users []string
	cursor, pages := "", 0
	for ; pages < 10; pages++ {
		var p page
		url := s.URL + "/api/conversation/" + conv + "/messages?limit=2"
		if cursor != "" {
			url += "&before=" + cursor
		}
		if code := GetJSON(t, url, &p); code != 200 {
			t.Fatalf("page %d: %d", pages, code)
		}
		if len(p.Messages) == 0 || len(p.Messages) > 4 {
			t.Fatalf("page %d has %d messages", pages, len(p.Messages))
		}
		var these []string
		for i, m := range p.Messages {
			if want := []string{"user", "assistant"}[i%2]; m.Role != want || len(m.Parts) == 0 {
				t.Fatalf("page %d message %d: %+v", pages, i, m)
			}
			if m.Role == "user" {
				these = append(these, m.Parts[0].Text)
			}
		}
		users = append(these, users...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if pages != 2 || len(users) != 5 || users[0] != "What is photosynthesis? (1)" || users[4] != "What is photosynthesis? (5)" {
		t.Errorf("%d pages, user messages %q", pages+1, users)
	}
	var all page
	if GetJSON(t, s.URL+"/api/conversation/"+conv+"/messages", &all); len(all.Messages) != 10 || all.NextCursor != "" {
		t.Errorf("default page: %d messages, cursor %q", len(all.Messages), all.NextCursor)
	}
	for _, q := range []string{"limit=0", "limit=201", "limit=x", "before=0", "before=abc"} {
		if code := GetJSON(t, s.URL+"/api/conversation/"+conv+"/messages?"+q, nil); code != 400 {
			t.Errorf("?%s: %d", q, code)
		}
	}
}

// TestLanguageIsBoundedEverywhere: a Blueprint's language (and a request's)
// is held to the same rule by generate, patch, apps and the conversation
// (F10).
func TestLanguageIsBoundedEverywhere(t *testing.T) {
	s := NewLocal(t, nil)
	bp, _ := PlanViaConversation(t, s, "分析 1A 班英语成绩")
	long := strings.Repeat("x", 200)
	var m map[string]any
	if err := json.Unmarshal(bp, &m); err != nil {
		t.Fatal(err)
	}
	m["language"] = long
	badBP, _ := json.Marshal(m)
	cases := []struct {
		path, body, code string
	}{
		{"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, badBP), "BLUEPRINT_ERROR"},
		{"/api/page/patch", fmt.Sprintf(`{"blueprint":%s,"patchPlan":{"scope":"rebuild"}}`, badBP), "BLUEPRINT_ERROR"},
		{"/api/apps", fmt.Sprintf(`{"name":"x","blueprint":%s}`, badBP), "BLUEPRINT_ERROR"},
		{"/api/page/generate", fmt.Sprintf(`{"blueprint":%s,"language":%q}`, bp, long), "VALIDATION_ERROR"},
		{"/api/workflow/generate", fmt.Sprintf(`{"message":"分析 1A 班英语成绩","language":%q}`, long), "VALIDATION_ERROR"},
		{"/api/conversation", fmt.Sprintf(`{"message":"hi","language":%q}`, long), "VALIDATION_ERROR"},
		{"/api/conversation", `{"message":"hi","language":"<b>"}`, "VALIDATION_ERROR"},
	}
	for _, c := range cases {
		var e struct{ Error struct{ Code string } }
		if code := PostJSON(t, s.URL+c.path, c.body, &e); code < 400 || code >= 500 || e.Error.Code != c.code {
			t.Errorf("POST %s: %d %s, want %s", c.path, code, e.Error.Code, c.code)
		}
	}
}

// TestIDSpacesApart: a build id is not a conversation id.
func TestIDSpacesApart(t *testing.T) {
	s := NewLocal(t, nil)
	bp, _ := PlanViaConversation(t, s, "分析 1A 班英语成绩")
	st := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, bp))
	build := st.Header.Get("X-Build-Id")
	// Read as a conversation, a build id is one with nothing in it (as any
	// id that is not the caller's conversation): nothing of the build shows.
	var page struct{ Messages []any }
	if code := GetJSON(t, s.URL+"/api/conversation/"+build+"/messages", &page); code != 200 || len(page.Messages) != 0 {
		t.Errorf("GET /api/conversation/{build id}/messages: %d, %d messages", code, len(page.Messages))
	}
	if st := do(t, mustReq(t, "GET", s.URL+"/api/conversation/"+build+"/stream", "")); st.Status != 204 || len(st.Raw) != 0 {
		t.Errorf("GET /api/conversation/{build id}/stream: %d %q", st.Status, st.Raw)
	}
	var e struct{ Error struct{ Code string } }
	if code := PostJSON(t, s.URL+"/api/conversation", fmt.Sprintf(`{"message":"hi","conversationId":%q}`, build), &e); code != 404 {
		t.Errorf("a turn in a build's session: %d %v", code, e)
	}
}
