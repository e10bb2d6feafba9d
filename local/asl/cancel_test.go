package asl

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
)

// blockUntilCancelled is a handler that signals started and returns only
// when its context is done.
func blockUntilCancelled(started chan<- struct{}, running *atomic.Int32) Handler {
	return func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		running.Add(1)
		defer running.Add(-1)
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

func TestCancellation(t *testing.T) {
	tests := []struct {
		name    string
		def     string
		input   string
		started int // handlers to wait for before cancelling
	}{
		{
			name: "while a task runs; its Catch does not see the cancellation",
			def: `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true,
				"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Caught"}]},"Caught":{"Type":"Succeed"}}}`,
			input:   `{}`,
			started: 1,
		},
		{
			name: "while Map iterations run",
			def: `{"StartAt":"M","States":{"M":{"Type":"Map","MaxConcurrency":3,"End":true,
				"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Caught"}],
				"ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}},"Caught":{"Type":"Succeed"}}}`,
			input:   `[1,2,3,4,5]`,
			started: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, tt.def)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started := make(chan struct{})
			var running atomic.Int32
			rec := newRecorder()
			errc := make(chan error, 1)
			go func() {
				_, err := m.Run(ctx, json.RawMessage(tt.input), Options{
					Handlers: map[string]Handler{"fn": blockUntilCancelled(started, &running)}, OnTransition: rec.onTransition,
				})
				errc <- err
			}()
			for range tt.started {
				<-started
			}
			cancel()
			err := <-errc
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			var ee *ExecutionError
			if errors.As(err, &ee) {
				t.Errorf("a cancelled execution returned an ExecutionError %v", ee)
			}
			if n := running.Load(); n != 0 {
				t.Errorf("%d handlers still running after Run returned", n)
			}
			for _, s := range rec.visited() {
				if s == "Caught" {
					t.Errorf("the cancellation was caught: visited %v", rec.visited())
				}
			}
		})
	}
}

// TestCancellationDuringRetryWait uses the default Sleep with a one-hour
// interval: Run returns as soon as the context is cancelled.
func TestCancellationDuringRetryWait(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true,
		"Retry":[{"ErrorEquals":["States.ALL"],"IntervalSeconds":3600}]}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	failed := make(chan struct{}, 1)
	h := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		failed <- struct{}{}
		return nil, errors.New("fails")
	}
	errc := make(chan error, 1)
	go func() {
		_, err := m.Run(ctx, nil, Options{Handlers: map[string]Handler{"fn": h}})
		errc <- err
	}()
	<-failed
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestCancelledBeforeRun(t *testing.T) {
	m := mustParse(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	_, err := m.Run(ctx, nil, Options{Handlers: map[string]Handler{"fn": func(context.Context, json.RawMessage) (json.RawMessage, error) {
		called = true
		return nil, nil
	}}})
	if !errors.Is(err, context.Canceled) || called {
		t.Errorf("err = %v, handler called %v", err, called)
	}
}
