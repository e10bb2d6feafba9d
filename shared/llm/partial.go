package llm

import (
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file reads fields out of a JSON object while it is still arriving, as the
// arguments of a tool call do: FinalResult.message is streamed as text while
// the final_result arguments stream in, and quiz questions are emitted one by one
// while the quiz JSON streams.
//
// The scanner is tolerant: it reads as far as the text is well formed and
// complete, and treats the rest as "not arrived yet". Only top-level members are
// considered; a member with the same key inside a nested object never matches.
// As encoding/json does, the last occurrence of a duplicated key wins, and
// strings decode the same way (invalid UTF-8 and lone surrogates become U+FFFD).

// PartialString returns the decoded value so far of the top-level string field
// of a partial JSON object: for `{"status":"answer_ready","message":"Hel` and
// "message" it returns "Hel", false. It never returns part of an escape
// sequence, of a surrogate pair or of a UTF-8 sequence, so that successive
// values grow by whole characters. done is true once the closing quote arrived.
// A missing field, or one whose value is not a string, yields "", false.
func PartialString(partialJSON, field string) (value string, done bool) {
	i := lastMember(partialJSON, field)
	if i < 0 || partialJSON[i] != '"' {
		return "", false
	}
	value, _, done = unquote(partialJSON, i)
	return value, done
}

// PartialField is PartialString for a text that grows by appending, as the
// arguments of a streamed tool call do: each call decodes only what arrived
// since the last one, where PartialString decodes the whole value again
// (quadratic over an answer). The value it returns shares its bytes with the
// previous one, so that TextExtractor's prefix check is a pointer
// comparison. A text that does not extend the previous one (a repeated
// call) starts it afresh; so does every text once the value is complete (a
// later member may name the field again). The zero value with Field set is
// ready to use; FuzzPartialField holds it to PartialString.
type PartialField struct {
	Field string

	src  string          // the text of the last call
	at   bool            // the value is located; decoding resumes at pos
	pos  int             // offset in src of the next byte to decode
	val  strings.Builder // the value decoded so far
	done bool
}

// Value returns what PartialString(partialJSON, p.Field) returns.
func (p *PartialField) Value(partialJSON string) (value string, done bool) {
	s := partialJSON
	extends := len(s) >= len(p.src) && s[:len(p.src)] == p.src
	if !extends || !p.at || p.done {
		p.at, p.done, p.val = false, false, strings.Builder{}
		p.src = s
		i := lastMember(s, p.Field)
		if i < 0 || s[i] != '"' {
			return "", false
		}
		p.at, p.pos = true, i+1
	}
	p.src = s
	p.pos, p.done = decodeMore(&p.val, s, p.pos)
	return p.val.String(), p.done
}

// decodeMore decodes the JSON string s from offset j (inside the string)
// into b, as unquote does, up to the closing quote (done) or to the end of
// what has arrived whole; it returns the offset to resume at.
func decodeMore(b *strings.Builder, s string, j int) (next int, done bool) {
	run := j // start of the pending run of literal bytes
	for j < len(s) {
		c := s[j]
		switch {
		case c == '"':
			b.WriteString(s[run:j])
			return j + 1, true
		case c == '\\':
			r, n, complete := unescape(s[j:])
			if !complete {
				b.WriteString(s[run:j])
				return j, false
			}
			b.WriteString(s[run:j])
			b.WriteRune(r)
			j += n
			run = j
		case c < utf8.RuneSelf:
			j++
		default:
			r, n := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && n == 1 {
				if !utf8.FullRuneInString(s[j:]) {
					b.WriteString(s[run:j])
					return j, false // the rest of the character has not arrived
				}
				b.WriteString(s[run:j])
				b.WriteRune(utf8.RuneError)
				run = j + 1
			}
			j += n
		}
	}
	b.WriteString(s[run:j])
	return j, false
}

// CompleteItems returns the complete elements so far of the top-level array
// field of a partial JSON object, each as raw JSON, ignoring an incomplete
// trailing element. A missing field, or one that is not an array, yields nil.
func CompleteItems(partialJSON, field string) []json.RawMessage {
	s := partialJSON
	i := lastMember(s, field)
	if i < 0 || s[i] != '[' {
		return nil
	}
	var items []json.RawMessage
	for i++; ; {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] == ']' {
			return items
		}
		end, ok := skipValue(s, i)
		if !ok || !json.Valid([]byte(s[i:end])) {
			return items
		}
		items = append(items, json.RawMessage(s[i:end]))
		i = skipSpace(s, end)
		if i >= len(s) || s[i] != ',' {
			return items
		}
		i++
	}
}

// TextExtractor turns successive values of a streamed string field into
// deltas, with the startswith protection of seed 000 §7.3.3: a value that
// extends what was sent yields the new suffix; any other value yields nothing.
//
// Unlike the seed's loop, which rebases on a rewritten value and goes on
// sending its suffixes (the client would show the old text followed by the
// tail of the new one), the base stays what was sent. So a value that falls
// behind (a call repeated after ErrInterrupted starts again from "") sends
// nothing until it passes the sent text, and nothing is ever sent twice; a
// value that diverges (the model rewrote the field) sends nothing, and the
// caller, which sees at the end that Sent is not the final value, shows the
// final value in full (agent.modelRound.finishText). The zero value is ready
// to use.
type TextExtractor struct {
	sent string
}

// Feed takes the current value of the field and returns the delta to send,
// possibly "".
func (e *TextExtractor) Feed(current string) (delta string) {
	switch {
	case len(current) > len(e.sent) && strings.HasPrefix(current, e.sent):
		delta = current[len(e.sent):]
		e.sent = current
		return delta
	}
	return ""
}

// Sent returns the text sent so far: the concatenation of the deltas.
func (e *TextExtractor) Sent() string { return e.sent }

// lastMember returns the offset in s of the value of the last top-level member
// named field seen so far, or -1.
func lastMember(s, field string) int {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return -1
	}
	found := -1
	for i++; ; {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			return found // the end so far, '}', or not JSON
		}
		key, end, done := unquote(s, i)
		if !done {
			return found
		}
		i = skipSpace(s, end)
		if i >= len(s) || s[i] != ':' {
			return found
		}
		i = skipSpace(s, i+1)
		if i >= len(s) {
			return found
		}
		if key == field {
			found = i
		}
		end, ok := skipValue(s, i)
		if !ok {
			return found
		}
		i = skipSpace(s, end)
		if i >= len(s) || s[i] != ',' {
			return found
		}
		i++
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the offset just after the complete value starting at s[i],
// or ok=false when it is cut by the end of s (or not a value). A number or a
// literal is complete only once a character after it arrived.
func skipValue(s string, i int) (end int, ok bool) {
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				end, ok := skipString(s, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	case ',', ':', '}', ']':
		return 0, false
	}
	for j := i; j < len(s); j++ {
		switch s[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j, true
		}
	}
	return 0, false
}

// skipString returns the offset just after the closing quote of the string
// starting at s[i].
func skipString(s string, i int) (end int, ok bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// unquote decodes the JSON string starting at s[i] == '"'. It returns the
// decoded text so far, the offset after the closing quote, and whether the
// closing quote was reached. It stops before anything cut by the end of s.
func unquote(s string, i int) (value string, end int, done bool) {
	var b []byte // nil while the value is a plain substring of s
	start := i + 1
	run := start // start of the pending run of literal bytes
	flush := func(j int) {
		if b == nil {
			b = make([]byte, 0, len(s)-start)
		}
		b = append(b, s[run:j]...)
	}
	result := func(j int) string {
		if b == nil {
			return s[start:j]
		}
		flush(j)
		return string(b)
	}
	for j := start; j < len(s); {
		c := s[j]
		switch {
		case c == '"':
			return result(j), j + 1, true
		case c == '\\':
			r, n, complete := unescape(s[j:])
			if !complete {
				return result(j), 0, false
			}
			flush(j)
			b = utf8.AppendRune(b, r)
			j += n
			run = j
		case c < utf8.RuneSelf:
			j++
		default:
			r, n := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && n == 1 {
				if !utf8.FullRuneInString(s[j:]) {
					return result(j), 0, false // the rest of the character has not arrived
				}
				flush(j)
				b = utf8.AppendRune(b, utf8.RuneError)
				run = j + 1
			}
			j += n
		}
	}
	return result(len(s)), 0, false
}

// unescape decodes the escape sequence at the start of s (s[0] == '\\') the way
// encoding/json does. complete is false when the sequence is cut by the end of
// s, or invalid (then the string cannot go on).
func unescape(s string) (r rune, n int, complete bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	switch s[1] {
	case '"', '\\', '/', '\'':
		return rune(s[1]), 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
	default:
		return 0, 0, false
	}
	r1, ok := hex4(s[2:])
	if !ok {
		return 0, 0, false
	}
	if !utf16.IsSurrogate(r1) {
		return r1, 6, true
	}
	// A surrogate needs the next escape to decide: a valid pair is one
	// character, anything else makes this one U+FFFD.
	rest := s[6:]
	if len(rest) < 6 && mayBeUnicodeEscape(rest) {
		return 0, 0, false
	}
	if len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
		if r2, ok := hex4(rest[2:]); ok {
			if pair := utf16.DecodeRune(r1, r2); pair != utf8.RuneError {
				return pair, 12, true
			}
		}
	}
	return utf8.RuneError, 6, true
}

// hex4 decodes four hex digits at the start of s; ok is false if s is shorter
// or not hex.
func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// mayBeUnicodeEscape reports whether s (shorter than 6 bytes) is a prefix of
// some \uXXXX escape.
func mayBeUnicodeEscape(s string) bool {
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch k {
		case 0:
			if c != '\\' {
				return false
			}
		case 1:
			if c != 'u' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// StripFence removes the Markdown code fence (```json … ```) that some
// models put around a JSON answer even in JSON mode.
func StripFence(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(s, "```")
	}
	return strings.TrimSpace(s)
}
