package javaapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// Decoding a Result takes most of a call's CPU (a 35-record submission list
// is about 13 KB), so it has a fast path: github.com/goccy/go-json, a
// drop-in replacement for encoding/json, decodes the Result into the same
// DTOs (their json tags and UnmarshalJSON methods). encoding/json stays the
// reference: whenever the fast path does not take a body, it is decoded
// again with encoding/json, so errors and edge cases are exactly
// encoding/json's. decode_test.go checks, on every endpoint's data type,
// that the outcome is the same either way.
//
// The fast path takes only bodies on which go-json decodes as encoding/json
// does (acceptable); decode_test.go has an example of each kind left out.
// go-json alone differs:
//   - it accepts what encoding/json rejects: it skips unknown members
//     without checking them (`"x":1.2.3`, `"x":"\q"`, `{"a" 1}`), and takes
//     numbers such as `01` or `1.` and raw control characters in strings;
//     and malformed escapes in keys can make it read past its buffer and
//     panic (goccy/go-json issues #575, #577 and #604, open for v0.10.5);
//   - it keeps invalid UTF-8 where encoding/json puts U+FFFD;
//   - an integer of 19 digits above math.MaxInt64 wraps around in an int
//     instead of failing;
//   - it matches keys to fields ignoring ASCII case only, where
//     encoding/json also folds ſ (U+017F) to s and K (U+212A) to k.
//
// The first is the costly check: json.Valid, encoding/json's own scanner,
// so that it accepts exactly what the reference accepts. On the 13 KB
// submission list it costs about as much as go-json's decoding (≈ 30 µs
// each), the other checks ≈ 1 µs together; all of it is half of
// encoding/json's ≈ 120 µs. Faster validators (tidwall/gjson's,
// valyala/fastjson's: ≈ 12 µs) were left out: each would be one more
// library whose acceptance must be shown to stay within encoding/json's,
// and gjson's recursion has no depth bound.

// resultOf is Result<T> (seed 004 §2.3) with its data decoded as T.
type resultOf[T any] struct {
	Code    *int   `json:"code"`
	Message string `json:"message"`
	Data    T      `json:"data"`
}

// decoder decodes a Result body, its data into the caller's value, and
// returns the Result's code and message. body is valid only during the
// call: what the decoders keep, they copy.
type decoder func(body []byte) (code *int, msg string, err error)

// fetch GETs path and decodes the Result and its data as T.
// mocked tells whether the mock data answered.
func fetch[T any](ctx context.Context, c *Client, path, what string) (out T, mocked bool, err error) {
	mocked, err = c.get(ctx, path, what, func(body []byte) (*int, string, error) {
		return decodeResult(body, &out)
	})
	return out, mocked, err
}

// decodeResult decodes a Result body, its data into *out, with the fast
// path if it takes the body, else with encoding/json.
func decodeResult[T any](body []byte, out *T) (*int, string, error) {
	var res resultOf[T]
	if fastResult(body, &res) {
		*out = res.Data
		return res.Code, res.Message, nil
	}
	res = resultOf[T]{}
	err := json.Unmarshal(body, &res)
	*out = res.Data
	return res.Code, res.Message, err
}

// fastResult decodes body into *res with go-json if it is acceptable, and
// reports whether it did. If not, *res is undefined.
func fastResult[T any](body []byte, res *resultOf[T]) bool {
	return acceptable(body) && gojson.Unmarshal(body, res) == nil
}

// acceptable reports whether go-json decodes body as encoding/json does:
// valid JSON in valid UTF-8, with no integer that go-json would wrap and no
// key that only Unicode case folding matches (see the top of this file).
// The cheap checks come first.
func acceptable(body []byte) bool {
	return utf8.Valid(body) && !hasUnicodeFold(body) && !hasIntAboveMaxInt64(body) && json.Valid(body)
}

// hasUnicodeFold reports whether b holds ſ or K, raw or escaped (\u017x,
// \u212x): the runes that encoding/json, and not go-json, folds to an
// ASCII letter when it matches keys to fields.
func hasUnicodeFold(b []byte) bool {
	return bytes.Contains(b, []byte("\u017f")) || // ſ
		bytes.Contains(b, []byte("\u212a")) || // K
		bytes.Contains(b, []byte(`\u017`)) || // escaped, hex in either case
		bytes.Contains(b, []byte(`\u212`))
}

// maxInt64 is math.MaxInt64 in decimal.
const maxInt64 = "9223372036854775807"

// hasIntAboveMaxInt64 reports whether b has a run of exactly 19 digits
// above maxInt64: go-json decodes such an integer into an int wrapped
// around (longer ones it refuses). A run may be part of a string or a
// fraction as well; that only leaves the body to encoding/json.
func hasIntAboveMaxInt64(b []byte) bool {
	const n = len(maxInt64)
	// A run of n digits or more covers one of every n positions: only
	// those are looked at, then the run around a digit found there. Each
	// turn moves i forward, so len(b) bounds the loop.
	for i := n - 1; i < len(b); i += n {
		if !isDigit(b[i]) {
			continue
		}
		lo, hi := i, i+1
		for lo > 0 && isDigit(b[lo-1]) {
			lo--
		}
		for hi < len(b) && isDigit(b[hi]) {
			hi++
		}
		if hi-lo == n && string(b[lo:hi]) > maxInt64 {
			return true
		}
		i = hi - 1 // a later run starts after hi: the next probe is in it
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// fetchObjectOrArray is fetch for data that may come as an object (O) or
// as a bare array (A).
func fetchObjectOrArray[O, A any](ctx context.Context, c *Client, path, what string) (obj O, arr A, mocked bool, err error) {
	mocked, err = c.get(ctx, path, what, func(body []byte) (*int, string, error) {
		return decodeObjectOrArray(body, &obj, &arr)
	})
	return obj, arr, mocked, err
}

// decodeObjectOrArray is decodeResult for data that may be an object,
// decoded into *obj, or an array, decoded into *arr.
func decodeObjectOrArray[O, A any](body []byte, obj *O, arr *A) (*int, string, error) {
	if code, msg, ok := fastObjectOrArray(body, obj, arr); ok {
		return code, msg, nil
	}
	var (
		zeroO O
		zeroA A
	)
	*obj, *arr = zeroO, zeroA
	return unmarshalObjectOrArray(body, obj, arr)
}

// fastObjectOrArray is the fast path of decodeObjectOrArray: the object
// form, else the array form, with go-json. The two forms differ only in
// their data, so if the object form fails and the array form decodes, the
// data is an array, which is when encoding/json takes the array form too
// (or null, which leaves both forms' data zero). ok reports whether the
// fast path took the body; if not, *obj and *arr are undefined.
func fastObjectOrArray[O, A any](body []byte, obj *O, arr *A) (code *int, msg string, ok bool) {
	if !acceptable(body) {
		return nil, "", false
	}
	var ro resultOf[O]
	if gojson.Unmarshal(body, &ro) == nil {
		*obj = ro.Data
		return ro.Code, ro.Message, true
	}
	var ra resultOf[A]
	if gojson.Unmarshal(body, &ra) == nil {
		*arr = ra.Data
		return ra.Code, ra.Message, true
	}
	return nil, "", false
}

// unmarshalObjectOrArray is the encoding/json form of fetchObjectOrArray's
// decoding: the object form first; only an answer whose data is an array
// is decoded a second time.
func unmarshalObjectOrArray[O, A any](body []byte, obj *O, arr *A) (*int, string, error) {
	var r resultOf[O]
	err := json.Unmarshal(body, &r)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Value == "array" && te.Field == "data" {
		var ra resultOf[A]
		err = json.Unmarshal(body, &ra)
		*arr = ra.Data
		return ra.Code, ra.Message, err
	}
	*obj = r.Data
	return r.Code, r.Message, err
}
