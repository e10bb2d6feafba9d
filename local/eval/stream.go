package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// chunk is one UI message chunk as the client received it.
type chunk struct {
	Type      string          `json:"type"`
	Delta     string          `json:"delta"`
	ErrorText string          `json:"errorText"`
	Data      json.RawMessage `json:"data"`
	Metadata  *struct {
		ConversationID string   `json:"conversationId"`
		Warnings       []string `json:"warnings"`
	} `json:"messageMetadata"`
}

// received is a whole stream: its raw bytes, its chunks, and when the first
// text and the end arrived.
type received struct {
	Raw       []byte
	Chunks    []chunk
	Done      bool // [DONE] arrived
	FirstText time.Duration
	Total     time.Duration
	BadLines  []string
}

// maxStreamBytes bounds what is read of one stream.
const maxStreamBytes = 32 << 20

// readStream reads an SSE body until it ends, timing from start.
func readStream(body io.Reader, start time.Time) (received, error) {
	var r received
	r.FirstText = -1
	var raw strings.Builder
	br := bufio.NewReaderSize(io.LimitReader(body, maxStreamBytes), 64<<10)
	for {
		line, err := br.ReadString('\n')
		raw.WriteString(line)
		if l := strings.TrimRight(line, "\r\n"); l != "" {
			r.line(l, start)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			r.Raw = []byte(raw.String())
			r.Total = time.Since(start)
			return r, fmt.Errorf("read stream: %w", err)
		}
	}
	r.Raw = []byte(raw.String())
	r.Total = time.Since(start)
	return r, nil
}

func (r *received) line(l string, start time.Time) {
	switch {
	case strings.HasPrefix(l, ":"), strings.HasPrefix(l, "id:"), strings.HasPrefix(l, "event:"), strings.HasPrefix(l, "retry:"):
	case strings.HasPrefix(l, "data:"):
		d := strings.TrimPrefix(strings.TrimPrefix(l, "data:"), " ")
		if d == "[DONE]" {
			r.Done = true
			return
		}
		var c chunk
		if err := json.Unmarshal([]byte(d), &c); err != nil || c.Type == "" {
			r.BadLines = append(r.BadLines, clip(l, 120))
			return
		}
		if c.Type == "text-delta" && c.Delta != "" && r.FirstText < 0 {
			r.FirstText = time.Since(start)
		}
		r.Chunks = append(r.Chunks, c)
	default:
		r.BadLines = append(r.BadLines, clip(l, 120))
	}
}

func clip(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n]) + "…"
}
