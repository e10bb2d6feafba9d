package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// RunTool is the tool step, one iteration of the Tools map: it runs one tool
// call, brackets it with data-tool-progress (running → success | empty |
// error, same id so the client updates the part in place) and stores the
// result for the next round. A tool's own failure is data for the model, not
// a step failure. Re-running a call whose result is stored does nothing more
// (a redelivered step never makes a second artifact).
func (a *Agent) RunTool(ctx context.Context, in workflow.ToolInput) (workflow.ToolOutput, error) {
	t := in.Turn
	key := toolKey(t.TurnID, in.Attempt, in.Call.ID)
	var done toolRecord
	if found, err := getJSON(ctx, a.Store, t.SessionID, key, &done); err != nil || found {
		return workflow.ToolOutput{Status: done.Status}, err
	}
	args, err := a.callArguments(ctx, in)
	if err != nil {
		return workflow.ToolOutput{}, err
	}
	em := a.stream(t.TurnID)
	tool, _ := a.Tools.Get(in.Call.Name)
	if !in.Call.Announced {
		if err := a.progress(ctx, em, in.Call, a.running(t, in.Call.Name)); err != nil {
			return workflow.ToolOutput{}, err
		}
	}
	rec := toolRecord{Name: in.Call.Name}
	call := tools.Call{TeacherID: t.TeacherID, SessionID: t.SessionID, TurnID: t.TurnID, CallID: in.Call.ID,
		Language: t.Language, Message: t.Message, TraceID: t.TraceID,
		Emit: func(ctx context.Context, c protocol.Chunk) error {
			if err := em.Emit(ctx, c); err != nil {
				return err
			}
			rec.Emitted = append(rec.Emitted, c.ChunkType())
			return nil
		}}
	res, err := a.Tools.Run(ctx, call, in.Call.Name, args)
	if errors.Is(err, eventlog.ErrClosed) || ctx.Err() != nil {
		return workflow.ToolOutput{}, fmt.Errorf("agent: tool %s: %w", in.Call.Name, errors.Join(err, ctx.Err()))
	}
	lang := i18n.Of(t.Language, t.Message)
	msg := res.Message
	if err != nil {
		msg = userToolError(err, lang, tool.Thing)
	}
	rec.Status, rec.Output = a.toolOutcome(ctx, in.Call, res, err, msg)
	rec.EndedAt = a.Now()
	if err == nil {
		rec.Memory = i18n.Clip(res.Memory, maxMemory)
	}
	a.Metrics.Count("ToolCall", 1, map[string]string{"tool": in.Call.Name, "status": rec.Status})
	if err := putJSON(ctx, a.Store, t.SessionID, key, rec); err != nil {
		return workflow.ToolOutput{}, err
	}
	end := protocol.ToolProgress{Status: protocol.ToolStatus(rec.Status), Message: msg}
	if end.Status == protocol.ToolSuccess {
		end.Count, end.Preview = res.Count, res.Preview // seed 003's tool.end
	}
	if err := a.progress(ctx, em, in.Call, end); err != nil {
		return workflow.ToolOutput{}, err
	}
	if err == nil {
		// What the teacher must know about the data (sample data, stale,
		// incomplete, ungraded work); one part per code on the client.
		for _, n := range res.Notices {
			if err := em.Emit(ctx, n.Chunk()); err != nil {
				return workflow.ToolOutput{}, err
			}
		}
	}
	return workflow.ToolOutput{Status: rec.Status}, nil
}

// running is a call's data-tool-progress while it is written and run.
func (a *Agent) running(t workflow.Turn, name string) protocol.ToolProgress {
	msg := "…"
	tool, known := a.Tools.Get(name)
	if r := i18n.Of(t.Language, t.Message).Text(tool.Running); known && r != "" {
		msg = r
	}
	return protocol.ToolProgress{Status: protocol.ToolRunning, Message: msg}
}

func (a *Agent) progress(ctx context.Context, em chunkEmitter, c workflow.ToolCallRef, p protocol.ToolProgress) error {
	p.Tool = c.Name
	d, err := protocol.NewData(protocol.DataToolProgress, c.ID, p)
	if err != nil {
		return err
	}
	return em.Emit(ctx, d)
}

// toolOutcome is the status and the model-facing output of a call. A
// failure carries, beside what the model needs to fix its call, the
// teacher-facing text (teacherMessage, from the catalogue in the teacher's
// language): the model says that, never the tool's name or its error.
func (a *Agent) toolOutcome(ctx context.Context, c workflow.ToolCallRef, res tools.Result, err error, teacherMsg string) (string, string) {
	if err != nil {
		a.Logger.WarnContext(ctx, "tool failed", "tool", c.Name, "call", c.ID, "err", err)
		out := modelToolError(err)
		out["teacherMessage"] = teacherMsg
		b, _ := json.Marshal(out)
		return string(protocol.ToolError), string(b)
	}
	status := res.Status
	if status == "" {
		status = protocol.ToolSuccess
	}
	b, merr := json.Marshal(res.Output)
	if merr != nil {
		b, _ = json.Marshal(map[string]string{"error": "the tool's output could not be encoded"})
		status = protocol.ToolError
	}
	return string(status), string(b)
}

// modelToolError is what the model reads of a failed call: the code and
// message of an *apperr.Error (the data tools' errors), never its causes,
// which may hold internal addresses or ids (the log has them); other
// errors, such as an argument error the model must fix, in full.
func modelToolError(err error) map[string]string {
	var ae *tools.ArgumentError
	if errors.As(err, &ae) {
		return map[string]string{"error": err.Error()}
	}
	var e *apperr.Error
	if errors.As(err, &e) {
		return map[string]string{"error": e.Message, "code": string(e.Code)}
	}
	return map[string]string{"error": err.Error()}
}

// userToolError is what the teacher reads of a failed tool: a catalogue
// text in their language naming what failed (the tool's Thing, "PDF 导出
// 暂不可用"), never the tool's name, an error's English or a stack.
func userToolError(err error, l i18n.Lang, thing i18n.Msg) string {
	var ae *tools.ArgumentError
	if errors.As(err, &ae) {
		return l.Text(i18n.ToolArgsRetry)
	}
	if msg := l.ToolDataFailure(apperr.CodeOf(err)); msg != "" { // issue 28: a 403 says so
		return msg
	}
	if name := l.Text(thing); name != "" {
		return l.Text(i18n.ToolUnavailable, name)
	}
	return l.Text(i18n.ToolStepFailed)
}

// callArguments finds the call's arguments in the attempt's history.
func (a *Agent) callArguments(ctx context.Context, in workflow.ToolInput) (json.RawMessage, error) {
	h, ok, err := a.loadHistory(ctx, in.Turn.SessionID, in.Turn.TurnID, in.Attempt)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("agent: no history for turn %s attempt %d", in.Turn.TurnID, in.Attempt)
	}
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role != llm.RoleAssistant {
			continue
		}
		for _, c := range h[i].ToolCalls {
			if c.ID == in.Call.ID {
				return json.RawMessage(c.Function.Arguments), nil
			}
		}
	}
	return nil, fmt.Errorf("agent: tool call %s not in the history", in.Call.ID)
}
