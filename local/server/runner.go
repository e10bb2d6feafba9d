package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/insightedge/insightedge/local/asl"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// runner executes a workflow definition in process: the local stand-in for
// Step Functions' StartExecution and StopExecution.
type runner struct {
	machine  *asl.Machine
	handlers map[string]asl.Handler
	timeout  time.Duration
	log      *slog.Logger
	// onFail closes a turn whose execution failed without doing so itself.
	onFail func(ctx context.Context, input json.RawMessage, errName, cause string)

	mu      sync.Mutex
	running map[string]context.CancelFunc
	// ends is closed when the execution of that name has ended.
	ends map[string]chan struct{}
	wg   sync.WaitGroup
	// transitions counts state transitions (for the cost model).
	transitions map[string]int
	// tokens serves .waitForTaskToken tasks (nil: the workflow has none).
	tokens *asl.Tokens
}

// lambdaInvokeToken is the service integration a task-token task uses.
const lambdaInvokeToken = "arn:aws:states:::lambda:invoke.waitForTaskToken"

// invokeByName serves "arn:aws:states:::lambda:invoke[.waitForTaskToken]":
// the input is {FunctionName, Payload} and the named function gets Payload.
func invokeByName(handlers map[string]asl.Handler) asl.Handler {
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		var req struct {
			FunctionName string
			Payload      json.RawMessage
		}
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, fmt.Errorf("local: lambda:invoke input: %w", err)
		}
		h := handlers[req.FunctionName]
		if h == nil {
			return nil, fmt.Errorf("local: lambda:invoke of unknown function %q", req.FunctionName)
		}
		return h(ctx, req.Payload)
	}
}

// newRunner parses the definition, resolving each ${Name} placeholder to a
// local resource served by tasks[Name].
func newRunner(def []byte, tasks map[string]wire.Task, timeout time.Duration, log *slog.Logger) (*runner, error) {
	subs := map[string]string{}
	handlers := map[string]asl.Handler{}
	for name, t := range tasks {
		arn := "arn:local:lambda:" + name
		subs[name] = arn
		handlers[arn] = asl.Handler(t)
	}
	handlers[lambdaInvokeToken] = invokeByName(handlers)
	m, err := asl.Parse(def, subs)
	if err != nil {
		return nil, fmt.Errorf("local: workflow definition: %w", err)
	}
	return &runner{machine: m, handlers: handlers, timeout: timeout, log: log,
		running: map[string]context.CancelFunc{}, ends: map[string]chan struct{}{}, transitions: map[string]int{}}, nil
}

// Start runs the execution name in the background.
func (r *runner) Start(ctx context.Context, name string, input workflow.ConversationState) error {
	return starter[workflow.ConversationState]{r}.Start(ctx, name, input)
}

// startRaw runs the execution name on raw input in the background: what
// Start does for the conversation, for any workflow's input.
func (r *runner) startRaw(name string, raw json.RawMessage) error {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	r.mu.Lock()
	if _, dup := r.running[name]; dup {
		r.mu.Unlock()
		cancel()
		return fmt.Errorf("local: execution %s already running", name)
	}
	r.running[name] = cancel
	r.ends[name] = make(chan struct{})
	r.mu.Unlock()
	r.wg.Go(func() {
		defer r.done(name)
		_, err := r.machine.Run(ctx, raw, asl.Options{Handlers: r.handlers, Logger: r.log, ExecutionID: name, Tokens: r.tokens,
			OnTransition: func(state, _ string) { r.count(state) }})
		if err == nil {
			return
		}
		var ee *asl.ExecutionError
		errName, cause := "States.Runtime", err.Error()
		if errors.As(err, &ee) {
			errName, cause = ee.Name, ee.Cause
		}
		r.log.Warn("execution failed", "execution", name, "error", errName, "cause", cause)
		if r.onFail != nil {
			r.onFail(context.Background(), raw, errName, cause)
		}
	})
	return nil
}

// starter starts a workflow's executions on the interpreter, its input
// of type In encoded as the execution's (launch.Starter, research's).
type starter[In any] struct{ r *runner }

func (s starter[In]) Start(_ context.Context, name string, in In) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("local: encode execution input: %w", err)
	}
	return s.r.startRaw(name, raw)
}

// Stop cancels a running execution; stopping one that ended is not an error.
func (r *runner) Stop(_ context.Context, name string) error {
	r.mu.Lock()
	cancel := r.running[name]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

func (r *runner) done(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cancel := r.running[name]; cancel != nil {
		cancel()
	}
	delete(r.running, name)
	if end := r.ends[name]; end != nil {
		close(end)
	}
	delete(r.ends, name)
}

// ended returns a channel closed when the execution name has ended (at
// once for one that is not running).
func (r *runner) ended(name string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if end := r.ends[name]; end != nil {
		return end
	}
	end := make(chan struct{})
	close(end)
	return end
}

func (r *runner) count(state string) {
	r.mu.Lock()
	r.transitions[state]++
	r.mu.Unlock()
}

// Transitions returns a copy of the state transition counts.
func (r *runner) Transitions() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.transitions))
	for k, v := range r.transitions {
		out[k] = v
	}
	return out
}

// Shutdown cancels every execution and waits for them, within ctx.
func (r *runner) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	for _, c := range r.running {
		c()
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
