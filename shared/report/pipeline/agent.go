package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/vfs"
	"github.com/insightedge/insightedge/shared/tools"
)

// agentRun is one tool-using agent run (planner or solver).
type agentRun struct {
	session report.Session
	run     int
	system  string
	user    string
	tools   []tools.Tool
	// exit, when named, is the tool whose call ends the run; its arguments
	// are the run's result.
	exit   llm.Tool
	rounds int
	scope  string
	taskID int
}

// errNoAnswer is a run that ended without content or an exit call.
var errNoAnswer = errors.New("pipeline: the model gave no answer")

// maxEventOutput bounds a tool's output as shown in agent.tool_result.
const maxEventOutput = 4000

// runAgent calls the model until it answers with content or calls the exit
// tool, running the tools it calls and appending their events, for at most
// a.rounds model calls.
func (p *Pipeline) runAgent(ctx context.Context, a agentRun) (content string, exitArgs json.RawMessage, err error) {
	reg := tools.NewRegistry(a.tools...)
	defs := tools.Definitions(a.tools)
	if a.exit.Name != "" {
		defs = append(defs, a.exit)
	}
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: a.system},
		{Role: llm.RoleUser, Content: a.user},
	}
	for range a.rounds {
		resp, err := p.model.Complete(ctx, llm.Request{Messages: msgs, Tools: defs})
		if err != nil {
			return "", nil, fmt.Errorf("pipeline: model: %w", err)
		}
		m := resp.Message
		if len(m.ToolCalls) == 0 {
			if m.Content == "" {
				return "", nil, errNoAnswer
			}
			return m.Content, nil, nil
		}
		msgs = append(msgs, m)
		for _, tc := range m.ToolCalls {
			if a.exit.Name != "" && tc.Function.Name == a.exit.Name {
				return m.Content, json.RawMessage(tc.Function.Arguments), nil
			}
			out, err := p.callTool(ctx, a, reg, tc)
			if err != nil {
				return "", nil, err
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: out})
		}
	}
	return "", nil, fmt.Errorf("%w within %d model calls", errNoAnswer, a.rounds)
}

// callTool runs one tool call and records it; a failing tool is the model's
// to handle (its error is the tool message), only a stale run stops.
func (p *Pipeline) callTool(ctx context.Context, a agentRun, reg *tools.Registry, tc llm.ToolCall) (string, error) {
	args := json.RawMessage(tc.Function.Arguments)
	if !json.Valid(args) {
		args = json.RawMessage(`{}`)
	}
	if err := p.emit(ctx, a.session.ID, a.run, report.ToolCall{Scope: a.scope, Tool: tc.Function.Name, TaskID: a.taskID, Args: args}); err != nil {
		return "", err
	}
	res := report.ToolResult{Scope: a.scope, Tool: tc.Function.Name, TaskID: a.taskID}
	var forModel string
	call := tools.Call{SessionID: a.session.ID, CallID: tc.ID, Language: a.session.Language}
	if r, err := reg.Run(ctx, call, tc.Function.Name, json.RawMessage(tc.Function.Arguments)); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		res.Error = err.Error()
		forModel = "error: " + res.Error
	} else {
		b, err := json.Marshal(r.Output)
		if err != nil {
			return "", err
		}
		forModel = string(b)
		res.Output = r.Output
		if s, isStr := r.Output.(string); isStr {
			res.Output = vfs.Truncate(s, maxEventOutput)
		} else if len(b) > maxEventOutput {
			res.Output = vfs.Truncate(string(b), maxEventOutput)
		}
	}
	if err := p.emit(ctx, a.session.ID, a.run, res); err != nil {
		return "", err
	}
	return forModel, nil
}
