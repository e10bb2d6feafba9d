// Package sfnstart starts workflows in AWS with Step Functions'
// StartExecution: a conversation turn's (the edge's Starter, named after the
// turn id) and a page build's (launch.Starter, named after the build id).
// One generic Starter serves both: the input type is the only difference.
//
// Express state machines (the conversation workflow is one) have no
// StopExecution: AWS rejects it for them. For an Express machine Stop does
// nothing, and the stop still takes effect: the edge has closed the turn's
// event stream before it calls Stop, so the workflow's next append fails
// with eventlog.ErrClosed, its Catch goes to Finish, and Finish leaves the
// turn as the stop ended it. A Standard machine's execution is stopped with
// StopExecution on the ARN that the execution name determines.
package sfnstart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// API is the part of the Step Functions client the Starter uses
// (*sfn.Client implements it).
type API interface {
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	StopExecution(ctx context.Context, in *sfn.StopExecutionInput, opts ...func(*sfn.Options)) (*sfn.StopExecutionOutput, error)
}

// Options configure a Starter.
type Options struct {
	// Express is true for an Express state machine (see the package comment).
	Express bool
	// TraceHeader, if set, returns the X-Ray trace header of ctx for
	// StartExecution, so that the execution joins the request's trace.
	TraceHeader func(ctx context.Context) string
}

// Starter starts and stops executions of one state machine whose
// execution input is In (workflow.ConversationState, workflow.BuildState).
type Starter[In any] struct {
	api     API
	machine string
	o       Options
}

// MaxInput is Step Functions' limit on an execution's input.
const MaxInput = 256 * 1024

// machineARN matches arn:<partition>:states:<region>:<account>:stateMachine:<name>
// (compiled on first use, as executionName: not at a process's start).
var machineARN = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^arn:aws[a-zA-Z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}$`)
})

// executionName is what Step Functions accepts as a name that the console
// and CloudWatch also show well.
var executionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`) })

// New returns a Starter of the state machine stateMachineARN.
func New[In any](api API, stateMachineARN string, o Options) (*Starter[In], error) {
	if !machineARN().MatchString(stateMachineARN) {
		return nil, fmt.Errorf("sfnstart: %q is not a state machine ARN", stateMachineARN)
	}
	return &Starter[In]{api: api, machine: stateMachineARN, o: o}, nil
}

// Start starts the execution name with input. Starting a name again is an
// error (Step Functions' ExecutionAlreadyExists for a different input).
func (s *Starter[In]) Start(ctx context.Context, name string, input In) error {
	if !executionName().MatchString(name) {
		return fmt.Errorf("sfnstart: execution name %q: want 1 to 80 letters, digits, - or _", name)
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return fmt.Errorf("sfnstart: encode the input of %s: %w", name, err)
	}
	if len(raw) > MaxInput {
		return fmt.Errorf("sfnstart: the input of %s is %d bytes, more than Step Functions' %d", name, len(raw), MaxInput)
	}
	in := &sfn.StartExecutionInput{StateMachineArn: aws.String(s.machine), Name: aws.String(name), Input: aws.String(string(raw))}
	if s.o.TraceHeader != nil {
		if h := s.o.TraceHeader(ctx); h != "" {
			in.TraceHeader = aws.String(h)
		}
	}
	if _, err := s.api.StartExecution(ctx, in); err != nil {
		return fmt.Errorf("sfnstart: start %s: %w", name, err)
	}
	return nil
}

// Stop stops the execution name of a Standard machine; for an Express one it
// does nothing (see the package comment). Stopping an execution that does
// not exist (it never started, or has been deleted) is not an error.
func (s *Starter[In]) Stop(ctx context.Context, name string) error {
	if s.o.Express {
		return nil
	}
	if !executionName().MatchString(name) {
		return fmt.Errorf("sfnstart: execution name %q: want 1 to 80 letters, digits, - or _", name)
	}
	_, err := s.api.StopExecution(ctx, &sfn.StopExecutionInput{
		ExecutionArn: aws.String(s.ExecutionARN(name)),
		Error:        aws.String("Stopped"),
		Cause:        aws.String("the user stopped the turn"),
	})
	var missing *types.ExecutionDoesNotExist
	if errors.As(err, &missing) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sfnstart: stop %s: %w", name, err)
	}
	return nil
}

// ExecutionARN is the ARN of the Standard execution name of the machine.
func (s *Starter[In]) ExecutionARN(name string) string {
	return strings.Replace(s.machine, ":stateMachine:", ":execution:", 1) + ":" + name
}
