package asl

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/insightedge/insightedge/shared/errtest"
)

// mustParse parses a definition written as JSON text.
func mustParse(t testing.TB, def string) *Machine {
	t.Helper()
	m, err := Parse([]byte(def), nil)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, def)
	}
	return m
}

// machineOf builds a definition from Go values (so that test expressions need
// no JSON escaping) and parses it.
func machineOf(t testing.TB, startAt string, states map[string]any) *Machine {
	t.Helper()
	def, err := json.Marshal(map[string]any{"StartAt": startAt, "States": states})
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, string(def))
}

// obj decodes a JSON object literal into a map for machineOf.
func obj(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("obj %s: %v", s, err)
	}
	return m
}

// assertJSON fails unless got and want are the same JSON value.
func assertJSON(t testing.TB, what string, got []byte, want string) {
	t.Helper()
	g, err := decodeJSON(got)
	if err != nil {
		t.Fatalf("%s: invalid JSON %q: %v", what, got, err)
	}
	w, err := decodeJSON([]byte(want))
	if err != nil {
		t.Fatalf("%s: invalid expected JSON %q: %v", what, want, err)
	}
	if !equalJSON(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// execErr returns err as an *ExecutionError or fails the test.
func execErr(t testing.TB, err error) *ExecutionError {
	t.Helper()
	var ee *ExecutionError
	if !errors.As(err, &ee) {
		t.Fatalf("want an *ExecutionError, got %v", err)
	}
	return ee
}

// wantExecErr checks a table case's error as errtest.Expect does, and with
// name set, that err is the *ExecutionError of that name.
func wantExecErr(t testing.TB, err error, name string) bool {
	t.Helper()
	if !errtest.Expect(t, err, name) {
		return false
	}
	if ee := execErr(t, err); ee.Name != name {
		t.Errorf("got %v, want %s", ee, name)
	}
	return true
}

// recorder records handler inputs per resource and the states entered.
type recorder struct {
	mu     sync.Mutex
	inputs map[string][]string
	states []string
}

func newRecorder() *recorder { return &recorder{inputs: map[string][]string{}} }

func (r *recorder) record(resource string, in json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inputs[resource] = append(r.inputs[resource], string(in))
}

func (r *recorder) onTransition(state, typ string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, state)
}

func (r *recorder) visited() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.states...)
}

func (r *recorder) got(resource string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.inputs[resource]...)
}

// returning is a handler that records its input and returns out.
func (r *recorder) returning(resource, out string) Handler {
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		r.record(resource, in)
		return json.RawMessage(out), nil
	}
}

// namedErr is a handler error that names itself.
type namedErr struct{ name, msg string }

func (e *namedErr) Error() string     { return e.msg }
func (e *namedErr) ErrorName() string { return e.name }

// script is a handler that fails with errs in turn, then returns out.
type script struct {
	mu    sync.Mutex
	errs  []error
	out   string
	calls int
}

func (s *script) handle(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		return nil, err
	}
	return json.RawMessage(s.out), nil
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// typed adapts a typed step to a Handler (the tests' stand-in for wire.Typed), decoding the input and encoding the
// output with encoding/json as aws-lambda-go does (unknown fields are ignored;
// a decoding error is returned as is, so it is named e.g. "UnmarshalTypeError"
// like in Lambda).
func typed[In, Out any](step func(context.Context, In) (Out, error)) Handler {
	return func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		var in In
		if err := json.Unmarshal(input, &in); err != nil {
			return nil, err
		}
		out, err := step(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	}
}
