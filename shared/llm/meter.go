package llm

// issue 26: fair use. Every model call's reported usage is metered against
// the teacher who caused it, at this one seam: the product's steps and
// routes call the model through Metered, and whoever starts the work puts
// its teacher in the context (WithPayer; shared/wire does it for every
// workflow step from the step's input, and for the routes that call the
// model themselves). A call whose context names no teacher is not metered.

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
)

// Model is a model client as the product calls it: Client is one.
type Model interface {
	Streamer
	Complete(ctx context.Context, req Request) (Response, error)
}

// Meter is told the tokens a teacher's model call used (*limits.Limiter).
type Meter interface {
	Meter(ctx context.Context, teacher string, tokens int64) error
}

type payerKey struct{}

// WithPayer returns ctx whose model calls are metered against teacher.
func WithPayer(ctx context.Context, teacher string) context.Context {
	return context.WithValue(ctx, payerKey{}, func(context.Context) string { return teacher })
}

// WithPayerFunc is WithPayer with the teacher looked up by find, at most
// once and only when a call is metered (a lookup that costs a read is paid
// only by work that calls the model with a meter on).
func WithPayerFunc(ctx context.Context, find func(context.Context) string) context.Context {
	var once sync.Once
	var teacher string
	return context.WithValue(ctx, payerKey{}, func(ctx context.Context) string {
		once.Do(func() { teacher = find(ctx) })
		return teacher
	})
}

// Payer is the teacher ctx's model calls are metered against, "" when none.
func Payer(ctx context.Context) string {
	f, _ := ctx.Value(payerKey{}).(func(context.Context) string)
	if f == nil {
		return ""
	}
	return f(ctx)
}

// Metered is Model with each call's reported usage told to Meter, when the
// call ends, against the context's payer. A failure to meter is logged: it
// never fails the call.
type Metered struct {
	Model  Model
	Meter  Meter
	Logger *slog.Logger
}

// Stream implements Streamer. A call that ends without a reported usage
// (cancelled, as a discarded speculative round is, or broken) is metered
// at its estimate: its tokens were spent all the same.
func (m Metered) Stream(ctx context.Context, req Request, h Handler) (Response, error) {
	var fragments atomic.Int64
	resp, err := m.Model.Stream(ctx, req, counting(h, &fragments))
	u := resp.Usage
	if err != nil && u.Tokens() <= 0 {
		u = estimate(req, fragments.Load())
	}
	m.meter(ctx, u)
	return resp, err
}

// Complete implements Model.
func (m Metered) Complete(ctx context.Context, req Request) (Response, error) {
	resp, err := m.Model.Complete(ctx, req)
	m.meter(ctx, resp.Usage)
	return resp, err
}

// Tokens is u's total, or its parts' sum when the model gave no total.
func (u Usage) Tokens() int64 {
	if u.TotalTokens > 0 {
		return int64(u.TotalTokens)
	}
	return int64(u.PromptTokens + u.CompletionTokens)
}

func (m Metered) meter(ctx context.Context, u Usage) {
	tokens := u.Tokens()
	if tokens <= 0 {
		return
	}
	teacher := Payer(ctx)
	if teacher == "" {
		return
	}
	// The call has ended: a cancelled turn's tokens were still spent.
	if err := m.Meter.Meter(context.WithoutCancel(ctx), teacher, tokens); err != nil && m.Logger != nil {
		m.Logger.WarnContext(ctx, "could not meter a model call", "teacherId", teacher, "tokens", tokens, "err", err)
	}
}

// Tally is a Streamer that counts what its calls cost when the model
// reports no usage (a call cancelled or broken before its end): Estimate.
type Tally struct {
	Streamer  Streamer
	mu        sync.Mutex
	reqs      []Request
	fragments atomic.Int64
}

// Stream implements Streamer.
func (t *Tally) Stream(ctx context.Context, req Request, h Handler) (Response, error) {
	t.mu.Lock()
	t.reqs = append(t.reqs, req)
	t.mu.Unlock()
	return t.Streamer.Stream(ctx, req, counting(h, &t.fragments))
}

// Estimate is the usage of the calls so far, by estimate.
func (t *Tally) Estimate() Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	var u Usage
	for _, req := range t.reqs {
		u.PromptTokens += estimate(req, 0).PromptTokens
	}
	u.CompletionTokens = int(t.fragments.Load())
	return u
}

// estimate is a call's usage when the model reported none: the prompt
// (its messages and tools) at a quarter of its bytes, the answer at one
// token a streamed fragment. It is computed only for such calls: the tools'
// encoding is not paid on every call.
func estimate(req Request, fragments int64) Usage {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	if b, err := json.Marshal(req.Tools); err == nil {
		n += len(b)
	}
	return Usage{PromptTokens: n / 4, CompletionTokens: int(fragments)}
}

// counting is h with every streamed fragment (content, reasoning, a tool
// call's) counted in n.
func counting(h Handler, n *atomic.Int64) Handler {
	c := h
	if h.OnContent != nil {
		c.OnContent = func(d string) error { n.Add(1); return h.OnContent(d) }
	}
	if h.OnReasoning != nil {
		c.OnReasoning = func(d string) error { n.Add(1); return h.OnReasoning(d) }
	}
	if h.OnToolCall != nil {
		c.OnToolCall = func(i int, id, name, args string) error { n.Add(1); return h.OnToolCall(i, id, name, args) }
	}
	return c
}
