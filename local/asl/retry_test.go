package asl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/clock/clocktest"
)

func errE(name string) error { return &namedErr{name: name, msg: name + " happened"} }

func TestRetry(t *testing.T) {
	s := time.Second
	tests := []struct {
		name      string
		retry     string
		errs      []error
		wantSleep []time.Duration
		wantCalls int
		wantErr   string // "" when the execution succeeds
	}{
		{
			name:      "defaults: 3 attempts, 1s interval, backoff 2",
			retry:     `[{"ErrorEquals":["E"]}]`,
			errs:      []error{errE("E"), errE("E"), errE("E")},
			wantSleep: []time.Duration{1 * s, 2 * s, 4 * s},
			wantCalls: 4,
		},
		{
			name:      "exhausted retrier fails with the error",
			retry:     `[{"ErrorEquals":["E"]}]`,
			errs:      []error{errE("E"), errE("E"), errE("E"), errE("E")},
			wantSleep: []time.Duration{1 * s, 2 * s, 4 * s},
			wantCalls: 4,
			wantErr:   "E",
		},
		{
			name:      "IntervalSeconds, BackoffRate, MaxAttempts",
			retry:     `[{"ErrorEquals":["E"],"IntervalSeconds":2,"BackoffRate":3,"MaxAttempts":2}]`,
			errs:      []error{errE("E"), errE("E"), errE("E")},
			wantSleep: []time.Duration{2 * s, 6 * s},
			wantCalls: 3,
			wantErr:   "E",
		},
		{
			name:      "fractional BackoffRate",
			retry:     `[{"ErrorEquals":["E"],"IntervalSeconds":2,"BackoffRate":1.5}]`,
			errs:      []error{errE("E"), errE("E"), errE("E")},
			wantSleep: []time.Duration{2 * s, 3 * s, 4500 * time.Millisecond},
			wantCalls: 4,
		},
		{
			name:      "MaxDelaySeconds caps the backoff",
			retry:     `[{"ErrorEquals":["E"],"IntervalSeconds":2,"BackoffRate":3,"MaxAttempts":4,"MaxDelaySeconds":5,"JitterStrategy":"NONE"}]`,
			errs:      []error{errE("E"), errE("E"), errE("E"), errE("E")},
			wantSleep: []time.Duration{2 * s, 5 * s, 5 * s, 5 * s},
			wantCalls: 5,
		},
		{
			name:      "MaxAttempts 0 never retries",
			retry:     `[{"ErrorEquals":["E"],"MaxAttempts":0}]`,
			errs:      []error{errE("E")},
			wantCalls: 1,
			wantErr:   "E",
		},
		{
			name:      "no retrier matches",
			retry:     `[{"ErrorEquals":["Other"]}]`,
			errs:      []error{errE("E")},
			wantCalls: 1,
			wantErr:   "E",
		},
		{
			name:      "the first matching retrier decides, even when exhausted",
			retry:     `[{"ErrorEquals":["E1"],"MaxAttempts":1},{"ErrorEquals":["States.ALL"],"IntervalSeconds":10}]`,
			errs:      []error{errE("E1"), errE("E1")},
			wantSleep: []time.Duration{1 * s},
			wantCalls: 2,
			wantErr:   "E1",
		},
		{
			name:      "each retrier counts its own attempts",
			retry:     `[{"ErrorEquals":["E1"],"MaxAttempts":1},{"ErrorEquals":["States.ALL"],"IntervalSeconds":10}]`,
			errs:      []error{errE("E2"), errE("E1"), errE("E2")},
			wantSleep: []time.Duration{10 * s, 1 * s, 20 * s},
			wantCalls: 4,
		},
		{
			name:      "States.TaskFailed matches handler errors",
			retry:     `[{"ErrorEquals":["States.TaskFailed"],"MaxAttempts":1}]`,
			errs:      []error{errors.New("plain")},
			wantSleep: []time.Duration{1 * s},
			wantCalls: 2,
		},
		{
			name:      "one of several names in ErrorEquals",
			retry:     `[{"ErrorEquals":["A","Lambda.ServiceException","B"],"MaxAttempts":1}]`,
			errs:      []error{errE("Lambda.ServiceException")},
			wantSleep: []time.Duration{1 * s},
			wantCalls: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true,"Retry":`+tt.retry+`}}}`)
			h := &script{errs: tt.errs, out: `"done"`}
			sl := &clocktest.Sleeps{}
			out, err := m.Run(context.Background(), nil, Options{Handlers: map[string]Handler{"fn": h.handle}, Sleep: sl.Sleep})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				assertJSON(t, "output", out, `"done"`)
			} else if ee := execErr(t, err); ee.Name != tt.wantErr || ee.Cause != tt.wantErr+" happened" {
				t.Errorf("error %s: %s, want %s", ee.Name, ee.Cause, tt.wantErr)
			}
			if got := sl.Got(); !slices.Equal(got, tt.wantSleep) {
				t.Errorf("sleeps %v, want %v", got, tt.wantSleep)
			}
			if h.calls != tt.wantCalls {
				t.Errorf("handler called %d times, want %d", h.calls, tt.wantCalls)
			}
		})
	}
}

func TestRetryFullJitter(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true,
		"Retry":[{"ErrorEquals":["E"],"IntervalSeconds":4,"MaxAttempts":3,"JitterStrategy":"FULL"}]}}}`)
	for range 20 {
		h := &script{errs: []error{errE("E"), errE("E"), errE("E")}, out: `1`}
		sl := &clocktest.Sleeps{}
		if _, err := m.Run(context.Background(), nil, Options{Handlers: map[string]Handler{"fn": h.handle}, Sleep: sl.Sleep}); err != nil {
			t.Fatal(err)
		}
		got := sl.Got()
		if len(got) != 3 {
			t.Fatalf("sleeps %v, want 3", got)
		}
		for i, d := range got {
			if ceiling := 4 * time.Second << i; d < 0 || d > ceiling {
				t.Errorf("retry %d waited %v, want within [0, %v]", i, d, ceiling)
			}
		}
	}
}

func TestRetryCountInContext(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true,
		"Parameters":{"n.$":"$$.State.RetryCount"},"Retry":[{"ErrorEquals":["States.ALL"]}]}}}`)
	rec := newRecorder()
	calls := 0
	h := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		rec.record("fn", in)
		if calls++; calls < 3 {
			return nil, errE("E")
		}
		return json.RawMessage(`{}`), nil
	}
	if _, err := m.Run(context.Background(), nil, Options{Handlers: map[string]Handler{"fn": h}, Sleep: (&clocktest.Sleeps{}).Sleep}); err != nil {
		t.Fatal(err)
	}
	if got := rec.got("fn"); !slices.Equal(got, []string{`{"n":0}`, `{"n":1}`, `{"n":2}`}) {
		t.Errorf("inputs %v", got)
	}
}

func TestCatch(t *testing.T) {
	tests := []struct {
		name      string
		catch     string
		err       error
		wantState string // the state the catcher went to; "" for an uncaught error
		want      string
	}{
		{
			name:      "ResultPath defaults to $",
			catch:     `[{"ErrorEquals":["E"],"Next":"A"}]`,
			err:       errE("E"),
			wantState: "A",
			want:      `{"Error":"E","Cause":"E happened"}`,
		},
		{
			name:      "ResultPath adds the error to the input",
			catch:     `[{"ErrorEquals":["E"],"ResultPath":"$.error","Next":"A"}]`,
			err:       errE("E"),
			wantState: "A",
			want:      `{"in":1,"error":{"Error":"E","Cause":"E happened"}}`,
		},
		{
			name:      "ResultPath null keeps the input",
			catch:     `[{"ErrorEquals":["E"],"ResultPath":null,"Next":"A"}]`,
			err:       errE("E"),
			wantState: "A",
			want:      `{"in":1}`,
		},
		{
			name:      "catchers are tried in order",
			catch:     `[{"ErrorEquals":["Other"],"Next":"A"},{"ErrorEquals":["E"],"Next":"B"},{"ErrorEquals":["States.ALL"],"Next":"A"}]`,
			err:       errE("E"),
			wantState: "B",
			want:      `{"Error":"E","Cause":"E happened"}`,
		},
		{
			name:      "States.ALL catches anything a handler raises",
			catch:     `[{"ErrorEquals":["Other"],"Next":"A"},{"ErrorEquals":["States.ALL"],"Next":"B"}]`,
			err:       fmt.Errorf("wrapped: %w", errors.New("inner")),
			wantState: "B",
			want:      `{"Error":"wrapError","Cause":"wrapped: inner"}`,
		},
		{
			name:  "an error no catcher matches fails the execution",
			catch: `[{"ErrorEquals":["Other"],"Next":"A"}]`,
			err:   errE("E"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, `{"StartAt":"T","States":{
				"T":{"Type":"Task","Resource":"fn","Next":"Ok","Catch":`+tt.catch+`},
				"Ok":{"Type":"Choice","Choices":[{"Variable":"$.x","IsPresent":true,"Next":"A"}],"Default":"B"},
				"A":{"Type":"Pass","End":true},"B":{"Type":"Pass","End":true}}}`)
			rec := newRecorder()
			h := &script{errs: []error{tt.err}}
			out, err := m.Run(context.Background(), json.RawMessage(`{"in":1}`), Options{Handlers: map[string]Handler{"fn": h.handle}, OnTransition: rec.onTransition})
			if tt.wantState == "" {
				if ee := execErr(t, err); ee.Name != "E" || ee.Cause != "E happened" || ee.State != "T" {
					t.Errorf("got %+v", ee)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if v := rec.visited(); !slices.Equal(v, []string{"T", tt.wantState}) {
				t.Errorf("visited %v, want [T %s]", v, tt.wantState)
			}
			assertJSON(t, "output", out, tt.want)
		})
	}
}

func TestRetryThenCatch(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","States":{
		"T":{"Type":"Task","Resource":"fn","End":true,
			"Retry":[{"ErrorEquals":["E"],"MaxAttempts":2}],
			"Catch":[{"ErrorEquals":["E"],"ResultPath":"$.err","Next":"C"}]},
		"C":{"Type":"Pass","End":true}}}`)
	h := &script{errs: []error{errE("E"), errE("E"), errE("E"), errE("E")}}
	sl := &clocktest.Sleeps{}
	out, err := m.Run(context.Background(), json.RawMessage(`{}`), Options{Handlers: map[string]Handler{"fn": h.handle}, Sleep: sl.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	if h.calls != 3 || len(sl.Got()) != 2 {
		t.Errorf("calls %d, sleeps %v; want 3 calls and 2 sleeps", h.calls, sl.Got())
	}
	assertJSON(t, "output", out, `{"err":{"Error":"E","Cause":"E happened"}}`)
}

type plainErr struct{}

func (*plainErr) Error() string { return "plain pointer" }

type valueErr struct{}

func (valueErr) Error() string { return "plain value" }

// TestErrorNames pins how handler errors are named: ErrorName() anywhere in
// the chain, else the type name aws-lambda-go would report.
func TestErrorNames(t *testing.T) {
	tests := []struct {
		name      string
		handler   Handler
		wantName  string
		wantCause string
	}{
		{"ErrorName method", failWith(&namedErr{"Custom.Name", "custom"}), "Custom.Name", "custom"},
		{"ErrorName in the chain", failWith(fmt.Errorf("ctx: %w", &namedErr{"Custom.Name", "custom"})), "Custom.Name", "ctx: custom"},
		{"errors.New", failWith(errors.New("x")), "errorString", "x"},
		{"fmt.Errorf with %w", failWith(fmt.Errorf("a: %w", errors.New("b"))), "wrapError", "a: b"},
		{"pointer type", failWith(&plainErr{}), "plainErr", "plain pointer"},
		{"value type", failWith(valueErr{}), "valueErr", "plain value"},
		{"panic with a string", func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("boom") }, "string", "boom"},
		{"panic with an error", func(context.Context, json.RawMessage) (json.RawMessage, error) { panic(&plainErr{}) }, "plainErr", "plain pointer"},
		{"Typed decoding error", typed(func(_ context.Context, in struct{ N int }) (int, error) { return in.N, nil }), "UnmarshalTypeError", "json: cannot unmarshal string into Go struct field .N of type int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true,
				"Catch":[{"ErrorEquals":["States.ALL"],"Next":"C"}]},"C":{"Type":"Pass","End":true}}}`)
			out, err := m.Run(context.Background(), json.RawMessage(`{"N":"not a number"}`), Options{Handlers: map[string]Handler{"fn": tt.handler}})
			if err != nil {
				t.Fatal(err)
			}
			var got errorOutput
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if got.Error != tt.wantName || got.Cause != tt.wantCause {
				t.Errorf("got %q / %q, want %q / %q", got.Error, got.Cause, tt.wantName, tt.wantCause)
			}
		})
	}
}

func failWith(err error) Handler {
	return func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, err }
}

func TestTyped(t *testing.T) {
	type in struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	type out struct {
		Sum string `json:"sum"`
	}
	h := typed(func(_ context.Context, v in) (out, error) { return out{Sum: fmt.Sprint(v.A, v.B)}, nil })
	got, err := h(context.Background(), json.RawMessage(`{"a":1,"b":"x","ignored":true}`))
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, "output", got, `{"sum":"1x"}`)
}
