package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ClientEvent is an event a client sends. The set is sealed.
type ClientEvent interface {
	Name() string
	clientEvent()
}

// CreateSession is user.create_session.
type CreateSession struct{}

// Message is user.message: a plain question or the structured form.
type Message struct {
	Question          string `json:"question"`
	TemplateName      string `json:"template_name,omitempty"`
	TemplateID        string `json:"template_id,omitempty"`
	KnowledgeBaseName string `json:"knowledge_base_name,omitempty"`
	DatabaseID        string `json:"database_id,omitempty"`
	APIBaseURL        string `json:"api_base_url,omitempty"`
	// Language ("zh" or "en") of the report; empty: the question's.
	Language string `json:"language,omitempty"`
}

// Response is user.response to an agent.user_confirm.
type Response struct {
	StepID    string     `json:"-"`
	Confirmed bool       `json:"confirmed"`
	Tasks     []UserTask `json:"tasks,omitempty"`
}

// Cancel is user.cancel.
type Cancel struct{}

// CancelTask is user.cancel_task.
type CancelTask struct {
	TaskID int `json:"task_id"`
}

// RestartTask is user.restart_task.
type RestartTask struct {
	TaskID int `json:"task_id"`
}

// CancelPlan is user.cancel_plan.
type CancelPlan struct{}

// Replan is user.replan.
type Replan struct {
	Question string `json:"question,omitempty"`
}

// SolveTasks is user.solve_tasks: tasks given by id (filled from the
// template) or in full.
type SolveTasks struct {
	Tasks       []UserTask `json:"tasks"`
	Question    string     `json:"question,omitempty"`
	PlanSummary string     `json:"plan_summary,omitempty"`
	// Message names the template and knowledge base when the session has
	// none loaded yet (same fields as user.message).
	Message
}

// RequestState is user.request_state.
type RequestState struct{}

// ReconnectWithState is user.reconnect_with_state.
type ReconnectWithState struct {
	State string `json:"state"`
}

func (CreateSession) Name() string      { return "user.create_session" }
func (Message) Name() string            { return "user.message" }
func (Response) Name() string           { return "user.response" }
func (Cancel) Name() string             { return "user.cancel" }
func (CancelTask) Name() string         { return "user.cancel_task" }
func (RestartTask) Name() string        { return "user.restart_task" }
func (CancelPlan) Name() string         { return "user.cancel_plan" }
func (Replan) Name() string             { return "user.replan" }
func (SolveTasks) Name() string         { return "user.solve_tasks" }
func (RequestState) Name() string       { return "user.request_state" }
func (ReconnectWithState) Name() string { return "user.reconnect_with_state" }

func (CreateSession) clientEvent()      {}
func (Message) clientEvent()            {}
func (Response) clientEvent()           {}
func (Cancel) clientEvent()             {}
func (CancelTask) clientEvent()         {}
func (RestartTask) clientEvent()        {}
func (CancelPlan) clientEvent()         {}
func (Replan) clientEvent()             {}
func (SolveTasks) clientEvent()         {}
func (RequestState) clientEvent()       {}
func (ReconnectWithState) clientEvent() {}

// MaxFrameBytes bounds a client frame (one WebSocket message, one POSTed
// envelope): API Gateway's own message limit (128 KB, a quota that cannot
// be raised), so that a client the local socket accepts is accepted in AWS
// too. Over it, the local socket and the POST route answer agent.error
// (FrameTooLarge); in AWS API Gateway closes the socket with 1009 first
// (docs/template-report.md, "Frame limits").
const MaxFrameBytes = 128 << 10

// FrameTooLarge is the error of a frame of n bytes over MaxFrameBytes.
func FrameTooLarge(n int64) error {
	return fmt.Errorf("%w: frame of %d bytes is larger than %d", ErrBadEnvelope, n, MaxFrameBytes)
}

// DecodeClient parses one client frame. Errors wrap ErrBadEnvelope and say
// what is wrong in words a client developer can act on.
func DecodeClient(frame []byte) (Envelope, ClientEvent, error) {
	var env Envelope
	if len(frame) > MaxFrameBytes {
		return env, nil, FrameTooLarge(int64(len(frame)))
	}
	if err := json.Unmarshal(frame, &env); err != nil {
		return env, nil, fmt.Errorf("%w: not a JSON object: %v", ErrBadEnvelope, err)
	}
	if env.Event == "" {
		return env, nil, fmt.Errorf("%w: event is required", ErrBadEnvelope)
	}
	if env.Event != "user.create_session" && env.SessionID == "" {
		return env, nil, fmt.Errorf("%w: session_id is required for %s", ErrBadEnvelope, env.Event)
	}
	ev, err := decodeContent(env)
	if err != nil {
		return env, nil, err
	}
	return env, ev, nil
}

func decodeContent(env Envelope) (ClientEvent, error) {
	empty := isEmpty(env.Content)
	switch env.Event {
	case "user.create_session":
		return CreateSession{}, nil
	case "user.message":
		return decodeMessage(env.Content, empty)
	case "user.response":
		if env.StepID == "" {
			return nil, fmt.Errorf("%w: user.response needs the step_id of agent.user_confirm", ErrBadEnvelope)
		}
		r, err := into[Response](env, empty, true)
		r.StepID = env.StepID
		return r, err
	case "user.cancel":
		return Cancel{}, nil
	case "user.cancel_task":
		t, err := into[CancelTask](env, empty, true)
		if err == nil && t.TaskID < 1 {
			err = fmt.Errorf("%w: content.task_id must be a positive integer", ErrBadEnvelope)
		}
		return t, err
	case "user.restart_task":
		t, err := into[RestartTask](env, empty, true)
		if err == nil && t.TaskID < 1 {
			err = fmt.Errorf("%w: content.task_id must be a positive integer", ErrBadEnvelope)
		}
		return t, err
	case "user.cancel_plan":
		return CancelPlan{}, nil
	case "user.replan":
		return into[Replan](env, empty, false)
	case "user.solve_tasks":
		s, err := into[SolveTasks](env, empty, true)
		if err == nil && len(s.Tasks) == 0 {
			err = fmt.Errorf("%w: content.tasks must list at least one task", ErrBadEnvelope)
		}
		return s, err
	case "user.request_state":
		return RequestState{}, nil
	case "user.reconnect_with_state":
		s, err := into[ReconnectWithState](env, empty, true)
		if err == nil && s.State == "" {
			err = fmt.Errorf("%w: content.state is required", ErrBadEnvelope)
		}
		return s, err
	}
	return nil, fmt.Errorf("%w: unknown event %q", ErrBadEnvelope, env.Event)
}

// decodeMessage accepts a string or the structured object; either must
// carry a question.
func decodeMessage(raw json.RawMessage, empty bool) (ClientEvent, error) {
	if empty {
		return nil, fmt.Errorf("%w: content is empty", ErrBadEnvelope)
	}
	var m Message
	var s string
	if json.Unmarshal(raw, &s) == nil {
		m.Question = s
	} else if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: content must be a string or {question, template_name, ...}: %v", ErrBadEnvelope, err)
	}
	m.Question = strings.TrimSpace(m.Question)
	if m.Question == "" {
		return nil, fmt.Errorf("%w: content is empty", ErrBadEnvelope)
	}
	return m, nil
}

func into[T ClientEvent](env Envelope, empty, required bool) (T, error) {
	var v T
	if empty {
		if required {
			return v, fmt.Errorf("%w: %s needs content", ErrBadEnvelope, env.Event)
		}
		return v, nil
	}
	if err := json.Unmarshal(env.Content, &v); err != nil {
		return v, fmt.Errorf("%w: %s content: %v", ErrBadEnvelope, env.Event, err)
	}
	return v, nil
}

func isEmpty(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null" || string(t) == `""` || string(t) == "{}"
}
