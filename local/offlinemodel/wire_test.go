package offlinemodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/golden"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/syncbuf"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// post sends a raw body and returns the status and the response bytes.
func post(t *testing.T, base, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func startRaw(t *testing.T) (*Server, string) {
	t.Helper()
	s := New(Options{})
	base, shutdown, err := s.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	return s, base
}

func requestBody(t *testing.T, req openai.ChatCompletionRequest) string {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGolden pins the exact bytes of each wire format: a JSON-mode router
// reply, a streamed agent tool call with usage, and a streamed text answer.
func TestGolden(t *testing.T) {
	agent := openai.ChatCompletionRequest{Model: "offline-standard", Stream: true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true}, Tools: agentTools(),
		Messages: []openai.ChatCompletionMessage{system(prompts.AgentHeader, ""), user("出 2 道牛顿第一定律的判断题")}}
	chat := openai.ChatCompletionRequest{Model: "offline-fast", Stream: true,
		Messages: []openai.ChatCompletionMessage{system(prompts.ChatHeader, ""), user("谢谢")}}
	cases := map[string]string{
		"router.json":     requestBody(t, routerRequest("Create 3 multiple-choice questions about photosynthesis")),
		"agent_tool.sse":  requestBody(t, agent),
		"chat_thanks.sse": requestBody(t, chat),
	}
	_, base := startRaw(t)
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			status, got := post(t, base, body)
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, got)
			}
			_, again := post(t, base, body)
			if !bytes.Equal(got, again) {
				t.Fatal("the same request gave different bytes")
			}
			golden.Check(t, filepath.Join("testdata", name+".golden"), got, *update)
		})
	}
}

func TestStreamShape(t *testing.T) {
	_, c := start(t, Options{})
	req := openai.ChatCompletionRequest{Model: "offline-standard", StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		Tools: agentTools(), Messages: []openai.ChatCompletionMessage{system(prompts.AgentHeader, ""), user("什么是牛顿第一定律？")}}
	r := complete(t, c, req, true)
	if r.usage == nil || r.usage.TotalTokens != r.usage.PromptTokens+r.usage.CompletionTokens || r.usage.CompletionTokens == 0 {
		t.Fatalf("usage %+v", r.usage)
	}
	if r.finish != openai.FinishReasonToolCalls {
		t.Errorf("finish %q", r.finish)
	}
	args := argsOf(t, r.call(t))
	if args["status"] != statusAnswer || !strings.Contains(args["message"].(string), "惯性") {
		t.Errorf("final_result %v", args)
	}
	// Several argument fragments, none splitting a rune (checked by complete).
	st, err := c.CreateChatCompletionStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fragments, usageChunks := 0, 0
	for i := 0; i < 10_000; i++ {
		ch, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(ch.Choices) == 0 {
			usageChunks++
			continue
		}
		if tcs := ch.Choices[0].Delta.ToolCalls; len(tcs) == 1 && tcs[0].Function.Arguments != "" {
			fragments++
		}
	}
	if fragments < 10 || usageChunks != 1 {
		t.Errorf("%d argument fragments, %d usage chunks", fragments, usageChunks)
	}
}

func TestNoUsageChunkUnlessAsked(t *testing.T) {
	_, c := start(t, Options{})
	r := complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{system(prompts.ChatHeader, ""), user("hi")}}, true)
	if r.usage != nil {
		t.Errorf("usage %+v without include_usage", r.usage)
	}
}

func TestBadRequests(t *testing.T) {
	_, base := startRaw(t)
	tests := []struct {
		name, body string
		status     int
	}{
		{"not JSON", `{"model":`, http.StatusBadRequest},
		{"no messages", `{"model":"m","messages":[]}`, http.StatusBadRequest},
		{"bad content", `{"model":"m","messages":[{"role":"user","content":42}]}`, http.StatusBadRequest},
		{"bad tool_choice", `{"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":"sometimes"}`, http.StatusBadRequest},
		{"required without tools", `{"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":"required"}`, http.StatusBadRequest},
		{"forced tool not offered", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"a"}}],"tool_choice":{"type":"function","function":{"name":"b"}}}`, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(t, base, tt.body)
			var e apiError
			if status != tt.status || json.Unmarshal(body, &e) != nil || e.Error.Message == "" || e.Error.Type != "invalid_request_error" {
				t.Fatalf("status %d body %s", status, body)
			}
		})
	}
	resp, err := http.Get(base + "/nowhere")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}
}

func TestGoOpenAISeesErrors(t *testing.T) {
	_, c := start(t, Options{})
	_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m",
		Messages: []openai.ChatCompletionMessage{user("x")}, Tools: agentTools(),
		ToolChoice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: "not_a_tool"}}})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusBadRequest {
		t.Fatalf("err = %v", err)
	}
}

func TestModels(t *testing.T) {
	_, c := start(t, Options{})
	list, err := c.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != ModelFast+","+ModelStandard+","+ModelStrong {
		t.Errorf("models %v", ids)
	}
}

func TestOtherClientShapesAccepted(t *testing.T) {
	_, base := startRaw(t)
	// Content as parts, null content beside tool calls, a developer message, no /v1.
	body := `{"model":"any","messages":[
		{"role":"developer","content":[{"type":"text","text":"` + prompts.AgentHeader + `\nbe useful"}]},
		{"role":"user","content":[{"type":"text","text":"我有哪些班？"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_teacher_classes","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"{\"classes\":[{\"name\":\"3C\",\"subject\":\"Maths\",\"studentCount\":30}]}"}],
		"tools":[{"type":"function","function":{"name":"final_result","parameters":{"type":"object"}}},{"type":"function","function":{"name":"get_teacher_classes"}}]}`
	resp, err := http.Post(strings.TrimSuffix(base, "/v1")+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out openai.ChatCompletionResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	tc := out.Choices[0].Message.ToolCalls
	if len(tc) != 1 || tc[0].Function.Name != prompts.FinalResultTool || !strings.Contains(tc[0].Function.Arguments, "3C") {
		t.Fatalf("reply %+v", out.Choices[0].Message)
	}
}

func TestJSONModeAlwaysGetsJSON(t *testing.T) {
	_, c := start(t, Options{})
	for _, header := range []string{prompts.ChatHeader, "# unknown", prompts.AgentHeader} {
		r := complete(t, c, openai.ChatCompletionRequest{Model: "m",
			Messages:       []openai.ChatCompletionMessage{system(header, ""), user("你好")},
			ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}}, true)
		var obj map[string]any
		if err := json.Unmarshal([]byte(r.content), &obj); err != nil {
			t.Errorf("%s: %q is not a JSON object", header, r.content)
		}
	}
}

func TestToolCallIDsFollowTheConversation(t *testing.T) {
	_, c := start(t, Options{})
	ask := func(msg string, stream bool) string {
		return complete(t, c, openai.ChatCompletionRequest{Model: "m", Tools: agentTools(),
			Messages: []openai.ChatCompletionMessage{system(prompts.AgentHeader, ""), user(msg)}}, stream).call(t).ID
	}
	a, b, other := ask("我有哪些班？", false), ask("我有哪些班？", true), ask("what classes do I have?", false)
	if a != b || a == other || !strings.HasPrefix(a, "call_") {
		t.Errorf("ids %q %q %q", a, b, other)
	}
}

func TestFragments(t *testing.T) {
	for _, s := range []string{"", "a", "你好，世界！🙂 Hello, 世界 — ok", strings.Repeat("勾股定理 a²+b²=c² ", 20)} {
		var joined strings.Builder
		for _, f := range fragments(s) {
			if f == "" || !utf8.ValidString(f) || utf8.RuneCountInString(f) > 6 {
				t.Errorf("fragment %q", f)
			}
			joined.WriteString(f)
		}
		if joined.String() != s {
			t.Errorf("fragments of %q join to %q", s, joined.String())
		}
	}
}

func TestStart(t *testing.T) {
	if _, _, err := New(Options{}).Start(context.Background(), "0.0.0.0:0"); err == nil {
		t.Error("Start accepted a non-loopback address")
	}
	ctx, cancel := context.WithCancel(context.Background())
	base, shutdown, err := New(Options{}).Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	if resp, err := http.Get(base + "/models"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("models: %v", err)
	} else {
		resp.Body.Close()
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for {
		resp, err := client.Get(base + "/models")
		if err != nil {
			break // closed with its context
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still answers after its context ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLogsNoSecrets(t *testing.T) {
	var buf syncbuf.Buffer
	s := New(Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	base, shutdown, err := s.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	req, _ := http.NewRequest(http.MethodPost, base+"/chat/completions",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer sk-very-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"kind":"unknown"`) || strings.Contains(buf.String(), "sk-very-secret") {
		t.Errorf("log: %s", buf.String())
	}
}
