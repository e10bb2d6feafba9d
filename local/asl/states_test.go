package asl

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/clock/clocktest"
)

func TestPass(t *testing.T) {
	tests := []struct {
		name, fields, input, want string
	}{
		{"passes its input through", ``, `{"a":1}`, `{"a":1}`},
		{"Result replaces the input", `"Result":{"x":[1,2]}`, `{"a":1}`, `{"x":[1,2]}`},
		{"Result with ResultPath", `"Result":"r","ResultPath":"$.b.c"`, `{"a":1}`, `{"a":1,"b":{"c":"r"}}`},
		{"Result with ResultPath null", `"Result":"r","ResultPath":null`, `{"a":1}`, `{"a":1}`},
		{"Parameters", `"Parameters":{"v.$":"$.a","k":"lit","sum.$":"States.MathAdd($.a, 41)"}`, `{"a":1}`, `{"v":1,"k":"lit","sum":42}`},
		{"Parameters with ResultPath", `"Parameters":{"v.$":"$.a"},"ResultPath":"$.p"`, `{"a":1}`, `{"a":1,"p":{"v":1}}`},
		{"Result wins over Parameters", `"Parameters":{"v.$":"$.a"},"Result":"r"`, `{"a":1}`, `"r"`},
		{"InputPath and OutputPath", `"InputPath":"$.a","ResultPath":"$.copy","OutputPath":"$.copy"`, `{"a":{"z":1}}`, `{"z":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields := `"Type":"Pass","End":true`
			if tt.fields != "" {
				fields += "," + tt.fields
			}
			m := mustParse(t, `{"StartAt":"P","States":{"P":{`+fields+`}}}`)
			out, err := m.Run(context.Background(), json.RawMessage(tt.input), Options{})
			if err != nil {
				t.Fatal(err)
			}
			assertJSON(t, "output", out, tt.want)
		})
	}
}

func TestSucceed(t *testing.T) {
	m := mustParse(t, `{"StartAt":"P","States":{"P":{"Type":"Pass","Next":"S"},"S":{"Type":"Succeed","InputPath":"$.a","OutputPath":"$.b"}}}`)
	out, err := m.Run(context.Background(), json.RawMessage(`{"a":{"b":"done"}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, "output", out, `"done"`)
}

func TestFail(t *testing.T) {
	tests := []struct {
		name, fields, input, wantName, wantCause string
	}{
		{"Error and Cause", `"Error":"MyError","Cause":"it broke"`, `{}`, "MyError", "it broke"},
		{"no Error or Cause", ``, `{}`, "", ""},
		{"ErrorPath and CausePath", `"ErrorPath":"$.e","CausePath":"$.c"`, `{"e":"E1","c":"C1"}`, "E1", "C1"},
		{"CausePath intrinsic", `"Error":"E","CausePath":"States.Format('{} failed', $.what)"`, `{"what":"x"}`, "E", "x failed"},
		{"ErrorPath must be a string", `"ErrorPath":"$.e"`, `{"e":1}`, StatesRuntime, "ErrorPath must select a string, got number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields := `"Type":"Fail"`
			if tt.fields != "" {
				fields += "," + tt.fields
			}
			m := mustParse(t, `{"StartAt":"F","States":{"F":{`+fields+`}}}`)
			_, err := m.Run(context.Background(), json.RawMessage(tt.input), Options{})
			if ee := execErr(t, err); ee.Name != tt.wantName || ee.Cause != tt.wantCause || ee.State != "F" {
				t.Errorf("got %+v, want %q / %q in F", ee, tt.wantName, tt.wantCause)
			}
		})
	}
}

func TestWait(t *testing.T) {
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	tests := []struct {
		name, fields, input string
		wantSleep           time.Duration // 0: no sleep
		approx              bool          // wantSleep is an upper bound within a minute
		wantErr             string
	}{
		{"Seconds", `"Seconds":5`, `{}`, 5 * time.Second, false, ""},
		{"Seconds 0 does not sleep", `"Seconds":0`, `{}`, 0, false, ""},
		{"SecondsPath", `"SecondsPath":"$.s"`, `{"s":7}`, 7 * time.Second, false, ""},
		{"SecondsPath after InputPath", `"InputPath":"$.w","SecondsPath":"$.s"`, `{"w":{"s":3}}`, 3 * time.Second, false, ""},
		{"SecondsPath not an integer", `"SecondsPath":"$.s"`, `{"s":"7"}`, 0, false, StatesRuntime},
		{"SecondsPath negative", `"SecondsPath":"$.s"`, `{"s":-1}`, 0, false, StatesRuntime},
		{"Timestamp in the past", `"Timestamp":"2020-01-01T00:00:00Z"`, `{}`, 0, false, ""},
		{"TimestampPath in the future", `"TimestampPath":"$.t"`, `{"t":"` + future + `"}`, time.Hour, true, ""},
		{"TimestampPath not a timestamp", `"TimestampPath":"$.t"`, `{"t":"tomorrow"}`, 0, false, StatesRuntime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, `{"StartAt":"W","States":{"W":{"Type":"Wait","End":true,`+tt.fields+`}}}`)
			sl := &clocktest.Sleeps{}
			out, err := m.Run(context.Background(), json.RawMessage(tt.input), Options{Sleep: sl.Sleep})
			if wantExecErr(t, err, tt.wantErr) {
				return
			}
			got := sl.Got()
			switch {
			case tt.wantSleep == 0:
				if len(got) != 0 {
					t.Errorf("slept %v, want no sleep", got)
				}
			case tt.approx:
				if len(got) != 1 || got[0] > tt.wantSleep || got[0] < tt.wantSleep-time.Minute {
					t.Errorf("slept %v, want about %v", got, tt.wantSleep)
				}
			default:
				if !slices.Equal(got, []time.Duration{tt.wantSleep}) {
					t.Errorf("slept %v, want %v", got, tt.wantSleep)
				}
			}
			if !contains(tt.fields, "InputPath") {
				assertJSON(t, "output", out, tt.input)
			}
		})
	}
}

// TestTransitionLimit pins the bound on executions: a loop without an exit
// fails with States.Runtime after MaxTransitions (25,000 by default).
func TestTransitionLimit(t *testing.T) {
	m := mustParse(t, `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"A"}}}`)
	for _, tt := range []struct{ max, want int }{{50, 50}, {0, DefaultMaxTransitions}} {
		n := 0
		_, err := m.Run(context.Background(), nil, Options{MaxTransitions: tt.max, OnTransition: func(string, string) { n++ }})
		ee := execErr(t, err)
		if ee.Name != StatesRuntime || !contains(ee.Cause, "state transitions") {
			t.Errorf("got %v", ee)
		}
		if n != tt.want {
			t.Errorf("MaxTransitions %d: %d transitions, want %d", tt.max, n, tt.want)
		}
	}
}

func TestMachineTimeout(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","TimeoutSeconds":1,"States":{"T":{"Type":"Task","Resource":"fn","End":true}}}`)
	_, err := m.Run(context.Background(), nil, Options{Handlers: map[string]Handler{"fn": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}})
	if ee := execErr(t, err); ee.Name != StatesTimeout {
		t.Errorf("got %v, want States.Timeout", ee)
	}
}
