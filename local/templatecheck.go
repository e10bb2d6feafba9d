package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/insightedge/insightedge/local/server"
	"github.com/insightedge/insightedge/local/templatebackend"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/mdtree"
)

// templateCheckOptions configure `go run ./local template-check`.
type templateCheckOptions struct {
	Server   string // ws:// socket, or http:// base of a running server; "" starts one
	Template string
	KB       string
	Teacher  string
	Timeout  time.Duration
	Out      io.Writer
	Logger   *slog.Logger
	Getenv   func(string) string
}

// templateCheck is seed 002's E2E self-check: create a session, send the
// structured message, confirm the plan with its step_id, and check every
// event up to agent.final_answer; it prints a preview of
// reports/generated_report.md and fails on any deviation.
func templateCheck(ctx context.Context, o templateCheckOptions) error {
	if o.Template == "" {
		o.Template = templatebackend.SelfCheckTemplate
	}
	if o.KB == "" {
		o.KB = templatebackend.SelfCheckKB
	}
	if o.Timeout <= 0 {
		o.Timeout = 3 * time.Minute
	}
	url, stop, err := checkTarget(ctx, o)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(o.Out, "template: %s\nknowledge base: %s\nsocket: %s\n", o.Template, o.KB, url)
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	h := http.Header{}
	if o.Teacher != "" {
		h.Set("X-Teacher-Id", o.Teacher)
	}
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return fmt.Errorf("template-check: connect %s: %w", url, err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(16 << 20)
	ck := &checker{conn: conn, out: o.Out}
	return ck.run(ctx, o)
}

// checkTarget is the socket to check: the given one, or a server started
// here with a throw-away data dir.
func checkTarget(ctx context.Context, o templateCheckOptions) (string, func(), error) {
	switch {
	case strings.HasPrefix(o.Server, "ws://"), strings.HasPrefix(o.Server, "wss://"):
		return o.Server, func() {}, nil
	case o.Server != "":
		return "ws" + strings.TrimPrefix(strings.TrimRight(o.Server, "/"), "http") + "/ws/template", func() {}, nil
	}
	dir, err := os.MkdirTemp("", "insight-template-check-")
	if err != nil {
		return "", nil, err
	}
	s, err := server.Start(ctx, server.Options{Addr: "127.0.0.1:0", DataDir: dir, Getenv: o.Getenv, Logger: o.Logger})
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return "ws" + strings.TrimPrefix(s.URL, "http") + "/ws/template", func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Close(sctx)
		os.RemoveAll(dir)
	}, nil
}

type checker struct {
	conn *websocket.Conn
	out  io.Writer
	sid  string
}

func (c *checker) send(ctx context.Context, v map[string]any) error {
	if c.sid != "" {
		v["session_id"] = c.sid
	}
	b, _ := json.Marshal(v)
	return c.conn.Write(ctx, websocket.MessageText, b)
}

// next reads the next envelope that is not a heartbeat.
func (c *checker) next(ctx context.Context) (report.Envelope, error) {
	for {
		_, b, err := c.conn.Read(ctx)
		if err != nil {
			return report.Envelope{}, fmt.Errorf("template-check: read: %w", err)
		}
		var env report.Envelope
		if err := json.Unmarshal(b, &env); err != nil {
			return env, fmt.Errorf("template-check: a frame is not an envelope: %s", b)
		}
		if env.Event == "system.heartbeat" {
			continue
		}
		if env.Event == "agent.error" || env.Event == "system.error" {
			return env, fmt.Errorf("template-check: %s: %s", env.Event, env.Content)
		}
		if c.sid != "" && env.SessionID != c.sid {
			return env, fmt.Errorf("template-check: %s carries session_id %q, want %q", env.Event, env.SessionID, c.sid)
		}
		return env, nil
	}
}

func (c *checker) expect(ctx context.Context, event string) (report.Envelope, error) {
	env, err := c.next(ctx)
	if err == nil && env.Event != event {
		err = fmt.Errorf("template-check: got %s, want %s", env.Event, event)
	}
	return env, err
}

func (c *checker) run(ctx context.Context, o templateCheckOptions) error {
	if err := c.send(ctx, map[string]any{"event": "user.create_session"}); err != nil {
		return err
	}
	env, err := c.expect(ctx, "agent.session_created")
	if err != nil {
		return err
	}
	c.sid = env.SessionID
	fmt.Fprintf(c.out, "session: %s\n", c.sid)
	if err := c.send(ctx, map[string]any{"event": "user.message", "content": map[string]any{
		"question": "请基于指定模版与知识库生成报告", "template_name": o.Template, "knowledge_base_name": o.KB}}); err != nil {
		return err
	}
	if _, err := c.expect(ctx, "plan.start"); err != nil {
		return err
	}
	var tasks []report.SectionTask
	for tasks == nil {
		env, err := c.next(ctx)
		if err != nil {
			return err
		}
		switch env.Event {
		case "agent.tool_call", "agent.tool_result":
			if !strings.Contains(string(env.Metadata), `"scope":"plan"`) {
				return fmt.Errorf("template-check: planner tool event without scope plan: %s", env.Metadata)
			}
		case "plan.completed":
			var p report.PlanCompleted
			if err := json.Unmarshal(env.Content, &p); err != nil || len(p.Tasks) == 0 {
				return fmt.Errorf("template-check: plan.completed without tasks: %s", env.Content)
			}
			tasks = p.Tasks
		default:
			return fmt.Errorf("template-check: unexpected %s while planning", env.Event)
		}
	}
	for i, t := range tasks {
		if t.ID != i+1 || t.Title == "" || t.Template == "" || t.Objective == "" {
			return fmt.Errorf("template-check: task %d is incomplete: %+v", i+1, t)
		}
	}
	fmt.Fprintf(c.out, "plan: %d sections\n", len(tasks))
	if env, err = c.next(ctx); err != nil {
		return err
	}
	if env.Event == "agent.user_confirm" {
		if env.StepID == "" {
			return errors.New("template-check: agent.user_confirm without step_id")
		}
		if err := c.send(ctx, map[string]any{"event": "user.response", "step_id": env.StepID, "content": map[string]any{"confirmed": true}}); err != nil {
			return err
		}
		fmt.Fprintln(c.out, "confirmed")
		if env, err = c.next(ctx); err != nil {
			return err
		}
	}
	started, done := map[int]bool{}, map[int]bool{}
	for env.Event != "aggregate.start" {
		switch env.Event {
		case "solver.start", "solver.completed":
			var s report.SolverCompleted
			if err := json.Unmarshal(env.Content, &s); err != nil {
				return err
			}
			if env.Event == "solver.start" {
				started[s.ID] = true
			} else if !started[s.ID] || s.Status != report.TaskCompleted {
				return fmt.Errorf("template-check: section %d: %s", s.ID, env.Content)
			} else {
				done[s.ID] = true
			}
		case "agent.tool_call", "agent.tool_result":
		default:
			return fmt.Errorf("template-check: unexpected %s while solving", env.Event)
		}
		if env, err = c.next(ctx); err != nil {
			return err
		}
	}
	if len(done) != len(tasks) {
		return fmt.Errorf("template-check: %d of %d sections completed", len(done), len(tasks))
	}
	env, err = c.expect(ctx, "aggregate.completed")
	if err != nil {
		return err
	}
	var agg report.AggregateCompleted
	if err := json.Unmarshal(env.Content, &agg); err != nil {
		return err
	}
	if err := checkOutline(agg.Output.Report, tasks); err != nil {
		return err
	}
	if _, err := c.expect(ctx, "pipeline.completed"); err != nil {
		return err
	}
	final, err := c.expect(ctx, "agent.final_answer")
	if err != nil {
		return err
	}
	var answer string
	_ = json.Unmarshal(final.Content, &answer)
	lines := strings.Split(agg.Output.Report.Content, "\n")
	fmt.Fprintf(c.out, "\n--- %s (%d lines) ---\n%s\n---\n%s\nOK\n", agg.Output.Report.VFSPath, len(lines),
		strings.Join(lines[:min(40, len(lines))], "\n"), answer)
	return nil
}

// checkOutline checks that the report has every leaf's heading, in order,
// each once, at the VFS path the seed names.
func checkOutline(r report.Report, tasks []report.SectionTask) error {
	if r.VFSPath != report.ReportPath || r.Path != report.ReportPath {
		return fmt.Errorf("template-check: report at %q / %q, want %s", r.VFSPath, r.Path, report.ReportPath)
	}
	outline, err := mdtree.Outline(r.Content)
	if err != nil {
		return err
	}
	var titles []string
	for _, h := range outline {
		titles = append(titles, strings.TrimSpace(strings.TrimLeft(h, "#")))
	}
	at := 0
	for _, t := range tasks {
		i := slices.Index(titles[at:], t.Title)
		if i < 0 {
			return fmt.Errorf("template-check: the report lacks the heading %q (in order)", t.Title)
		}
		at += i + 1
	}
	seen := map[string]bool{}
	for _, h := range outline {
		if seen[h] {
			return fmt.Errorf("template-check: heading %q appears twice", h)
		}
		seen[h] = true
	}
	return nil
}
