package asl

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// An intrinsic call, e.g. States.Format('{} of {}', $.a, States.ArrayLength($.b)),
// is parsed once when the definition is parsed: unknown functions, wrong
// argument counts and syntax errors are definition errors. Failures while
// evaluating (wrong argument types, an index out of bounds, a path that does
// not resolve) are States.Runtime errors, as in Step Functions.

// maxIntrinsicDepth is Step Functions' limit on nested intrinsic calls.
const maxIntrinsicDepth = 10

type intrinsicCall struct {
	raw  string
	name string
	fn   *intrinsicFunc
	args []intrinsicArg
	// formatParts is set when the function is States.Format and its template
	// is a literal: the text around the {} placeholders, escapes resolved.
	formatParts []string
}

type intrinsicArg struct {
	lit  any // a literal (string, number or boolean) when path and call are nil
	path *refPath
	call *intrinsicCall
	// rawStr is a string literal's text with its escapes kept (for States.Format).
	rawStr string
	isStr  bool
}

type intrinsicFunc struct {
	minArgs, maxArgs int // maxArgs < 0: any number
	fn               func(args []any) (any, error)
}

// intrinsics returns the function table. It is built on demand rather than
// kept in a package variable (no package-level mutable state).
func intrinsics(name string) (*intrinsicFunc, bool) {
	var f intrinsicFunc
	switch name {
	case "States.Format":
		f = intrinsicFunc{1, -1, nil} // evaluated by the call, see eval
	case "States.StringToJson":
		f = intrinsicFunc{1, 1, fnStringToJSON}
	case "States.JsonToString":
		f = intrinsicFunc{1, 1, fnJSONToString}
	case "States.Array":
		f = intrinsicFunc{0, -1, func(a []any) (any, error) { return slices.Clone(a), nil }}
	case "States.ArrayPartition":
		f = intrinsicFunc{2, 2, fnArrayPartition}
	case "States.ArrayContains":
		f = intrinsicFunc{2, 2, fnArrayContains}
	case "States.ArrayRange":
		f = intrinsicFunc{3, 3, fnArrayRange}
	case "States.ArrayGetItem":
		f = intrinsicFunc{2, 2, fnArrayGetItem}
	case "States.ArrayLength":
		f = intrinsicFunc{1, 1, fnArrayLength}
	case "States.ArrayUnique":
		f = intrinsicFunc{1, 1, fnArrayUnique}
	case "States.Base64Encode":
		f = intrinsicFunc{1, 1, fnBase64Encode}
	case "States.Base64Decode":
		f = intrinsicFunc{1, 1, fnBase64Decode}
	case "States.Hash":
		f = intrinsicFunc{2, 2, fnHash}
	case "States.JsonMerge":
		f = intrinsicFunc{3, 3, fnJSONMerge}
	case "States.MathRandom":
		f = intrinsicFunc{2, 3, fnMathRandom}
	case "States.MathAdd":
		f = intrinsicFunc{2, 2, fnMathAdd}
	case "States.StringSplit":
		f = intrinsicFunc{2, 2, fnStringSplit}
	case "States.UUID":
		f = intrinsicFunc{0, 0, func([]any) (any, error) { return uuid.NewString(), nil }}
	default:
		return nil, false
	}
	return &f, true
}

// isIntrinsic reports whether a ".$" value is an intrinsic call rather than a path.
func isIntrinsic(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "States.") }

// parseIntrinsic parses one intrinsic call.
func parseIntrinsic(s string) (*intrinsicCall, error) {
	p := &intrinsicParser{s: s}
	p.skipSpace()
	c, err := p.call(1)
	if err != nil {
		return nil, fmt.Errorf("intrinsic %q: %w", s, err)
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return nil, fmt.Errorf("intrinsic %q: unexpected %q after the call", s, p.s[p.pos:])
	}
	return c, nil
}

type intrinsicParser struct {
	s   string
	pos int
}

func (p *intrinsicParser) skipSpace() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *intrinsicParser) call(depth int) (*intrinsicCall, error) {
	if depth > maxIntrinsicDepth {
		return nil, fmt.Errorf("more than %d nested intrinsic functions", maxIntrinsicDepth)
	}
	start := p.pos
	for p.pos < len(p.s) && (isIdentByte(p.s[p.pos]) || p.s[p.pos] == '.') {
		p.pos++
	}
	name := p.s[start:p.pos]
	fn, ok := intrinsics(name)
	if !ok {
		return nil, fmt.Errorf("unknown intrinsic function %q", name)
	}
	c := &intrinsicCall{name: name, fn: fn}
	p.skipSpace()
	if p.pos >= len(p.s) || p.s[p.pos] != '(' {
		return nil, fmt.Errorf("expected ( after %s", name)
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == ')' {
		p.pos++
	} else {
		for {
			p.skipSpace()
			a, err := p.arg(depth)
			if err != nil {
				return nil, err
			}
			c.args = append(c.args, a)
			p.skipSpace()
			if p.pos >= len(p.s) {
				return nil, fmt.Errorf("unterminated argument list of %s", name)
			}
			if p.s[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.s[p.pos] == ')' {
				p.pos++
				break
			}
			return nil, fmt.Errorf("unexpected %q in the arguments of %s", p.s[p.pos], name)
		}
	}
	c.raw = p.s[start:p.pos]
	if len(c.args) < fn.minArgs || (fn.maxArgs >= 0 && len(c.args) > fn.maxArgs) {
		return nil, fmt.Errorf("%s takes %s, got %d", name, arity(fn), len(c.args))
	}
	if name == "States.Format" {
		first := c.args[0]
		switch {
		case first.isStr:
			c.formatParts = splitFormat(first.rawStr, true)
			if n := len(c.formatParts) - 1; n != len(c.args)-1 {
				return nil, fmt.Errorf("States.Format template has %d {} placeholders but %d arguments follow it", n, len(c.args)-1)
			}
		case first.path == nil && first.call == nil:
			return nil, errors.New("the first argument of States.Format must be a string")
		}
	}
	return c, nil
}

func arity(f *intrinsicFunc) string {
	switch {
	case f.maxArgs < 0:
		return fmt.Sprintf("at least %d arguments", f.minArgs)
	case f.minArgs == f.maxArgs:
		return fmt.Sprintf("%d arguments", f.minArgs)
	default:
		return fmt.Sprintf("%d to %d arguments", f.minArgs, f.maxArgs)
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (p *intrinsicParser) arg(depth int) (intrinsicArg, error) {
	if p.pos >= len(p.s) {
		return intrinsicArg{}, errors.New("missing argument")
	}
	rest := p.s[p.pos:]
	switch c := rest[0]; {
	case c == '\'':
		raw, val, n, err := scanString(rest)
		if err != nil {
			return intrinsicArg{}, err
		}
		p.pos += n
		return intrinsicArg{lit: val, rawStr: raw, isStr: true}, nil
	case c == '$':
		n := scanPath(rest)
		path, err := parsePath(rest[:n])
		if err != nil {
			return intrinsicArg{}, err
		}
		p.pos += n
		return intrinsicArg{path: path}, nil
	case c == '-' || c >= '0' && c <= '9':
		n := 0
		for n < len(rest) && strings.IndexByte("+-.eE0123456789", rest[n]) >= 0 {
			n++
		}
		if _, err := strconv.ParseFloat(rest[:n], 64); err != nil || !json.Valid([]byte(rest[:n])) {
			return intrinsicArg{}, fmt.Errorf("invalid number %q", rest[:n])
		}
		p.pos += n
		return intrinsicArg{lit: json.Number(rest[:n])}, nil
	case strings.HasPrefix(rest, "true") && !followsIdent(rest, 4):
		p.pos += 4
		return intrinsicArg{lit: true}, nil
	case strings.HasPrefix(rest, "false") && !followsIdent(rest, 5):
		p.pos += 5
		return intrinsicArg{lit: false}, nil
	case strings.HasPrefix(rest, "States."):
		c, err := p.call(depth + 1)
		if err != nil {
			return intrinsicArg{}, err
		}
		return intrinsicArg{call: c}, nil
	default:
		return intrinsicArg{}, fmt.Errorf("unexpected argument %q (arguments are 'strings', numbers, true, false, paths and intrinsic calls)", rest)
	}
}

func followsIdent(s string, n int) bool { return n < len(s) && isIdentByte(s[n]) }

// scanString reads a single-quoted string literal at the start of s. Inside
// it, a backslash escapes the next character (\' \{ \} \\), and \uXXXX is a
// code point. It returns the raw text between the quotes, the value and the
// bytes consumed.
func scanString(s string) (raw, val string, n int, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 >= len(s) {
				return "", "", 0, errors.New("unterminated string literal")
			}
			if s[i+1] == 'u' && i+5 < len(s) {
				if r, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += 5
					continue
				}
			}
			i++
			b.WriteByte(s[i])
		case '\'':
			return s[1:i], b.String(), i + 1, nil
		default:
			b.WriteByte(c)
		}
	}
	return "", "", 0, errors.New("unterminated string literal")
}

// scanPath returns the length of the path at the start of s: up to a comma,
// a closing parenthesis or a space outside brackets and quotes.
func scanPath(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case depth > 0 && (c == '\'' || c == '"'):
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0 && (c == ',' || c == ')' || c == ' ' || c == '\t' || c == '\n'):
			return i
		}
	}
	return len(s)
}

// splitFormat splits a States.Format template at its {} placeholders. For a
// literal (escaped = true) \{ and \} are literal braces and other escapes are
// resolved; a template taken from the input has no escapes.
func splitFormat(s string, escaped bool) []string {
	var parts []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped && c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '{' && i+1 < len(s) && s[i+1] == '}':
			parts = append(parts, b.String())
			b.Reset()
			i++
		default:
			b.WriteByte(c)
		}
	}
	return append(parts, b.String())
}

// eval evaluates the call against the state's input and the context object.
func (c *intrinsicCall) eval(in, ctxObj any) (any, error) {
	args := make([]any, len(c.args))
	for i, a := range c.args {
		switch {
		case a.path != nil:
			v, ok := a.path.get(in, ctxObj)
			if !ok {
				return nil, runtimeError("the function %s: the JSONPath %s could not be found in the input %s", c.raw, a.path, jsonString(in))
			}
			args[i] = v
		case a.call != nil:
			v, err := a.call.eval(in, ctxObj)
			if err != nil {
				return nil, err
			}
			args[i] = v
		default:
			args[i] = a.lit
		}
	}
	var v any
	var err error
	if c.name == "States.Format" {
		v, err = c.format(args)
	} else {
		v, err = c.fn.fn(args)
	}
	if err != nil {
		return nil, runtimeError("the function %s had the following error: %v", c.raw, err)
	}
	return v, nil
}

func (c *intrinsicCall) format(args []any) (any, error) {
	parts := c.formatParts
	if parts == nil {
		tmpl, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("the template must be a string, got %s", typeName(args[0]))
		}
		parts = splitFormat(tmpl, false)
		if n := len(parts) - 1; n != len(args)-1 {
			return nil, fmt.Errorf("the template has %d {} placeholders but %d arguments follow it", n, len(args)-1)
		}
	}
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(p)
		if i+1 < len(parts) {
			b.WriteString(formatValue(args[i+1]))
		}
	}
	return b.String(), nil
}

// formatValue renders a States.Format argument: strings as they are, numbers,
// booleans and null as JSON, arrays and objects the way the Java service
// renders them ([a, b] and {k=v}).
func formatValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + formatValue(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return jsonString(v)
	}
}

func argString(v any, what string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string, got %s", what, typeName(v))
	}
	return s, nil
}

func argArray(v any, what string) ([]any, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s must be an array, got %s", what, typeName(v))
	}
	return a, nil
}

func argInt(v any, what string) (int64, error) {
	i, ok := integer(v)
	if !ok {
		return 0, fmt.Errorf("%s must be an integer, got %s", what, jsonString(v))
	}
	return i, nil
}

func fnStringToJSON(a []any) (any, error) {
	s, err := argString(a[0], "the argument")
	if err != nil {
		return nil, err
	}
	v, err := decodeJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("the argument is not valid JSON: %w", err)
	}
	return v, nil
}

func fnJSONToString(a []any) (any, error) {
	b, err := encodeJSON(a[0])
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func fnArrayPartition(a []any) (any, error) {
	arr, err := argArray(a[0], "the first argument")
	if err != nil {
		return nil, err
	}
	size, err := argInt(a[1], "the chunk size")
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, fmt.Errorf("the chunk size must be positive, got %d", size)
	}
	out := []any{}
	for chunk := range slices.Chunk(arr, int(size)) {
		out = append(out, slices.Clone(chunk))
	}
	return out, nil
}

func fnArrayContains(a []any) (any, error) {
	arr, err := argArray(a[0], "the first argument")
	if err != nil {
		return nil, err
	}
	return slices.ContainsFunc(arr, func(v any) bool { return equalJSON(v, a[1]) }), nil
}

// maxArrayRange is Step Functions' limit on the elements States.ArrayRange makes.
const maxArrayRange = 1000

func fnArrayRange(a []any) (any, error) {
	var n [3]int64
	for i, what := range []string{"the first value", "the last value", "the step"} {
		v, err := argInt(a[i], what)
		if err != nil {
			return nil, err
		}
		n[i] = v
	}
	first, last, step := n[0], n[1], n[2]
	if step == 0 {
		return nil, errors.New("the step must not be 0")
	}
	out := []any{}
	for v := first; step > 0 && v <= last || step < 0 && v >= last; v += step {
		if len(out) == maxArrayRange {
			return nil, fmt.Errorf("the range has more than %d elements", maxArrayRange)
		}
		out = append(out, intNumber(v))
	}
	return out, nil
}

func fnArrayGetItem(a []any) (any, error) {
	arr, err := argArray(a[0], "the first argument")
	if err != nil {
		return nil, err
	}
	i, err := argInt(a[1], "the index")
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(len(arr)) {
		return nil, fmt.Errorf("the index %d is out of bounds for an array of %d elements", i, len(arr))
	}
	return arr[i], nil
}

func fnArrayLength(a []any) (any, error) {
	arr, err := argArray(a[0], "the argument")
	if err != nil {
		return nil, err
	}
	return intNumber(int64(len(arr))), nil
}

func fnArrayUnique(a []any) (any, error) {
	arr, err := argArray(a[0], "the argument")
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, v := range arr {
		if !slices.ContainsFunc(out, func(u any) bool { return equalJSON(u, v) }) {
			out = append(out, v)
		}
	}
	return out, nil
}

// maxEncodingInput is Step Functions' limit on the input of the base64 and hash functions.
const maxEncodingInput = 10000

func fnBase64Encode(a []any) (any, error) {
	s, err := argString(a[0], "the argument")
	if err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(s) > maxEncodingInput {
		return nil, fmt.Errorf("the input is longer than %d characters", maxEncodingInput)
	}
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
}

func fnBase64Decode(a []any) (any, error) {
	s, err := argString(a[0], "the argument")
	if err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(s) > maxEncodingInput {
		return nil, fmt.Errorf("the input is longer than %d characters", maxEncodingInput)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("the input is not base64: %w", err)
	}
	return string(b), nil
}

func fnHash(a []any) (any, error) {
	s, err := argString(a[0], "the data")
	if err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(s) > maxEncodingInput {
		return nil, fmt.Errorf("the data is longer than %d characters", maxEncodingInput)
	}
	alg, err := argString(a[1], "the algorithm")
	if err != nil {
		return nil, err
	}
	var h hash.Hash
	switch alg {
	case "MD5":
		h = md5.New()
	case "SHA-1":
		h = sha1.New()
	case "SHA-256":
		h = sha256.New()
	case "SHA-384":
		h = sha512.New384()
	case "SHA-512":
		h = sha512.New()
	default:
		return nil, fmt.Errorf("unsupported hash algorithm %q (MD5, SHA-1, SHA-256, SHA-384, SHA-512)", alg)
	}
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fnJSONMerge(a []any) (any, error) {
	x, ok1 := a[0].(map[string]any)
	y, ok2 := a[1].(map[string]any)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("both arguments must be objects, got %s and %s", typeName(a[0]), typeName(a[1]))
	}
	if deep, ok := a[2].(bool); !ok || deep {
		return nil, errors.New("only a shallow merge (false) is supported")
	}
	out := cloneObject(x)
	for k, v := range y {
		out[k] = v
	}
	return out, nil
}

func fnMathRandom(a []any) (any, error) {
	start, err := argInt(a[0], "the start")
	if err != nil {
		return nil, err
	}
	end, err := argInt(a[1], "the end")
	if err != nil {
		return nil, err
	}
	if end <= start {
		return nil, fmt.Errorf("the end (%d) must be greater than the start (%d)", end, start)
	}
	r := rand.Int64N
	if len(a) == 3 {
		seed, err := argInt(a[2], "the seed")
		if err != nil {
			return nil, err
		}
		r = rand.New(rand.NewPCG(uint64(seed), uint64(seed))).Int64N
	}
	return intNumber(start + r(end-start)), nil
}

// fnMathAdd adds two integers in the 32-bit range; non-integral values are
// rounded the way Java's Math.round does, as Step Functions does.
func fnMathAdd(a []any) (any, error) {
	var sum int64
	for i, what := range []string{"the value", "the step"} {
		f, ok := number(a[i])
		if !ok {
			return nil, fmt.Errorf("%s must be a number, got %s", what, jsonString(a[i]))
		}
		n := math.Floor(f + 0.5)
		if n < math.MinInt32 || n > math.MaxInt32 {
			return nil, fmt.Errorf("%s %s is outside the range of a 32-bit integer", what, jsonString(a[i]))
		}
		sum += int64(n)
	}
	return intNumber(sum), nil
}

// fnStringSplit splits at any of the delimiter's characters and drops empty
// parts, as Step Functions does ("a.b+c" with ".+" gives a, b, c).
func fnStringSplit(a []any) (any, error) {
	s, err := argString(a[0], "the string")
	if err != nil {
		return nil, err
	}
	delims, err := argString(a[1], "the delimiter")
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(delims, r) }) {
		out = append(out, f)
	}
	return out, nil
}
