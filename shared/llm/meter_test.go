package llm_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/insightedge/insightedge/shared/llm"
)

// usageModel answers every call with usage u (and err).
type usageModel struct {
	u   llm.Usage
	err error
}

func (m usageModel) Stream(context.Context, llm.Request, llm.Handler) (llm.Response, error) {
	return llm.Response{Usage: m.u}, m.err
}

func (m usageModel) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{Usage: m.u}, m.err
}

// meterLog records what was metered.
type meterLog struct {
	mu  sync.Mutex
	got map[string]int64
	err error
}

func (l *meterLog) Meter(_ context.Context, teacher string, tokens int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.got == nil {
		l.got = map[string]int64{}
	}
	l.got[teacher] += tokens
	return l.err
}

// TestMetered (issue 26): each call's reported usage is metered against
// the context's payer, by Stream and Complete alike; a context without a
// payer meters nothing; a meter that fails does not fail the call; a payer
// looked up is looked up once.
func TestMetered(t *testing.T) {
	lookups := 0
	lazy := llm.WithPayerFunc(context.Background(), func(context.Context) string { lookups++; return "t-lazy" })
	tests := []struct {
		name  string
		ctx   context.Context
		u     llm.Usage
		calls int
		want  map[string]int64
	}{
		{"total", llm.WithPayer(context.Background(), "t-1"), llm.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}, 1, map[string]int64{"t-1": 30}},
		{"parts without a total", llm.WithPayer(context.Background(), "t-1"), llm.Usage{PromptTokens: 10, CompletionTokens: 5}, 1, map[string]int64{"t-1": 30}},
		{"no payer", context.Background(), llm.Usage{TotalTokens: 15}, 1, map[string]int64{}},
		{"no usage", llm.WithPayer(context.Background(), "t-1"), llm.Usage{}, 1, map[string]int64{}},
		{"looked up once", lazy, llm.Usage{TotalTokens: 7}, 3, map[string]int64{"t-lazy": 42}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &meterLog{got: map[string]int64{}}
			m := llm.Metered{Model: usageModel{u: tt.u}, Meter: log}
			for range tt.calls {
				if _, err := m.Stream(tt.ctx, llm.Request{}, llm.Handler{}); err != nil {
					t.Fatal(err)
				}
				if _, err := m.Complete(tt.ctx, llm.Request{}); err != nil {
					t.Fatal(err)
				}
			}
			if len(log.got) != len(tt.want) {
				t.Fatalf("metered %v, want %v", log.got, tt.want)
			}
			for k, v := range tt.want {
				if log.got[k] != v {
					t.Fatalf("metered %v, want %v", log.got, tt.want)
				}
			}
		})
	}
	if lookups != 1 {
		t.Errorf("the payer was looked up %d times, want once", lookups)
	}

	boom := errors.New("model down")
	log := &meterLog{err: errors.New("store down")}
	m := llm.Metered{Model: usageModel{u: llm.Usage{TotalTokens: 3}, err: boom}, Meter: log}
	if _, err := m.Complete(llm.WithPayer(context.Background(), "t-2"), llm.Request{}); !errors.Is(err, boom) {
		t.Fatalf("the call's own error is lost: %v", err)
	}
	if log.got["t-2"] != 3 {
		t.Fatalf("a failed call's reported usage is not metered: %v", log.got)
	}
	log.err = nil
	if _, err := (llm.Metered{Model: usageModel{u: llm.Usage{TotalTokens: 3}}, Meter: &meterLog{err: errors.New("store down")}}).
		Stream(llm.WithPayer(context.Background(), "t-3"), llm.Request{}, llm.Handler{}); err != nil {
		t.Fatalf("a meter that fails failed the call: %v", err)
	}
}

// cutModel streams its fragments, then ends as a cancelled call does:
// with an error and no usage.
type cutModel struct{ fragments []string }

func (m cutModel) Stream(_ context.Context, _ llm.Request, h llm.Handler) (llm.Response, error) {
	for _, f := range m.fragments {
		if err := h.OnContent(f); err != nil {
			return llm.Response{}, err
		}
	}
	return llm.Response{}, context.Canceled
}

func (m cutModel) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, context.Canceled
}

// TestMeteredEstimatesACutCall: a call that ends without reported usage
// (a discarded speculative round, a broken stream) still spent tokens; it
// is metered at its estimate, a quarter of the prompt's bytes and a token
// a fragment.
func TestMeteredEstimatesACutCall(t *testing.T) {
	log := &meterLog{}
	m := llm.Metered{Model: cutModel{fragments: []string{"a", "b", "c"}}, Meter: log}
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "0123456789abcdef0123456789abcdef"}}, Tools: nil}
	_, err := m.Stream(llm.WithPayer(context.Background(), "t-1"), req, llm.Handler{OnContent: func(string) error { return nil }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the call's own error", err)
	}
	// 32 bytes of prompt and "null" for no tools: 36 / 4 = 9, plus 3 fragments.
	if got := log.got["t-1"]; got != 12 {
		t.Errorf("metered %d tokens, want the estimate 12", got)
	}
}
