package asl

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/insightedge/insightedge/shared/protocol"
)

// appendJSON appends v's JSON to b: the bytes encoding/json's Encoder
// writes with SetEscapeHTML(false), compact, object members in key order,
// without its reflection over the generic tree. Every state's output is
// encoded (its size is checked) and every task's input, so this is a
// turn's most frequent work here (issue 29 item 3). A leaf that is not of
// the generic tree (value.go), and a number encoding/json would refuse or
// rewrite, goes through encoding/json itself.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case string:
		return protocol.AppendJSONString(b, v), nil
	case json.Number:
		if validNumber(string(v)) {
			return append(b, v...), nil
		}
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // not slices.Sorted(maps.Keys(v)): that allocates three times as often here
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(protocol.AppendJSONString(b, k), ':')
			var err error
			if b, err = appendJSON(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, x); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// validNumber reports whether s is one JSON number literal, as
// encoding/json requires of a json.Number: a valid JSON document that
// starts with '-' or a digit and ends with a digit is exactly one.
func validNumber(s string) bool {
	return s != "" && (s[0] == '-' || isDigit(s[0])) && isDigit(s[len(s)-1]) && json.Valid([]byte(s))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
