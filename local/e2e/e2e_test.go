package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/prompts"
)

// The turn of a tool-using generation request: one round calls the tool, a
// second round calls final_result whose message streams as text.
var quizChunks = []string{"start", "start-step",
	"data-tool-progress", "data-quiz-question", "data-quiz-question", "data-quiz-question", "data-quiz-question",
	"data-quiz-question", "data-quiz-complete", "data-tool-progress", "finish-step",
	"start-step", "text-start", "text-delta+", "text-end", "finish-step", "finish", "[DONE]"}

// A chat-path answer: one round of streamed text.
var chatChunks = []string{"start", "start-step", "text-start", "text-delta+", "text-end", "finish-step", "finish", "[DONE]"}

func TestScenarios(t *testing.T) {
	s := NewLocal(t, nil)
	cases := []struct {
		name    string
		message string
		want    []string
		check   func(t *testing.T, st stream)
	}{
		{"quiz in Chinese", "出 5 道牛顿第一定律的选择题", quizChunks, func(t *testing.T, st stream) {
			qs := st.data(t, "data-quiz-question")
			for i, q := range qs {
				question := q["question"].(map[string]any)
				if question["index"].(float64) != float64(i+1) || question["question"] == "" || len(question["options"].([]any)) != 4 {
					t.Errorf("question %d malformed: %v", i+1, question)
				}
			}
			if total := st.data(t, "data-quiz-complete")[0]["total"]; total != 5.0 {
				t.Errorf("quiz-complete total = %v, want 5", total)
			}
			progress := st.data(t, "data-tool-progress")
			if progress[0]["status"] != "running" || progress[1]["status"] != "success" || progress[0]["tool"] != "generate_quiz_questions" {
				t.Errorf("tool progress = %v", progress)
			}
			if txt := st.text(t); !strings.Contains(txt, "5") || !strings.Contains(txt, "牛顿") {
				t.Errorf("summary %q should name the count and the topic", txt)
			}
		}},
		{"smalltalk", "你好", chatChunks, func(t *testing.T, st stream) {
			if st.text(t) == "" {
				t.Error("no greeting")
			}
		}},
		{"knowledge question in English", "What is photosynthesis?", chatChunks, func(t *testing.T, st stream) {
			if txt := strings.ToLower(st.text(t)); !strings.Contains(txt, "light") {
				t.Errorf("answer %q does not explain photosynthesis", txt)
			}
		}},
		{"build request", "分析 1A 班英语成绩", []string{"start", "text-start", "text-delta+", "text-end", "data-blueprint", "finish", "[DONE]"}, nil},
		{"unclear request", "帮我弄一下", []string{"start", "data-clarify", "finish", "[DONE]"}, func(t *testing.T, st stream) {
			c := st.data(t, "data-clarify")[0]
			if c["question"] == "" {
				t.Errorf("clarify without a question: %v", c)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := postChecked(t, s.URL, fmt.Sprintf(`{"message":%q}`, c.message), c.want)
			if c.check != nil {
				c.check(t, st)
			}
			msg := aiSDK(t, st.Raw)
			if msg.Role != "assistant" || len(msg.Parts) == 0 {
				t.Errorf("the AI SDK assembled %+v", msg)
			}
		})
	}
}

// postChecked POSTs body to the stream endpoint and checks the answer:
// 200, the chunk types want (text-deltas folded), ids without a gap and
// the stream's headers.
func postChecked(t *testing.T, base, body string, want []string) stream {
	t.Helper()
	st := postStream(t, base, body)
	if st.Status != http.StatusOK {
		t.Fatalf("status %d: %s", st.Status, st.Raw)
	}
	if got := st.types(t); !slices.Equal(got, want) {
		t.Fatalf("chunks\n got %v\nwant %v", got, want)
	}
	st.checkIDs(t, 0)
	checkHeaders(t, st)
	return st
}

func checkHeaders(t *testing.T, st stream) {
	t.Helper()
	for k, v := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
		"X-Accel-Buffering": "no", "X-Vercel-Ai-Ui-Message-Stream": "v1"} {
		if got := st.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	conv := st.Header.Get("X-Conversation-Id")
	start := st.Events[0].chunk(t)
	meta, _ := start["messageMetadata"].(map[string]any)
	if conv == "" || meta["conversationId"] != conv || meta["turnId"] == "" || start["messageId"] == "" {
		t.Errorf("start chunk %v does not carry the conversation %q", start, conv)
	}
}

func TestFollowUpUsesHistorySummary(t *testing.T) {
	s := NewLocal(t, nil)
	first := postStream(t, s.URL, `{"message":"出 5 道牛顿第一定律的选择题"}`)
	conv := first.Header.Get("X-Conversation-Id")
	second := postStream(t, s.URL, fmt.Sprintf(`{"message":"再出 3 道","conversationId":%q}`, conv))
	if second.Status != http.StatusOK || second.Header.Get("X-Conversation-Id") != conv {
		t.Fatalf("follow-up: %d %s", second.Status, second.Raw)
	}
	if n := len(second.data(t, "data-quiz-question")); n != 3 {
		t.Fatalf("follow-up made %d questions, want 3", n)
	}
	agents := requests(s, offlinemodel.KindAgent)
	last := agents[len(agents)-1]
	if !hasSystem(last, prompts.HistoryHeader) {
		t.Fatal("the follow-up's agent call got no history summary")
	}
	for _, m := range last.Messages {
		if m.Role == "tool" && strings.Contains(m.Content, "牛顿") && m.ToolCallID != "" && !slices.ContainsFunc(second.Events, func(e sseEvent) bool { return strings.Contains(e.Data, m.ToolCallID) }) {
			t.Errorf("an earlier turn's raw tool result leaked into the follow-up: %q", m.Content)
		}
	}
	q := second.data(t, "data-quiz-question")[0]["question"].(map[string]any)["question"].(string)
	if !strings.Contains(q, "牛顿") && !strings.Contains(q, "惯性") {
		t.Errorf("follow-up question %q is not about the earlier topic", q)
	}
}

func TestUseChatBody(t *testing.T) {
	s := NewLocal(t, nil)
	body := `{"id":"chat-abc_1","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"你好"}]}],"trigger":"submit-message"}`
	st := postStream(t, s.URL, body)
	if st.Status != http.StatusOK || st.Header.Get("X-Conversation-Id") != "chat-abc_1" {
		t.Fatalf("useChat body: %d %v %s", st.Status, st.Header, st.Raw)
	}
	body2 := `{"id":"chat-abc_1","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"你好"}]},{"id":"a1","role":"assistant","parts":[]},{"id":"u2","role":"user","parts":[{"type":"text","text":"What is photosynthesis?"}]}],"trigger":"submit-message"}`
	st2 := postStream(t, s.URL, body2)
	if st2.Status != http.StatusOK {
		t.Fatalf("second useChat message: %d %s", st2.Status, st2.Raw)
	}
	var msgs struct{ Messages []map[string]any }
	GetJSON(t, s.URL+"/api/conversation/chat-abc_1/messages", &msgs)
	if len(msgs.Messages) != 4 {
		t.Fatalf("conversation has %d messages, want 4 (two turns)", len(msgs.Messages))
	}
	// Another teacher cannot take over the id.
	st3 := postStream(t, s.URL, body, "X-Teacher-Id", "t-002")
	if st3.Status != http.StatusNotFound {
		t.Fatalf("another teacher's useChat id: status %d, want 404", st3.Status)
	}
}
