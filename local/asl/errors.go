package asl

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-lambda-go/lambda/messages"
)

// Error names of Step Functions that the interpreter raises or matches. They
// are strings (what ErrorEquals lists and ExecutionError.Name holds), not
// error values.
const (
	StatesALL                    = "States.ALL"
	StatesTaskFailed             = "States.TaskFailed"
	StatesTimeout                = "States.Timeout"
	StatesRuntime                = "States.Runtime"
	StatesDataLimitExceeded      = "States.DataLimitExceeded"
	StatesNoChoiceMatched        = "States.NoChoiceMatched"
	StatesResultPathMatchFailure = "States.ResultPathMatchFailure"
)

// payloadLimit is Step Functions' quota on a state's input and output (256 KiB):
// exceeding it fails the execution with States.DataLimitExceeded, so the
// claim-check pattern is enforced locally too.
const payloadLimit = 256 * 1024

// ExecutionError is a failed execution: a Fail state, an error no Catch
// handled, or a terminal error (States.Runtime, States.DataLimitExceeded).
// Its JSON form is Step Functions' {"Error", "Cause"}.
type ExecutionError struct {
	// Name is the error name (Step Functions' "Error" field), e.g. "States.Runtime".
	Name  string `json:"Error"`
	Cause string `json:"Cause"`
	// State is the state that raised the error (inside a Map or Parallel,
	// the state of the iteration or branch); "" for an execution timeout.
	State string `json:"-"`
}

func (e *ExecutionError) Error() string {
	if e.State == "" {
		return fmt.Sprintf("asl: execution failed: %s: %s", e.Name, e.Cause)
	}
	return fmt.Sprintf("asl: execution failed in state %q: %s: %s", e.State, e.Name, e.Cause)
}

// stateError is an error raised while running a state: what Retry and Catch
// match. Terminal errors are matched by no retrier or catcher, not even
// States.ALL: Step Functions fails the execution on them.
type stateError struct {
	name     string
	cause    string
	state    string
	terminal bool
}

func (e *stateError) Error() string { return e.name + ": " + e.cause }

func runtimeError(format string, args ...any) *stateError {
	return &stateError{name: StatesRuntime, cause: fmt.Sprintf(format, args...), terminal: true}
}

// namedError is implemented by handler errors that choose their error name
// (what a Retry or Catch ErrorEquals matches).
type namedError interface{ ErrorName() string }

// errorName returns the name Step Functions would see for a handler error:
// the Type of an aws-lambda-go InvokeResponse_Error, its ErrorName() if an
// error in the chain has one, else the dynamic type name
// of err the way aws-lambda-go reports errorType (the element name for a
// pointer), so that local and AWS runs match the same retriers and catchers.
func errorName(err error) string {
	if ire, ok := err.(messages.InvokeResponse_Error); ok {
		return ire.Type // what aws-lambda-go reports for it, named by the handler
	}
	var n namedError
	if errors.As(err, &n) {
		return n.ErrorName()
	}
	return lambdaTypeName(err)
}

// errorCause is a handler error's message as aws-lambda-go reports it
// (errorMessage): an InvokeResponse_Error's Message, not its Go dump.
func errorCause(err error) string {
	if ire, ok := err.(messages.InvokeResponse_Error); ok {
		return ire.Message
	}
	return err.Error()
}

func lambdaTypeName(v any) string {
	t := reflect.TypeOf(v)
	if t == nil {
		return ""
	}
	if t.Kind() == reflect.Pointer {
		return t.Elem().Name()
	}
	return t.Name()
}

// panicError is a handler panic, reported the way aws-lambda-go reports one:
// named after the panic value's type.
type panicError struct {
	value any
}

func (e *panicError) Error() string     { return fmt.Sprint(e.value) }
func (e *panicError) ErrorName() string { return lambdaTypeName(e.value) }

// matches reports whether a retrier's or catcher's ErrorEquals matches e.
func matches(errorEquals []string, e *stateError) bool {
	if e.terminal {
		return false
	}
	for _, n := range errorEquals {
		switch n {
		case StatesALL:
			return true
		case StatesTaskFailed:
			// States.TaskFailed matches any error except States.Timeout.
			if e.name != StatesTimeout {
				return true
			}
		default:
			if n == e.name {
				return true
			}
		}
	}
	return false
}
