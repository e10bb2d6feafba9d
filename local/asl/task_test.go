package asl

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestTaskInputOutput pins AWS's processing order InputPath → Parameters →
// task → ResultSelector → ResultPath → OutputPath.
func TestTaskInputOutput(t *testing.T) {
	tests := []struct {
		name      string
		fields    string // extra fields of the Task state
		input     string
		result    string // what the handler returns
		wantInput string // what the handler receives
		want      string // the execution output
	}{
		{
			name:      "defaults pass the input and replace it with the result",
			input:     `{"a":1}`,
			result:    `{"b":2}`,
			wantInput: `{"a":1}`,
			want:      `{"b":2}`,
		},
		{
			name:      "InputPath selects",
			fields:    `"InputPath":"$.a"`,
			input:     `{"a":{"x":1},"b":2}`,
			result:    `"r"`,
			wantInput: `{"x":1}`,
			want:      `"r"`,
		},
		{
			name:      "InputPath null sends {}",
			fields:    `"InputPath":null`,
			input:     `{"a":1}`,
			result:    `1`,
			wantInput: `{}`,
			want:      `1`,
		},
		{
			name: "Parameters: literals, paths, nested objects and arrays, context, intrinsics",
			fields: `"Parameters":{
				"lit":"x","n":1.50,"big":12345678901234567890,
				"v.$":"$.a",
				"deep":{"w.$":"$.b[1]","list":[{"q.$":"$['odd key']"},2,"three"]},
				"state.$":"$$.State.Name","exec.$":"$$.Execution.Id","retries.$":"$$.State.RetryCount",
				"sm.$":"$$.StateMachine.Id","input.$":"$$.Execution.Input.a",
				"msg.$":"States.Format('{} and {}', $.a, $.b[0])"}`,
			input:     `{"a":"A","b":[10,20],"odd key":true}`,
			result:    `{}`,
			wantInput: `{"lit":"x","n":1.50,"big":12345678901234567890,"v":"A","deep":{"w":20,"list":[{"q":true},2,"three"]},"state":"T","exec":"arn:test:execution:sm:run-1","retries":0,"sm":"arn:test:stateMachine:sm","input":"A","msg":"A and 10"}`,
			want:      `{}`,
		},
		{
			name:      "ResultSelector reshapes the result",
			fields:    `"ResultSelector":{"v.$":"$.b","lit":1,"all.$":"$"}`,
			input:     `{"a":1}`,
			result:    `{"b":2}`,
			wantInput: `{"a":1}`,
			want:      `{"v":2,"lit":1,"all":{"b":2}}`,
		},
		{
			name:      "ResultPath adds the result to the input",
			fields:    `"ResultPath":"$.res"`,
			input:     `{"a":1}`,
			result:    `{"b":2}`,
			wantInput: `{"a":1}`,
			want:      `{"a":1,"res":{"b":2}}`,
		},
		{
			name:      "ResultPath creates intermediate objects and replaces existing fields",
			fields:    `"ResultPath":"$.x.y.z"`,
			input:     `{"a":1,"x":{"keep":true,"y":{"z":"old"}}}`,
			result:    `[1,2]`,
			wantInput: `{"a":1,"x":{"keep":true,"y":{"z":"old"}}}`,
			want:      `{"a":1,"x":{"keep":true,"y":{"z":[1,2]}}}`,
		},
		{
			name:      "ResultPath into an array element",
			fields:    `"ResultPath":"$.list[1]"`,
			input:     `{"list":[1,2,3]}`,
			result:    `"two"`,
			wantInput: `{"list":[1,2,3]}`,
			want:      `{"list":[1,"two",3]}`,
		},
		{
			name:      "ResultPath null discards the result",
			fields:    `"ResultPath":null`,
			input:     `{"a":1}`,
			result:    `{"b":2}`,
			wantInput: `{"a":1}`,
			want:      `{"a":1}`,
		},
		{
			name:      "ResultPath applies to the raw input, not the InputPath selection",
			fields:    `"InputPath":"$.a","ResultPath":"$.r"`,
			input:     `{"a":{"x":1},"b":2}`,
			result:    `3`,
			wantInput: `{"x":1}`,
			want:      `{"a":{"x":1},"b":2,"r":3}`,
		},
		{
			name:      "OutputPath selects from ResultPath's output",
			fields:    `"ResultPath":"$.res","OutputPath":"$.res.b"`,
			input:     `{"a":1}`,
			result:    `{"b":2}`,
			wantInput: `{"a":1}`,
			want:      `2`,
		},
		{
			name:      "OutputPath null outputs {}",
			fields:    `"OutputPath":null`,
			input:     `{"a":1}`,
			result:    `{"b":2}`,
			wantInput: `{"a":1}`,
			want:      `{}`,
		},
		{
			name:      "the whole chain",
			fields:    `"InputPath":"$.in","Parameters":{"v.$":"$.v","k":"lit"},"ResultSelector":{"r.$":"$.out"},"ResultPath":"$.in.done","OutputPath":"$.in"`,
			input:     `{"in":{"v":7},"other":true}`,
			result:    `{"out":"ok","noise":1}`,
			wantInput: `{"v":7,"k":"lit"}`,
			want:      `{"v":7,"done":{"r":"ok"}}`,
		},
		{
			name:      "a null result",
			fields:    `"ResultPath":"$.r"`,
			input:     `{}`,
			result:    ``,
			wantInput: `{}`,
			want:      `{"r":null}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields := `"Type":"Task","Resource":"arn:test:fn","End":true`
			if tt.fields != "" {
				fields += "," + tt.fields
			}
			m := mustParse(t, `{"StartAt":"T","States":{"T":{`+fields+`}}}`)
			rec := newRecorder()
			out, err := m.Run(context.Background(), json.RawMessage(tt.input), Options{
				Handlers:       map[string]Handler{"arn:test:fn": rec.returning("fn", tt.result)},
				ExecutionID:    "arn:test:execution:sm:run-1",
				StateMachineID: "arn:test:stateMachine:sm",
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			got := rec.got("fn")
			if len(got) != 1 {
				t.Fatalf("handler called %d times, want 1", len(got))
			}
			assertJSON(t, "handler input", []byte(got[0]), tt.wantInput)
			assertJSON(t, "output", out, tt.want)
		})
	}
}

// TestRuntimeErrors pins that paths which do not resolve are States.Runtime
// errors that fail the execution even under a States.ALL catcher.
func TestRuntimeErrors(t *testing.T) {
	tests := []struct {
		name   string
		fields string
		input  string
		cause  string
	}{
		{"Parameters path missing", `"Parameters":{"x.$":"$.missing"}`, `{"a":1}`, `$.missing`},
		{"Parameters context path missing", `"Parameters":{"x.$":"$$.Map.Item.Value"}`, `{}`, `$$.Map.Item.Value`},
		{"intrinsic argument missing", `"Parameters":{"x.$":"States.MathAdd($.n, 1)"}`, `{}`, `$.n`},
		{"intrinsic type error", `"Parameters":{"x.$":"States.MathAdd($.n, 1)"}`, `{"n":"one"}`, `must be a number`},
		{"InputPath missing", `"InputPath":"$.missing"`, `{"a":1}`, `InputPath $.missing`},
		{"OutputPath missing", `"OutputPath":"$.missing"`, `{"a":1}`, `OutputPath $.missing`},
		{"ResultSelector path missing", `"ResultSelector":{"x.$":"$.nope"}`, `{}`, `$.nope`},
		{"invalid handler JSON", ``, `{}`, `invalid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields := `"Type":"Task","Resource":"fn","Next":"Done","Catch":[{"ErrorEquals":["States.ALL"],"Next":"Caught"}]`
			if tt.fields != "" {
				fields += "," + tt.fields
			}
			m := mustParse(t, `{"StartAt":"T","States":{"T":{`+fields+`},"Done":{"Type":"Succeed"},"Caught":{"Type":"Succeed"}}}`)
			result := `{"ok":true}`
			if tt.name == "invalid handler JSON" {
				result = `{not json`
			}
			rec := newRecorder()
			_, err := m.Run(context.Background(), json.RawMessage(tt.input), Options{
				Handlers:     map[string]Handler{"fn": rec.returning("fn", result)},
				OnTransition: rec.onTransition,
			})
			ee := execErr(t, err)
			if ee.Name != StatesRuntime || ee.State != "T" || !contains(ee.Cause, tt.cause) {
				t.Errorf("got %s in %q: %s; want States.Runtime in T mentioning %q", ee.Name, ee.State, ee.Cause, tt.cause)
			}
			if v := rec.visited(); len(v) != 1 {
				t.Errorf("visited %v, want only T (States.Runtime is not caught)", v)
			}
		})
	}
}

func TestResultPathMatchFailureIsCatchable(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","States":{
		"T":{"Type":"Task","Resource":"fn","ResultPath":"$.a.b","End":true,
			"Catch":[{"ErrorEquals":["States.ResultPathMatchFailure"],"ResultPath":"$.err","Next":"Caught"}]},
		"Caught":{"Type":"Pass","End":true}}}`)
	out, err := m.Run(context.Background(), json.RawMessage(`{"a":"not an object"}`), Options{
		Handlers: map[string]Handler{"fn": newRecorder().returning("fn", `1`)},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var got struct {
		A   string
		Err errorOutput `json:"err"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.A != "not an object" || got.Err.Error != StatesResultPathMatchFailure {
		t.Errorf("output %s", out)
	}
}

// errorOutput is the {"Error","Cause"} a catcher writes.
type errorOutput struct {
	Error string `json:"Error"`
	Cause string `json:"Cause"`
}

func TestDataLimitExceeded(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true,
		"Catch":[{"ErrorEquals":["States.ALL"],"Next":"C"}]},"C":{"Type":"Succeed"}}}`)
	big := `"` + strings.Repeat("x", payloadLimit) + `"`
	_, err := m.Run(context.Background(), nil, Options{Handlers: map[string]Handler{"fn": newRecorder().returning("fn", big)}})
	if ee := execErr(t, err); ee.Name != StatesDataLimitExceeded {
		t.Errorf("got %v, want States.DataLimitExceeded", ee)
	}
}

func TestRunChecksHandlersAndInput(t *testing.T) {
	m := mustParse(t, `{"StartAt":"A","States":{
		"A":{"Type":"Task","Resource":"arn:one","Next":"M"},
		"M":{"Type":"Map","ItemProcessor":{"StartAt":"B","States":{"B":{"Type":"Task","Resource":"arn:two","End":true}}},"End":true}}}`)
	if got := m.Resources(); len(got) != 2 || got[0] != "arn:one" || got[1] != "arn:two" {
		t.Errorf("Resources() = %v", got)
	}
	called := false
	h := func(context.Context, json.RawMessage) (json.RawMessage, error) { called = true; return nil, nil }
	_, err := m.Run(context.Background(), nil, Options{Handlers: map[string]Handler{"arn:one": h}})
	if err == nil || !contains(err.Error(), `"arn:two"`) {
		t.Errorf("Run without a handler for arn:two: err = %v", err)
	}
	_, err = m.Run(context.Background(), json.RawMessage(`{"a":`), Options{Handlers: map[string]Handler{"arn:one": h, "arn:two": h}})
	if err == nil || !contains(err.Error(), "not valid JSON") {
		t.Errorf("Run with invalid input: err = %v", err)
	}
	if called {
		t.Error("a handler ran although Run should have refused to start")
	}
}

func TestTaskTimeoutBoundsTheHandlerContext(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","TimeoutSeconds":300,"End":true}}}`)
	var remaining time.Duration
	_, err := m.Run(context.Background(), nil, Options{Handlers: map[string]Handler{"fn": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		dl, ok := ctx.Deadline()
		if ok {
			remaining = time.Until(dl)
		}
		return json.RawMessage(`{}`), nil
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if remaining <= 200*time.Second || remaining > 300*time.Second {
		t.Errorf("handler deadline in %v, want about 300s", remaining)
	}
}

// TestTaskTimeout waits for a real 1-second timeout (TimeoutSeconds is whole
// seconds): States.Timeout is matched by States.Timeout, not States.TaskFailed.
func TestTaskTimeout(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","States":{
		"T":{"Type":"Task","Resource":"fn","TimeoutSecondsPath":"$.timeout","End":true,
			"Catch":[{"ErrorEquals":["States.TaskFailed"],"Next":"Wrong"},{"ErrorEquals":["States.Timeout"],"Next":"Right"}]},
		"Wrong":{"Type":"Succeed"},"Right":{"Type":"Succeed"}}}`)
	rec := newRecorder()
	out, err := m.Run(context.Background(), json.RawMessage(`{"timeout":1}`), Options{
		OnTransition: rec.onTransition,
		Handlers: map[string]Handler{"fn": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := rec.visited(); v[len(v)-1] != "Right" {
		t.Errorf("visited %v, want the States.Timeout catcher", v)
	}
	assertJSON(t, "output", out, `{"Error":"States.Timeout","Cause":"the task did not finish within 1s (TimeoutSeconds)"}`)
}
