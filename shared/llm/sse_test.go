package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/llm"
)

// bodyTransport answers every request with a 200 and the next body: the
// model's stream without a network.
type bodyTransport struct {
	bodies []string
	n      int
}

func (t *bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	body := t.bodies[min(t.n, len(t.bodies)-1)]
	t.n++
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

func streamClient(t testing.TB, bodies ...string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: "http://model.invalid/v1", APIKey: "k", MaxRetries: llm.NoRetries,
		Models:     map[llm.Tier][]string{llm.TierFast: {"m"}, llm.TierStandard: {"m"}, llm.TierStrong: {"m"}},
		HTTPClient: &http.Client{Transport: &bodyTransport{bodies: bodies}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func chunkLine(delta string) string {
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`
}

const finishLine = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`

// TestStreamFraming: the ways providers frame the same stream give the
// same answer.
func TestStreamFraming(t *testing.T) {
	long := strings.Repeat("长", 10000) // a 30 KB line, over the reader's buffer
	cases := map[string]struct{ body, want string }{
		"plain": {"data: " + chunkLine(`{"role":"assistant","content":"Hel"}`) + "\n\ndata: " + chunkLine(`{"content":"lo"}`) +
			"\n\ndata: " + finishLine + "\n\ndata: [DONE]\n\n", "Hello"},
		"no space, CRLF, comments, event lines": {": keep-alive\r\n\r\nevent: message\r\ndata:" + chunkLine(`{"content":"Hel"}`) +
			"\r\n\r\n  data:\t" + chunkLine(`{"content":"lo"}`) + "\r\n\r\ndata:" + finishLine + "\r\n\r\ndata:[DONE]\r\n", "Hello"},
		"long line":             {"data: " + chunkLine(`{"content":"`+long+`"}`) + "\n\ndata: " + finishLine + "\n\ndata: [DONE]\n\n", long},
		"last line unended":     {"data: " + chunkLine(`{"content":"Hi"}`) + "\n\ndata: " + finishLine, "Hi"},
		"no [DONE] after usage": {"data: " + chunkLine(`{"content":"Hi"}`) + "\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,\"total_tokens\":4}}\n\n", "Hi"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got strings.Builder
			resp, err := streamClient(t, tc.body).Stream(context.Background(), llm.Request{},
				llm.Handler{OnContent: func(d string) error { got.WriteString(d); return nil }})
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want || resp.Message.Content != tc.want {
				t.Errorf("content %d bytes, delivered %d bytes; want %d", len(resp.Message.Content), got.Len(), len(tc.want))
			}
		})
	}
}

// TestStreamChunksDoNotMix: a chunk decoded after one with tool calls
// carries none of its fields.
func TestStreamChunksDoNotMix(t *testing.T) {
	body := "data: " + chunkLine(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"a\":"}}]}`) +
		"\n\ndata: " + chunkLine(`{"reasoning_content":"hm"}`) +
		"\n\ndata: " + chunkLine(`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}`) +
		"\n\ndata: " + chunkLine(`{"content":"ok"}`) +
		"\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3,\"total_tokens\":8}}\n\ndata: [DONE]\n\n"
	var fragments []string
	resp, err := streamClient(t, body).Stream(context.Background(), llm.Request{}, llm.Handler{
		OnToolCall: func(i int, id, name, args string) error {
			fragments = append(fragments, fmt.Sprintf("%d %s %s %s", i, id, name, args))
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`0 call_1 lookup {"a":`, `0 call_1 lookup {"a":1}`}
	if fmt.Sprint(fragments) != fmt.Sprint(want) {
		t.Errorf("fragments %q, want %q", fragments, want)
	}
	m := resp.Message
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"a":1}` || m.Content != "ok" || m.ReasoningContent != "hm" ||
		resp.FinishReason != "tool_calls" || resp.Usage.TotalTokens != 8 {
		t.Errorf("response %+v", resp)
	}
}

// TestStreamErrors: errors sent inside a 200 stream are the provider's
// errors, as go-openai reports them.
func TestStreamErrors(t *testing.T) {
	cases := map[string]struct {
		body string
		want func(error) bool
	}{
		"error event": {"data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\",\"code\":\"overloaded\"}}\n\n",
			func(err error) bool {
				var e *openai.APIError
				return errors.As(err, &e) && e.Message == "overloaded"
			}},
		"plain JSON error body": {"{\"error\":{\"message\":\"bad key\",\"type\":\"invalid_request_error\"}}\n",
			func(err error) bool {
				var e *openai.APIError
				return errors.As(err, &e) && e.Message == "bad key"
			}},
		"endless comments": {strings.Repeat(": ping\n", 400),
			func(err error) bool { return errors.Is(err, openai.ErrTooManyEmptyStreamMessages) }},
		"cut before finish": {"data: " + chunkLine(`{"content":"Hi"}`) + "\n\n",
			func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		"broken JSON": {"data: {\"choices\":[\n\n", func(err error) bool { return err != nil }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := streamClient(t, tc.body).Stream(context.Background(), llm.Request{}, llm.Handler{})
			if err == nil || !tc.want(err) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// answerBody is a streamed answer of n content chunks, as a provider
// sends it (ids, timestamps, usage at the end).
func answerBody(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-8a7b\",\"object\":\"chat.completion.chunk\",\"created\":1764115200,\"model\":\"gpt-4.1-mini\",\"system_fingerprint\":\"fp_1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"词%d \"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n", i)
	}
	b.WriteString("data: " + finishLine + "\n\n")
	b.WriteString("data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":200,\"total_tokens\":220}}\n\ndata: [DONE]\n\n")
	return b.String()
}

// BenchmarkStream200 is one streamed answer of 200 chunks through
// Client.Stream, from a body in memory: the cost per chunk of reading and
// decoding the stream and assembling the answer.
func BenchmarkStream200(b *testing.B) {
	c := streamClient(b, answerBody(200))
	h := llm.Handler{OnContent: func(string) error { return nil }}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Stream(context.Background(), llm.Request{}, h); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200), "ns/chunk")
}

// BenchmarkStream200GoOpenAIRecv is the same body read with go-openai's own
// stream reader (Recv), the way Client.Stream read it before sse.go: the
// reference for BenchmarkStream200.
func BenchmarkStream200GoOpenAIRecv(b *testing.B) {
	oc := openai.DefaultConfig("k")
	oc.BaseURL = "http://model.invalid/v1"
	oc.HTTPClient = &http.Client{Transport: &bodyTransport{bodies: []string{answerBody(200)}}}
	api := openai.NewClientWithConfig(oc)
	b.ReportAllocs()
	for b.Loop() {
		s, err := api.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{Model: "m",
			StreamOptions: &openai.StreamOptions{IncludeUsage: true}})
		if err != nil {
			b.Fatal(err)
		}
		var content strings.Builder
		for {
			ch, err := s.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range ch.Choices {
				content.WriteString(c.Delta.Content)
			}
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200), "ns/chunk")
}
