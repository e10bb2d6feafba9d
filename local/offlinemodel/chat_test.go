package offlinemodel

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/prompts"
)

func TestChat(t *testing.T) {
	tests := []struct {
		name     string
		history  []string
		msg      string
		contains []string
		absent   []string
	}{
		{"greeting zh", nil, "你好", []string{"你好", "教学助手"}, nil},
		{"greeting en", nil, "Hello!", []string{"Hello", "teaching assistant"}, nil},
		{"thanks", nil, "谢谢", []string{"不客气"}, nil},
		{"newton zh", nil, "什么是牛顿第一定律？", []string{"惯性", "匀速直线运动"}, nil},
		{"photosynthesis en", nil, "Can you explain photosynthesis?", []string{"chlorophyll", "glucose", "oxygen"}, nil},
		{"newton by its effect", nil, "Why do objects keep moving in space?", []string{"inertia"}, nil},
		{"present perfect", nil, "How do I teach the present perfect?", []string{"have/has", "yesterday"}, nil},
		{"pythagoras zh", nil, "讲讲勾股定理", []string{"a² + b² = c²", "斜边"}, nil},
		{"simpler follow-up", []string{"- 老师：什么是光合作用？", "- 助手：光合作用是绿色植物利用光能……"}, "再说简单一点",
			[]string{"简单说", "自己做饭"}, []string{"**场所**"}},
		{"simpler follow-up en", []string{"- teacher: explain Newton's first law"}, "Can you say that more simply?",
			[]string{"In simple words", "inertia"}, nil},
		{"unknown question is answered honestly", nil, "量子纠缠是怎么回事？", []string{"量子纠缠", "离线"}, nil},
		{"markers are not echoed", nil, "Why do cats purr? [[offline:whatever]]",
			[]string{"Why do cats purr?"}, []string{"[[offline"}},
	}
	_, c := start(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bothModes(t, func(t *testing.T, stream bool) {
				msgs := []openai.ChatCompletionMessage{system(prompts.ChatHeader, "You are a helpful teaching assistant.")}
				if tt.history != nil {
					msgs = append(msgs, historyMessage(tt.history...))
				}
				msgs = append(msgs, user(tt.msg))
				r := complete(t, c, openai.ChatCompletionRequest{Model: "offline-fast", Messages: msgs}, stream)
				if len(r.calls) != 0 || r.finish != openai.FinishReasonStop {
					t.Fatalf("calls %v finish %q", r.calls, r.finish)
				}
				for _, s := range tt.contains {
					if !strings.Contains(r.content, s) {
						t.Errorf("answer %q lacks %q", r.content, s)
					}
				}
				for _, s := range tt.absent {
					if strings.Contains(r.content, s) {
						t.Errorf("answer %q has %q", r.content, s)
					}
				}
				if stream && len(r.deltas) < 3 {
					t.Errorf("%d fragments", len(r.deltas))
				}
			})
		})
	}
}

func TestUnknownHeaderGetsAPoliteAnswer(t *testing.T) {
	_, c := start(t, Options{})
	for _, msgs := range [][]openai.ChatCompletionMessage{
		{system("# Something else", "hi"), user("hello")},
		{user("no system prompt at all")},
		{system("# Something else", ""), {Role: openai.ChatMessageRoleAssistant, Content: "only an assistant"}},
	} {
		r := complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs}, true)
		if !strings.Contains(r.content, "offline stand-in") {
			t.Errorf("answer %q", r.content)
		}
	}
}
