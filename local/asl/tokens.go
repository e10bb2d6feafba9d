package asl

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"
)

// Tokens are the task tokens of ".waitForTaskToken" tasks: the local
// stand-in for Step Functions' SendTaskSuccess and SendTaskFailure. A task
// whose Resource ends in ".waitForTaskToken" gets a fresh token as
// $$.Task.Token, calls its handler (which passes the token on), and then
// waits, within its TimeoutSeconds, until the token is sent back. One Tokens
// may serve any number of executions.
type Tokens struct {
	mu      sync.Mutex
	waiting map[string]chan tokenResult
}

type tokenResult struct {
	output json.RawMessage
	err    error
}

// ErrInvalidToken is returned for a token no task is waiting on (unknown,
// already answered, or its task ended), as Step Functions' TaskTimedOut /
// InvalidToken errors.
var ErrInvalidToken = errors.New("asl: no task is waiting on this token")

// NewTokens returns an empty registry.
func NewTokens() *Tokens { return &Tokens{waiting: map[string]chan tokenResult{}} }

func (t *Tokens) issue() (string, chan tokenResult) {
	tok := uuid.NewString()
	ch := make(chan tokenResult, 1)
	t.mu.Lock()
	t.waiting[tok] = ch
	t.mu.Unlock()
	return tok, ch
}

func (t *Tokens) forget(tok string) {
	t.mu.Lock()
	delete(t.waiting, tok)
	t.mu.Unlock()
}

func (t *Tokens) send(tok string, r tokenResult) error {
	t.mu.Lock()
	ch, ok := t.waiting[tok]
	delete(t.waiting, tok)
	t.mu.Unlock()
	if !ok {
		return ErrInvalidToken
	}
	ch <- r
	return nil
}

// SendTaskSuccess ends the waiting task with output as its result.
func (t *Tokens) SendTaskSuccess(tok string, output json.RawMessage) error {
	if !json.Valid(output) {
		return fmt.Errorf("asl: SendTaskSuccess: output is not JSON")
	}
	return t.send(tok, tokenResult{output: output})
}

// SendTaskFailure fails the waiting task with error name errName.
func (t *Tokens) SendTaskFailure(tok, errName, cause string) error {
	return t.send(tok, tokenResult{err: &tokenFailure{name: errName, cause: cause}})
}

// Waiting reports how many tasks wait on a token.
func (t *Tokens) Waiting() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.waiting)
}

type tokenFailure struct{ name, cause string }

func (e *tokenFailure) Error() string     { return e.cause }
func (e *tokenFailure) ErrorName() string { return e.name }
