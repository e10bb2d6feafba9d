package jsonread_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/javaapi/internal/jsonread"
)

// validity lists texts with and without the faults encoding/json's scanner
// rejects; Skip must accept exactly what json.Valid accepts.
func validity() []string {
	return []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `12.5e-3`, `1E+2`, `"a"`, ` {"a" : [1, 2, {"b": null}] } `,
		`"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"`, `"é 中文"`, "\"\xff\"", `{"\u0061":1}`, `"` + "\x7f" + `"`,
		``, ` `, `{`, `}`, `[1,]`, `[,1]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1 "b":2}`, `[1 2]`,
		`01`, `-`, `-a`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x1`, `tru`, `nul`, `falsey`, `nullx`,
		`"a`, `"\x"`, `"\u12"`, `"\u12G4"`, "\"a\tb\"", "\"\x00\"", `{"a":1}x`, `{} {}`, `[1]]`,
		"\ufeff{}", `{"a":"b"` + strings.Repeat(" ", 3),
	}
}

func TestSkipAcceptsWhatEncodingJSONAccepts(t *testing.T) {
	for _, text := range validity() {
		checkSkip(t, text)
	}
}

func FuzzSkip(f *testing.F) {
	for _, text := range validity() {
		f.Add(text)
	}
	f.Fuzz(checkSkip)
}

func checkSkip(t *testing.T, text string) {
	r := jsonread.NewReader(text)
	r.Skip()
	r.End()
	if got, want := r.Err() == nil, json.Valid([]byte(text)); got != want && !deep(text) {
		t.Errorf("Skip(%q): accepted = %v, json.Valid = %v (%v)", text, got, want, r.Err())
	}
}

// deep reports whether text nests deeper than Skip goes.
func deep(text string) bool {
	return strings.Count(text, "[")+strings.Count(text, "{") > 1000
}

func TestSkipStopsDeepNesting(t *testing.T) {
	text := strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	r := jsonread.NewReader(text)
	r.Skip()
	if r.Err() == nil {
		t.Error("2000 levels skipped, want a stop at the depth bound")
	}
}

// record is a value read both ways in the tests below: by hand with a
// Reader and by encoding/json.
type record struct {
	Name  string   `json:"name"`
	Score float64  `json:"score"`
	Count int      `json:"count"`
	Tags  []string `json:"tags"`
	Next  *record  `json:"next"`
}

func (d *record) read(r *jsonread.Reader) {
	r.Object(func(key string) bool {
		switch key {
		case "name":
			r.String(&d.Name)
		case "score":
			r.Float(&d.Score)
		case "count":
			r.Int(&d.Count)
		case "tags":
			jsonread.Slice(r, &d.Tags, func(s *string, r *jsonread.Reader) { r.String(s) })
		case "next":
			if r.Null() {
				d.Next = nil
				break
			}
			if d.Next == nil {
				d.Next = new(record)
			}
			d.Next.read(r)
		default:
			return false
		}
		return true
	})
}

// recordText is a text for record; fast tells whether the Reader must take
// it (false: it leaves it to encoding/json, or it is invalid).
type recordText struct {
	text string
	fast bool
}

func records() []recordText {
	return []recordText{
		{`{"name":"Wong Ka Ho","score":23.5,"count":3,"tags":["a","b"],"next":{"name":"x"}}`, true},
		{`{"name":"陳大文","score":-1e3,"count":-0}`, true},
		{`{"name":"a\"b\n\u00e9","tags":[]}`, true},
		{`{"name":"\uD83D\uDE00 \uD83D x \uDE00 \uD83D\u0041 \uDBFF\uDFFF \u0000 \/\b\f\r\t\\"}`, true},
		{"{\"name\":\"\\n\xff\xfe中\xe4\xb8\"}", true},
		{`{"tags":["\uD83D","\uD83D\uD83D\uDE00","\ud83d\ude00"]}`, true},
		{`{"name":null,"score":null,"count":null,"tags":null,"next":null}`, true},
		{`{"name":"a","name":null}`, true},
		{`{"next":{"name":"a"},"next":{"score":2}}`, true},
		{`{"next":{"name":"a"},"next":null}`, true},
		{`{"NAME":"upper","Score":1,"other":{"x":[1,{"y":"\u0041"}]},"Other":true}`, true},
		{`null`, true},
		{`{}`, true},
		{`{"tags":["a"],"tags":["b","c"]}`, false},
		{`{"na\u006de":"escaped key"}`, false},
		{`{"ſcore":1}`, false},
		{"{\"name\":\"bad \xff utf-8\"}", true},
		{`{"count":1.5}`, false},
		{`{"count":1e2}`, false},
		{`{"count":99999999999999999999}`, false},
		{`{"score":1e999}`, false},
		{`{"score":"1"}`, false},
		{`{"name":1}`, false},
		{`{"name":true}`, false},
		{`{"tags":"a"}`, false},
		{`{"tags":[1]}`, false},
		{`{"next":[]}`, false},
		{`[]`, false},
		{`{"name":"a"}x`, false},
		{`{"name":"a",}`, false},
		{`{"name":"a"`, false},
		{``, false},
	}
}

func TestReadMatchesEncodingJSON(t *testing.T) {
	for _, tt := range records() {
		if fast := checkRecord(t, tt.text); fast != tt.fast {
			t.Errorf("%s: read by the Reader = %v, want %v", tt.text, fast, tt.fast)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, tt := range records() {
		f.Add(tt.text)
	}
	f.Fuzz(func(t *testing.T, text string) { checkRecord(t, text) })
}

// checkRecord reads text with the Reader and with encoding/json; when the
// Reader succeeds, encoding/json must succeed with the same value.
func checkRecord(t *testing.T, text string) (fast bool) {
	t.Helper()
	var got record
	r := jsonread.NewReader(text)
	got.read(r)
	r.End()
	var want record
	werr := json.Unmarshal([]byte(text), &want)
	if r.Err() != nil {
		return false
	}
	if werr != nil {
		t.Errorf("%q: the Reader read %+v, encoding/json failed: %v", text, got, werr)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("%q: the Reader read %+v, encoding/json %+v", text, got, want)
	}
	return true
}

func TestNumbers(t *testing.T) {
	tests := []struct {
		text    string
		float   float64
		integer int
		intOK   bool
	}{
		{"0", 0, 0, true},
		{"-12", -12, -12, true},
		{"3.25", 3.25, 0, false},
		{"1e2", 100, 0, false},
		{"9223372036854775807", 9223372036854775807, math.MaxInt64, true},
		{"9223372036854775808", 9223372036854775808, 0, false},
		{"999999999999999", 999999999999999, 999999999999999, true},
		{"-9007199254740993", -9007199254740992, -9007199254740993, true},
		{"0.1", 0.1, 0, false},
		{"-0.0", 0, 0, false},
	}
	for _, tt := range tests {
		var f float64
		r := jsonread.NewReader(tt.text)
		r.Float(&f)
		r.End()
		if r.Err() != nil || f != tt.float {
			t.Errorf("Float(%s) = %v, %v; want %v", tt.text, f, r.Err(), tt.float)
		}
		var n int
		r = jsonread.NewReader(tt.text)
		r.Int(&n)
		r.End()
		if (r.Err() == nil) != tt.intOK || n != tt.integer {
			t.Errorf("Int(%s) = %v, %v; want %v (ok %v)", tt.text, n, r.Err(), tt.integer, tt.intOK)
		}
	}
}

func TestNegativeZero(t *testing.T) {
	for _, text := range []string{"-0", "-0.0", "-0e3"} {
		var f float64
		r := jsonread.NewReader(text)
		r.Float(&f)
		var want float64
		if err := json.Unmarshal([]byte(text), &want); err != nil || r.Err() != nil || math.Signbit(f) != math.Signbit(want) {
			t.Errorf("Float(%s) = %v (sign %v), %v; encoding/json: %v (sign %v), %v",
				text, f, math.Signbit(f), r.Err(), want, math.Signbit(want), err)
		}
	}
}

func TestRawAndSharedStrings(t *testing.T) {
	text := `{"a": [1, {"b": "c"}] , "d":"plain"}`
	var raw, plain string
	r := jsonread.NewReader(text)
	r.Object(func(key string) bool {
		switch key {
		case "a":
			raw = r.Raw()
		case "d":
			r.String(&plain)
		default:
			return false
		}
		return true
	})
	r.End()
	if r.Err() != nil || raw != `[1, {"b": "c"}]` || plain != "plain" {
		t.Errorf("raw %q, plain %q, err %v", raw, plain, r.Err())
	}
}

func TestFailStops(t *testing.T) {
	r := jsonread.NewReader(`{"a":1,"b":2}`)
	var seen []string
	r.Object(func(key string) bool {
		seen = append(seen, key)
		r.Fail("refused")
		return true
	})
	if r.Err() == nil || len(seen) != 1 || r.Peek() != 0 {
		t.Errorf("after Fail: keys %v, err %v", seen, r.Err())
	}
}
