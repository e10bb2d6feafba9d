package control

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/report"
)

// SignedState is what user.request_state exports: enough to resume the
// session on another connection, even if the store forgot it.
type SignedState struct {
	SessionID   string               `json:"sid"`
	TeacherID   string               `json:"tid"`
	Status      string               `json:"status"`
	Message     report.Message       `json:"message"`
	Language    string               `json:"lang,omitempty"`
	PlanSummary string               `json:"plan_summary,omitempty"`
	Tasks       []report.SectionTask `json:"tasks,omitempty"`
	TaskState   map[int]string       `json:"task_state,omitempty"`
	// After is the last event seq of the session's log when the state was
	// made: a reconnect relays the events after it.
	After     int64 `json:"after"`
	ExpiresAt int64 `json:"exp"`
}

// State errors.
var (
	ErrStateInvalid = errors.New("control: the state is invalid or was altered")
	ErrStateExpired = errors.New("control: the state has expired")
)

// sign encodes st as base64url(JSON) "." base64url(HMAC-SHA256).
func sign(secret []byte, st SignedState) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	body := base64.RawURLEncoding.EncodeToString(b)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(body))
	return body + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// verify checks the signature first, then the expiry.
func verify(secret []byte, s string, now time.Time) (SignedState, error) {
	var st SignedState
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return st, ErrStateInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return st, ErrStateInvalid
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(body))
	if !hmac.Equal(got, m.Sum(nil)) {
		return st, ErrStateInvalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return st, ErrStateInvalid
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("%w: %v", ErrStateInvalid, err)
	}
	if now.Unix() >= st.ExpiresAt {
		return st, ErrStateExpired
	}
	return st, nil
}
