// Package report is the template report agent of seed 002: its wire
// envelope, the tasks and sections of a plan, and the settings. The pipeline
// (plan → confirm → solve → aggregate), the per-session virtual file system,
// the template backend client and the transports live in sub-packages, one
// idea each; this package is the vocabulary they share.
//
// Every frame is the seed's JSON envelope {event, session_id, content,
// step_id?, metadata?}. Server events are a sealed set (one Go type per
// event, an unexported method), encoded by Encode; client events are decoded
// by DecodeClient into one Go type per event.
package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// Envelope is one frame of the protocol, in either direction.
type Envelope struct {
	Event     string          `json:"event"`
	SessionID string          `json:"session_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	StepID    string          `json:"step_id,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// ServerEvent is an event the server sends. The set is sealed: only the types
// of this package implement it.
type ServerEvent interface {
	// Name is the envelope's event field.
	Name() string
	serverEvent()
}

// Scope values of metadata.scope.
const (
	ScopePlan      = "plan"
	ScopeSolver    = "solver"
	ScopeAggregate = "aggregate"
)

// SessionCreated answers user.create_session (and opens a session's log).
type SessionCreated struct{}

// PlanStart starts the planning phase.
type PlanStart struct {
	Question string `json:"question"`
}

// ToolCall is a tool call of an agent, scoped to its phase.
type ToolCall struct {
	Scope  string          `json:"-"`
	Tool   string          `json:"-"`
	TaskID int             `json:"-"`
	Args   json.RawMessage `json:"args"`
}

// ToolResult is a tool's answer: Output, or Error.
type ToolResult struct {
	Scope  string `json:"-"`
	Tool   string `json:"-"`
	TaskID int    `json:"-"`
	Output any    `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
	System string `json:"system,omitempty"`
}

// PlanCompleted carries the plan's tasks (omitted when
// TEMPLATE_WS_BROADCAST_TASKS is false).
type PlanCompleted struct {
	Tasks       []SectionTask `json:"tasks,omitempty"`
	PlanSummary string        `json:"plan_summary,omitempty"`
}

// UserConfirm asks the user to confirm the plan; StepID is what the client
// sends back in user.response.
type UserConfirm struct {
	StepID  string        `json:"-"`
	Message string        `json:"message"`
	Tasks   []SectionTask `json:"tasks,omitempty"`
}

// SolverStart starts one section.
type SolverStart struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}

// SolverCompleted ends one section.
type SolverCompleted struct {
	ID      int    `json:"id"`
	Title   string `json:"title"`
	Summary string `json:"summary,omitempty"`
	// Status is "completed", "failed" or "cancelled" (beyond the seed, so a
	// client can tell a skipped section from a written one).
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// AggregateStart starts the aggregation.
type AggregateStart struct{}

// AggregateCompleted carries the report.
type AggregateCompleted struct {
	Output Output `json:"output"`
}

// PipelineCompleted ends a run.
type PipelineCompleted struct{}

// FinalAnswer is the human-readable summary of a run.
type FinalAnswer struct{ Text string }

// Error is agent.error: Message is the content.
type Error struct {
	Message string
	// Code is the seed 004 §3.2 code, in metadata.
	Code string
	// Limit and RetryAfter (seconds) are a RATE_LIMITED refusal's, in
	// metadata too (issue 26: fair use).
	Limit      string
	RetryAfter int64
}

// SystemError is system.error: a failure of the system rather than of the
// request (the template backend down, an internal error). Message is the
// content; Code, a seed 004 §3.2 code, is in metadata (issue 30).
type SystemError struct {
	Message string
	Code    string
}

// Heartbeat is system.heartbeat; it is written by the transport, never logged.
type Heartbeat struct {
	ActiveSessions int `json:"active_sessions"`
}

// State is the answer to user.request_state: a signed, expiring state.
type State struct {
	State     string `json:"state"`
	ExpiresAt string `json:"expires_at"`
}

// Reconnected answers user.reconnect_with_state.
type Reconnected struct {
	Status string `json:"status"`
}

// Cancelled acknowledges a control event (user.cancel, user.cancel_task,
// user.cancel_plan, ...): what was stopped.
type Cancelled struct {
	What   string `json:"what"`
	TaskID int    `json:"task_id,omitempty"`
}

func (SessionCreated) Name() string     { return "agent.session_created" }
func (PlanStart) Name() string          { return "plan.start" }
func (ToolCall) Name() string           { return "agent.tool_call" }
func (ToolResult) Name() string         { return "agent.tool_result" }
func (PlanCompleted) Name() string      { return "plan.completed" }
func (UserConfirm) Name() string        { return "agent.user_confirm" }
func (SolverStart) Name() string        { return "solver.start" }
func (SolverCompleted) Name() string    { return "solver.completed" }
func (AggregateStart) Name() string     { return "aggregate.start" }
func (AggregateCompleted) Name() string { return "aggregate.completed" }
func (PipelineCompleted) Name() string  { return "pipeline.completed" }
func (FinalAnswer) Name() string        { return "agent.final_answer" }
func (Error) Name() string              { return "agent.error" }
func (SystemError) Name() string        { return "system.error" }
func (Heartbeat) Name() string          { return "system.heartbeat" }
func (State) Name() string              { return "agent.state" }
func (Reconnected) Name() string        { return "agent.reconnected" }
func (Cancelled) Name() string          { return "agent.cancelled" }

func (SessionCreated) serverEvent()     {}
func (PlanStart) serverEvent()          {}
func (ToolCall) serverEvent()           {}
func (ToolResult) serverEvent()         {}
func (PlanCompleted) serverEvent()      {}
func (UserConfirm) serverEvent()        {}
func (SolverStart) serverEvent()        {}
func (SolverCompleted) serverEvent()    {}
func (AggregateStart) serverEvent()     {}
func (AggregateCompleted) serverEvent() {}
func (PipelineCompleted) serverEvent()  {}
func (FinalAnswer) serverEvent()        {}
func (Error) serverEvent()              {}
func (SystemError) serverEvent()        {}
func (Heartbeat) serverEvent()          {}
func (State) serverEvent()              {}
func (Reconnected) serverEvent()        {}
func (Cancelled) serverEvent()          {}

// Emitter is the producer of a session's events: the pipeline's steps and
// the control service append through it, so the stream and the encoding are
// the same for every writer.
func Emitter(log eventlog.Appender, sessionID string) eventlog.Emitter[ServerEvent] {
	return eventlog.Emitter[ServerEvent]{Log: log, Stream: StreamName(sessionID),
		Encode: func(ev ServerEvent) ([]byte, error) { return Encode(sessionID, ev) }}
}

// Encode returns the envelope of ev for session sessionID, as JSON without a
// trailing newline and without HTML escaping (report text goes out as
// written).
func Encode(sessionID string, ev ServerEvent) ([]byte, error) {
	env := Envelope{Event: ev.Name(), SessionID: sessionID}
	var content, meta any
	switch e := ev.(type) {
	case SessionCreated, AggregateStart, PipelineCompleted:
	case ToolCall:
		content = e
		meta = toolMeta{Scope: e.Scope, Tool: e.Tool, TaskID: e.TaskID}
	case ToolResult:
		content = e
		meta = toolMeta{Scope: e.Scope, Tool: e.Tool, TaskID: e.TaskID}
	case UserConfirm:
		content, env.StepID = e, e.StepID
		meta = toolMeta{Scope: ScopePlan}
	case PlanStart, PlanCompleted:
		content, meta = e, toolMeta{Scope: ScopePlan}
	case SolverStart, SolverCompleted:
		content, meta = e, toolMeta{Scope: ScopeSolver}
	case AggregateCompleted:
		content, meta = e, toolMeta{Scope: ScopeAggregate}
	case FinalAnswer:
		content = e.Text
	case Error:
		content = e.Message
		if e.Code != "" {
			meta = errorMeta{Code: e.Code, Limit: e.Limit, RetryAfter: e.RetryAfter}
		}
	case SystemError:
		content = e.Message
		if e.Code != "" {
			meta = map[string]string{"code": e.Code}
		}
	case Heartbeat:
		meta = e
	default:
		content = ev
	}
	var err error
	if env.Content, err = marshal(content); err != nil {
		return nil, fmt.Errorf("report: encode %s: %w", ev.Name(), err)
	}
	if env.Metadata, err = marshal(meta); err != nil {
		return nil, fmt.Errorf("report: encode %s metadata: %w", ev.Name(), err)
	}
	return marshalNoEscape(env)
}

// errorMeta is agent.error's metadata.
type errorMeta struct {
	Code       string `json:"code"`
	Limit      string `json:"limit,omitempty"`
	RetryAfter int64  `json:"retryAfter,omitempty"`
}

type toolMeta struct {
	Scope  string `json:"scope"`
	Tool   string `json:"tool,omitempty"`
	TaskID int    `json:"task_id,omitempty"`
}

func marshal(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	return marshalNoEscape(v)
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// ErrBadEnvelope is wrapped by every decoding error of a client frame.
var ErrBadEnvelope = errors.New("report: bad envelope")
