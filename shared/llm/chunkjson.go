package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeChunk decodes one chat.completion.chunk into c, as
// json.Unmarshal(data, c) would: the same input accepted, the same result
// (FuzzDecodeChunk holds it to that), but in one pass that allocates only
// the strings it keeps. encoding/json checks the whole input, then decodes
// it reflectively, allocating for its error context along the way: at a
// few hundred chunks per answer that was most of the client's cost per
// chunk. Fields the assembler does not read are validated and skipped.
//
// Like json.Unmarshal, it decodes into c as it is (a field absent from
// data keeps its value); the caller zeroes c first.
//
// Why not github.com/goccy/go-json (in go.mod, used by shared/javaapi):
// alone it is 0.6 µs slower per chunk, and it accepts what encoding/json
// rejects (malformed numbers and escapes, raw control characters), keeps
// invalid UTF-8 and can panic on a malformed key; made to accept what
// encoding/json accepts (json.Valid first) it costs 2.6 µs per text chunk
// against 0.6 µs here, and 10% of the server's CPU at 50 streams instead
// of 3% (docs/benchmarks.md, "Relay batching and the chunk decoder").
func decodeChunk(data []byte, c *streamChunk) error {
	d := jdec{b: data}
	d.ws()
	if d.literal("null") {
		return d.end()
	}
	if err := d.object(func(key []byte) error {
		switch {
		case fieldIs(key, "choices"):
			return d.choices(&c.Choices)
		case fieldIs(key, "usage"):
			// Once per answer, and a nested type of go-openai's: its own decoder.
			start := d.i
			if err := d.skip(0); err != nil {
				return err
			}
			return json.Unmarshal(d.b[start:d.i], &c.Usage)
		}
		return d.skip(0)
	}); err != nil {
		return err
	}
	return d.end()
}

var errChunkSyntax = errors.New("llm: malformed chunk JSON")

// errChunkType is a value of the wrong type for its field.
var errChunkType = errors.New("llm: chunk field of the wrong type")

// maxDepth is encoding/json's bound on nesting.
const maxDepth = 10000

// jdec is a cursor over one JSON text.
type jdec struct {
	b []byte
	i int
}

func (d *jdec) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// end accepts only trailing whitespace.
func (d *jdec) end() error {
	d.ws()
	if d.i != len(d.b) {
		return errChunkSyntax
	}
	return nil
}

// literal consumes word (null, true, false) if it is next.
func (d *jdec) literal(word string) bool {
	if bytes.HasPrefix(d.b[d.i:], []byte(word)) {
		d.i += len(word)
		return true
	}
	return false
}

func (d *jdec) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// object reads an object, calling field with each (unquoted) key with the
// cursor on its value; field must consume the value.
func (d *jdec) object(field func(key []byte) error) error {
	d.ws()
	if d.peek() != '{' {
		return errChunkType
	}
	d.i++
	d.ws()
	if d.peek() == '}' {
		d.i++
		return nil
	}
	for {
		d.ws()
		raw, escaped, err := d.stringToken()
		if err != nil {
			return err
		}
		key := raw
		if escaped {
			key = unquoteChunk(raw)
		}
		d.ws()
		if d.peek() != ':' {
			return errChunkSyntax
		}
		d.i++
		d.ws()
		if err := field(key); err != nil {
			return err
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return errChunkSyntax
		}
	}
}

// array reads an array, calling elem with the cursor on each element.
func (d *jdec) array(elem func(i int) error) error {
	if d.peek() != '[' {
		return errChunkType
	}
	d.i++
	d.ws()
	if d.peek() == ']' {
		d.i++
		return nil
	}
	for i := 0; ; i++ {
		d.ws()
		if err := elem(i); err != nil {
			return err
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return errChunkSyntax
		}
	}
}

// fieldIs matches a key to a field name as encoding/json does: exactly, or
// else case-insensitively (Unicode simple folding).
func fieldIs(key []byte, name string) bool {
	if string(key) == name {
		return true
	}
	// Folding keeps an ASCII key's length: only a key of the name's length,
	// or one with other characters (ſ folds to s, K to k), can match.
	return (len(key) == len(name) || !isASCII(key)) && bytes.EqualFold(key, []byte(name))
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// grow returns the slice one element longer, reusing (not zeroing) an
// element within its capacity, as encoding/json does.
func grow[T any](s []T) []T {
	if len(s) < cap(s) {
		return s[:len(s)+1]
	}
	var zero T
	return append(s, zero)
}

// nullable consumes null and reports whether it did (a null leaves a
// field as it is, except slices and pointers, which it sets to nil).
func (d *jdec) nullable() bool {
	if d.peek() == 'n' {
		return d.literal("null")
	}
	return false
}

// decodeSlice decodes an array into *s as encoding/json does: null sets
// it to nil, [] to a new empty slice; the elements reuse (without zeroing)
// those within the capacity, a null element is left as it is, and elem
// decodes the others.
func decodeSlice[T any](d *jdec, s *[]T, elem func(*T) error) error {
	if d.nullable() {
		*s = nil
		return nil
	}
	if d.peek() != '[' {
		return d.mismatch()
	}
	*s = (*s)[:0]
	err := d.array(func(int) error {
		*s = grow(*s)
		if d.nullable() {
			return nil
		}
		return elem(&(*s)[len(*s)-1])
	})
	if len(*s) == 0 {
		*s = []T{} // as encoding/json: a new empty slice
	}
	return err
}

func (d *jdec) choices(cs *[]streamChoice) error {
	return decodeSlice(d, cs, func(ch *streamChoice) error {
		return d.object(func(key []byte) error {
			switch {
			case fieldIs(key, "index"):
				return d.intInto(&ch.Index)
			case fieldIs(key, "delta"):
				return d.delta(&ch.Delta)
			case fieldIs(key, "finish_reason"):
				return d.stringInto(&ch.FinishReason)
			}
			return d.skip(0)
		})
	})
}

func (d *jdec) delta(dl *streamDelta) error {
	if d.nullable() {
		return nil
	}
	return d.object(func(key []byte) error {
		switch {
		case fieldIs(key, "content"):
			return d.stringInto(&dl.Content)
		case fieldIs(key, "refusal"):
			return d.stringInto(&dl.Refusal)
		case fieldIs(key, "reasoning_content"):
			return d.stringInto(&dl.ReasoningContent)
		case fieldIs(key, "tool_calls"):
			return d.toolCalls(&dl.ToolCalls)
		}
		return d.skip(0)
	})
}

func (d *jdec) toolCalls(tcs *[]streamToolCall) error {
	return decodeSlice(d, tcs, func(tc *streamToolCall) error {
		return d.object(func(key []byte) error {
			switch {
			case fieldIs(key, "index"):
				if d.nullable() {
					tc.Index = nil
					return nil
				}
				if tc.Index == nil {
					tc.Index = new(int)
				}
				return d.intInto(tc.Index)
			case fieldIs(key, "id"):
				return d.stringInto(&tc.ID)
			case fieldIs(key, "type"):
				return d.stringInto(&tc.Type)
			case fieldIs(key, "function"):
				if d.nullable() {
					return nil
				}
				return d.object(func(key []byte) error {
					switch {
					case fieldIs(key, "name"):
						return d.stringInto(&tc.Function.Name)
					case fieldIs(key, "arguments"):
						return d.stringInto(&tc.Function.Arguments)
					}
					return d.skip(0)
				})
			}
			return d.skip(0)
		})
	})
}

// mismatch skips a valid value of the wrong type and reports it (an
// invalid one is a syntax error, as in encoding/json).
func (d *jdec) mismatch() error {
	if err := d.skip(0); err != nil {
		return err
	}
	return errChunkType
}

func (d *jdec) stringInto(s *string) error {
	if d.nullable() {
		return nil
	}
	if d.peek() != '"' {
		return d.mismatch()
	}
	raw, escaped, err := d.stringToken()
	if err != nil {
		return err
	}
	if escaped {
		*s = string(unquoteChunk(raw))
	} else {
		*s = string(raw)
	}
	return nil
}

func (d *jdec) intInto(n *int) error {
	if d.nullable() {
		return nil
	}
	start := d.i
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		return d.mismatch()
	}
	if err := d.number(); err != nil {
		return err
	}
	v, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 0)
	if err != nil {
		return errChunkType // a fraction, an exponent or out of range
	}
	*n = int(v)
	return nil
}

// stringToken reads a string and returns its bytes between the quotes and
// whether they need unquoting (escapes or invalid UTF-8).
func (d *jdec) stringToken() ([]byte, bool, error) {
	if d.peek() != '"' {
		return nil, false, errChunkSyntax
	}
	d.i++
	start := d.i
	escaped := false
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, escaped, nil
		case c == '\\':
			escaped = true
			d.i++
			if d.i >= len(d.b) {
				return nil, false, errChunkSyntax
			}
			switch d.b[d.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i++
			case 'u':
				if d.i+5 > len(d.b) || !isHex4(d.b[d.i+1:d.i+5]) {
					return nil, false, errChunkSyntax
				}
				d.i += 5
			default:
				return nil, false, errChunkSyntax
			}
		case c < ' ':
			return nil, false, errChunkSyntax
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && size == 1 {
				escaped = true // replaced by U+FFFD when unquoted
			}
			d.i += size
		}
	}
	return nil, false, errChunkSyntax
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number reads a number as JSON's grammar has it.
func (d *jdec) number() error {
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.peek() == '-' {
		d.i++
	}
	switch c := d.peek(); {
	case c == '0':
		d.i++
	case c >= '1' && c <= '9':
		digits()
	default:
		return errChunkSyntax
	}
	if d.peek() == '.' {
		d.i++
		if digits() == 0 {
			return errChunkSyntax
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.i++
		if c := d.peek(); c == '+' || c == '-' {
			d.i++
		}
		if digits() == 0 {
			return errChunkSyntax
		}
	}
	return nil
}

// skip validates and passes over one value.
func (d *jdec) skip(depth int) error {
	if depth >= maxDepth {
		return errChunkSyntax
	}
	switch c := d.peek(); {
	case c == '{':
		return d.object(func([]byte) error { return d.skip(depth + 1) })
	case c == '[':
		return d.array(func(int) error { return d.skip(depth + 1) })
	case c == '"':
		_, _, err := d.stringToken()
		return err
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case d.literal("true"), d.literal("false"), d.literal("null"):
		return nil
	}
	return errChunkSyntax
}

// unquoteChunk decodes the bytes of a string between its quotes (already
// validated by stringToken) as encoding/json does: escapes, surrogate pairs,
// and U+FFFD for a lone surrogate or a byte that is not UTF-8.
func unquoteChunk(s []byte) []byte {
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := hexRune(s[r+1 : r+5])
				r += 5
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' && isHex4(s[r+2:r+6]) {
						if dec := utf16.DecodeRune(rr, hexRune(s[r+2:r+6])); dec != unicode.ReplacementChar {
							b = utf8.AppendRune(b, dec)
							r += 6
							continue
						}
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // " \ /
				b = append(b, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return b
}

func hexRune(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
