package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/export"
	"github.com/insightedge/insightedge/shared/report/vfs"
	"github.com/insightedge/insightedge/shared/tools"
)

// Causes that stop a running solver.
var (
	errTaskCancelled = errors.New("pipeline: task cancelled")
	errRestart       = errors.New("pipeline: task restarted")
)

// maxRestarts bounds how often one Solve starts its task over.
const maxRestarts = 3

// NextRound returns the tasks still pending: the first round's, then those
// restarted after their iteration ended, for at most MaxRounds rounds. In
// solve mode (user.solve_tasks), the first round fills the submitted tasks.
func (p *Pipeline) NextRound(ctx context.Context, in RoundInput) (RoundOutput, error) {
	out := RoundOutput{Round: in.Round + 1, TaskIDs: []int{}}
	s, err := p.current(ctx, in.SessionID, in.Run)
	if err != nil {
		return out, staleOr(err)
	}
	if len(s.Tasks) == 0 && len(s.Submitted) > 0 {
		if s, err = p.fillSubmitted(ctx, s, in.Run); err != nil {
			return out, staleOr(err)
		}
	}
	if len(s.Tasks) == 0 {
		return out, errors.New("pipeline: the session has no tasks to solve")
	}
	if in.Round >= p.set.MaxRounds {
		return out, nil
	}
	for _, t := range s.Tasks {
		if s.TaskState[t.ID] == report.TaskPending {
			out.TaskIDs = append(out.TaskIDs, t.ID)
		}
	}
	out.More = len(out.TaskIDs) > 0
	if out.More {
		_, err = p.store.UpdateSession(ctx, s.ID, func(x *report.Session) error {
			if x.Run != in.Run {
				return errStale
			}
			x.Status, x.StepID = report.StatusSolving, ""
			return nil
		})
	}
	return out, staleOr(err)
}

// Solve writes one section (one Map iteration), retrying a failed attempt
// TEMPLATE_WS_MAX_RETRY times after TEMPLATE_WS_RETRY_DELAY. A section that
// fails or is cancelled ends with solver.completed and its status; only a
// broken store or a stopped execution is an error.
func (p *Pipeline) Solve(ctx context.Context, in SolveInput) (SolveOutput, error) {
	out := SolveOutput{TaskID: in.TaskID, Status: "stale"}
	s, err := p.current(ctx, in.SessionID, in.Run)
	if err != nil {
		return out, staleOr(err)
	}
	task, ok := s.Task(in.TaskID)
	if !ok {
		return out, fmt.Errorf("pipeline: session %s has no task %d", s.ID, in.TaskID)
	}
	for range maxRestarts + 1 {
		gen := s.Restarts[task.ID]
		running, err := p.setTask(ctx, s.ID, in.Run, task.ID, report.TaskRunning)
		if errors.Is(err, errTaskCancelled) {
			// Cancelled before it started: it starts and ends at once, so
			// that its solver.completed has its solver.start (the pairing
			// rule, docs/template-report.md).
			if err := p.emit(ctx, s.ID, in.Run, report.SolverStart{ID: task.ID, Title: task.Title}); err != nil {
				return out, staleOr(err)
			}
			return p.endTask(ctx, s, in.Run, task, report.TaskCancelled, "", "")
		}
		if err != nil {
			return out, staleOr(err)
		}
		s = running
		if err := p.emit(ctx, s.ID, in.Run, report.SolverStart{ID: task.ID, Title: task.Title}); err != nil {
			return out, staleOr(err)
		}
		wctx, stop := p.watch(ctx, s.ID, in.Run, task.ID, gen)
		content, err := p.solveWithRetry(wctx, s, in.Run, task)
		cause := context.Cause(wctx)
		stop()
		switch {
		case ctx.Err() != nil:
			return out, ctx.Err()
		case errors.Is(cause, errRestart):
			if s, err = p.store.GetSession(ctx, s.ID); err != nil {
				return out, err
			}
			continue
		case errors.Is(cause, errTaskCancelled):
			return p.endTask(ctx, s, in.Run, task, report.TaskCancelled, "", "")
		case errors.Is(cause, errStale) || errors.Is(err, errStale):
			return out, nil
		case err != nil:
			p.logger.Warn("section failed", "sessionId", s.ID, "task", task.ID, "err", err)
			return p.endTask(ctx, s, in.Run, task, report.TaskFailed, "", describe(err))
		}
		f, err := p.fs(s)
		if err != nil {
			return out, err
		}
		sec, _ := json.Marshal(report.Section{ID: task.ID, Title: task.Title, Content: content, Tables: Tables(content)})
		if err := f.PutWork(ctx, sectionName(task.ID), sec); err != nil {
			return out, err
		}
		return p.endTask(ctx, s, in.Run, task, report.TaskCompleted, Summary(content), "")
	}
	return p.endTask(ctx, s, in.Run, task, report.TaskFailed, "", fmt.Sprintf("restarted more than %d times", maxRestarts))
}

func sectionName(id int) string { return "section-" + strconv.Itoa(id) + ".json" }

// setTask sets a task's state; it fails with errTaskCancelled when the user
// cancelled the task.
func (p *Pipeline) setTask(ctx context.Context, sessionID string, run, id int, state string) (report.Session, error) {
	return p.store.UpdateSession(ctx, sessionID, func(x *report.Session) error {
		if x.Run != run || x.Status == report.StatusCancelled || x.Status == report.StatusClosed {
			return errStale
		}
		if state == report.TaskRunning && x.TaskState[id] == report.TaskCancelled {
			return errTaskCancelled
		}
		if x.TaskState == nil {
			x.TaskState = map[int]string{}
		}
		x.TaskState[id] = state
		return nil
	})
}

func (p *Pipeline) endTask(ctx context.Context, s report.Session, run int, t report.SectionTask, state, summary, msg string) (SolveOutput, error) {
	out := SolveOutput{TaskID: t.ID, Status: state}
	if _, err := p.store.UpdateSession(ctx, s.ID, func(x *report.Session) error {
		if x.Run != run {
			return errStale
		}
		// A restart requested while this iteration ended leaves the task
		// pending for the next round.
		if x.TaskState[t.ID] != report.TaskPending || x.Restarts[t.ID] == s.Restarts[t.ID] {
			x.TaskState[t.ID] = state
		}
		return nil
	}); err != nil {
		return SolveOutput{TaskID: t.ID, Status: "stale"}, staleOr(err)
	}
	ev := report.SolverCompleted{ID: t.ID, Title: t.Title, Summary: summary, Status: state, Error: msg}
	return out, staleOr(p.emit(ctx, s.ID, run, ev))
}

// watch returns a context that ends when the user cancels or restarts the
// task, or the run ends, as the store tells; it looks every WatchEvery.
func (p *Pipeline) watch(ctx context.Context, sessionID string, run, id, gen int) (context.Context, func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(p.set.WatchEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-wctx.Done():
				return
			case <-t.C:
			}
			s, err := p.store.GetSession(wctx, sessionID)
			switch {
			case err != nil:
				continue // the next look decides; the step's own calls report a broken store
			case s.Run != run || s.Status == report.StatusCancelled || s.Status == report.StatusClosed:
				cancel(errStale)
			case s.TaskState[id] == report.TaskCancelled:
				cancel(errTaskCancelled)
			case s.Restarts[id] != gen:
				cancel(errRestart)
			}
		}
	}()
	return wctx, func() { close(done); cancel(nil) }
}

func (p *Pipeline) solveWithRetry(ctx context.Context, s report.Session, run int, t report.SectionTask) (string, error) {
	attempts := 1 + max(p.set.MaxRetry, 0)
	var err error
	for i := range attempts {
		var content string
		content, err = p.solveOnce(ctx, s, run, t)
		if err == nil {
			return content, nil
		}
		if ctx.Err() != nil || errors.Is(err, errStale) {
			return "", err
		}
		if i+1 < attempts {
			note := lang(s).Text(i18n.ReportRetry, i+1, describe(err), p.set.RetryDelay)
			if e := p.emit(ctx, s.ID, run, report.ToolResult{Scope: report.ScopeSolver, TaskID: t.ID, Tool: "solver", System: note}); e != nil {
				return "", e
			}
			if e := p.sleep(ctx, p.set.RetryDelay); e != nil {
				return "", e
			}
		}
	}
	return "", err
}

func (p *Pipeline) solveOnce(ctx context.Context, s report.Session, run int, t report.SectionTask) (string, error) {
	f, err := p.fs(s)
	if err != nil {
		return "", err
	}
	var readers []tools.Tool
	for _, tl := range f.Tools() {
		if tl.Name == vfs.ToolReadFile || tl.Name == vfs.ToolListDir {
			readers = append(readers, tl)
		}
	}
	user, _ := json.Marshal(struct {
		report.SectionTask
		Language string `json:"language"`
	}{t, s.Language})
	content, _, err := p.runAgent(ctx, agentRun{session: s, run: run, system: prompts.ReportSolver, user: string(user),
		tools: readers, rounds: p.set.SolverRounds, scope: report.ScopeSolver, taskID: t.ID})
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(content) == "" {
		return "", errNoAnswer
	}
	return content, nil
}

// Tables are the Markdown tables (GFM, goldmark's table extension) of a
// section's content, in order.
func Tables(content string) []report.Table {
	var out []report.Table
	for _, sec := range export.Document(content, "").Sections {
		for _, b := range sec.Blocks {
			if t, ok := b.(office.Table); ok {
				out = append(out, report.Table{Headers: unescaped(t.Headers), Rows: unescapedRows(t.Rows)})
			}
		}
	}
	return out
}

// unescaped are a row's cells with the escaped pipes of GFM (a \| b) as
// the reader sees them; never nil.
func unescaped(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ReplaceAll(c, `\|`, "|")
	}
	return out
}

func unescapedRows(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = unescaped(r)
	}
	return out
}

// Summary is a section's first sentence-sized line, without Markdown marks,
// for solver.completed.
func Summary(content string) string {
	for line := range strings.SplitSeq(content, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#>-*|0123456789. "))
		line = strings.ReplaceAll(line, "**", "")
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > 80 {
			line = string([]rune(line)[:80]) + "…"
		}
		return line
	}
	return ""
}

// fillSubmitted makes user.solve_tasks' tasks from the template, keeping
// only the submitted leaves, and announces them as the plan.
func (p *Pipeline) fillSubmitted(ctx context.Context, s report.Session, run int) (report.Session, error) {
	s, err := p.load(ctx, s)
	if err != nil {
		return s, err
	}
	f, doc, err := p.template(ctx, s)
	if err != nil {
		return s, err
	}
	datasets, err := f.List(ctx, "datasets")
	if err != nil {
		return s, err
	}
	all, ignored := Fill(doc, s.Submitted, paths(datasets), lang(s))
	var tasks []report.SectionTask
	for _, t := range all {
		for _, u := range s.Submitted {
			if u.ID == t.ID {
				tasks = append(tasks, t)
				break
			}
		}
	}
	if len(tasks) == 0 {
		return s, apperr.New(apperr.ValidationError, "none of the submitted task ids %v is a section of the template (1..%d)", ignored, len(doc.Leaves))
	}
	summary := s.PlanSummary
	if summary == "" {
		summary = lang(s).Text(i18n.ReportGivenSections, len(tasks))
	}
	s, err = p.store.UpdateSession(ctx, s.ID, func(x *report.Session) error {
		if x.Run != run {
			return errStale
		}
		x.Tasks, x.Submitted, x.PlanSummary = tasks, nil, summary
		x.TaskState, x.Restarts = map[int]string{}, map[int]int{}
		for _, t := range tasks {
			x.TaskState[t.ID] = report.TaskPending
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	ev := report.PlanCompleted{PlanSummary: summary}
	if p.set.BroadcastTasks {
		ev.Tasks = tasks
	}
	return s, p.emit(ctx, s.ID, run, ev)
}
