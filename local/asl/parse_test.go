package asl

import (
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	task := func(extra string) string {
		return `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true` + extra + `}}}`
	}
	tests := []struct {
		name, def, want string
	}{
		{"not JSON", `{`, "not valid JSON"},
		{"not an object", `[]`, "must be a JSON object"},
		{"no StartAt", `{"States":{"A":{"Type":"Succeed"}}}`, "StartAt is required"},
		{"StartAt not a state", `{"StartAt":"X","States":{"A":{"Type":"Succeed"}}}`, `StartAt "X" is not a state`},
		{"no States", `{"StartAt":"A"}`, "States must be a non-empty object"},
		{"unknown top-level field", `{"StartAt":"A","Foo":1,"States":{"A":{"Type":"Succeed"}}}`, `unknown field "Foo"`},
		{"JSONata", `{"StartAt":"A","QueryLanguage":"JSONata","States":{"A":{"Type":"Succeed"}}}`, "JSONata is not supported"},
		{"unknown type", `{"StartAt":"A","States":{"A":{"Type":"Nope"}}}`, `unknown or missing Type "Nope"`},
		{"missing type", `{"StartAt":"A","States":{"A":{"End":true}}}`, `unknown or missing Type ""`},
		{"field of another type", `{"StartAt":"A","States":{"A":{"Type":"Succeed","Resource":"x"}}}`, `unknown field "Resource" for a Succeed state`},
		{"field names are case-sensitive", task(`,"resultPath":"$.x"`), `unknown field "resultPath"`},
		{"unsupported field", task(`,"Credentials":{}`), `"Credentials" is not supported`},
		{"Next and End", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B","End":true},"B":{"Type":"Succeed"}}}`, "exactly one of Next"},
		{"neither Next nor End", `{"StartAt":"A","States":{"A":{"Type":"Pass"}}}`, "exactly one of Next"},
		{"Next to a missing state", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"}}}`, `transition to "B", which is not a state`},
		{"unreachable state", `{"StartAt":"A","States":{"A":{"Type":"Succeed"},"B":{"Type":"Succeed"}}}`, `state "B" is not reachable`},
		{"Task without Resource", `{"StartAt":"A","States":{"A":{"Type":"Task","End":true}}}`, "Resource is required"},
		{"TimeoutSeconds not an integer", task(`,"TimeoutSeconds":1.5`), `"TimeoutSeconds": must be an integer`},
		{"TimeoutSeconds zero", task(`,"TimeoutSeconds":0`), "must be at least 1"},
		{"bad InputPath", task(`,"InputPath":"a.b"`), "must start with $"},
		{"wildcard path", task(`,"InputPath":"$.a[*]"`), "not supported in a reference path"},
		{"ResultPath into the context", task(`,"ResultPath":"$$.x"`), "cannot write into the context object"},
		{"bad Parameters path", task(`,"Parameters":{"x.$":"$..a"}`), "deep scan"},
		{"Parameters .$ value not a string", task(`,"Parameters":{"x.$":1}`), "must be a path or an intrinsic call"},
		{"Parameters .$ plain string", task(`,"Parameters":{"x.$":"hello"}`), "must start with $"},
		{"both x and x.$", task(`,"Parameters":{"x":1,"x.$":"$"}`), `both set "x"`},
		{"bad intrinsic", task(`,"Parameters":{"x.$":"States.Nope()"}`), "unknown intrinsic function"},
		{"Retry without ErrorEquals", task(`,"Retry":[{"MaxAttempts":1}]`), "ErrorEquals must be a non-empty array"},
		{"Retry States.ALL not last", task(`,"Retry":[{"ErrorEquals":["States.ALL"]},{"ErrorEquals":["E"]}]`), "States.ALL must appear alone in the last"},
		{"Retry States.ALL not alone", task(`,"Retry":[{"ErrorEquals":["E","States.ALL"]}]`), "States.ALL must appear alone"},
		{"Retry unknown field", task(`,"Retry":[{"ErrorEquals":["E"],"Interval":1}]`), `unknown field "Interval" for a retrier`},
		{"Retry BackoffRate below 1", task(`,"Retry":[{"ErrorEquals":["E"],"BackoffRate":0.5}]`), "BackoffRate"},
		{"Retry negative MaxAttempts", task(`,"Retry":[{"ErrorEquals":["E"],"MaxAttempts":-1}]`), "must be at least 0"},
		{"Retry IntervalSeconds 0", task(`,"Retry":[{"ErrorEquals":["E"],"IntervalSeconds":0}]`), "must be at least 1"},
		{"Retry bad JitterStrategy", task(`,"Retry":[{"ErrorEquals":["E"],"JitterStrategy":"HALF"}]`), "FULL or NONE"},
		{"Catch States.ALL not last", `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true,"Catch":[{"ErrorEquals":["States.ALL"],"Next":"C"},{"ErrorEquals":["E"],"Next":"C"}]},"C":{"Type":"Succeed"}}}`, "States.ALL must appear alone in the last"},
		{"Catch without Next", task(`,"Catch":[{"ErrorEquals":["E"]}]`), "Next is required"},
		{"Catch to a missing state", task(`,"Catch":[{"ErrorEquals":["E"],"Next":"Nowhere"}]`), `transition to "Nowhere"`},
		{"Choice without Choices", `{"StartAt":"C","States":{"C":{"Type":"Choice","Default":"S"},"S":{"Type":"Succeed"}}}`, "Choices must be a non-empty array"},
		{"Choice rule without Next", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.a","IsPresent":true}],"Default":"S"},"S":{"Type":"Succeed"}}}`, "needs a Next"},
		{"Choice rule with two operators", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.a","IsPresent":true,"IsNull":true,"Next":"S"}]},"S":{"Type":"Succeed"}}}`, "exactly one operator"},
		{"Choice unknown operator", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.a","StringEqual":"x","Next":"S"}]},"S":{"Type":"Succeed"}}}`, `unknown field "StringEqual"`},
		{"Choice operand of the wrong type", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.a","NumericEquals":"1","Next":"S"}]},"S":{"Type":"Succeed"}}}`, "NumericEquals takes a number"},
		{"Choice nested Next", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Not":{"Variable":"$.a","IsNull":true,"Next":"S"},"Next":"S"}]},"S":{"Type":"Succeed"}}}`, "nested rule must not have Next"},
		{"Choice bad timestamp", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.a","TimestampEquals":"yesterday","Next":"S"}]},"S":{"Type":"Succeed"}}}`, "not an RFC 3339 timestamp"},
		{"Choice with End", `{"StartAt":"C","States":{"C":{"Type":"Choice","End":true,"Choices":[{"Variable":"$.a","IsNull":true,"Next":"S"}]},"S":{"Type":"Succeed"}}}`, `unknown field "End"`},
		{"Wait with two durations", `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":1,"SecondsPath":"$.s","End":true}}}`, "exactly one of Seconds"},
		{"Fail with Error and ErrorPath", `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"E","ErrorPath":"$.e"}}}`, "exclusive"},
		{"Map without ItemProcessor", `{"StartAt":"M","States":{"M":{"Type":"Map","End":true}}}`, "ItemProcessor (or Iterator) must be an object"},
		{"Map with ItemReader", `{"StartAt":"M","States":{"M":{"Type":"Map","End":true,"ItemReader":{},"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}}}}`, `"ItemReader" is not supported`},
		{"Map item processor with a bad transition", `{"StartAt":"M","States":{"M":{"Type":"Map","End":true,"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","Next":"Outside"}}}},"Outside":{"Type":"Succeed"}}}`, `transition to "Outside"`},
		{"Map negative MaxConcurrency", `{"StartAt":"M","States":{"M":{"Type":"Map","End":true,"MaxConcurrency":-1,"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}}}}`, "must be at least 0"},
		{"Map with ItemSelector and Parameters", `{"StartAt":"M","States":{"M":{"Type":"Map","End":true,"ItemSelector":{},"Parameters":{},"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}}}}`, "exclusive"},
		{"Parallel without Branches", `{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true}}}`, "Branches must be a non-empty array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.def), nil)
			if err == nil {
				t.Fatalf("Parse succeeded, want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestSubstitutions(t *testing.T) {
	def := `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"${Fn}","Next":"M"},
		"M":{"Type":"Map","MaxConcurrency":${Conc},"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","Result":"${!Literal}","End":true}}},"End":true}}}`
	m, err := Parse([]byte(def), map[string]string{"Fn": "arn:local:fn", "Conc": "4", "Unused": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Resources(); len(got) != 1 || got[0] != "arn:local:fn" {
		t.Errorf("Resources() = %v", got)
	}
	if mc := m.root.states["M"].maxConcurrency; mc != 4 {
		t.Errorf("MaxConcurrency = %d, want 4", mc)
	}
	if r := m.root.states["M"].processor.states["P"].result; r != "${Literal}" {
		t.Errorf("escaped placeholder = %v, want ${Literal}", r)
	}
	_, err = Parse([]byte(def), map[string]string{"Conc": "4"})
	if err == nil || !strings.Contains(err.Error(), "Fn") {
		t.Errorf("missing substitution: err = %v", err)
	}
}
