// Package asl is an in-process interpreter of the Amazon States Language: it
// runs the repository's state machine definitions (infra/statemachines) the
// way AWS Step Functions does, with Task resources bound to Go handlers, so
// that `go run ./local` executes the very same workflows as AWS.
//
// What is implemented, following the Step Functions documentation:
//
//   - States: Task, Choice, Map (inline; ItemsPath, ItemSelector or its legacy
//     Parameters, ItemProcessor or its legacy Iterator, MaxConcurrency(Path)),
//     Parallel, Pass, Wait, Succeed, Fail.
//   - Input and output processing in AWS's order: InputPath → Parameters
//     (ItemSelector) → task → ResultSelector → ResultPath → OutputPath.
//   - Retry (ErrorEquals, IntervalSeconds, MaxAttempts, BackoffRate,
//     MaxDelaySeconds, JitterStrategy) and Catch (ErrorEquals, ResultPath, Next),
//     on Task, Map and Parallel.
//   - Reference paths ($.a.b, $['a'], $.a[0], $$ for the context object),
//     payload templates (".$" fields) and every States.* intrinsic function.
//   - Task tokens: a Task whose Resource ends in ".waitForTaskToken" gets
//     $$.Task.Token, calls its handler and then waits for Tokens'
//     SendTaskSuccess / SendTaskFailure within its TimeoutSeconds
//     (States.Timeout otherwise).
//   - Errors: States.Runtime for paths that do not resolve and failed
//     intrinsics (not catchable, as in AWS), States.Timeout, States.TaskFailed,
//     States.NoChoiceMatched, States.ResultPathMatchFailure,
//     States.DataLimitExceeded (256 KiB payloads).
//
// Not implemented: JSONata, variables (Assign) and distributed-map readers
// and writers (the definition is rejected with a message naming the field);
// HeartbeatSeconds of task-token tasks. A DISTRIBUTED Map runs inline, and an inline
// Map runs at most 40 iterations at once, as in AWS.
//
// Differences from AWS: a Lambda error's Cause is the error message itself
// (AWS wraps it in a JSON document with errorMessage and errorType); a
// ${Name} placeholder without a substitution is an error rather than left in
// place; TimeoutSeconds cancels the handler's context and then waits for the
// handler to return (a Lambda would keep running, unobserved).
//
// Every loop is bounded: an execution fails after Options.MaxTransitions
// state transitions (AWS's 25,000 history events), retries by MaxAttempts,
// Map and Parallel wait for all their goroutines before they return, and the
// context's cancellation is honoured between states, in retry waits and by
// handlers (which receive it).
package asl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"
)

// Handler runs a Task's resource: it receives the task's input (after InputPath
// and Parameters) and returns its result, as a Lambda function does. A handler
// must honour ctx: TimeoutSeconds and cancellation reach it through ctx, and
// the interpreter waits for it to return.
//
// A returned error's name (what Retry and Catch match) is its ErrorName() if
// an error in its chain has that method, else its dynamic type name as
// aws-lambda-go reports it ("errorString" for errors.New); the product's
// handlers are adapted by wire.Typed.
type Handler func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)

// DefaultMaxTransitions bounds an execution's state transitions, like AWS's
// limit of 25,000 events in an execution's history.
const DefaultMaxTransitions = 25000

// Options configures one execution.
type Options struct {
	// Handlers maps each Task Resource, as it reads after substitution (e.g.
	// "arn:local:router"), to its handler. Run fails before starting when a
	// Task's resource has no handler.
	Handlers map[string]Handler
	// Sleep waits between retries and in Wait states. The default is a timer
	// that returns ctx.Err() when ctx is done first. Tests pass a fake that
	// records the durations.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives the execution's logs (start, end, retries, caught
	// errors at Info/Warn; transitions at Debug). Default: discard.
	Logger *slog.Logger
	// ExecutionID is $$.Execution.Id; default "arn:local:execution:<machine>:<uuid>".
	ExecutionID string
	// StateMachineID is $$.StateMachine.Id; default "arn:local:stateMachine:local".
	StateMachineID string
	// OnTransition, if set, is called as each state is entered, with the
	// state's name and type. Map and Parallel call it from their goroutines,
	// so it must be safe for concurrent use.
	OnTransition func(state, typ string)
	// MaxTransitions overrides DefaultMaxTransitions when positive.
	MaxTransitions int
	// Tokens serves the task tokens of ".waitForTaskToken" tasks; an
	// execution that reaches such a task without Tokens fails.
	Tokens *Tokens
}

// Machine is a parsed state machine. It is immutable and may run any number
// of executions concurrently.
type Machine struct {
	root      *machineDef
	resources []string
}

// Parse parses a definition, first substituting its ${Name} placeholders from
// subs as SAM's DefinitionSubstitutions do. It checks the definition the way
// Step Functions does when a state machine is created: fields and their types,
// transitions to existing and reachable states, paths, templates, intrinsic
// calls, choice rules, retriers and catchers.
func Parse(def []byte, subs map[string]string) (*Machine, error) {
	def, err := substitute(def, subs)
	if err != nil {
		return nil, err
	}
	v, err := decodeJSON(def)
	if err != nil {
		return nil, fmt.Errorf("asl: the definition is not valid JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("asl: the definition must be a JSON object")
	}
	root, err := parseMachine(m, "the definition", "asl")
	if err != nil {
		return nil, err
	}
	res := map[string]bool{}
	root.resources(res)
	return &Machine{root: root, resources: slices.Sorted(maps.Keys(res))}, nil
}

// Resources returns the Resource of every Task in the machine (nested ones
// included), sorted: the handlers Run needs.
func (m *Machine) Resources() []string { return append([]string(nil), m.resources...) }

// Run executes the machine on input (an empty input is {}) and returns the
// execution's output. A failed execution returns an *ExecutionError; a
// cancelled one returns an error wrapping ctx.Err(). Invalid input and a
// missing handler are reported before anything runs.
func (m *Machine) Run(ctx context.Context, input json.RawMessage, o Options) (json.RawMessage, error) {
	for _, r := range m.resources {
		if o.Handlers[r] == nil {
			return nil, fmt.Errorf("asl: no handler for Task resource %q (Options.Handlers has %d)", r, len(o.Handlers))
		}
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	in, err := decodeJSON(input)
	if err != nil {
		return nil, fmt.Errorf("asl: the execution input is not valid JSON: %w", err)
	}
	x := newExecution(m, in, o)
	logger := x.log.With("executionId", x.id)
	logger.Info("asl: execution started")

	runCtx := ctx
	if m.root.timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, m.root.timeout)
		defer cancel()
	}
	out, err := x.runMachine(runCtx, m.root, in)
	if err == nil {
		var b []byte
		if b, err = encodeJSON(out); err == nil && len(b) > payloadLimit {
			err = &stateError{name: StatesDataLimitExceeded, cause: fmt.Sprintf("the execution output is %d bytes, more than the %d-byte limit", len(b), payloadLimit), terminal: true}
		}
		if err == nil {
			logger.Info("asl: execution succeeded", "transitions", x.transitions.Load())
			return b, nil
		}
	}
	var se *stateError
	switch {
	case ctx.Err() != nil:
		logger.Info("asl: execution cancelled", "err", ctx.Err())
		return nil, fmt.Errorf("asl: execution %s cancelled: %w", x.id, ctx.Err())
	case runCtx.Err() != nil:
		se = &stateError{name: StatesTimeout, cause: fmt.Sprintf("the execution timed out after %s (TimeoutSeconds)", m.root.timeout)}
	case !errors.As(err, &se):
		// Only the context produces errors that are not state errors.
		return nil, fmt.Errorf("asl: execution %s: %w", x.id, err)
	}
	logger.Warn("asl: execution failed", "state", se.state, "error", se.name, "cause", se.cause)
	return nil, &ExecutionError{Name: se.name, Cause: se.cause, State: se.state}
}
