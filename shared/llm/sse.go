package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/obs"
)

// TraceHeader carries the turn's trace id (obs.TraceID) on every model call.
const TraceHeader = "X-Trace-Id"

// SpeculativeHeader marks a call started before its route was decided
// (issue 29; WithSpeculative): the provider ignores it, a gateway or the
// offline model can tell such calls (which may be discarded) apart.
const SpeculativeHeader = "X-Speculative"

type speculativeKey struct{}

// WithSpeculative returns ctx whose model calls are marked speculative.
func WithSpeculative(ctx context.Context) context.Context {
	return context.WithValue(ctx, speculativeKey{}, true)
}

// The streamed answer is read here rather than by go-openai's stream
// reader, which costs, for every chunk, a fresh line, three regular
// expressions and a decode into its full response type (logprobs, content
// filters, ids). go-openai still builds and sends the request and maps a
// failed response to its errors (which classify reads): bodyTap hands the
// response of a streamed call to the chunkReader below, which reads the
// `data:` lines from a pooled buffer and decodes only the fields the
// assembler uses into one reused value. What it accepts and refuses is
// go-openai's: see the comments on next.

// bodyTap is the HTTP client under go-openai. For a request whose context
// carries a *responseSlot (a streamed call), it keeps the response there.
type bodyTap struct{ doer openai.HTTPDoer }

type responseSlot struct{ resp *http.Response }

type responseSlotKey struct{}

func (t bodyTap) Do(req *http.Request) (*http.Response, error) {
	if id := obs.TraceID(req.Context()); id != "" {
		// Seed 004 §4.3: the turn's trace id reaches the model call. The
		// provider ignores the header; a proxy, a gateway or the offline
		// model records it.
		req.Header.Set(TraceHeader, id)
	}
	if s, _ := req.Context().Value(speculativeKey{}).(bool); s {
		req.Header.Set(SpeculativeHeader, "1")
	}
	resp, err := t.doer.Do(req)
	if slot, ok := req.Context().Value(responseSlotKey{}).(*responseSlot); ok && err == nil {
		slot.resp = resp
	}
	return resp, err
}

// withResponseSlot returns a context whose streamed call's response is kept in slot.
func withResponseSlot(ctx context.Context, slot *responseSlot) context.Context {
	return context.WithValue(ctx, responseSlotKey{}, slot)
}

// streamChunk is the part of a chat.completion.chunk the assembler reads.
type streamChunk struct {
	Choices []streamChoice `json:"choices"`
	Usage   *openai.Usage  `json:"usage"`
}

type streamChoice struct {
	Index        int         `json:"index"`
	Delta        streamDelta `json:"delta"`
	FinishReason string      `json:"finish_reason"`
}

type streamDelta struct {
	Content          string           `json:"content"`
	Refusal          string           `json:"refusal"`
	ReasoningContent string           `json:"reasoning_content"`
	ToolCalls        []streamToolCall `json:"tool_calls"`
}

type streamToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

const (
	// maxSkippedLines bounds the lines without data between two chunks
	// (go-openai's default EmptyMessagesLimit).
	maxSkippedLines = 300
	// maxLineBytes bounds one line of the stream.
	maxLineBytes = 16 << 20
	// maxErrorBody bounds the text kept from lines that are not events, read
	// as an error when the stream ends (a provider that answers 200 with a
	// plain JSON error).
	maxErrorBody = 64 << 10
)

// errTooManySkippedLines is go-openai's error for the same case, so that
// callers see one error whichever reader met it.
var errTooManySkippedLines = openai.ErrTooManyEmptyStreamMessages

// readerPool holds the chunk readers' buffers. Every stream in flight holds
// one, so 4 KB: many chunk lines (a longer line is assembled in
// chunkReader.long).
var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4<<10) }}

// chunkReader reads the chunks of one streamed answer.
type chunkReader struct {
	br      *bufio.Reader
	long    []byte // a line longer than br's buffer, assembled
	chunk   streamChunk
	errBody []byte
	done    bool
}

func newChunkReader(body io.Reader) *chunkReader {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(body)
	return &chunkReader{br: br}
}

// release returns the buffer to the pool; the reader is not used after.
func (r *chunkReader) release() {
	if r.br != nil {
		r.br.Reset(nil)
		readerPool.Put(r.br)
		r.br = nil
	}
}

// next returns the next chunk, valid until the following call; io.EOF
// after `data: [DONE]`, and io.EOF as well when the body ends without it
// (as go-openai; the assembler tells a cut answer by its missing
// finish_reason). As go-openai: leading and trailing space of a line is
// ignored, "data:" may be followed by spaces or none, an event that is an
// {"error": …} object is returned as an error wrapping its *openai.APIError,
// and lines that are not data (blank lines, comments, "event:" lines) are
// skipped, up to maxSkippedLines in a row, and kept to be read as an error
// if the body ends.
func (r *chunkReader) next() (*streamChunk, error) {
	if r.done {
		return nil, io.EOF
	}
	for skipped := 0; ; skipped++ {
		line, err := r.line()
		if err != nil {
			if apiErr := r.bodyError(); apiErr != nil {
				return nil, fmt.Errorf("error, %w", apiErr)
			}
			return nil, err
		}
		line = bytes.TrimSpace(line)
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			if skipped >= maxSkippedLines {
				return nil, errTooManySkippedLines
			}
			if len(r.errBody)+len(line) <= maxErrorBody {
				r.errBody = append(r.errBody, line...)
			}
			continue
		}
		data = bytes.TrimLeft(data, " \t")
		if string(data) == "[DONE]" {
			r.done = true
			return nil, io.EOF
		}
		if bytes.HasPrefix(data, []byte(`{"error":`)) {
			var e openai.ErrorResponse
			if err := json.Unmarshal(data, &e); err != nil || e.Error == nil {
				return nil, fmt.Errorf("llm: malformed error event in the stream: %q", truncate(data, 200))
			}
			return nil, fmt.Errorf("error, %w", e.Error)
		}
		// Decode into the same value again: its slices keep their arrays,
		// zeroed first (encoding/json would merge into the old elements).
		choices := r.chunk.Choices[:cap(r.chunk.Choices)]
		clear(choices)
		r.chunk = streamChunk{Choices: choices[:0]}
		if err := decodeChunk(data, &r.chunk); err != nil {
			return nil, fmt.Errorf("%w: %q", err, truncate(data, 200))
		}
		r.errBody = r.errBody[:0]
		return &r.chunk, nil
	}
}

// line returns the next line, without copying when it fits the buffer.
func (r *chunkReader) line() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return line, nil // a last line without a newline
		}
		return line, err
	}
	r.long = append(r.long[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(r.long) > maxLineBytes {
			return nil, fmt.Errorf("llm: a line of the stream exceeds %d bytes", maxLineBytes)
		}
		line, err = r.br.ReadSlice('\n')
		r.long = append(r.long, line...)
	}
	if errors.Is(err, io.EOF) && len(r.long) > 0 {
		err = nil
	}
	return r.long, err
}

// bodyError is the error object of a body that was not an event stream.
func (r *chunkReader) bodyError() *openai.APIError {
	if len(r.errBody) == 0 {
		return nil
	}
	var e openai.ErrorResponse
	if json.Unmarshal(r.errBody, &e) != nil {
		return nil
	}
	return e.Error
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
