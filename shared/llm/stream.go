package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"
)

// Streamer is the model as the steps that stream it use it (agent, plan,
// build): Client is one, and a test's scripted model another.
type Streamer interface {
	Stream(ctx context.Context, req Request, h Handler) (Response, error)
}

// Stream calls the model with streaming, passes content deltas and tool-call
// fragments to h as they arrive, and returns the assembled answer.
//
// Failures before anything reached h are retried and fall back along the chain
// like Complete. A stream that breaks after h received something returns an
// error matching ErrInterrupted. Cancelling ctx closes the stream at once and
// returns an error matching ctx.Err().
func (c *Client) Stream(ctx context.Context, req Request, h Handler) (Response, error) {
	return c.run(ctx, req, func(ctx context.Context, model string) (Response, bool, error) {
		return c.stream(ctx, model, req, h)
	})
}

func (c *Client) stream(ctx context.Context, model string, req Request, h Handler) (Response, bool, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// An idle timeout rather than one deadline for the whole stream: a long
	// answer that keeps arriving must not be cut, a silent connection must.
	idle := time.AfterFunc(c.timeout, func() { cancel(ErrTimeout) })
	defer idle.Stop()

	creq := chatRequest(model, req)
	creq.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	var slot responseSlot
	s, err := c.api.CreateChatCompletionStream(withResponseSlot(actx, &slot), creq)
	if err != nil {
		if slot.resp != nil { // an error status: go-openai read the body, not closed it
			slot.resp.Body.Close()
		}
		return Response{}, false, attemptErr(ctx, actx, err)
	}
	defer s.Close()
	if slot.resp == nil {
		return Response{}, false, errors.New("llm: the streamed response did not pass the client's transport")
	}
	// Closing the body unblocks a pending read at once, whatever the
	// transport does with the request's context.
	stop := context.AfterFunc(actx, func() { s.Close() })
	defer stop()
	r := newChunkReader(slot.resp.Body)
	// Reads happen only in the loop below: none is pending when this runs.
	defer r.release()

	var a assembler
	for {
		chunk, err := r.next()
		if errors.Is(err, io.EOF) {
			if !a.complete() {
				// go-openai reports a body that ends without [DONE] as a plain
				// io.EOF; without a finish_reason (or the usage chunk) the
				// answer was cut.
				return Response{}, a.delivered, attemptErr(ctx, actx,
					fmt.Errorf("stream ended before finish_reason: %w", io.ErrUnexpectedEOF))
			}
			return a.response(), a.delivered, nil
		}
		if err != nil {
			return Response{}, a.delivered, attemptErr(ctx, actx, err)
		}
		idle.Reset(c.timeout)
		if err := a.add(chunk, h); err != nil {
			return Response{}, a.delivered, stopError{fmt.Errorf("handler: %w", err)}
		}
	}
}

// assembler accumulates the chunks of one streamed answer (choice 0).
type assembler struct {
	content   strings.Builder
	refusal   strings.Builder
	reasoning strings.Builder
	calls     map[int]*toolCallBuilder
	lastIndex int
	finish    string
	usage     Usage
	sawUsage  bool
	// delivered: a Handler function was called; from then on no retry.
	delivered bool
}

type toolCallBuilder struct {
	id, name string
	typ      string
	args     strings.Builder
}

func (a *assembler) complete() bool { return a.finish != "" || a.sawUsage }

func (a *assembler) add(chunk *streamChunk, h Handler) error {
	if chunk.Usage != nil {
		a.usage, a.sawUsage = fromSDKUsage(*chunk.Usage), true
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue // only one choice is requested
		}
		d := ch.Delta
		if d.Content != "" {
			a.content.WriteString(d.Content)
			if h.OnContent != nil {
				a.delivered = true
				if err := h.OnContent(d.Content); err != nil {
					return err
				}
			}
		}
		a.refusal.WriteString(d.Refusal)
		if d.ReasoningContent != "" {
			a.reasoning.WriteString(d.ReasoningContent)
			if h.OnReasoning != nil {
				a.delivered = true
				if err := h.OnReasoning(d.ReasoningContent); err != nil {
					return err
				}
			}
		}
		for _, tc := range d.ToolCalls {
			idx, b := a.toolCall(tc)
			if tc.ID != "" && b.id == "" {
				b.id = tc.ID
			}
			// Some providers repeat the name in every fragment: keep the first.
			if tc.Function.Name != "" && b.name == "" {
				b.name = tc.Function.Name
			}
			if tc.Type != "" {
				b.typ = tc.Type
			}
			b.args.WriteString(tc.Function.Arguments)
			if h.OnToolCall != nil {
				a.delivered = true
				if err := h.OnToolCall(idx, b.id, b.name, b.args.String()); err != nil {
					return err
				}
			}
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
	return nil
}

// toolCall returns the builder a fragment belongs to. The index is normally on
// every fragment; without one, a new id starts a new call and anything else
// continues the last call.
func (a *assembler) toolCall(tc streamToolCall) (int, *toolCallBuilder) {
	if a.calls == nil {
		a.calls = make(map[int]*toolCallBuilder)
	}
	idx := a.lastIndex
	switch {
	case tc.Index != nil:
		idx = *tc.Index
	case len(a.calls) == 0:
		idx = 0
	case tc.ID != "" && tc.ID != a.calls[a.lastIndex].id:
		idx = slices.Max(slices.Collect(maps.Keys(a.calls))) + 1
	}
	b, ok := a.calls[idx]
	if !ok {
		b = &toolCallBuilder{}
		a.calls[idx] = b
	}
	a.lastIndex = idx
	return idx, b
}

func (a *assembler) response() Response {
	msg := Message{
		Role:             RoleAssistant,
		Content:          a.content.String(),
		Refusal:          a.refusal.String(),
		ReasoningContent: a.reasoning.String(),
	}
	for _, idx := range slices.Sorted(maps.Keys(a.calls)) {
		b := a.calls[idx]
		typ := b.typ
		if typ == "" {
			typ = ToolTypeFunction
		}
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{
			ID:       b.id,
			Type:     typ,
			Function: FunctionCall{Name: b.name, Arguments: b.args.String()},
		})
	}
	return Response{Message: msg, FinishReason: a.finish, Usage: a.usage}
}
