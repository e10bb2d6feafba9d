package asl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/clock"
)

// maxInlineConcurrency is how many iterations an inline Map runs at once when
// MaxConcurrency is 0 (unlimited) or larger: Step Functions' inline Map runs
// at most 40 iterations concurrently.
const maxInlineConcurrency = 40

// waitForTaskToken is the Resource suffix of a task that waits for its token.
const waitForTaskToken = ".waitForTaskToken"

// execution is the state of one Run.
type execution struct {
	opts           Options
	log            *slog.Logger
	sleep          func(context.Context, time.Duration) error
	id             string
	execCtx        map[string]any // $$.Execution
	machineCtx     map[string]any // $$.StateMachine
	transitions    atomic.Int64
	maxTransitions int64
}

func newExecution(m *Machine, input any, o Options) *execution {
	x := &execution{opts: o, log: o.Logger, sleep: o.Sleep, id: o.ExecutionID, maxTransitions: int64(o.MaxTransitions)}
	if x.log == nil {
		x.log = slog.New(slog.DiscardHandler)
	}
	if x.sleep == nil {
		x.sleep = clock.Sleep
	}
	if x.maxTransitions <= 0 {
		x.maxTransitions = DefaultMaxTransitions
	}
	smID := o.StateMachineID
	if smID == "" {
		smID = "arn:local:stateMachine:local"
	}
	smName := smID[strings.LastIndexByte(smID, ':')+1:]
	if x.id == "" {
		x.id = "arn:local:execution:" + smName + ":" + uuid.NewString()
	}
	x.execCtx = map[string]any{
		"Id":        x.id,
		"Name":      x.id[strings.LastIndexByte(x.id, ':')+1:],
		"Input":     input,
		"StartTime": timestampNow(),
	}
	x.machineCtx = map[string]any{"Id": smID, "Name": smName}
	return x
}

func timestampNow() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// contextObject is $$ for one attempt of one state.
func (x *execution) contextObject(state, entered string, retryCount int) map[string]any {
	return map[string]any{
		"Execution":    x.execCtx,
		"StateMachine": x.machineCtx,
		"State":        map[string]any{"Name": state, "EnteredTime": entered, "RetryCount": intNumber(int64(retryCount))},
	}
}

// runMachine runs a machine (the top level, a Map iteration or a Parallel
// branch) from its StartAt until a terminal state. It returns the output, a
// *stateError when the machine fails, or a context error.
func (x *execution) runMachine(ctx context.Context, md *machineDef, input any) (any, error) {
	name, cur := md.startAt, input
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if n := x.transitions.Add(1); n > x.maxTransitions {
			return nil, &stateError{name: StatesRuntime, state: name, terminal: true,
				cause: fmt.Sprintf("the execution exceeded %d state transitions (Step Functions' history limit); a loop in the workflow has no bound", x.maxTransitions)}
		}
		s := md.states[name]
		x.log.Debug("asl: state entered", "executionId", x.id, "state", name, "type", s.typ)
		if x.opts.OnTransition != nil {
			x.opts.OnTransition(name, s.typ)
		}
		out, next, err := x.runState(ctx, s, cur)
		if err != nil {
			var se *stateError
			if errors.As(err, &se) && se.state == "" {
				se.state = name
			}
			return nil, err
		}
		if next == "" {
			return out, nil
		}
		name, cur = next, out
	}
}

// runState runs one state on its raw input and returns its output and the
// next state ("" when the state ends the machine).
func (x *execution) runState(ctx context.Context, s *stateDef, raw any) (any, string, error) {
	entered := timestampNow()
	if s.typ == "Task" || s.typ == "Map" || s.typ == "Parallel" {
		return x.withRetry(ctx, s, raw, entered)
	}
	ctxObj := x.contextObject(s.name, entered, 0)
	eff, err := s.inputPath.input(raw, ctxObj)
	if err != nil {
		return nil, "", err
	}
	var out any
	next := s.next
	switch s.typ {
	case "Pass":
		out, err = x.pass(s, raw, eff, ctxObj)
	case "Choice":
		next, err = choose(s, eff, ctxObj)
		out = eff
	case "Wait":
		err = x.wait(ctx, s, eff, ctxObj)
		out = eff
	case "Succeed":
		out = eff
	case "Fail":
		return nil, "", fail(s, raw, ctxObj)
	}
	if err != nil {
		return nil, "", err
	}
	if s.typ != "Pass" {
		out, err = s.outputPath.output(out, ctxObj)
	}
	return out, next, err
}

// withRetry runs a Task, Map or Parallel state, applying its retriers and
// catchers to the errors it raises. Each retrier counts its own attempts;
// the first retrier whose ErrorEquals matches decides, and once it is
// exhausted the catchers are tried in order.
func (x *execution) withRetry(ctx context.Context, s *stateDef, raw any, entered string) (any, string, error) {
	counts := make([]int64, len(s.retry))
	for attempt := 0; ; attempt++ { // bounded: each retry spends one of a retrier's MaxAttempts
		ctxObj := x.contextObject(s.name, entered, attempt)
		var out any
		var err error
		switch s.typ {
		case "Task":
			out, err = x.task(ctx, s, raw, ctxObj)
		case "Map":
			out, err = x.mapState(ctx, s, raw, ctxObj)
		case "Parallel":
			out, err = x.parallel(ctx, s, raw, ctxObj)
		}
		if err == nil {
			return out, s.next, nil
		}
		var se *stateError
		if ctx.Err() != nil || !errors.As(err, &se) {
			return nil, "", err
		}
		if i := retrierFor(s.retry, se); i >= 0 && counts[i] < s.retry[i].maxAttempts {
			d := s.retry[i].delay(counts[i], rand.Float64)
			counts[i]++
			x.log.Warn("asl: retrying state", "executionId", x.id, "state", s.name, "error", se.name,
				"cause", se.cause, "retry", counts[i], "maxAttempts", s.retry[i].maxAttempts, "delay", d)
			if err := x.sleep(ctx, d); err != nil {
				return nil, "", err
			}
			continue
		}
		for _, c := range s.catch {
			if !matches(c.errorEquals, se) {
				continue
			}
			x.log.Info("asl: error caught", "executionId", x.id, "state", s.name, "error", se.name, "cause", se.cause, "next", c.next)
			out, err := c.resultPath.result(raw, map[string]any{"Error": se.name, "Cause": se.cause})
			if err != nil {
				return nil, "", err
			}
			return out, c.next, nil
		}
		return nil, "", se
	}
}

func retrierFor(rs []retrier, se *stateError) int {
	for i, r := range rs {
		if matches(r.errorEquals, se) {
			return i
		}
	}
	return -1
}

// task runs one attempt of a Task state.
func (x *execution) task(ctx context.Context, s *stateDef, raw, ctxObj any) (any, error) {
	eff, err := s.inputPath.input(raw, ctxObj)
	if err != nil {
		return nil, err
	}
	timeout := time.Duration(s.timeout) * time.Second
	if s.timeoutPath != nil {
		v, ok := s.timeoutPath.get(eff, ctxObj)
		n, isInt := integer(v)
		if !ok || !isInt || n < 1 {
			return nil, runtimeError("TimeoutSecondsPath %s must select a positive integer in %s", s.timeoutPath, jsonString(eff))
		}
		timeout = time.Duration(n) * time.Second
	}
	var wait chan tokenResult
	if strings.HasSuffix(s.resource, waitForTaskToken) {
		if x.opts.Tokens == nil {
			return nil, runtimeError("%s waits for a task token but Options.Tokens is nil", s.resource)
		}
		var tok string
		tok, wait = x.opts.Tokens.issue()
		defer x.opts.Tokens.forget(tok)
		co := cloneObject(ctxObj.(map[string]any))
		co["Task"] = map[string]any{"Token": tok}
		ctxObj = co
	}
	if s.parameters != nil {
		if eff, err = s.parameters.eval(eff, ctxObj); err != nil {
			return nil, err
		}
	}
	payload, err := encodeJSON(eff)
	if err != nil {
		return nil, runtimeError("encoding the task input: %v", err)
	}
	if len(payload) > payloadLimit {
		return nil, dataLimit("the task input", len(payload))
	}

	hctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		hctx, cancel = context.WithTimeout(ctx, timeout)
	}
	res, herr := x.call(hctx, s, payload)
	if herr == nil && wait != nil {
		// The handler's own result is dropped: the task's result is what
		// SendTaskSuccess sends, as in Step Functions.
		select {
		case r := <-wait:
			res, herr = r.output, r.err
		case <-hctx.Done():
		}
	}
	// The deadline decides even if the handler returned in the meantime:
	// Step Functions stops waiting for a task when its timeout passes.
	timedOut := timeout > 0 && errors.Is(hctx.Err(), context.DeadlineExceeded)
	cancel()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if timedOut {
		return nil, &stateError{name: StatesTimeout, cause: fmt.Sprintf("the task did not finish within %s (TimeoutSeconds)", timeout)}
	}
	if herr != nil {
		return nil, &stateError{name: errorName(herr), cause: errorCause(herr)}
	}
	if len(res) > payloadLimit {
		return nil, dataLimit("the task result", len(res))
	}
	var result any
	if len(bytes.TrimSpace(res)) > 0 {
		if result, err = decodeJSON(res); err != nil {
			return nil, runtimeError("the handler of %s returned invalid JSON: %v", s.resource, err)
		}
	}
	return x.finishOutput(s, raw, result, ctxObj)
}

// call invokes the state's handler, turning a panic into an error the way the
// Lambda runtime does.
func (x *execution) call(ctx context.Context, s *stateDef, payload []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			x.log.Error("asl: handler panicked", "executionId", x.id, "state", s.name, "resource", s.resource,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			out, err = nil, &panicError{value: r}
		}
	}()
	return x.opts.Handlers[s.resource](ctx, payload)
}

// finishOutput applies ResultSelector, ResultPath and OutputPath to a result.
func (x *execution) finishOutput(s *stateDef, raw, result, ctxObj any) (any, error) {
	var err error
	if s.resultSelector != nil {
		if result, err = s.resultSelector.eval(result, ctxObj); err != nil {
			return nil, err
		}
	}
	out, err := s.resultPath.result(raw, result)
	if err != nil {
		return nil, err
	}
	if out, err = s.outputPath.output(out, ctxObj); err != nil {
		return nil, err
	}
	return out, checkSize(out)
}

func dataLimit(what string, n int) *stateError {
	return &stateError{name: StatesDataLimitExceeded, terminal: true,
		cause: fmt.Sprintf("%s is %d bytes, more than the %d-byte limit", what, n, payloadLimit)}
}

func checkSize(v any) error {
	b, err := encodeJSON(v)
	if err != nil {
		return runtimeError("encoding the state output: %v", err)
	}
	if len(b) > payloadLimit {
		return dataLimit("the state output", len(b))
	}
	return nil
}

// mapState runs one attempt of a Map state.
func (x *execution) mapState(ctx context.Context, s *stateDef, raw any, ctxObj map[string]any) (any, error) {
	eff, err := s.inputPath.input(raw, ctxObj)
	if err != nil {
		return nil, err
	}
	v, ok := s.itemsPath.get(eff, ctxObj)
	if !ok {
		return nil, runtimeError("the ItemsPath %s could not be found in the input %s", s.itemsPath, jsonString(eff))
	}
	items, ok := v.([]any)
	if !ok {
		return nil, runtimeError("the ItemsPath %s selects a %s, not an array", s.itemsPath, typeName(v))
	}
	limit := s.maxConcurrency
	if s.maxConcurrencyPath != nil {
		v, ok := s.maxConcurrencyPath.get(eff, ctxObj)
		n, isInt := integer(v)
		if !ok || !isInt || n < 0 {
			return nil, runtimeError("MaxConcurrencyPath %s must select a non-negative integer in %s", s.maxConcurrencyPath, jsonString(eff))
		}
		limit = n
	}
	if limit == 0 || limit > maxInlineConcurrency {
		limit = maxInlineConcurrency
	}
	results := make([]any, len(items))
	err = forEach(ctx, len(items), int(limit), func(ctx context.Context, i int) error {
		in := items[i]
		if s.itemSelector != nil {
			// $$.Map.Item is part of the context object only while the
			// ItemSelector is evaluated.
			itemCtx := cloneObject(ctxObj)
			itemCtx["Map"] = map[string]any{"Item": map[string]any{"Index": intNumber(int64(i)), "Value": items[i]}}
			var err error
			if in, err = s.itemSelector.eval(eff, itemCtx); err != nil {
				return err
			}
		}
		out, err := x.runMachine(ctx, s.processor, in)
		results[i] = out
		return err
	})
	if err != nil {
		return nil, err
	}
	return x.finishOutput(s, raw, results, ctxObj)
}

// parallel runs one attempt of a Parallel state.
func (x *execution) parallel(ctx context.Context, s *stateDef, raw, ctxObj any) (any, error) {
	eff, err := s.inputPath.input(raw, ctxObj)
	if err != nil {
		return nil, err
	}
	if s.parameters != nil {
		if eff, err = s.parameters.eval(eff, ctxObj); err != nil {
			return nil, err
		}
	}
	results := make([]any, len(s.branches))
	err = forEach(ctx, len(s.branches), len(s.branches), func(ctx context.Context, i int) error {
		out, err := x.runMachine(ctx, s.branches[i], eff)
		results[i] = out
		return err
	})
	if err != nil {
		return nil, err
	}
	return x.finishOutput(s, raw, results, ctxObj)
}

// forEach calls fn(i) for i in [0, n) with at most limit calls running at
// once, each in its own goroutine. The first error cancels the context the
// others run with and is returned; forEach always waits for every goroutine
// it started, so none outlives it.
func forEach(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(limit, 1))
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() {
					first = err
					cancel()
				})
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

func (x *execution) pass(s *stateDef, raw, eff, ctxObj any) (any, error) {
	var err error
	if s.parameters != nil {
		if eff, err = s.parameters.eval(eff, ctxObj); err != nil {
			return nil, err
		}
	}
	result := eff
	if s.hasResult {
		result = s.result
	}
	return x.finishOutput(s, raw, result, ctxObj)
}

func choose(s *stateDef, eff, ctxObj any) (string, error) {
	for _, b := range s.choices {
		ok, err := b.rule.eval(eff, ctxObj)
		if err != nil {
			return "", err
		}
		if ok {
			return b.next, nil
		}
	}
	if s.defaultNext != "" {
		return s.defaultNext, nil
	}
	return "", &stateError{name: StatesNoChoiceMatched, cause: fmt.Sprintf("no choice rule matched the input %s and there is no Default", jsonString(eff))}
}

func (x *execution) wait(ctx context.Context, s *stateDef, eff, ctxObj any) error {
	var d time.Duration
	switch s.waitKind {
	case "Seconds":
		d = time.Duration(s.seconds) * time.Second
	case "SecondsPath":
		v, ok := s.secondsPath.get(eff, ctxObj)
		n, isInt := integer(v)
		if !ok || !isInt || n < 0 {
			return runtimeError("SecondsPath %s must select a non-negative integer in %s", s.secondsPath, jsonString(eff))
		}
		d = time.Duration(n) * time.Second
	case "Timestamp":
		d = time.Until(s.timestamp)
	case "TimestampPath":
		v, ok := s.timestampPath.get(eff, ctxObj)
		t, isTS := timestamp(v)
		if !ok || !isTS {
			return runtimeError("TimestampPath %s must select an RFC 3339 timestamp in %s", s.timestampPath, jsonString(eff))
		}
		d = time.Until(t)
	}
	if d <= 0 {
		return nil
	}
	return x.sleep(ctx, d)
}

func fail(s *stateDef, raw, ctxObj any) error {
	se := &stateError{name: s.errName, cause: s.cause}
	for _, f := range []struct {
		expr payload
		dst  *string
		what string
	}{{s.errorExpr, &se.name, "ErrorPath"}, {s.causeExpr, &se.cause, "CausePath"}} {
		if f.expr == nil {
			continue
		}
		v, err := f.expr.eval(raw, ctxObj)
		if err != nil {
			return err
		}
		str, ok := v.(string)
		if !ok {
			return runtimeError("%s must select a string, got %s", f.what, typeName(v))
		}
		*f.dst = str
	}
	return se
}

// input applies InputPath: null gives {}, a path that does not resolve is a
// States.Runtime error.
func (p optPath) input(raw, ctxObj any) (any, error) {
	if p.null {
		return map[string]any{}, nil
	}
	v, ok := p.path.get(raw, ctxObj)
	if !ok {
		return nil, runtimeError("invalid InputPath %s: no results in the input %s", p.path, jsonString(raw))
	}
	return v, nil
}

// output applies OutputPath: null gives {}, a path that does not resolve is a
// States.Runtime error.
func (p optPath) output(v, ctxObj any) (any, error) {
	if p.null {
		return map[string]any{}, nil
	}
	out, ok := p.path.get(v, ctxObj)
	if !ok {
		return nil, runtimeError("invalid OutputPath %s: no results in %s", p.path, jsonString(v))
	}
	return out, nil
}

// result applies ResultPath: null keeps the raw input, "$" replaces it, and a
// deeper path writes the result into a copy of it.
func (p optPath) result(raw, result any) (any, error) {
	if p.null {
		return raw, nil
	}
	out, err := p.path.set(raw, result)
	if err != nil {
		return nil, &stateError{name: StatesResultPathMatchFailure, cause: err.Error()}
	}
	return out, nil
}
