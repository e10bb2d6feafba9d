// Package apperr carries the error codes of seed 004 §3.2 through the code base.
// Errors are created where the cause is known and turned into an HTTP status or
// a stream error only at the edge.
package apperr

import (
	"errors"
	"fmt"
	"net/http"
)

// Code is one of the error codes shared by frontend, orchestrator and data service.
type Code string

// The codes of seed 004 §3.2, plus CONFLICT for a second concurrent status change.
const (
	DataError          Code = "DATA_ERROR"
	AuthError          Code = "AUTH_ERROR"
	ServiceUnavailable Code = "SERVICE_UNAVAILABLE"
	ValidationError    Code = "VALIDATION_ERROR"
	EntityNotFound     Code = "ENTITY_NOT_FOUND"
	AIError            Code = "AI_ERROR"
	BlueprintError     Code = "BLUEPRINT_ERROR"
	Conflict           Code = "CONFLICT"
	Internal           Code = "INTERNAL_ERROR"
	// RateLimited (issue 26): a teacher's or school's fair-use limit is
	// reached; HTTP 429 with Retry-After.
	RateLimited Code = "RATE_LIMITED"
)

// codes lists every Code, for Parse.
var codes = []Code{DataError, AuthError, ServiceUnavailable, ValidationError, EntityNotFound, AIError, BlueprintError, Conflict, Internal, RateLimited}

// Parse returns the Code named s.
func Parse(s string) (Code, bool) {
	for _, c := range codes {
		if string(c) == s {
			return c, true
		}
	}
	return "", false
}

// Error is an error with a code, a message fit for a user, and optional details.
type Error struct {
	Code    Code
	Message string
	Details any
	// Status overrides the code's default HTTP status (AUTH_ERROR is 401 or 403).
	Status int
	Err    error
}

// New returns an error with code and message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code and message that wraps err.
func Wrap(err error, code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// WithDetails sets details and returns e.
func (e *Error) WithDetails(d any) *Error { e.Details = d; return e }

// WithStatus sets the HTTP status and returns e.
func (e *Error) WithStatus(s int) *Error { e.Status = s; return e }

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// HTTPStatus is the status the edge answers with.
func (e *Error) HTTPStatus() int {
	if e.Status != 0 {
		return e.Status
	}
	switch e.Code {
	case ValidationError:
		return http.StatusBadRequest
	case AuthError:
		return http.StatusForbidden
	case EntityNotFound:
		return http.StatusNotFound
	case DataError, AIError:
		return http.StatusBadGateway
	case ServiceUnavailable:
		return http.StatusServiceUnavailable
	case BlueprintError:
		return http.StatusUnprocessableEntity
	case Conflict:
		return http.StatusConflict
	case RateLimited:
		return http.StatusTooManyRequests
	default:
		return http.StatusInternalServerError
	}
}

// As returns the *Error in err's chain, or an INTERNAL_ERROR that hides err.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "internal error", Err: err}
}

// CodeOf returns the code of the *Error in err's chain, or "".
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Body is the JSON error body: {"error": {"code", "message", "details"?}}.
type Body struct {
	Error BodyError `json:"error"`
}

// BodyError is the inner object of Body.
type BodyError struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// ToBody converts e to its JSON body.
func (e *Error) ToBody() Body {
	return Body{Error: BodyError{Code: e.Code, Message: e.Message, Details: e.Details}}
}
