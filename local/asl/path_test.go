package asl

import (
	"testing"
)

func TestPathGet(t *testing.T) {
	doc := `{"a":{"b":[10,{"c":"deep"}]},"odd key":1,"it's":2,"nul":null,"with.dot":3}`
	root, err := decodeJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	ctxObj := map[string]any{"Execution": map[string]any{"Id": "x"}}
	tests := []struct {
		path string
		want string // JSON; "" when the path does not resolve
	}{
		{"$", doc},
		{"$.a.b[0]", `10`},
		{"$.a.b[1].c", `"deep"`},
		{"$.a.b[-1].c", `"deep"`},
		{"$['a']['b'][0]", `10`},
		{`$["odd key"]`, `1`},
		{`$['it\'s']`, `2`},
		{"$['with.dot']", `3`},
		{"$.nul", `null`},
		{"$$.Execution.Id", `"x"`},
		{"$$", `{"Execution":{"Id":"x"}}`},
		{"$.missing", ""},
		{"$.a.b[2]", ""},
		{"$.a.b[-3]", ""},
		{"$.a.b.c", ""},
		{"$.a[0]", ""},
		{"$.nul.x", ""},
	}
	for _, tt := range tests {
		p, err := parsePath(tt.path)
		if err != nil {
			t.Errorf("parsePath(%q): %v", tt.path, err)
			continue
		}
		v, ok := p.get(root, ctxObj)
		if tt.want == "" {
			if ok {
				t.Errorf("%s resolved to %s, want no result", tt.path, jsonString(v))
			}
			continue
		}
		b, _ := encodeJSON(v)
		if !ok {
			t.Errorf("%s did not resolve", tt.path)
		} else {
			assertJSON(t, tt.path, b, tt.want)
		}
	}
}

func TestPathParseErrors(t *testing.T) {
	for _, p := range []string{"", "a.b", "$.", "$..a", "$.a[*]", "$.a[?(@.x)]", "$.a[0:2]", "$.a[", "$['a'", "$[a]", "$.a b", "$x", "$.*"} {
		if _, err := parsePath(p); err == nil {
			t.Errorf("parsePath(%q) succeeded, want an error", p)
		}
	}
}

func TestPathSetCopiesOnWrite(t *testing.T) {
	tests := []struct {
		doc, path, want string
		fails           bool
	}{
		{`{"a":1}`, "$", `"v"`, false},
		{`{"a":1}`, "$.b", `{"a":1,"b":"v"}`, false},
		{`{"a":{"x":1}}`, "$.a.y", `{"a":{"x":1,"y":"v"}}`, false},
		{`{"a":1}`, "$.b.c.d", `{"a":1,"b":{"c":{"d":"v"}}}`, false},
		{`{"a":[1,2]}`, "$.a[0]", `{"a":["v",2]}`, false},
		{`{"a":[1,{"k":0}]}`, "$.a[-1].k", `{"a":[1,{"k":"v"}]}`, false},
		{`{"a":[1]}`, "$.a[3]", ``, true},
		{`{"a":"str"}`, "$.a.b", ``, true},
		{`{"a":null}`, "$.a.b", ``, true},
		{`"str"`, "$.a", ``, true},
	}
	for _, tt := range tests {
		root, _ := decodeJSON([]byte(tt.doc))
		p, err := parsePath(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.set(root, "v")
		if tt.fails {
			if err == nil {
				t.Errorf("set %s on %s succeeded, want an error", tt.path, tt.doc)
			}
			continue
		}
		if err != nil {
			t.Errorf("set %s on %s: %v", tt.path, tt.doc, err)
			continue
		}
		b, _ := encodeJSON(out)
		assertJSON(t, tt.path, b, tt.want)
		after, _ := encodeJSON(root)
		assertJSON(t, "the original after set "+tt.path, after, tt.doc)
	}
}
