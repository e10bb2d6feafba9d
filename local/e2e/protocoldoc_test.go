package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

// docs/protocol.md is the wire contract for the frontend team. Its
// examples are captured from the server: each block between
// <!-- capture:NAME --> and <!-- /capture --> is what the flow NAME below
// sends, run against the in-process server with the offline model, after
// normalisation (ids numbered by first appearance, the port, signatures and
// times fixed, consecutive deltas of one part merged and the event ids
// renumbered, heartbeats dropped, long strings abridged). A change to the
// wire makes this test fail; `go test ./local/e2e -run TestProtocolDoc -update`
// rewrites the blocks. A new flow is a new entry in protocolFlows and a new
// marker pair in the doc.

var updateDoc = flag.Bool("update", false, "rewrite the captured examples in docs/protocol.md")

const protocolDoc = "../../docs/protocol.md"

// protocolFlows are the captured flows, by the name of their block.
func protocolFlows() []protocolFlow {
	conv := func(msg string, more ...string) func(c *capturer) {
		return func(c *capturer) {
			id := c.sse("POST", "/api/conversation/stream", fmt.Sprintf(`{"message":%q}`, msg))
			for _, m := range more {
				c.sse("POST", "/api/conversation/stream", fmt.Sprintf(`{"message":%q,"conversationId":%q}`, m, id))
			}
		}
	}
	return []protocolFlow{
		{"quiz", conv("出 2 道牛顿第一定律的选择题")},
		{"outline-then-deck", conv("Make a slide deck on photosynthesis", "yes, go ahead")},
		{"document", conv("Write a lesson plan on Newton's first law")},
		{"interactive", conv("做一个光合作用的互动闪卡")},
		{"clarify", conv("帮我弄一下")},
		{"data-notice", func(c *capturer) {
			c.s.Java.SetFault(mockserver.Fault{Status: http.StatusServiceUnavailable})
			defer c.s.Java.SetFault(mockserver.Fault{})
			c.sse("POST", "/api/conversation/stream", `{"message":"我有哪些班？"}`)
		}},
		{"clarify-choices", conv("哪些学生语法最弱？", "class-hk-f1a")}, // issue 30: choices by id (after data-notice: it warms the class cache)
		{"guide", func(c *capturer) { c.sse("POST", "/api/conversation/stream", `{"message":"你好","mode":"strict"}`) }},
		{"reasoning", conv("What is photosynthesis? [[offline:reasoning]]")},
		{"error", conv("出 2 道牛顿第一定律的选择题 [[offline:claim-always]]")},
		{"build", conv("分析 1A 班英语成绩")},
		{"page-refine", func(c *capturer) {
			blueprint := blueprintOf(c.quietJSON("POST", "/api/workflow/generate", `{"message":"分析 1A 班英语成绩"}`))
			c.sseShown("POST", "/api/conversation/stream", fmt.Sprintf(`{"message":"把分析总结改得更简短","blueprint":%s}`, blueprint),
				`{"message":"把分析总结改得更简短","blueprint": <the page's Blueprint, as /api/workflow/generate or data-blueprint gave it>}`)
		}},
		{"usechat-body", func(c *capturer) {
			c.sse("POST", "/api/conversation/stream", `{"id":"chat-from-usechat","trigger":"submit-message","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"Hello!"}]}]}`)
		}},
		{"resume-and-messages", func(c *capturer) {
			id := c.sse("POST", "/api/conversation/stream", `{"message":"What is photosynthesis?"}`)
			c.sse("GET", "/api/conversation/"+id+"/stream", "")
			c.json("GET", "/api/conversation/"+id+"/messages", "")
		}},
		{"json-answer", func(c *capturer) {
			c.json("POST", "/api/conversation", `{"message":"出 2 道牛顿第一定律的选择题"}`)
		}},
		{"page-build", func(c *capturer) {
			blueprint := blueprintOf([]byte(c.json("POST", "/api/workflow/generate", `{"message":"分析 1A 班英语成绩"}`)))
			c.sseShown("POST", "/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, blueprint), `{"blueprint": <the "blueprint" above>}`)
		}},
		{"page-patch", func(c *capturer) {
			blueprint := blueprintOf(c.quietJSON("POST", "/api/workflow/generate", `{"message":"分析 1A 班英语成绩"}`))
			done := c.quietSSE("POST", "/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, blueprint))
			var complete struct {
				Result struct {
					Page, DataContext, ComputeResults json.RawMessage
				} `json:"result"`
			}
			_ = json.Unmarshal([]byte(done), &complete)
			c.sseShown("POST", "/api/page/patch", fmt.Sprintf(`{"blueprint":%s,"page":%s,"dataContext":%s,"computeResults":%s,"patchPlan":%s}`,
				blueprint, complete.Result.Page, complete.Result.DataContext, complete.Result.ComputeResults,
				`{"scope":"patch","instructions":[{"op":"restyle","blockId":"distribution","variant":"line"}]}`),
				`{"blueprint": {…}, "page": {…}, "dataContext": {…}, "computeResults": {…}, "patchPlan": {"scope":"patch","instructions":[{"op":"restyle","blockId":"distribution","variant":"line"}]}}`+
					"\n(page, dataContext and computeResults: the result of the build's COMPLETE event)")
		}},
		{"errors", func(c *capturer) {
			c.json("POST", "/api/conversation/stream", `{"message":""}`)
			c.json("POST", "/api/page/generate", `{"context":{}}`)
			c.json("GET", "/api/research/no-such-session/stream", "")
		}},
		{"research", func(c *capturer) {
			body := c.quietJSON("POST", "/api/research", `{"topic":"牛顿力学的发展"}`)
			c.record("POST /api/research\n" + `{"topic":"牛顿力学的发展"}` + "\n\n200 application/json\n" + abridgeJSON([]byte(c.normalise(string(body)))))
			var p struct {
				SessionID string `json:"session_id"`
			}
			_ = json.Unmarshal(body, &p)
			c.sse("GET", "/api/research/"+p.SessionID+"/stream", "")
		}},
		{"template-sse", func(c *capturer) {
			created := c.quietJSON("POST", "/api/template/sessions", "")
			c.record("POST /api/template/sessions\n\n201 application/json\n" + abridgeJSON([]byte(c.normalise(string(created)))))
			var p struct {
				SessionID string `json:"session_id"`
			}
			_ = json.Unmarshal(created, &p)
			c.templateSSE(p.SessionID)
		}},
		{"template-ws", func(c *capturer) { c.templateWS() }},
	}
}

type protocolFlow struct {
	name string
	run  func(c *capturer)
}

func TestProtocolDoc(t *testing.T) {
	doc, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	s := NewLocal(t, templateEnv("TEMPLATE_WS_CONCURRENCY", "1", "JAVA_API_RETRY_BASE", "10ms", "SSE_HEARTBEAT", "1h"))
	got := map[string]string{}
	for _, f := range protocolFlows() {
		c := &capturer{t: t, s: s, ids: map[string]string{}}
		f.run(c)
		got[f.name] = c.normalise(strings.Join(c.out, "\n\n"))
	}
	out, missing := replaceCaptures(string(doc), got)
	if *updateDoc {
		if err := os.WriteFile(protocolDoc, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range missing {
		t.Errorf("docs/protocol.md has no <!-- capture:%s --> block", name)
	}
	if out != string(doc) {
		want := captures(string(doc))
		for name, g := range got {
			if want[name] != g {
				t.Errorf("capture %s differs from docs/protocol.md (run go test ./local/e2e -run TestProtocolDoc -update if the change is intended):\n%s", name, firstDiff(want[name], g))
			}
		}
	}
	checkErrorTable(t, string(doc))
}

// checkErrorTable: the doc's error table names every code with the status
// the edge answers it with.
func checkErrorTable(t *testing.T, doc string) {
	for _, code := range []apperr.Code{apperr.ValidationError, apperr.AuthError, apperr.EntityNotFound, apperr.Conflict,
		apperr.BlueprintError, apperr.DataError, apperr.AIError, apperr.ServiceUnavailable, apperr.Internal,
		apperr.RateLimited} { // issue 26
		status := apperr.New(code, "x").HTTPStatus()
		row := regexp.MustCompile("(?m)^\\| `" + string(code) + "` \\| ([^|]*)\\|").FindStringSubmatch(doc)
		if row == nil || !strings.Contains(row[1], strconv.Itoa(status)) {
			t.Errorf("docs/protocol.md's error table does not give %s with HTTP %d", code, status)
		}
	}
}

var captureBlock = regexp.MustCompile("(?s)<!-- capture:([a-z0-9-]+) -->\n```text\n(.*?)```\n<!-- /capture -->")

func captures(doc string) map[string]string {
	out := map[string]string{}
	for _, m := range captureBlock.FindAllStringSubmatch(doc, -1) {
		out[m[1]] = strings.TrimSuffix(m[2], "\n")
	}
	return out
}

// replaceCaptures puts each capture into its block; missing lists the
// flows without one.
func replaceCaptures(doc string, got map[string]string) (string, []string) {
	seen := map[string]bool{}
	out := captureBlock.ReplaceAllStringFunc(doc, func(block string) string {
		name := captureBlock.FindStringSubmatch(block)[1]
		g, ok := got[name]
		if !ok {
			return block // a block of a flow another change adds
		}
		seen[name] = true
		return "<!-- capture:" + name + " -->\n```text\n" + g + "\n```\n<!-- /capture -->"
	})
	var missing []string
	for name := range got {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	return out, missing
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n doc: %s\n got: %s", i+1, wl, gl)
		}
	}
	return "(same lines)"
}

// capturer runs one flow's requests and records what was sent and
// received.
type capturer struct {
	t   *testing.T
	s   Local
	out []string
	ids map[string]string
	n   int
}

// blueprintOf is the blueprint of a /api/workflow/generate answer (the
// answer itself when it holds none).
func blueprintOf(answer []byte) json.RawMessage {
	var plan struct {
		Blueprint json.RawMessage `json:"blueprint"`
	}
	if json.Unmarshal(answer, &plan) != nil || len(plan.Blueprint) == 0 {
		return answer
	}
	return plan.Blueprint
}

func (c *capturer) record(s string) { c.out = append(c.out, s) }

func (c *capturer) request(method, path, body string) *http.Response {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.s.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	c.t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

func requestLine(method, path, body string) string {
	if body == "" {
		return method + " " + path
	}
	return method + " " + path + "\n" + abridgeJSON([]byte(body))
}

// sse records one streaming exchange and returns the conversation id the
// response names (x-conversation-id), if any.
func (c *capturer) sse(method, path, body string) string {
	c.t.Helper()
	return c.sseShown(method, path, body, body)
}

// sseShown is sse with the request body shown as shown (a body that
// repeats a large object shown earlier).
func (c *capturer) sseShown(method, path, body, shown string) string {
	c.t.Helper()
	resp := c.request(method, path, body)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	head := fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	for _, h := range []string{"X-Vercel-Ai-Ui-Message-Stream", "X-Conversation-Id", "X-Build-Id", "X-Build-Mode"} {
		if v := resp.Header.Get(h); v != "" {
			head += "\n" + strings.ToLower(h) + ": " + v
		}
	}
	line := requestLine(method, c.normalise(path), c.normalise(body))
	if shown != body {
		line = method + " " + path + "\n" + shown
	}
	c.record(line + "\n\n" + c.normalise(head) + "\n" + normaliseSSE(c.normalise(string(raw))))
	return resp.Header.Get("X-Conversation-Id")
}

// quietSSE runs a streaming request without recording it and returns its
// last data line.
func (c *capturer) quietSSE(method, path, body string) string {
	resp := c.request(method, path, body)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	last := ""
	for _, line := range strings.Split(string(raw), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			last = d
		}
	}
	return last
}

// json records one JSON exchange and returns the body.
func (c *capturer) json(method, path, body string) string {
	c.t.Helper()
	resp := c.request(method, path, body)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	c.record(requestLine(method, c.normalise(path), c.normalise(body)) + "\n\n" + fmt.Sprintf("%d %s", resp.StatusCode, ct) + "\n" + abridgeJSON([]byte(c.normalise(string(raw)))))
	return string(raw)
}

func (c *capturer) quietJSON(method, path, body string) []byte {
	resp := c.request(method, path, body)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return raw
}

// templateSSE drives the template report over SSE + POST: a question, the
// plan's confirmation, the report.
func (c *capturer) templateSSE(sid string) {
	c.t.Helper()
	resp := c.request("GET", "/api/template/sessions/"+sid+"/stream", "")
	defer resp.Body.Close()
	var lines []string
	lines = append(lines, fmt.Sprintf("GET /api/template/sessions/%s/stream\n\n%d %s", sid, resp.StatusCode, resp.Header.Get("Content-Type")))
	events := make(chan string, 256)
	go func() {
		defer close(events)
		var b strings.Builder
		buf := make([]byte, 64<<10)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			for {
				s := b.String()
				i := strings.Index(s, "\n\n")
				if i < 0 {
					break
				}
				events <- s[:i+2]
				b.Reset()
				b.WriteString(s[i+2:])
			}
			if err != nil {
				return
			}
		}
	}()
	until := func(event string) {
		deadline := time.After(60 * time.Second)
		for {
			select {
			case e, ok := <-events:
				if !ok {
					c.t.Fatalf("template stream ended before %s", event)
				}
				lines = append(lines, e)
				if strings.Contains(e, `"event":"`+event+`"`) {
					return
				}
			case <-deadline:
				c.t.Fatalf("no %s on the template stream", event)
			}
		}
	}
	post := func(body string) {
		r := c.request("POST", "/api/template/sessions/"+sid+"/events", body)
		r.Body.Close()
		lines = append(lines, fmt.Sprintf("\n(POST /api/template/sessions/%s/events %s → %d)\n\n", sid, body, r.StatusCode))
	}
	until("agent.session_created")
	post(`{"event":"user.message","content":{"question":"请基于指定模版与知识库生成报告","template_name":"学期教学工作总结","knowledge_base_name":"Form 1A"}}`)
	until("agent.user_confirm")
	step := regexp.MustCompile(`"step_id":"([^"]+)"`).FindStringSubmatch(lines[len(lines)-1])
	if step == nil {
		c.t.Fatalf("agent.user_confirm without a step_id: %s", lines[len(lines)-1])
	}
	post(fmt.Sprintf(`{"event":"user.response","step_id":%q,"content":{"confirmed":true}}`, step[1]))
	until("agent.final_answer")
	c.record(c.normalise(lines[0]) + "\n" + normaliseSSE(c.normalise(strings.Join(lines[1:], ""))))
}

// templateWS drives the same report over the WebSocket: "> " frames are
// the client's, "< " the server's.
func (c *capturer) templateWS() {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(c.s.URL, "http")+"/ws/template", nil)
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close(websocket.StatusNormalClosure, "bye")
	lines := []string{"GET /ws/template (WebSocket)"}
	send := func(s string) {
		if err := conn.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
			c.t.Fatal(err)
		}
		lines = append(lines, "> "+abridgeLine(c.normalise(s)))
	}
	until := func(event string) string {
		for {
			_, b, err := conn.Read(ctx)
			if err != nil {
				c.t.Fatalf("waiting for %s: %v", event, err)
			}
			s := string(b)
			if strings.Contains(s, `"event":"system.heartbeat"`) {
				continue
			}
			lines = append(lines, "< "+abridgeLine(c.normalise(s)))
			if strings.Contains(s, `"event":"`+event+`"`) {
				return s
			}
		}
	}
	send(`{"event":"user.create_session"}`)
	created := until("agent.session_created")
	sid := regexp.MustCompile(`"session_id":"([^"]+)"`).FindStringSubmatch(created)[1]
	send(fmt.Sprintf(`{"event":"user.message","session_id":%q,"content":{"question":"请基于指定模版与知识库生成报告","template_name":"学期教学工作总结","knowledge_base_name":"Form 1A"}}`, sid))
	confirm := until("agent.user_confirm")
	step := regexp.MustCompile(`"step_id":"([^"]+)"`).FindStringSubmatch(confirm)[1]
	send(fmt.Sprintf(`{"event":"user.response","session_id":%q,"step_id":%q,"content":{"confirmed":true}}`, sid, step))
	until("agent.final_answer")
	c.record(strings.Join(lines, "\n"))
}

// normaliseSSE drops heartbeats, merges consecutive deltas of one part and
// renumbers the ids, and abridges long strings.
func normaliseSSE(raw string) string {
	type event struct {
		name, data string
		hasID      bool
	}
	var evs []event
	for _, block := range strings.Split(strings.ReplaceAll(raw, "\r\n", "\n"), "\n\n") {
		var e event
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "id: "):
				e.hasID = true
			case strings.HasPrefix(line, "event: "):
				e.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				e.data = line[6:]
			}
		}
		if e.data == "" || strings.Contains(e.data, `"event":"system.heartbeat"`) {
			continue
		}
		if n := len(evs); n > 0 {
			if merged, ok := mergeDelta(evs[n-1].data, e.data); ok && evs[n-1].name == e.name {
				evs[n-1].data = merged
				continue
			}
		}
		evs = append(evs, e)
	}
	var b strings.Builder
	id := 0
	for _, e := range evs {
		if e.hasID {
			id++
			fmt.Fprintf(&b, "id: %d\n", id)
		}
		if e.name != "" {
			fmt.Fprintf(&b, "event: %s\n", e.name)
		}
		if e.data == "[DONE]" {
			b.WriteString("data: [DONE]\n\n")
			continue
		}
		fmt.Fprintf(&b, "data: %s\n\n", abridgeLine(e.data))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// mergeDelta joins b into a when both are deltas of one part: text,
// reasoning (UI stream) or one slot of a block (page stream).
func mergeDelta(a, b string) (string, bool) {
	var x, y map[string]any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil || x["type"] != y["type"] {
		return "", false
	}
	var field string
	switch x["type"] {
	case "text-delta", "reasoning-delta":
		field = "delta"
		if x["id"] != y["id"] {
			return "", false
		}
	case "SLOT_DELTA":
		field = "deltaText"
		if x["blockId"] != y["blockId"] || x["slotKey"] != y["slotKey"] {
			return "", false
		}
	default:
		return "", false
	}
	xs, _ := x[field].(string)
	ys, _ := y[field].(string)
	old, _ := json.Marshal(xs)
	joined, _ := json.Marshal(xs + ys)
	i := strings.LastIndex(a, `"`+field+`":`+string(old))
	if i < 0 {
		return "", false
	}
	return a[:i] + `"` + field + `":` + string(joined) + a[i+len(`"`+field+`":`+string(old)):], true
}

// maxShown bounds a string in an example; a longer one is cut, marked
// with its length.
const maxShown = 160

var jsonString = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// abridgeLine cuts the long JSON strings of one line, keeping its bytes
// otherwise (key order, escaping) as the server sent them.
func abridgeLine(s string) string {
	return jsonString.ReplaceAllStringFunc(s, func(lit string) string {
		var v string
		if json.Unmarshal([]byte(lit), &v) != nil || len([]rune(v)) <= maxShown {
			return lit
		}
		r := []rune(v)
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(fmt.Sprintf("%s…(%d chars)", string(r[:maxShown*2/3]), len(r)))
		return strings.TrimSpace(b.String())
	})
}

// abridgeJSON is a JSON body indented, long strings cut.
func abridgeJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, bytes.TrimSpace(raw), "", "  ") != nil {
		return abridgeLine(strings.TrimSpace(string(raw)))
	}
	return abridgeLine(b.String())
}

// normalise numbers the ids by first appearance and fixes what differs
// from run to run: the port, signed links, times, durations.
func (c *capturer) normalise(s string) string {
	s = regexp.MustCompile(`http://127\.0\.0\.1:\d+`).ReplaceAllString(s, "http://127.0.0.1:8000")
	s = regexp.MustCompile(`exp=\d+&sig=[0-9a-f]+`).ReplaceAllString(s, "exp=<expiry>&sig=<signature>")
	for _, p := range []*regexp.Regexp{
		regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`),
		regexp.MustCompile(`\bcall_[0-9a-f]{24}\b`),
		regexp.MustCompile(`\b[0-9a-f]{32}\b`),
	} {
		s = p.ReplaceAllStringFunc(s, func(id string) string {
			if v, ok := c.ids[id]; ok {
				return v
			}
			c.n++
			v := fmt.Sprintf("%d", c.n)
			if strings.HasPrefix(id, "call_") {
				v = "call_" + v
			}
			c.ids[id] = v
			return v
		})
	}
	s = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})`).ReplaceAllString(s, "2026-01-01T00:00:00Z")
	s = regexp.MustCompile(`"(duration_seconds|durationMs|elapsedMs|elapsed_seconds|timestamp)":\s*[0-9.]+`).ReplaceAllString(s, `"$1":0`)
	s = regexp.MustCompile(`"size":\s*\d+`).ReplaceAllString(s, `"size":12345`)
	return s
}
