package asl

import (
	"context"
	"encoding/json"
	"testing"
)

func TestChoice(t *testing.T) {
	input := `{
		"s":"hello","n":2,"f":2.5,"b":true,"null":null,"ts":"2024-03-14T01:59:00Z","file":"log-2024.txt",
		"star":"a*b","other":"hello","two":2.0,"list":[1],"obj":{"k":"v"}
	}`
	tests := []struct {
		name string
		rule string // a top-level rule without Next
		want string // "Yes" (matched), "No" (Default) or an error name
	}{
		{"StringEquals", `{"Variable":"$.s","StringEquals":"hello"}`, "Yes"},
		{"StringEquals no match", `{"Variable":"$.s","StringEquals":"bye"}`, "No"},
		{"StringEquals on a number is false", `{"Variable":"$.n","StringEquals":"2"}`, "No"},
		{"StringEqualsPath", `{"Variable":"$.s","StringEqualsPath":"$.other"}`, "Yes"},
		{"StringLessThan", `{"Variable":"$.s","StringLessThan":"help"}`, "Yes"},
		{"StringGreaterThan", `{"Variable":"$.s","StringGreaterThan":"help"}`, "No"},
		{"StringLessThanEquals", `{"Variable":"$.s","StringLessThanEquals":"hello"}`, "Yes"},
		{"StringGreaterThanEquals", `{"Variable":"$.s","StringGreaterThanEquals":"hello"}`, "Yes"},
		{"NumericEquals", `{"Variable":"$.n","NumericEquals":2}`, "Yes"},
		{"NumericEquals 2 and 2.0", `{"Variable":"$.two","NumericEquals":2}`, "Yes"},
		{"NumericEquals on a string is false", `{"Variable":"$.s","NumericEquals":2}`, "No"},
		{"NumericLessThan", `{"Variable":"$.n","NumericLessThan":2}`, "No"},
		{"NumericLessThan fraction", `{"Variable":"$.f","NumericLessThan":3}`, "Yes"},
		{"NumericLessThanEquals", `{"Variable":"$.n","NumericLessThanEquals":2}`, "Yes"},
		{"NumericGreaterThan", `{"Variable":"$.f","NumericGreaterThan":2}`, "Yes"},
		{"NumericGreaterThanEquals", `{"Variable":"$.n","NumericGreaterThanEquals":2.5}`, "No"},
		{"NumericEqualsPath", `{"Variable":"$.n","NumericEqualsPath":"$.two"}`, "Yes"},
		{"NumericLessThanPath", `{"Variable":"$.n","NumericLessThanPath":"$.f"}`, "Yes"},
		{"BooleanEquals", `{"Variable":"$.b","BooleanEquals":true}`, "Yes"},
		{"BooleanEquals false", `{"Variable":"$.b","BooleanEquals":false}`, "No"},
		{"BooleanEqualsPath", `{"Variable":"$.b","BooleanEqualsPath":"$.b"}`, "Yes"},
		{"TimestampEquals", `{"Variable":"$.ts","TimestampEquals":"2024-03-14T02:59:00+01:00"}`, "Yes"},
		{"TimestampLessThan", `{"Variable":"$.ts","TimestampLessThan":"2024-03-15T00:00:00Z"}`, "Yes"},
		{"TimestampGreaterThan on a non-timestamp is false", `{"Variable":"$.s","TimestampGreaterThan":"2024-03-15T00:00:00Z"}`, "No"},
		{"IsPresent", `{"Variable":"$.s","IsPresent":true}`, "Yes"},
		{"IsPresent on null", `{"Variable":"$.null","IsPresent":true}`, "Yes"},
		{"IsPresent false on a missing field", `{"Variable":"$.missing","IsPresent":false}`, "Yes"},
		{"IsPresent true on a missing field", `{"Variable":"$.missing","IsPresent":true}`, "No"},
		{"IsNull", `{"Variable":"$.null","IsNull":true}`, "Yes"},
		{"IsNull on a value", `{"Variable":"$.s","IsNull":true}`, "No"},
		{"IsString", `{"Variable":"$.s","IsString":true}`, "Yes"},
		{"IsString false", `{"Variable":"$.n","IsString":false}`, "Yes"},
		{"IsNumeric", `{"Variable":"$.f","IsNumeric":true}`, "Yes"},
		{"IsNumeric on a string", `{"Variable":"$.s","IsNumeric":true}`, "No"},
		{"IsBoolean", `{"Variable":"$.b","IsBoolean":true}`, "Yes"},
		{"IsTimestamp", `{"Variable":"$.ts","IsTimestamp":true}`, "Yes"},
		{"IsTimestamp on a plain string", `{"Variable":"$.s","IsTimestamp":true}`, "No"},
		{"StringMatches prefix and suffix", `{"Variable":"$.file","StringMatches":"log-*.txt"}`, "Yes"},
		{"StringMatches several stars", `{"Variable":"$.file","StringMatches":"*-*2*"}`, "Yes"},
		{"StringMatches no match", `{"Variable":"$.file","StringMatches":"log-*.csv"}`, "No"},
		{"StringMatches escaped star", `{"Variable":"$.star","StringMatches":"a\\*b"}`, "Yes"},
		{"StringMatches escaped star is literal", `{"Variable":"$.s","StringMatches":"h\\*"}`, "No"},
		{"StringMatches whole string", `{"Variable":"$.s","StringMatches":"ell"}`, "No"},
		{"And", `{"And":[{"Variable":"$.s","StringEquals":"hello"},{"Variable":"$.n","NumericEquals":2}]}`, "Yes"},
		{"And false", `{"And":[{"Variable":"$.s","StringEquals":"hello"},{"Variable":"$.n","NumericEquals":3}]}`, "No"},
		{"And short-circuits past a missing field", `{"And":[{"Variable":"$.missing","IsPresent":true},{"Variable":"$.missing","StringEquals":"x"}]}`, "No"},
		{"Or", `{"Or":[{"Variable":"$.s","StringEquals":"bye"},{"Variable":"$.b","BooleanEquals":true}]}`, "Yes"},
		{"Or false", `{"Or":[{"Variable":"$.s","StringEquals":"bye"},{"Variable":"$.b","BooleanEquals":false}]}`, "No"},
		{"Not", `{"Not":{"Variable":"$.s","StringEquals":"bye"}}`, "Yes"},
		{"nested", `{"And":[{"Not":{"Variable":"$.null","IsNull":false}},{"Or":[{"Variable":"$.obj.k","StringEquals":"v"},{"Variable":"$.n","NumericEquals":0}]}]}`, "Yes"},
		{"array element variable", `{"Variable":"$.list[0]","NumericEquals":1}`, "Yes"},
		{"context variable", `{"Variable":"$$.State.Name","StringEquals":"C"}`, "Yes"},
		{"a missing variable is States.Runtime", `{"Variable":"$.missing","StringEquals":"x"}`, StatesRuntime},
		{"IsNull on a missing variable is States.Runtime", `{"Variable":"$.missing","IsNull":true}`, StatesRuntime},
		{"a missing operand path is States.Runtime", `{"Variable":"$.s","StringEqualsPath":"$.missing"}`, StatesRuntime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule := obj(t, tt.rule)
			rule["Next"] = "Yes"
			m := machineOf(t, "C", map[string]any{
				"C":   map[string]any{"Type": "Choice", "Choices": []any{rule}, "Default": "No"},
				"Yes": map[string]any{"Type": "Succeed"},
				"No":  map[string]any{"Type": "Succeed"},
			})
			rec := newRecorder()
			out, err := m.Run(context.Background(), json.RawMessage(input), Options{OnTransition: rec.onTransition})
			if tt.want != "Yes" && tt.want != "No" {
				if ee := execErr(t, err); ee.Name != tt.want || ee.State != "C" {
					t.Errorf("got %v, want %s in C", ee, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if v := rec.visited(); len(v) != 2 || v[1] != tt.want {
				t.Errorf("visited %v, want [C %s]", v, tt.want)
			}
			assertJSON(t, "output", out, input)
		})
	}
}

func TestChoiceOrderPathsAndNoMatch(t *testing.T) {
	m := mustParse(t, `{"StartAt":"C","States":{
		"C":{"Type":"Choice","InputPath":"$.in","OutputPath":"$.v","Choices":[
			{"Variable":"$.v","NumericGreaterThan":10,"Next":"Big"},
			{"Variable":"$.v","NumericGreaterThan":0,"Next":"Positive"},
			{"Variable":"$.v","NumericGreaterThan":5,"Next":"Big"}]},
		"Big":{"Type":"Succeed"},"Positive":{"Type":"Succeed"}}}`)
	for _, tt := range []struct {
		in, wantState, wantOut, wantErr string
	}{
		{`{"in":{"v":20}}`, "Big", `20`, ""},
		{`{"in":{"v":7}}`, "Positive", `7`, ""}, // the first matching rule wins
		{`{"in":{"v":-1}}`, "", "", StatesNoChoiceMatched},
	} {
		rec := newRecorder()
		out, err := m.Run(context.Background(), json.RawMessage(tt.in), Options{OnTransition: rec.onTransition})
		if tt.wantErr != "" {
			if ee := execErr(t, err); ee.Name != tt.wantErr {
				t.Errorf("%s: got %v, want %s", tt.in, ee, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if v := rec.visited(); v[len(v)-1] != tt.wantState {
			t.Errorf("%s: visited %v, want %s", tt.in, v, tt.wantState)
		}
		assertJSON(t, tt.in, out, tt.wantOut)
	}
}
