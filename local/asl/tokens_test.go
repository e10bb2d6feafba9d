package asl

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

const tokenResource = "arn:aws:states:::lambda:invoke.waitForTaskToken"

// tokenMachine is Ask (waits for its token) → Done, with a catcher for
// "Declined" and a timeout of timeout seconds.
func tokenMachine(t *testing.T, timeout int) *Machine {
	return machineOf(t, "Ask", map[string]any{
		"Ask": obj(t, `{"Type":"Task","Resource":"`+tokenResource+`",
			"Parameters":{"FunctionName":"confirm","Payload":{"session.$":"$.session","token.$":"$$.Task.Token"}},
			"TimeoutSeconds":`+itoa(timeout)+`,"ResultPath":"$.answer",
			"Catch":[{"ErrorEquals":["Declined"],"ResultPath":"$.error","Next":"Done"}],"Next":"Done"}`),
		"Done": obj(t, `{"Type":"Succeed"}`),
	})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// asker hands each token it is called with to a channel, as the confirm
// step hands it to the client.
func asker(tokens chan<- string) Handler {
	return func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
		var p struct {
			FunctionName string
			Payload      struct{ Session, Token string }
		}
		if err := json.Unmarshal(in, &p); err != nil || p.FunctionName != "confirm" || p.Payload.Token == "" {
			return nil, errors.New("bad input " + string(in))
		}
		tokens <- p.Payload.Token
		return json.RawMessage(`{"ignored":true}`), nil
	}
}

func runAsync(m *Machine, ctx context.Context, input string, o Options) <-chan struct {
	out json.RawMessage
	err error
} {
	done := make(chan struct {
		out json.RawMessage
		err error
	}, 1)
	go func() {
		out, err := m.Run(ctx, json.RawMessage(input), o)
		done <- struct {
			out json.RawMessage
			err error
		}{out, err}
	}()
	return done
}

func TestTaskTokenSuccess(t *testing.T) {
	m := tokenMachine(t, 10)
	toks := NewTokens()
	got := make(chan string, 1)
	done := runAsync(m, context.Background(), `{"session":"s-1"}`, Options{Handlers: map[string]Handler{tokenResource: asker(got)}, Tokens: toks})
	tok := <-got
	if toks.Waiting() != 1 {
		t.Fatalf("waiting %d", toks.Waiting())
	}
	if err := toks.SendTaskSuccess(tok, json.RawMessage(`{"confirmed":true}`)); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	assertJSON(t, "output", r.out, `{"session":"s-1","answer":{"confirmed":true}}`)
	if err := toks.SendTaskSuccess(tok, json.RawMessage(`{}`)); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("second send: %v", err)
	}
	if toks.Waiting() != 0 {
		t.Errorf("token kept after the task ended")
	}
}

func TestTaskTokenFailureIsCatchable(t *testing.T) {
	m := tokenMachine(t, 10)
	toks := NewTokens()
	got := make(chan string, 1)
	done := runAsync(m, context.Background(), `{"session":"s"}`, Options{Handlers: map[string]Handler{tokenResource: asker(got)}, Tokens: toks})
	if err := toks.SendTaskFailure(<-got, "Declined", "the user said no"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	assertJSON(t, "output", r.out, `{"session":"s","error":{"Error":"Declined","Cause":"the user said no"}}`)
}

func TestTaskTokenTimeout(t *testing.T) {
	m := tokenMachine(t, 1)
	toks := NewTokens()
	got := make(chan string, 1)
	start := time.Now()
	_, err := m.Run(context.Background(), json.RawMessage(`{"session":"s"}`), Options{Handlers: map[string]Handler{tokenResource: asker(got)}, Tokens: toks})
	if ee := execErr(t, err); ee.Name != StatesTimeout || ee.State != "Ask" {
		t.Fatalf("error %+v", ee)
	}
	if time.Since(start) < time.Second {
		t.Errorf("did not wait for the timeout")
	}
	if err := toks.SendTaskSuccess(<-got, json.RawMessage(`{}`)); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("late answer: %v", err)
	}
}

func TestTaskTokenCancel(t *testing.T) {
	m := tokenMachine(t, 60)
	toks := NewTokens()
	got := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := runAsync(m, ctx, `{"session":"s"}`, Options{Handlers: map[string]Handler{tokenResource: asker(got)}, Tokens: toks})
	<-got
	cancel()
	if r := <-done; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("err %v", r.err)
	}
	if toks.Waiting() != 0 {
		t.Errorf("a stopped execution left its token")
	}
}

func TestTaskTokenNeedsTokens(t *testing.T) {
	m := tokenMachine(t, 10)
	got := make(chan string, 1)
	_, err := m.Run(context.Background(), json.RawMessage(`{}`), Options{Handlers: map[string]Handler{tokenResource: asker(got)}})
	if ee := execErr(t, err); ee.Name != StatesRuntime {
		t.Fatalf("error %+v", ee)
	}
}

func TestTaskTokenBadOutput(t *testing.T) {
	if err := NewTokens().SendTaskSuccess("x", json.RawMessage(`{`)); err == nil || errors.Is(err, ErrInvalidToken) {
		t.Fatalf("err %v", err)
	}
}
