package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/insightedge/insightedge/local/server"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
)

type chatOptions struct {
	// Server is the base URL of a running server; empty: the server at
	// Addr when one answers, else one started in process.
	Server       string
	Addr         string
	DataDir      string
	Teacher      string
	Conversation string
	Messages     []string
	Out          io.Writer
	Logger       *slog.Logger
	Getenv       func(string) string
}

// chat runs one turn per message against a server and prints each turn
// readably. The server is -server, else the one at ADDR when it answers its
// health check, else one started in process; the first line says which.
func chat(ctx context.Context, o chatOptions) error {
	base := o.Server
	if base == "" && o.Addr != "" {
		url := "http://" + o.Addr
		if why := probe(ctx, url); why == "" {
			base = url
		} else {
			fmt.Fprintf(o.Out, "(no server at %s: %s; running one in this process with its own store)\n", url, why)
		}
	}
	if base != "" {
		fmt.Fprintf(o.Out, "(using the server at %s)\n", base)
	} else {
		dir, err := os.MkdirTemp("", "insight-chat-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if o.DataDir != ".data" {
			dir = o.DataDir
		}
		s, err := server.Start(ctx, server.Options{Addr: "127.0.0.1:0", DataDir: dir, Getenv: o.Getenv, Logger: o.Logger})
		if err != nil {
			return err
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.Close(sctx)
		}()
		base = s.URL
	}
	conv := o.Conversation
	for _, msg := range o.Messages {
		id, err := chatTurn(ctx, base, o.Teacher, conv, msg, o.Out)
		if err != nil {
			return err
		}
		conv = id
	}
	return nil
}

// probeTimeout bounds the look for a running server.
const probeTimeout = 2 * time.Second

// probe says why base is not a ready Insight Edge server ("" when it is):
// its GET /api/health answers 200 with a JSON status.
func probe(ctx context.Context, base string) string {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/health", nil)
	if err != nil {
		return err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "nothing answers"
	}
	defer resp.Body.Close()
	var h struct {
		Status string `json:"status"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&h); err != nil || h.Status == "" {
		return fmt.Sprintf("GET /api/health answered %s, not Insight Edge's health", resp.Status)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("it is not ready (GET /api/health: %s, %s)", resp.Status, h.Status)
	}
	return ""
}

func chatTurn(ctx context.Context, base, teacher, conv, msg string, out io.Writer) (string, error) {
	body := map[string]any{"message": msg}
	if conv != "" {
		body["conversationId"] = conv
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/conversation/stream", bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if teacher != "" {
		req.Header.Set("X-Teacher-Id", teacher)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return "", fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(e)))
	}
	fmt.Fprintf(out, "\n› %s\n", msg)
	p := &printer{out: out, base: base}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || line == "[DONE]" {
			continue
		}
		p.chunk([]byte(line))
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	fmt.Fprintf(out, "\n  [conversation %s]\n", resp.Header.Get("X-Conversation-Id"))
	return resp.Header.Get("X-Conversation-Id"), nil
}

// printer renders UI message chunks for a terminal.
type printer struct {
	out    io.Writer
	inText bool
	// base resolves the relative links of files and pages for the terminal.
	base string
}

func (p *printer) chunk(raw []byte) {
	var c struct {
		Type      string          `json:"type"`
		Delta     string          `json:"delta"`
		ErrorText string          `json:"errorText"`
		Data      json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return
	}
	if p.inText && c.Type != "text-delta" {
		fmt.Fprintln(p.out)
		p.inText = false
	}
	switch c.Type {
	case "text-start":
		fmt.Fprint(p.out, "  ")
	case "text-delta":
		fmt.Fprint(p.out, strings.ReplaceAll(c.Delta, "\n", "\n  "))
		p.inText = true
	case "data-tool-progress":
		var d protocol.ToolProgress
		_ = json.Unmarshal(c.Data, &d)
		mark := map[protocol.ToolStatus]string{"running": "…", "success": "✓", "empty": "∅", "error": "✗"}[d.Status]
		fmt.Fprintf(p.out, "  %s %s: %s\n", mark, d.Tool, d.Message)
	case "data-quiz-question":
		var d protocol.QuizQuestion
		_ = json.Unmarshal(c.Data, &d)
		q := d.Question
		fmt.Fprintf(p.out, "  Q%d. %s\n", q.Index, q.Question)
		for _, opt := range q.Options {
			fmt.Fprintf(p.out, "      %s\n", opt)
		}
		fmt.Fprintf(p.out, "      answer: %s\n", q.Answer)
	case "data-clarify":
		var d protocol.Clarify
		_ = json.Unmarshal(c.Data, &d)
		fmt.Fprintf(p.out, "  ? %s\n    options: %s\n", d.Question, strings.Join(d.Options, " | "))
	case "error":
		fmt.Fprintf(p.out, "  ! %s\n", c.ErrorText)
	case "data-blueprint":
		var d struct{ Name string }
		_ = json.Unmarshal(c.Data, &d)
		fmt.Fprintf(p.out, "  ▸ page plan %q: build it in the dev console (tab Page) or with POST /api/page/generate\n", d.Name)
	case "data-quiz-complete": // its questions are printed above
	default:
		if strings.HasPrefix(c.Type, "data-") {
			fmt.Fprintf(p.out, "  ▸ %s%s\n", strings.ReplaceAll(strings.TrimPrefix(c.Type, "data-"), "-", " "), summary(c.Data))
		}
		var link struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(c.Data, &link) == nil && strings.HasPrefix(link.URL, "/") {
			fmt.Fprintf(p.out, "    %s%s\n", p.base, link.URL)
		}
	}
}

// summary is the first human field of a data part (": …"), or nothing: a
// terminal shows what a teacher would read, never the part's JSON.
func summary(data json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(data, &fields) != nil {
		return ""
	}
	for _, k := range []string{"title", "name", "fileName", "filename", "message", "topic", "question", "pageTitle"} {
		if v, ok := fields[k].(string); ok && v != "" {
			return ": " + i18n.Clip(v, 120)
		}
	}
	return ""
}
