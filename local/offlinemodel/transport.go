package offlinemodel

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// reply is what a scenario answers: text, or tool calls (one per step, as
// the scenarios play them).
type reply struct {
	content string
	// reasoning is sent as reasoning_content before the rest, as reasoning
	// models do ([[offline:reasoning]], [[offline:reasoning-only]]).
	reasoning string
	toolCalls []replyCall
}

type replyCall struct {
	name string
	args string // JSON, or deliberately malformed JSON
}

func textReply(s string) reply { return reply{content: s} }

func callReply(name, args string) reply {
	return reply{toolCalls: []replyCall{{name: name, args: args}}}
}

// calls reports whether the reply calls the named tool.
func (r reply) calls(name string) bool {
	for _, c := range r.toolCalls {
		if c.name == name {
			return true
		}
	}
	return false
}

// callIDs derives the tool-call ids from the conversation, so that the same
// conversation gets the same ids and a different one (a retry after a tool
// error) gets new ones.
func (r reply) callIDs(conversation [32]byte) []string {
	ids := make([]string, len(r.toolCalls))
	for i, c := range r.toolCalls {
		h := sha256.New()
		h.Write(conversation[:])
		_ = binary.Write(h, binary.BigEndian, int64(i))
		h.Write([]byte(c.name))
		ids[i] = "call_" + hex.EncodeToString(h.Sum(nil)[:12])
	}
	return ids
}

// responseMeta is what every response of one request shares.
type responseMeta struct {
	id      string
	model   string
	usage   usage
	callIDs []string
}

func (m responseMeta) wireCalls(r reply) []wireToolCall {
	var out []wireToolCall
	for i, c := range r.toolCalls {
		var tc wireToolCall
		tc.ID, tc.Type = m.callIDs[i], "function"
		tc.Function.Name, tc.Function.Arguments = c.name, c.args
		out = append(out, tc)
	}
	return out
}

func finishReason(r reply) string {
	if len(r.toolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// completion is the non-streamed response.
func (m responseMeta) completion(r reply) completion {
	msg := responseMessage{Role: "assistant", ToolCalls: m.wireCalls(r), ReasoningContent: r.reasoning}
	if len(r.toolCalls) == 0 {
		msg.Content = &r.content
	}
	return completion{
		ID: m.id, Object: "chat.completion", Created: created, Model: m.model,
		Choices:           []completionChoice{{Message: msg, FinishReason: finishReason(r)}},
		Usage:             m.usage,
		SystemFingerprint: "fp_offline",
	}
}

const slowDelay = 25 * time.Millisecond

// slowAnswer is the delay of a whole answer under [[offline:slow]].
const slowAnswer = 250 * time.Millisecond

type streamOptions struct {
	includeUsage bool
	delay        time.Duration // before each chunk
	// cut closes the stream half-way through the final_result arguments.
	cut bool
	// hold, when set, pauses the stream half-way through its text until it
	// is closed or ctx ends.
	hold <-chan struct{}
}

type streamOutcome int

const (
	streamComplete streamOutcome = iota
	streamCancelled
	streamCut
)

// streamPlan is the chunks of one streamed response, and where a cut stream
// stops: after chunk cutAfter, inside the final_result arguments.
type streamPlan struct {
	chunks   []chunk
	cutAfter int
}

// holdAt is the chunk after which a held stream pauses: where a cut
// stream would stop (half-way through final_result's message), else the
// middle of a text answer; -1 for a reply with neither.
func (p streamPlan) holdAt(r reply) int {
	switch {
	case p.cutAfter >= 0:
		return p.cutAfter
	case r.content != "" && len(r.toolCalls) == 0:
		return len(p.chunks) / 2
	}
	return -1
}

// planStream splits the reply into chunks the way a real model streams: the
// role first, then the text or each tool call's arguments in fragments of a
// few runes, then the finish reason, then the usage if asked.
func (m responseMeta) planStream(r reply, includeUsage bool) streamPlan {
	p := streamPlan{cutAfter: -1}
	add := func(d chunkDelta, finish string) {
		c := chunk{ID: m.id, Object: "chat.completion.chunk", Created: created, Model: m.model,
			SystemFingerprint: "fp_offline", Choices: []chunkChoice{{Delta: d}}}
		if finish != "" {
			c.Choices[0].FinishReason = &finish
		}
		p.chunks = append(p.chunks, c)
	}
	empty := ""
	add(chunkDelta{Role: "assistant", Content: &empty}, "")
	for _, frag := range fragments(r.reasoning) {
		add(chunkDelta{ReasoningContent: frag}, "")
	}
	for _, frag := range fragments(r.content) {
		add(chunkDelta{Content: &frag}, "")
	}
	for i, call := range m.wireCalls(r) {
		index := i
		head := wireToolCall{Index: &index, ID: call.ID, Type: "function"}
		head.Function.Name = call.Function.Name
		add(chunkDelta{ToolCalls: []wireToolCall{head}}, "")
		// A cut stream stops half-way through the message of final_result,
		// after some of it was sent.
		cutAt := -1
		if call.Function.Name == finalResultTool {
			if at := strings.Index(call.Function.Arguments, `"message":"`); at >= 0 {
				cutAt = at + len(`"message":"`) + (len(call.Function.Arguments)-at)/3
			}
		}
		sent := 0
		for _, frag := range fragments(call.Function.Arguments) {
			d := wireToolCall{Index: &index}
			d.Function.Arguments = frag
			add(chunkDelta{ToolCalls: []wireToolCall{d}}, "")
			sent += len(frag)
			if cutAt >= 0 && sent >= cutAt && p.cutAfter < 0 {
				p.cutAfter = len(p.chunks) - 1
			}
		}
	}
	add(chunkDelta{}, finishReason(r))
	if includeUsage {
		u := m.usage
		p.chunks = append(p.chunks, chunk{ID: m.id, Object: "chat.completion.chunk", Created: created,
			Model: m.model, SystemFingerprint: "fp_offline", Choices: []chunkChoice{}, Usage: &u})
	}
	return p
}

// writeStream writes the reply as server-sent events, flushing each chunk.
// It stops early when ctx ends (the client went away) or, when opts.cut, in
// the middle of the final_result arguments.
func writeStream(ctx context.Context, w http.ResponseWriter, m responseMeta, r reply, opts streamOptions) streamOutcome {
	plan := m.planStream(r, opts.includeUsage)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()

	var timer *time.Timer
	if opts.delay > 0 {
		timer = time.NewTimer(opts.delay)
		defer timer.Stop()
	}
	send := func(data []byte) bool {
		if timer != nil {
			timer.Reset(opts.delay)
			select {
			case <-ctx.Done():
				return false
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			return false
		}
		if _, err := w.Write(append(append([]byte("data: "), data...), '\n', '\n')); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	for i, c := range plan.chunks {
		b, err := json.Marshal(c)
		if err != nil || !send(b) {
			return streamCancelled
		}
		if opts.cut && i == plan.cutAfter {
			return streamCut
		}
		if opts.hold != nil && i == plan.holdAt(r) {
			select {
			case <-opts.hold:
			case <-ctx.Done():
				return streamCancelled
			}
		}
	}
	if !send([]byte("[DONE]")) {
		return streamCancelled
	}
	return streamComplete
}

// fragmentSize is the rune count of the i-th fragment: a few runes, uneven
// like a tokenizer's output, and fixed so that the same reply streams the
// same way.
func fragmentSize(i int) int { return 2 + (i*3+1)%5 }

// fragments splits s into pieces of a few runes, never inside a rune.
func fragments(s string) []string {
	var out []string
	for i := 0; s != ""; i++ {
		n, size := 0, fragmentSize(i)
		for k := 0; k < size && n < len(s); k++ {
			_, w := utf8.DecodeRuneInString(s[n:])
			n += w
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// countUsage estimates tokens as a quarter of the runes, deterministically.
func countUsage(ms []wireMessage, r reply) usage {
	tokens := func(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }
	var u usage
	for _, m := range ms {
		u.PromptTokens += 4 + tokens(string(m.Content))
		for _, tc := range m.ToolCalls {
			u.PromptTokens += tokens(tc.Function.Name) + tokens(tc.Function.Arguments)
		}
	}
	u.CompletionTokens = tokens(r.content) + tokens(r.reasoning)
	for _, c := range r.toolCalls {
		u.CompletionTokens += tokens(c.name) + tokens(c.args)
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}
