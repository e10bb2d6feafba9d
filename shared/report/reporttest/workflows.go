package reporttest

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
)

// Workflows stands in for Step Functions at the control service's edge
// (control.Starter and control.TaskTokens): it records the executions
// started and stopped and the task tokens answered. The zero value is ready;
// set StartErr or AnswerErr before use to make those calls fail. It is safe
// for concurrent use.
type Workflows struct {
	StartErr, AnswerErr error

	mu       sync.Mutex
	started  map[string]json.RawMessage
	stopped  []string
	answered map[string]json.RawMessage
}

// Start records an execution and its input.
func (w *Workflows) Start(_ context.Context, name string, input json.RawMessage) error {
	return w.record(w.StartErr, func() { w.started = put(w.started, name, input) })
}

// Stop records a stopped execution.
func (w *Workflows) Stop(_ context.Context, name string) error {
	return w.record(nil, func() { w.stopped = append(w.stopped, name) })
}

// SendTaskSuccess records the answer to a waiting task token.
func (w *Workflows) SendTaskSuccess(_ context.Context, token string, output json.RawMessage) error {
	return w.record(w.AnswerErr, func() { w.answered = put(w.answered, token, output) })
}

func (w *Workflows) record(fail error, add func()) error {
	if fail != nil {
		return fail
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	add()
	return nil
}

func put(m map[string]json.RawMessage, k string, v json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m[k] = slices.Clone(v)
	return m
}

// Started returns the inputs of the started executions by name.
func (w *Workflows) Started() map[string]json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.started)
}

// Stopped returns the stopped executions in order.
func (w *Workflows) Stopped() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.stopped)
}

// Answered returns the outputs sent to task tokens by token.
func (w *Workflows) Answered() map[string]json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.answered)
}
