package asl

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
)

// TestIntrinsics evaluates each expression as a Pass state's "v.$" parameter.
// Expressions are written as they read after JSON decoding.
func TestIntrinsics(t *testing.T) {
	input := `{"name":"Ann","n":1,"f":2.5,"b":true,"nul":null,"arr":[1,2,3,4,5],"dup":[1,"a",1.0,"a",{"k":1},{"k":1}],
		"obj":{"k":"v","n":[1,2]},"tmpl":"{} + {}","json":"{\"x\":[1,{\"y\":null}]}","s":"a,b,,c","csv":"This.is+a,test=string",
		"other":{"n":9,"z":true}}`
	tests := []struct {
		name, expr string
		want       string // JSON of the value; "" when wantErr is set
		wantErr    string // an error name at run time, or "parse" when Parse must fail
	}{
		{"Format", `States.Format('Hello, {}!', $.name)`, `"Hello, Ann!"`, ""},
		{"Format without placeholders", `States.Format('plain')`, `"plain"`, ""},
		{"Format renders values", `States.Format('{}|{}|{}|{}|{}|{}', $.n, $.f, $.b, $.nul, $.arr, $.obj)`, `"1|2.5|true|null|[1, 2, 3, 4, 5]|{k=v, n=[1, 2]}"`, ""},
		{"Format escapes", `States.Format('braces \{\} {} it\'s a \\ backslash', $.n)`, `"braces {} 1 it's a \\ backslash"`, ""},
		{"Format template from a path", `States.Format($.tmpl, $.n, 2)`, `"1 + 2"`, ""},
		{"Format template path with the wrong count", `States.Format($.tmpl, $.n)`, ``, StatesRuntime},
		{"Format literal with the wrong count", `States.Format('{} {}', $.n)`, ``, "parse"},
		{"Format of a nested call", `States.Format('{} items', States.ArrayLength($.arr))`, `"5 items"`, ""},
		{"Format with a context path", `States.Format('in {}', $$.State.Name)`, `"in P"`, ""},
		{"StringToJson", `States.StringToJson($.json)`, `{"x":[1,{"y":null}]}`, ""},
		{"StringToJson of invalid JSON", `States.StringToJson($.name)`, ``, StatesRuntime},
		{"JsonToString", `States.JsonToString($.obj)`, `"{\"k\":\"v\",\"n\":[1,2]}"`, ""},
		{"round trip", `States.StringToJson(States.JsonToString($.obj))`, `{"k":"v","n":[1,2]}`, ""},
		{"Array", `States.Array('a', 1, 2.5, true, false, $.obj.k, States.Array())`, `["a",1,2.5,true,false,"v",[]]`, ""},
		{"Array empty", `States.Array()`, `[]`, ""},
		{"ArrayPartition", `States.ArrayPartition($.arr, 2)`, `[[1,2],[3,4],[5]]`, ""},
		{"ArrayPartition bad size", `States.ArrayPartition($.arr, 0)`, ``, StatesRuntime},
		{"ArrayContains", `States.ArrayContains($.dup, $.obj.n[0])`, `true`, ""},
		{"ArrayContains an object", `States.ArrayContains($.dup, States.StringToJson('{"k":1}'))`, `true`, ""},
		{"ArrayContains false", `States.ArrayContains($.arr, 'x')`, `false`, ""},
		{"ArrayRange", `States.ArrayRange(1, 9, 2)`, `[1,3,5,7,9]`, ""},
		{"ArrayRange down", `States.ArrayRange(5, 1, -2)`, `[5,3,1]`, ""},
		{"ArrayRange too long", `States.ArrayRange(1, 2000, 1)`, ``, StatesRuntime},
		{"ArrayGetItem", `States.ArrayGetItem($.arr, 1)`, `2`, ""},
		{"ArrayGetItem out of bounds", `States.ArrayGetItem($.arr, 5)`, ``, StatesRuntime},
		{"ArrayGetItem on a non-array", `States.ArrayGetItem($.name, 0)`, ``, StatesRuntime},
		{"ArrayLength", `States.ArrayLength($.arr)`, `5`, ""},
		{"ArrayUnique", `States.ArrayUnique($.dup)`, `[1,"a",{"k":1}]`, ""},
		{"Base64Encode", `States.Base64Encode('Data to encode')`, `"RGF0YSB0byBlbmNvZGU="`, ""},
		{"Base64Decode", `States.Base64Decode('RGF0YSB0byBlbmNvZGU=')`, `"Data to encode"`, ""},
		{"Hash", `States.Hash('input data', 'SHA-1')`, `"aaff4a450a104cd177d28d18d74485e8cae074b7"`, ""},
		{"Hash bad algorithm", `States.Hash('x', 'SHA-3')`, ``, StatesRuntime},
		{"JsonMerge", `States.JsonMerge($.obj, $.other, false)`, `{"k":"v","n":9,"z":true}`, ""},
		{"JsonMerge deep is unsupported", `States.JsonMerge($.obj, $.other, true)`, ``, StatesRuntime},
		{"MathRandom", `States.MathRandom(7, 8)`, `7`, ""},
		{"MathRandom with a seed", `States.MathRandom(7, 8, 1234)`, `7`, ""},
		{"MathAdd", `States.MathAdd($.n, 1)`, `2`, ""},
		{"MathAdd negative", `States.MathAdd(111, -112)`, `-1`, ""},
		{"MathAdd rounds like Java", `States.MathAdd($.f, -0.5)`, `3`, ""},
		{"MathAdd on a string", `States.MathAdd($.name, 1)`, ``, StatesRuntime},
		{"MathAdd out of the 32-bit range", `States.MathAdd(2147483648, 1)`, ``, StatesRuntime},
		{"StringSplit drops empty parts", `States.StringSplit($.s, ',')`, `["a","b","c"]`, ""},
		{"StringSplit at any delimiter character", `States.StringSplit($.csv, '.+,=')`, `["This","is","a","test","string"]`, ""},
		{"nested calls", `States.ArrayLength(States.StringSplit($.s, ','))`, `3`, ""},
		{"spaces between arguments", `States.MathAdd( $.n ,  2 )`, `3`, ""},
		{"bracket path with a comma", `States.Array($['obj']['k'], $.arr[-1])`, `["v",5]`, ""},
		{"missing path", `States.MathAdd($.missing, 1)`, ``, StatesRuntime},
		{"unknown function", `States.Nope(1)`, ``, "parse"},
		{"wrong arity", `States.ArrayLength($.a, $.b)`, ``, "parse"},
		{"unterminated", `States.ArrayLength($.a`, ``, "parse"},
		{"trailing text", `States.UUID() x`, ``, "parse"},
		{"bad argument", `States.Array(nope)`, ``, "parse"},
		{"unterminated string", `States.Format('abc)`, ``, "parse"},
		{"too deep", `States.Array(States.Array(States.Array(States.Array(States.Array(States.Array(States.Array(States.Array(States.Array(States.Array(States.Array())))))))))))`, ``, "parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, _ := json.Marshal(map[string]any{"StartAt": "P", "States": map[string]any{
				"P": map[string]any{"Type": "Pass", "End": true, "Parameters": map[string]any{"v.$": tt.expr}},
			}})
			m, err := Parse(def, nil)
			if tt.wantErr == "parse" {
				if err == nil {
					t.Fatalf("Parse succeeded, want an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			out, err := m.Run(context.Background(), json.RawMessage(input), Options{})
			if wantExecErr(t, err, tt.wantErr) {
				return
			}
			assertJSON(t, "value", out, `{"v":`+tt.want+`}`)
		})
	}
}

func TestIntrinsicUUID(t *testing.T) {
	m := mustParse(t, `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true,"Parameters":{"a.$":"States.UUID()","b.$":"States.UUID()"}}}}`)
	out, err := m.Run(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ A, B string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{got.A, got.B} {
		if u, err := uuid.Parse(s); err != nil || u.Version() != 4 {
			t.Errorf("%q is not a version 4 UUID", s)
		}
	}
	if got.A == got.B {
		t.Errorf("two calls gave the same UUID %s", got.A)
	}
}
