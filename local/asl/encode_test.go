package asl

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/protocol"
)

func checkSameJSON(t *testing.T, v any) {
	t.Helper()
	got, gerr := encodeJSON(v)
	want, werr := protocol.Marshal(v) // what encodeJSON was
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("error %v, want %v", gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encodeJSON(%#v)\n got %s\nwant %s", v, got, want)
	}
}

// TestEncodeJSONAsEncodingJSON: appendJSON writes the bytes (and fails with
// the errors) encoding/json does, for the generic tree and for leaves that
// are not of it.
func TestEncodeJSONAsEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"null", nil},
		{"booleans", []any{true, false}},
		{"plain string", "hello"},
		{"escapes", "q\"b\\s/ <a&b> \b\f\n\r\t \x00\x01\x1f\x7f"},
		{"unicode", "光合作用 é 😀 \u2028 \u2029 \ufeff"},
		{"invalid UTF-8", "a\xffb\xc3(c\xe2\x82"},
		{"numbers", []any{json.Number("0"), json.Number("-12.5e+3"), json.Number("1E9"), json.Number("123456789012345678901234567890")}},
		{"empty number", json.Number("")},
		{"invalid numbers", []any{json.Number("01")}},
		{"invalid number 2", json.Number("1.")},
		{"invalid number 3", json.Number("abc")},
		{"nested, keys sorted", map[string]any{"b": []any{map[string]any{"z": nil, "a": "x"}}, "a": map[string]any{}, "": []any{}, "é": "1", "B": true}},
		{"keys to escape", map[string]any{"a\"b": 1.5, "<k>": "v", "\n": nil}},
		{"nil map and slice", map[string]any{"m": map[string]any(nil), "s": []any(nil)}},
		{"other leaves", map[string]any{"int": 3, "float": 2.5, "strings": []string{"a", "<"}, "raw": json.RawMessage(`{"x": 1}`)}},
		{"unsupported leaf", []any{math.NaN()}},
		{"long string", strings.Repeat("作业 <>&\"\n", 1000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkSameJSON(t, tt.v) })
	}
}

// FuzzEncodeJSON: for any JSON document, the tree decodeJSON reads is
// written as encoding/json writes it.
func FuzzEncodeJSON(f *testing.F) {
	for _, s := range []string{`null`, `{"a":[1,2.5e3,"x\u2028",{"b":true}],"c":"\u00e9\ud83d\ude00"}`, `"\u0000\ufffd"`, `[-0,1E+2,"<&>"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		v, err := decodeJSON(doc)
		if err != nil {
			return
		}
		checkSameJSON(t, v)
		// The document's strings, taken as they are, may hold any bytes.
		checkSameJSON(t, []any{string(doc), map[string]any{string(doc): string(doc)}})
	})
}

// BenchmarkEncodeJSON encodes a conversation task's input as a state
// machine carries it: a turn with its message, a route and a first round.
func BenchmarkEncodeJSON(b *testing.B) {
	v, err := decodeJSON([]byte(`{"turn":{"sessionId":"s-1","turnId":"u-1","teacherId":"t-1","messageId":"m-1",` +
		`"message":"帮我出5道分数加法题，难度适中，要有解析。","mode":"natural","leaseUntil":"2026-11-29T05:00:00Z"},` +
		`"route":{"path":"chat","result":{"intent":"chat_qa","modelTier":"standard","clarifyNeeded":false,"safetyFlags":[],` +
		`"expectedMode":"answer","candidateTools":[],"confidence":0.9,"strategy":"answer directly"},"tools":["guide_user"],` +
		`"first":{"round":1,"next":"reply","toolCalls":[]}},"attempt":1}`))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encodeJSON(v); err != nil {
			b.Fatal(err)
		}
	}
}
