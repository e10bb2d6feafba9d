package javaapi

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/insightedge/insightedge/shared/javaapi/internal/jsonread"
)

// Decoding a Result takes most of a call's CPU (a 35-record submission list
// is about 13 KB), so it has a fast path: jsonread reads the Result and its
// data in one pass straight into the DTOs, with no reflection and with the
// strings sharing the body. encoding/json stays the reference: whenever the
// fast path stops (a broken or unexpected answer, or a rare form such as an
// escaped key) the body is decoded again with encoding/json, so errors and
// edge cases are exactly encoding/json's. A fast path that succeeds decodes
// what encoding/json would (decode_test.go checks both ways on every shape).

// resultOf is Result<T> (seed 004 §2.3) with its data decoded as T: the
// encoding/json form of the Result.
type resultOf[T any] struct {
	Code    *int   `json:"code"`
	Message string `json:"message"`
	Data    T      `json:"data"`
}

// decoder decodes a Result body, its data into the caller's value, and
// returns the Result's code and message.
type decoder func(body string) (code *int, msg string, err error)

// reader reads a value of type T from JSON.
type reader[T any] func(*T, *jsonread.Reader)

// listOf reads a list of T with elem.
func listOf[T any](elem reader[T]) reader[[]T] {
	return func(s *[]T, r *jsonread.Reader) { jsonread.Slice(r, s, elem) }
}

// fetch GETs path and decodes the Result and its data as T in one pass.
// mocked tells whether the mock data answered.
func fetch[T any](ctx context.Context, c *Client, path, what string, read reader[T]) (out T, mocked bool, err error) {
	mocked, err = c.get(ctx, path, what, func(body string) (*int, string, error) {
		return decodeResult(body, read, &out)
	})
	return out, mocked, err
}

// decodeResult decodes a Result body, its data into *out with read; if
// read stops, with encoding/json. Either way the outcome is encoding/json's.
func decodeResult[T any](body string, read reader[T], out *T) (*int, string, error) {
	var zero T
	*out = zero
	code, msg, err := readResult(body, func(r *jsonread.Reader) { read(out, r) })
	if err == nil {
		return code, msg, nil
	}
	var res resultOf[T]
	err = json.Unmarshal([]byte(body), &res)
	*out = res.Data
	return res.Code, res.Message, err
}

// fetchObjectOrArray is fetch for data that may come as an object (O) or
// as a bare array (A).
func fetchObjectOrArray[O, A any](ctx context.Context, c *Client, path, what string, readObj reader[O], readArr reader[A]) (obj O, arr A, mocked bool, err error) {
	mocked, err = c.get(ctx, path, what, func(body string) (*int, string, error) {
		return decodeObjectOrArray(body, readObj, readArr, &obj, &arr)
	})
	return obj, arr, mocked, err
}

// decodeObjectOrArray is decodeResult for data that may be an object, read
// into *obj, or an array, read into *arr.
func decodeObjectOrArray[O, A any](body string, readObj reader[O], readArr reader[A], obj *O, arr *A) (*int, string, error) {
	var (
		zeroO O
		zeroA A
	)
	*obj, *arr = zeroO, zeroA
	code, msg, err := readResult(body, readObjectOrArray(readObj, readArr, obj, arr))
	if err == nil {
		return code, msg, nil
	}
	*obj, *arr = zeroO, zeroA
	return unmarshalObjectOrArray([]byte(body), obj, arr)
}

// readObjectOrArray reads data that is an array into *arr, other data
// into *obj.
func readObjectOrArray[O, A any](readObj reader[O], readArr reader[A], obj *O, arr *A) func(*jsonread.Reader) {
	return func(r *jsonread.Reader) {
		if r.Peek() == '[' {
			readArr(arr, r)
		} else {
			readObj(obj, r)
		}
	}
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

// readResult reads a Result body with jsonread: code and message, and its
// data with readData. A Result with two "data" members is left to
// encoding/json (which decodes the second into the first).
func readResult(body string, readData func(*jsonread.Reader)) (code *int, msg string, err error) {
	r := jsonread.NewReader(body)
	seenData := false
	r.Object(func(key string) bool {
		switch key {
		case "code":
			if r.Null() {
				code = nil
				break
			}
			if code == nil {
				code = new(int)
			}
			r.Int(code)
		case "message":
			r.String(&msg)
		case "data":
			if seenData {
				r.Fail("data given twice (left to encoding/json)")
				break
			}
			seenData = true
			readData(r)
		default:
			return false
		}
		return true
	})
	r.End()
	return code, msg, r.Err()
}
