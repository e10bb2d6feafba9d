package asl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"strconv"
)

// Values flowing through an execution are the generic JSON tree: nil, bool,
// string, json.Number, []any and map[string]any. Numbers stay json.Number so
// that integers round-trip exactly, as they do in Step Functions.
//
// Trees are never mutated in place once built: templates, intrinsics and
// ResultPath build new nodes (copying only along the path they change), so the
// same input may be shared by concurrent Map iterations without copying it.

// decodeJSON parses exactly one JSON value.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// encodeJSON encodes v compactly, without escaping <, > and & (Step Functions
// does not escape them either): see appendJSON.
func encodeJSON(v any) ([]byte, error) { return appendJSON(nil, v) }

// jsonString renders v for error causes; it never fails.
func jsonString(v any) string {
	b, err := encodeJSON(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const limit = 512 // keeps error causes readable
	if len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}

// number returns v as a float64 when v is a JSON number.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil {
		return 0, false
	}
	return f, true
}

// integer returns v as an int64 when v is a JSON number with an integral value.
func integer(v any) (int64, bool) {
	f, ok := number(v)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

func intNumber(i int64) json.Number { return json.Number(strconv.FormatInt(i, 10)) }

// typeName names the JSON type of v for error causes.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// equalJSON compares two JSON values; numbers compare by value.
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		fa, ok1 := number(a)
		fb, ok2 := number(b)
		return ok1 && ok2 && fa == fb
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !equalJSON(va, vb) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// cloneObject returns a shallow copy of m, never nil.
func cloneObject(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return maps.Clone(m)
}
