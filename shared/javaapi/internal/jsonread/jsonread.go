// Package jsonread reads a JSON text in one pass straight into the caller's
// values, without reflection and without copying strings: a string without
// escapes is a substring of the text it was read from.
//
// It exists for the data client's hot path, where encoding/json's two passes
// (validation, then reflective decoding) cost most of a call's CPU. The
// reader does not try to be a general decoder: the caller still owns the
// encoding/json decoding of the same values, and falls back to it whenever
// the reader stops. The reader therefore only has to be right when it
// succeeds, and it stops on anything encoding/json would reject and on every
// form it does not reproduce exactly (keys with escapes or outside ASCII, a
// list given twice), so a success always means "encoding/json would have
// decoded the same values".
package jsonread

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of values that Skip walks. Deeper text is
// left to encoding/json (whose own limit is 10000).
const maxDepth = 1000

// Reader reads one JSON text. The first problem stops it: every later call
// does nothing, and Err reports the problem.
type Reader struct {
	s   string
	i   int
	err error
}

// NewReader returns a reader of the JSON text s.
func NewReader(s string) *Reader { return &Reader{s: s} }

// Err returns the problem that stopped the reader, or nil.
func (r *Reader) Err() error { return r.err }

// Fail stops the reader with a problem found by the caller, such as a value
// of a shape it does not take.
func (r *Reader) Fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("jsonread: %s at offset %d", what, r.i)
	}
}

// End checks that nothing but white space follows the value read.
func (r *Reader) End() {
	if r.Peek(); r.err == nil && r.i < len(r.s) {
		r.Fail("text after the value")
	}
}

// Peek returns the first byte of the next value (white space skipped), or 0
// at the end of the text or after a problem (0 is no value's first byte).
func (r *Reader) Peek() byte {
	if r.err != nil {
		return 0
	}
	s, i := r.s, r.i
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r':
		default:
			r.i = i
			return c
		}
	}
	r.i = i
	return 0
}

// Null reads a null if one comes next and reports whether it did.
func (r *Reader) Null() bool {
	if r.Peek() == 'n' && strings.HasPrefix(r.s[r.i:], "null") {
		r.i += 4
		return true
	}
	return false
}

// Object reads an object, calling field for each member with its key;
// field reads the value and returns true, or returns false without reading
// for a key it does not know. Keys are matched as encoding/json matches
// them to struct fields: exactly, else without regard to case. For that,
// field must know its keys in lower case: a key it refuses is offered again
// in lower case. Unknown members are skipped. A null is read as an object
// without members.
func (r *Reader) Object(field func(key string) bool) { r.object(field, false) }

// object is Object; skipping says that the keys do not matter, so that
// escaped ones need not be left to encoding/json.
func (r *Reader) object(field func(key string) bool, skipping bool) {
	if r.Null() {
		return
	}
	if !r.consume('{') {
		r.Fail("not an object")
		return
	}
	if r.Peek() == '}' {
		r.i++
		return
	}
	// Every turn reads at least a key, so the text's length bounds the loop.
	for r.err == nil {
		key := r.key(skipping)
		if !r.consume(':') {
			r.Fail("no colon after a key")
			return
		}
		if r.err != nil {
			return
		}
		if !field(key) {
			r.unknown(key, field)
		}
		switch r.Peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return
		default:
			r.Fail("object not closed")
		}
	}
}

// key reads an object's key. Escaped keys, rare in practice, are left to
// encoding/json, whose unescaping and matching they would need, unless the
// value is being skipped.
func (r *Reader) key(skipping bool) string {
	if r.Peek() != '"' {
		r.Fail("no key")
		return ""
	}
	lit, escaped, _ := r.str()
	if r.err != nil {
		return ""
	}
	if escaped && !skipping {
		r.Fail("escaped key (left to encoding/json)")
		return ""
	}
	return lit[1 : len(lit)-1]
}

// unknown handles a key that field did not take exactly: a key in another
// case is offered again in lower case (the callers' keys are lower case);
// a key outside ASCII could fold onto an ASCII name in encoding/json's
// matching (the Kelvin sign onto "k"), so it is left to encoding/json.
func (r *Reader) unknown(key string, field func(string) bool) {
	upper := false
	for i := range len(key) {
		c := key[i]
		if c >= utf8.RuneSelf {
			r.Fail("key outside ASCII (left to encoding/json)")
			return
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	if upper && field(strings.ToLower(key)) {
		return
	}
	r.Skip()
}

// Array reads an array, calling elem to read each element. A null is read
// as an empty array; Slice tells the two apart.
func (r *Reader) Array(elem func()) {
	if r.Null() {
		return
	}
	if !r.consume('[') {
		r.Fail("not an array")
		return
	}
	if r.Peek() == ']' {
		r.i++
		return
	}
	// Every turn reads at least one value, so the text's length bounds the loop.
	for r.err == nil {
		start := r.i
		elem()
		if r.err == nil && r.i == start {
			r.Fail("element not read")
			return
		}
		switch r.Peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return
		default:
			r.Fail("array not closed")
		}
	}
}

// Slice reads an array into *s, each element with elem, as encoding/json
// decodes into a slice: null gives nil, [] an empty slice that is not nil.
// A slice that already has elements (the same key given twice) is left to
// encoding/json, which decodes into the old elements in place.
func Slice[T any](r *Reader, s *[]T, elem func(*T, *Reader)) {
	if r.Null() {
		*s = nil
		return
	}
	if cap(*s) > 0 {
		r.Fail("list given twice (left to encoding/json)")
		return
	}
	list := *s
	r.Array(func() {
		var zero T
		list = append(list, zero)
		elem(&list[len(list)-1], r)
	})
	if r.err != nil {
		return
	}
	if list == nil {
		list = []T{}
	}
	*s = list
}

// String reads a string into *p; a null leaves *p as it was.
func (r *Reader) String(p *string) {
	if r.Null() {
		return
	}
	if r.Peek() != '"' {
		r.Fail("not a string")
		return
	}
	lit, escaped, ascii := r.str()
	if r.err != nil {
		return
	}
	s := lit[1 : len(lit)-1]
	if !escaped && (ascii || utf8.ValidString(s)) {
		*p = s
		return
	}
	*p = unquote(s)
}

// unquote returns the string that the body s of a valid string literal
// stands for, as encoding/json unquotes it: escapes decoded, a lone or
// broken surrogate and each byte of invalid UTF-8 replaced by U+FFFD.
func unquote(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	// Every turn moves i forward, so the length of s bounds the loop.
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\':
			// str checked the escape, so s[i+1] and a \u's 4 digits exist.
			switch e := s[i+1]; e {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r := hex4(s[i+2 : i+6])
				i += 6
				if utf16.IsSurrogate(r) {
					if strings.HasPrefix(s[i:], "\\u") && len(s) >= i+6 {
						if pair := utf16.DecodeRune(r, hex4(s[i+2:i+6])); pair != utf8.RuneError {
							b.WriteRune(pair)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b.WriteRune(r)
				continue
			default: // '"', '\\', '/'
				b.WriteByte(e)
			}
			i += 2
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r) // utf8.RuneError for invalid bytes, one per byte
			i += size
		}
	}
	return b.String()
}

// hex4 returns the value of 4 hex digits (checked by str).
func hex4(s string) rune {
	var r rune
	for i := range 4 {
		c := rune(s[i])
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | c
	}
	return r
}

// Float reads a number into *p; a null leaves *p as it was.
func (r *Reader) Float(p *float64) {
	if r.Null() {
		return
	}
	lit := r.number()
	if r.err != nil {
		return
	}
	if n, ok := smallInt(lit); ok {
		*p = float64(n) // exact, as ParseFloat's result
		return
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		r.Fail("number out of range")
		return
	}
	*p = f
}

// Int reads an integer into *p; a null leaves *p as it was. A number with a
// fraction or an exponent is not an integer (as in encoding/json).
func (r *Reader) Int(p *int) {
	if r.Null() {
		return
	}
	lit := r.number()
	if r.err != nil {
		return
	}
	n, err := strconv.ParseInt(lit, 10, strconv.IntSize)
	if err != nil {
		r.Fail("not an integer")
		return
	}
	*p = int(n)
}

// smallInt returns the value of a number literal that is an integer of at
// most 15 digits (so exact as a float64), other than -0.
func smallInt(lit string) (int64, bool) {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || digits[0] == '0' && lit[0] == '-' {
		return 0, false
	}
	var n int64
	for i := range len(digits) {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if lit[0] == '-' {
		n = -n
	}
	return n, true
}

// Raw reads the next value, whatever it is, and returns its text.
func (r *Reader) Raw() string {
	r.Peek()
	start := r.i
	r.Skip()
	if r.err != nil {
		return ""
	}
	return r.s[start:r.i]
}

// Skip reads the next value, whatever it is, and drops it.
func (r *Reader) Skip() { r.skip(0) }

func (r *Reader) skip(depth int) {
	if depth > maxDepth {
		r.Fail("nested too deep (left to encoding/json)")
		return
	}
	switch c := r.Peek(); {
	case c == '{':
		r.object(func(string) bool { r.skip(depth + 1); return true }, true)
	case c == '[':
		r.Array(func() { r.skip(depth + 1) })
	case c == '"':
		r.str()
	case c == '-' || '0' <= c && c <= '9':
		r.number()
	case c == 't':
		r.word("true")
	case c == 'f':
		r.word("false")
	case c == 'n':
		r.word("null")
	default:
		r.Fail("no value")
	}
}

func (r *Reader) word(w string) {
	if !strings.HasPrefix(r.s[r.i:], w) {
		r.Fail("not a value")
		return
	}
	r.i += len(w)
}

// consume reads c if it comes next (white space skipped).
func (r *Reader) consume(c byte) bool {
	if r.Peek() != c || r.err != nil {
		return false
	}
	r.i++
	return true
}

// str reads a string literal, at r.i, and returns it with its quotes. It
// checks what encoding/json's scanner checks: no control characters, only
// the escapes of RFC 8259. It reports whether the string had escapes and
// whether it was all ASCII.
func (r *Reader) str() (lit string, escaped, ascii bool) {
	s, start := r.s, r.i
	ascii = true
	// Every turn moves i past a quote, so the text's length bounds the loop.
	for i := start + 1; ; {
		q := strings.IndexByte(s[i:], '"')
		if q < 0 {
			r.i = len(s)
			r.Fail("string not closed")
			return "", false, false
		}
		end := i + q
		for i < end {
			// Most bytes are plain: skip them 8 at a time, then one by one.
			for i+8 <= end && plain8(s[i:i+8]) {
				i += 8
			}
			for i < end && s[i]-0x20 < 0x60 && s[i] != '\\' { // 0x20 <= s[i] < 0x80
				i++
			}
			if i == end {
				break
			}
			switch c := s[i]; {
			case c == '\\':
				escaped = true
				n := escapeLen(s[i:])
				if n == 0 {
					r.i = i
					r.Fail("bad escape")
					return "", false, false
				}
				i += n // past end if the quote found was escaped
			case c < 0x20:
				r.i = i
				r.Fail("control character in a string")
				return "", false, false
			default: // c >= utf8.RuneSelf
				ascii = false
				i++
			}
		}
		if i == end {
			r.i = end + 1
			return s[start:r.i], escaped, ascii
		}
	}
}

// plain8 reports whether the 8 bytes of b are all plain in a string
// without its closing quote: ASCII, not a control character, not '\\'. It
// tests them at once, in a uint64 (the bit tricks "has a byte less than n"
// and "has a zero byte").
func plain8(b string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	backslash := x ^ ones*'\\'
	return (x|(x-ones*0x20)&^x|(backslash-ones)&^backslash)&highs == 0
}

// escapeLen returns the length of the escape at the start of s, or 0 if
// it is not one of RFC 8259's.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(s) >= 6 && isHex(s[2]) && isHex(s[3]) && isHex(s[4]) && isHex(s[5]) {
			return 6
		}
	}
	return 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number reads a number literal (RFC 8259 grammar) and returns its text.
func (r *Reader) number() string {
	c := r.Peek()
	if c != '-' && (c < '0' || c > '9') {
		r.Fail("not a number")
		return ""
	}
	s, start, i := r.s, r.i, r.i
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		r.i = i
		r.Fail("bad number")
		return ""
	}
	if i < len(s) && s[i] == '.' {
		if i+1 >= len(s) || s[i+1] < '0' || s[i+1] > '9' {
			r.i = i
			r.Fail("bad fraction")
			return ""
		}
		i = digits(s, i+1)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			r.i = i
			r.Fail("bad exponent")
			return ""
		}
		i = digits(s, i)
	}
	r.i = i
	return s[start:i]
}

// digits returns the index after the run of digits that starts at i.
func digits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}
