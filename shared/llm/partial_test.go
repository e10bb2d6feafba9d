package llm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/llm"
)

func TestPartialString(t *testing.T) {
	tests := []struct {
		name, input, field string
		want               string
		done               bool
	}{
		{"brief example", `{"status":"answer_ready","message":"Hel`, "message", "Hel", false},
		{"complete", `{"status":"answer_ready","message":"Hello"}`, "message", "Hello", true},
		{"closing quote only", `{"message":"Hello"`, "message", "Hello", true},
		{"empty input", ``, "message", "", false},
		{"not an object", `["message","x"]`, "message", "", false},
		{"key cut", `{"mess`, "message", "", false},
		{"before colon", `{"message"`, "message", "", false},
		{"before value", `{"message": `, "message", "", false},
		{"opening quote", `{"message":"`, "message", "", false},
		{"missing field", `{"status":"ok"}`, "message", "", false},
		{"not a string", `{"message":null}`, "message", "", false},
		{"number", `{"message":12}`, "message", "", false},
		{"whitespace", " {\n\t\"status\" : \"x\" ,\r\n \"message\"\t:  \"Hi there\" \n}", "message", "Hi there", true},
		{"nested same key ignored", `{"data":{"message":"inner"},"message":"outer`, "message", "outer", false},
		{"nested only", `{"data":{"message":"inner"}}`, "message", "", false},
		{"nested cut", `{"data":{"message":"inner`, "message", "", false},
		{"in array ignored", `{"list":[{"message":"x"}],"message":"y"}`, "message", "y", true},
		{"key as value ignored", `{"status":"message","other":"message"}`, "message", "", false},
		{"braces and quotes in strings", `{"a":"}{\"message\":\"no\"","message":"a {b} \"c\" [d]"}`, "message", `a {b} "c" [d]`, true},
		{"escapes", `{"message":"line1\nline2\t\\ \/ \" \b\f\r"}`, "message", "line1\nline2\t\\ / \" \b\f\r", true},
		{"cut after backslash", `{"message":"ab\`, "message", "ab", false},
		{"cut in \\u", `{"message":"ab\u00`, "message", "ab", false},
		{"\\u complete", `{"message":"ab\u00e9c`, "message", "abéc", false},
		{"surrogate pair", `{"message":"x\ud83d\ude00y"}`, "message", "x😀y", true},
		{"high surrogate cut", `{"message":"x\ud83d`, "message", "x", false},
		{"high surrogate then backslash", `{"message":"x\ud83d\`, "message", "x", false},
		{"pair cut", `{"message":"x\ud83d\ude0`, "message", "x", false},
		{"lone high surrogate", `{"message":"x\ud83dy"}`, "message", "x\uFFFDy", true},
		{"lone low surrogate", `{"message":"x\ude00y`, "message", "x\uFFFDy", false},
		{"high then non-low", `{"message":"\ud83d\u0041"}`, "message", "\uFFFDA", true},
		{"utf8 whole", `{"message":"好的，老师`, "message", "好的，老师", false},
		{"utf8 cut", "{\"message\":\"好\xe7\x9a", "message", "好", false},
		{"invalid utf8", "{\"message\":\"a\xffb\"}", "message", "a\uFFFDb", true},
		{"escaped key", `{"mess\u0061ge":"k"}`, "message", "k", true},
		{"last duplicate wins", `{"message":"one","message":"two"}`, "message", "two", true},
		{"after other values", `{"n":-1.5e3,"t":true,"f":false,"z":null,"a":[1,{"b":[]}],"message":"m"}`, "message", "m", true},
		{"empty string", `{"message":""}`, "message", "", true},
		{"field after message still arriving", `{"message":"done","status":"ans`, "message", "done", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, done := llm.PartialString(tt.input, tt.field)
			if got != tt.want || done != tt.done {
				t.Errorf("PartialString(%q, %q) = %q, %v; want %q, %v", tt.input, tt.field, got, done, tt.want, tt.done)
			}
			checkPartial(t, tt.input, tt.field)
		})
	}
}

func TestCompleteItems(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
	}{
		{"none yet", `{"questions":[`, nil},
		{"field missing", `{"title":"x"}`, nil},
		{"not an array", `{"questions":{"a":1}}`, nil},
		{"one incomplete", `{"questions":[{"q":"2+2?","options":["3","4`, nil},
		{"one complete", `{"questions":[{"q":"2+2?","options":["3","4"]}`, []string{`{"q":"2+2?","options":["3","4"]}`}},
		{"one complete, next started", `{"questions":[{"q":"a"}, {"q":"b`, []string{`{"q":"a"}`}},
		{"braces in strings", `{"questions":[{"q":"}]{["},{"q":"\"}"}]}`, []string{`{"q":"}]{["}`, `{"q":"\"}"}`}},
		{"whitespace", "{ \"questions\" : [\n  {\"q\": 1} ,\n  {\"q\": 2}\n ] }", []string{`{"q": 1}`, `{"q": 2}`}},
		{"number cut", `{"questions":[1,2`, []string{"1"}},
		{"number ended by space", `{"questions":[1,2 `, []string{"1", "2"}},
		{"literal cut", `{"questions":[true,nu`, []string{"true"}},
		{"nested same key ignored", `{"meta":{"questions":[1,2]},"questions":[3`, nil},
		{"after other members", `{"title":"Quiz","questions":["a","b"],"n":2}`, []string{`"a"`, `"b"`}},
		{"empty array", `{"questions":[]}`, nil},
		{"malformed element stops", `{"questions":[{"q":1},{"q":}]}`, []string{`{"q":1}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := llm.CompleteItems(tt.input, "questions")
			if len(got) != len(tt.want) {
				t.Fatalf("CompleteItems(%q) = %s; want %q", tt.input, got, tt.want)
			}
			for i := range got {
				if string(got[i]) != tt.want[i] {
					t.Errorf("item %d = %s; want %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestTextExtractor(t *testing.T) {
	steps := []struct {
		current, delta string
	}{
		{"", ""},
		{"Hel", "Hel"},
		{"Hel", ""},
		{"Hello", "lo"},
		{"Hello wor", " wor"},
		{"", ""},    // a repeated call starts again: behind
		{"Hel", ""}, // still behind: nothing is sent twice
		{"Hello world", "ld"},
		{"Hi", ""}, // diverged: nothing is sent (the caller shows the final value in full)
		{"Hi there", ""},
		{"Hello world!", "!"}, // a value extending the sent text is sent again
	}
	var e llm.TextExtractor
	for i, s := range steps {
		if got := e.Feed(s.current); got != s.delta {
			t.Errorf("step %d: Feed(%q) = %q; want %q", i, s.current, got, s.delta)
		}
	}
	if got, want := e.Sent(), "Hello world!"; got != want {
		t.Errorf("Sent() = %q; want %q", got, want)
	}
}

// TestTextExtractorOverFragments feeds final_result arguments fragment by
// fragment, as the agent does, and checks that the deltas add up to the message.
func TestTextExtractorOverFragments(t *testing.T) {
	message := "好的，老师！\n这是\"牛顿第一定律\"的总结 😀 — {不是 JSON} \\ end"
	args, err := json.Marshal(map[string]any{"status": "answer_ready", "message": message, "artifacts": []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	// json.Marshal escapes <>&; add escapes the model may send too.
	raw := strings.Replace(string(args), "😀", `\ud83d\ude00`, 1)
	for _, size := range []int{1, 2, 3, 7, 10, 64} {
		var e llm.TextExtractor
		var got strings.Builder
		for end := 0; end <= len(raw); end += size {
			v, _ := llm.PartialString(raw[:min(end, len(raw))], "message")
			got.WriteString(e.Feed(v))
		}
		v, done := llm.PartialString(raw, "message")
		got.WriteString(e.Feed(v))
		if !done || got.String() != message || e.Sent() != message {
			t.Errorf("fragments of %d: got %q (done %v, sent %q); want %q", size, got.String(), done, e.Sent(), message)
		}
	}
}

// checkPartial is the property shared by the fuzz test and the table tests: on a
// complete object PartialString and CompleteItems agree with encoding/json; on
// every prefix they only ever return a prefix of the final answer.
func checkPartial(t *testing.T, input, field string) {
	t.Helper()
	// Never panic, whatever the input.
	llm.PartialString(input, field)
	llm.CompleteItems(input, field)

	var obj map[string]json.RawMessage
	if !json.Valid([]byte(input)) || json.Unmarshal([]byte(input), &obj) != nil {
		return
	}
	wantStr, wantDone := "", false
	var wantItems []json.RawMessage
	if raw, ok := obj[field]; ok {
		switch raw[0] {
		case '"':
			if err := json.Unmarshal(raw, &wantStr); err != nil {
				t.Fatal(err)
			}
			wantDone = true
		case '[':
			if err := json.Unmarshal(raw, &wantItems); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, done := llm.PartialString(input, field); got != wantStr || done != wantDone {
		t.Fatalf("PartialString(%q, %q) = %q, %v; encoding/json says %q, %v", input, field, got, done, wantStr, wantDone)
	}
	gotItems := llm.CompleteItems(input, field)
	if !sameItems(gotItems, wantItems) {
		t.Fatalf("CompleteItems(%q, %q) = %s; encoding/json says %s", input, field, gotItems, wantItems)
	}

	if len(input) > 512 || topLevelKeyCount(t, input, field) != 1 {
		return // long inputs: keep fuzzing fast; duplicated keys: a later value replaces an earlier one
	}
	prev := ""
	for end := 0; end <= len(input); end++ {
		got, done := llm.PartialString(input[:end], field)
		if !strings.HasPrefix(wantStr, got) || !strings.HasPrefix(got, prev) || (done && got != wantStr) {
			t.Fatalf("PartialString(%q, %q) = %q, %v after %q; final %q", input[:end], field, got, done, prev, wantStr)
		}
		prev = got
		items := llm.CompleteItems(input[:end], field)
		if len(items) > len(wantItems) || !sameItems(items, wantItems[:len(items)]) {
			t.Fatalf("CompleteItems(%q, %q) = %s; final %s", input[:end], field, items, wantItems)
		}
	}
}

func sameItems(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// topLevelKeyCount counts the top-level members named field of a valid object.
func topLevelKeyCount(t *testing.T, input, field string) int {
	dec := json.NewDecoder(strings.NewReader(input))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0
	}
	n := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		if tok == field {
			n++
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return n
}

func FuzzPartialString(f *testing.F) {
	seeds := []string{
		`{"status":"answer_ready","message":"Hello, teacher"}`,
		`{"message":"a\"b\\c\/d\be\ff\ng\rh\ti\u00e9j\ud83d\ude00k"}`,
		`{"message":"\ud83d\u0041 \ude00 \ud83d"}`,
		"{\"message\":\"好的\xff\xe7\x9a\"}",
		`{"data":{"message":"inner"},"message":"outer"}`,
		`{"a":"}{\"message\":\"no\"","message":"{[\"]}"}`,
		`{"message":"one","message":"two"}`,
		`{"message":null}`,
		`{"mess\u0061ge":"escaped key"}`,
		` { "message" : "spaced" } `,
		`{"n":-1.5e3,"t":true,"f":false,"z":null,"a":[1,{"b":[]}],"message":"m"}`,
		`{"questions":[{"q":"2+2?","options":["3","4"]},{"q":"}"},7,"s",null,[1,[2]]],"message":"x"}`,
		`{"questions":[]}`,
		`["message"]`,
		`"message"`,
		`null`,
		`{}`,
	}
	for _, s := range seeds {
		f.Add(s, "message")
		f.Add(s, "questions")
	}
	f.Fuzz(func(t *testing.T, input, field string) {
		checkPartial(t, input, field)
	})
}

// A 2 KB message fed in 10-byte fragments, as the agent sees final_result arguments.
func benchArgs(b *testing.B) string {
	b.Helper()
	msg := strings.Repeat("已为您生成牛顿第一定律PPT, with a \"quoted\" line\n. ", 40)[:2048]
	args, err := json.Marshal(map[string]any{"status": "answer_ready", "message": msg})
	if err != nil {
		b.Fatal(err)
	}
	return string(args)
}

func BenchmarkPartialString(b *testing.B) {
	args := benchArgs(b)
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		for end := 10; end < len(args)+10; end += 10 {
			llm.PartialString(args[:min(end, len(args))], "message")
		}
	}
}

func BenchmarkTextExtractor(b *testing.B) {
	args := benchArgs(b)
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		var e llm.TextExtractor
		for end := 10; end < len(args)+10; end += 10 {
			v, _ := llm.PartialString(args[:min(end, len(args))], "message")
			e.Feed(v)
		}
	}
}

// FuzzPartialField holds PartialField to PartialString: the input fed as
// growing prefixes (cut at every step-th byte), then a text that does not
// extend it (a repeated call), then the whole input again.
func FuzzPartialField(f *testing.F) {
	for _, s := range []string{
		`{"status":"answer_ready","message":"Hello, teacher\n第二行 \"引用\" \u00e9\ud83d\ude00"}`,
		`{"message":"\ud83d\u0041 \ude00 \ud83d"}`, "{\"message\":\"好的\xff\xe7\x9a\"}",
		`{"message":"one","message":"two"}`, `{"message":"a","data":{"message":"inner"},"message":"b\nc"}`,
		`{"message":null,"message":"x"}`, `{"mess\u0061ge":"escaped key"}`, `["message"]`, `{}`,
	} {
		f.Add(s, "message", uint8(1))
		f.Add(s, "message", uint8(7))
	}
	f.Fuzz(func(t *testing.T, input, field string, step uint8) {
		n := max(int(step), 1)
		p := llm.PartialField{Field: field}
		check := func(s string) {
			got, gotDone := p.Value(s)
			want, wantDone := llm.PartialString(s, field)
			if got != want || gotDone != wantDone {
				t.Fatalf("%q: PartialField = %q, %t; PartialString = %q, %t", s, got, gotDone, want, wantDone)
			}
		}
		for end := 0; end < len(input)+n; end += n {
			check(input[:min(end, len(input))])
		}
		check(input[:len(input)/2])
		check(input)
	})
}

// BenchmarkPartialField is BenchmarkPartialString through PartialField:
// each fragment decodes only what arrived.
func BenchmarkPartialField(b *testing.B) {
	args := benchArgs(b)
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for b.Loop() {
		p := llm.PartialField{Field: "message"}
		var e llm.TextExtractor
		for end := 10; end < len(args)+10; end += 10 {
			v, _ := p.Value(args[:min(end, len(args))])
			e.Feed(v)
		}
	}
}
