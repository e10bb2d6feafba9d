package awstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/asl"
	"github.com/insightedge/insightedge/shared/clock/clocktest"
)

// issue 24: no execution ends without its Finish that can be given one.
// Every Task has a timeout inside an Express execution's 5 minutes, the
// steps' throttling is retried long enough to ride out a throttle storm
// (and no longer than the workflow can afford), and the three ways an
// execution can go wrong are run through the local interpreter.

// expressLimit is an Express execution's longest life.
const expressLimit = 300

// throttleBudget bounds the worst-case wait of a Task's throttling retries:
// long enough for the account's concurrency to free up (a storm of a
// minute), short enough to leave most of an Express execution to the work.
const (
	throttleStormSeconds = 60
	throttleBudget       = 90
)

// machineTypes are the workflows and their types (template.yaml).
var machineTypes = map[string]string{
	"conversation.asl.json": "EXPRESS", "build.asl.json": "EXPRESS",
	"research.asl.json": "EXPRESS", "template.asl.json": "STANDARD",
}

// aslTask is what the checks read of a Task state.
type aslTask struct {
	Resource           string
	TimeoutSeconds     int
	TimeoutSecondsPath string
	Retry              []struct {
		ErrorEquals     []string
		IntervalSeconds *float64
		MaxAttempts     *int
		BackoffRate     *float64
		MaxDelaySeconds float64
		JitterStrategy  string
	}
}

// tasksOf returns every Task of an ASL, nested ones included.
func tasksOf(t *testing.T, def []byte) map[string]aslTask {
	t.Helper()
	var root struct{ States map[string]json.RawMessage }
	if err := json.Unmarshal(def, &root); err != nil {
		t.Fatal(err)
	}
	out := map[string]aslTask{}
	var walk func(map[string]json.RawMessage)
	walk = func(states map[string]json.RawMessage) {
		for name, raw := range states {
			var st struct {
				Type          string
				ItemProcessor *struct{ States map[string]json.RawMessage }
				Iterator      *struct{ States map[string]json.RawMessage }
				Branches      []struct{ States map[string]json.RawMessage }
			}
			_ = json.Unmarshal(raw, &st)
			if st.Type == "Task" {
				var tk aslTask
				if err := json.Unmarshal(raw, &tk); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				out[name] = tk
			}
			for _, p := range []*struct{ States map[string]json.RawMessage }{st.ItemProcessor, st.Iterator} {
				if p != nil {
					walk(p.States)
				}
			}
			for _, b := range st.Branches {
				walk(b.States)
			}
		}
	}
	walk(root.States)
	return out
}

// worstWait is a retrier's longest total wait: IntervalSeconds ×
// BackoffRate^n, each capped by MaxDelaySeconds (full jitter only shortens
// it), over MaxAttempts retries; ASL's defaults where unset.
func worstWait(interval, rate, maxDelay float64, attempts int) float64 {
	total := 0.0
	for n := range attempts {
		d := interval * math.Pow(rate, float64(n))
		if maxDelay > 0 {
			d = min(d, maxDelay)
		}
		total += d
	}
	return total
}

// TestWorkflowTimeouts checks every workflow's bounds: an Express workflow
// and each of its Tasks time out within 5 minutes; every Task has a
// timeout; every Lambda Task retries throttling with a capped, fully
// jittered backoff whose worst case rides out a storm within the budget.
func TestWorkflowTimeouts(t *testing.T) {
	repo := repoRoot(t)
	for file, typ := range machineTypes {
		def := readStateMachine(t, repo, file)
		var root struct{ TimeoutSeconds int }
		_ = json.Unmarshal(def, &root)
		if typ == "EXPRESS" && (root.TimeoutSeconds == 0 || root.TimeoutSeconds > expressLimit) {
			t.Errorf("%s: TimeoutSeconds %d, want one within an Express execution's %d s", file, root.TimeoutSeconds, expressLimit)
		}
		for name, tk := range tasksOf(t, def) {
			if tk.TimeoutSeconds == 0 && tk.TimeoutSecondsPath == "" {
				t.Errorf("%s %s: no TimeoutSeconds", file, name)
			}
			if typ == "EXPRESS" && tk.TimeoutSeconds > expressLimit {
				t.Errorf("%s %s: TimeoutSeconds %d, beyond an Express execution's %d s", file, name, tk.TimeoutSeconds, expressLimit)
			}
			if !strings.HasPrefix(tk.Resource, "${") && !strings.Contains(tk.Resource, ":lambda:") {
				continue
			}
			found := false
			for _, r := range tk.Retry {
				if len(r.ErrorEquals) != 1 || r.ErrorEquals[0] != "Lambda.TooManyRequestsException" {
					continue
				}
				found = true
				interval, rate, attempts := 1.0, 2.0, 3
				if r.IntervalSeconds != nil {
					interval = *r.IntervalSeconds
				}
				if r.BackoffRate != nil {
					rate = *r.BackoffRate
				}
				if r.MaxAttempts != nil {
					attempts = *r.MaxAttempts
				}
				wait := worstWait(interval, rate, r.MaxDelaySeconds, attempts)
				if r.MaxDelaySeconds == 0 || r.JitterStrategy != "FULL" || wait < throttleStormSeconds || wait > throttleBudget {
					t.Errorf("%s %s: throttling retried %+v, worst wait %.0f s; want MaxDelaySeconds, JitterStrategy FULL and %d–%d s",
						file, name, r, wait, throttleStormSeconds, throttleBudget)
				}
			}
			if !found {
				t.Errorf("%s %s: no retrier of its own for Lambda.TooManyRequestsException", file, name)
			}
		}
	}
}

// namedErr is a Lambda error as Step Functions names it.
type namedErr string

func (e namedErr) Error() string     { return string(e) }
func (e namedErr) ErrorName() string { return string(e) }

// conversationRun runs the conversation workflow with the given handlers
// (by placeholder: RouterFunctionArn ...; the others answer as a turn that
// ends at once) and returns the Finish step's input (nil if Finish did not
// run) and the execution's error.
func conversationRun(t *testing.T, def []byte, sleep func(context.Context, time.Duration) error, own map[string]asl.Handler) (json.RawMessage, error) {
	t.Helper()
	subs := map[string]string{}
	for _, m := range regexp.MustCompile(`\$\{([A-Za-z]+)\}`).FindAllStringSubmatch(string(def), -1) {
		subs[m[1]] = "arn:local:" + m[1]
	}
	m, err := asl.Parse(def, subs)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var finish json.RawMessage
	handlers := map[string]asl.Handler{
		"arn:local:RouterFunctionArn": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"path":"clarify"}`), nil
		},
		"arn:local:FinishFunctionArn": func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
			mu.Lock()
			finish = in
			mu.Unlock()
			return json.RawMessage(`{"status":"failed"}`), nil
		},
	}
	for name := range subs {
		if _, ok := handlers["arn:local:"+name]; !ok {
			handlers["arn:local:"+name] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return nil, errors.New("not reached in this test")
			}
		}
	}
	for name, h := range own {
		handlers["arn:local:"+name] = h
	}
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	_, err = m.Run(ctx, json.RawMessage(`{"turn":{"sessionId":"s","turnId":"t"},"attempt":1,"agent":{},"retry":{}}`),
		asl.Options{Handlers: handlers, Sleep: sleep, Logger: discardLogger()})
	mu.Lock()
	defer mu.Unlock()
	return finish, err
}

// finishError is the error the Finish step was given ($.error.Error).
func finishError(t *testing.T, in json.RawMessage) string {
	t.Helper()
	var v struct{ Error struct{ Error string } }
	if err := json.Unmarshal(in, &v); err != nil {
		t.Fatalf("Finish's input: %v", err)
	}
	return v.Error.Error
}

// TestWorkflowTimeoutPaths runs the conversation workflow (the very ASL
// file) through the local interpreter on each way it can go wrong:
//   - a step that hangs is ended by its TimeoutSeconds (1 s here instead of
//     the file's 170, so the test takes a second) and its Catch runs Finish;
//   - a throttle storm is retried 6 times within the worst case computed
//     from the retrier (asserted on the recorded waits), then the step
//     goes on; a storm that outlasts the retries is caught into Finish;
//   - an error no Catch can take (States.DataLimitExceeded) ends the
//     execution without Finish: the edge's bound is what closes that
//     turn's stream (see docs/deploy.md, "Limits to know").
func TestWorkflowTimeoutPaths(t *testing.T) {
	def := readStateMachine(t, repoRoot(t), "conversation.asl.json")
	route := tasksOf(t, def)["Route"]
	var throttle struct {
		IntervalSeconds, BackoffRate, MaxDelaySeconds float64
		MaxAttempts                                   int
	}
	for _, r := range route.Retry {
		if len(r.ErrorEquals) == 1 && r.ErrorEquals[0] == "Lambda.TooManyRequestsException" {
			throttle.IntervalSeconds, throttle.BackoffRate, throttle.MaxDelaySeconds, throttle.MaxAttempts = *r.IntervalSeconds, *r.BackoffRate, r.MaxDelaySeconds, *r.MaxAttempts
		}
	}
	bound := time.Duration(worstWait(throttle.IntervalSeconds, throttle.BackoffRate, throttle.MaxDelaySeconds, throttle.MaxAttempts) * float64(time.Second))

	t.Run("a hung step times out into Finish", func(t *testing.T) {
		short := bytes.Replace(def, []byte(`"TimeoutSeconds": 170,`), []byte(`"TimeoutSeconds": 1,`), 1)
		if bytes.Equal(short, def) {
			t.Fatal(`the Route state has no "TimeoutSeconds": 170`)
		}
		finish, err := conversationRun(t, short, nil, map[string]asl.Handler{
			"RouterFunctionArn": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				<-ctx.Done() // hangs until Step Functions gives up on it
				return nil, ctx.Err()
			}})
		if err != nil || finish == nil || finishError(t, finish) != "States.Timeout" {
			t.Fatalf("execution: %v; Finish got %s; want Finish with States.Timeout", err, finish)
		}
	})

	for _, tc := range []struct {
		name      string
		throttles int
		wantError string // what Finish is given; "" when the route goes on (clarify → Finish with no error)
	}{
		{"a throttle storm is ridden out", throttle.MaxAttempts, ""},
		{"a storm longer than the retries ends in Finish", throttle.MaxAttempts + 1, "Lambda.TooManyRequestsException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			sleeps := &clocktest.Sleeps{}
			finish, err := conversationRun(t, def, sleeps.Sleep, map[string]asl.Handler{
				"RouterFunctionArn": func(context.Context, json.RawMessage) (json.RawMessage, error) {
					mu.Lock()
					defer mu.Unlock()
					if calls++; calls <= tc.throttles {
						return nil, namedErr("Lambda.TooManyRequestsException")
					}
					return json.RawMessage(`{"path":"clarify"}`), nil
				}})
			if err != nil || finish == nil || finishError(t, finish) != tc.wantError {
				t.Fatalf("execution: %v; Finish got %s; want Finish with %q", err, finish, tc.wantError)
			}
			var total time.Duration
			for _, d := range sleeps.Got() {
				total += d
			}
			n := len(sleeps.Got())
			if n != throttle.MaxAttempts || total > bound || total > throttleBudget*time.Second {
				t.Errorf("%d retries waiting %s in all; want %d within %s", n, total, throttle.MaxAttempts, bound)
			}
		})
	}

	t.Run("an uncatchable error ends without Finish", func(t *testing.T) {
		big := json.RawMessage(`{"path":"clarify","pad":"` + strings.Repeat("x", 300<<10) + `"}`)
		finish, err := conversationRun(t, def, nil, map[string]asl.Handler{
			"RouterFunctionArn": func(context.Context, json.RawMessage) (json.RawMessage, error) { return big, nil }})
		var ee *asl.ExecutionError
		if finish != nil || !errors.As(err, &ee) || !strings.Contains(err.Error(), "States.DataLimitExceeded") {
			t.Fatalf("execution: %v; Finish got %.200s; want States.DataLimitExceeded and no Finish", err, finish)
		}
	})
}
