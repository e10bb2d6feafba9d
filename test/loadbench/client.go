package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// answer is what the client saw of one streamed answer.
type answer struct {
	firstDelta time.Duration // request sent → first text-delta
	// firstPart is request sent → the first part the teacher sees: any
	// chunk after start but the step boundaries (issue 29).
	firstPart time.Duration
	total     time.Duration
	deltas    int // text-delta chunks
	err       error
}

// chatBody is the body the AI SDK's useChat sends for a new message; id
// names the chat (the product's conversation id), unique per answer.
func chatBody(id string) []byte { return askBody(id, "msg-"+id, "What is photosynthesis?") }

// askBody is chatBody with the message's id and text: a chat's second
// message is its next turn.
func askBody(chat, msg, text string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"messages":[{"id":%q,"role":"user","parts":[{"type":"text","text":%q}]}],"trigger":"submit-message"}`, chat, msg, text)
}

// ask sends one chat request and reads its UI message stream to the end,
// checking that the text-deltas add up to want and that the stream closes
// with finish and [DONE].
func ask(ctx context.Context, hc *http.Client, url, id, want string) answer {
	return askWith(ctx, hc, url, chatBody(id), want)
}

// askWith is ask with a request body; want "" takes any text.
func askWith(ctx context.Context, hc *http.Client, url string, body []byte, want string) answer {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	a := readStream(resp, start, want)
	a.total = time.Since(start)
	return a
}

func readStream(resp *http.Response, start time.Time, want string) answer {
	var a answer
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		a.err = fmt.Errorf("status %d: %s", resp.StatusCode, b)
		return a
	}
	var text strings.Builder
	finished, done := false, false
	br := bufio.NewReaderSize(resp.Body, 16<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if !errors.Is(err, io.EOF) || len(line) > 0 {
				a.err = fmt.Errorf("reading the stream: %w", err)
				return a
			}
			break
		}
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			continue
		}
		data = bytes.TrimRight(data, "\r\n")
		if string(data) == "[DONE]" {
			done = true
			continue
		}
		var ch struct {
			Type      string `json:"type"`
			Delta     string `json:"delta"`
			ErrorText string `json:"errorText"`
		}
		if err := json.Unmarshal(data, &ch); err != nil {
			a.err = fmt.Errorf("chunk %q: %w", data, err)
			return a
		}
		if a.firstPart == 0 && !invisible[ch.Type] {
			a.firstPart = time.Since(start)
		}
		switch ch.Type {
		case "text-delta":
			if a.deltas == 0 {
				a.firstDelta = time.Since(start)
			}
			a.deltas++
			text.WriteString(ch.Delta)
		case "error":
			a.err = fmt.Errorf("error chunk: %s", ch.ErrorText)
			return a
		case "finish":
			finished = true
		}
	}
	switch {
	case !finished || !done:
		a.err = fmt.Errorf("the stream ended without finish and [DONE] (finish %t, [DONE] %t)", finished, done)
	case want != "" && text.String() != want:
		a.err = fmt.Errorf("the answer's text differs from the model's: got %d bytes, want %d", text.Len(), len(want))
	}
	return a
}

// drive sends n answers over c concurrent clients and returns each answer.
func drive(ctx context.Context, hc *http.Client, url, prefix string, c, n int, want string) []answer {
	out := make([]answer, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range c {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				out[i] = ask(ctx, hc, url, fmt.Sprintf("%s-%d", prefix, i), want)
			}
		})
	}
	wg.Wait()
	return out
}

// invisible are the chunks that show the teacher nothing.
var invisible = map[string]bool{"start": true, "start-step": true, "finish-step": true, "message-metadata": true}
