package asl

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/insightedge/insightedge/shared/clock/clocktest"
)

func TestMapItemInputs(t *testing.T) {
	tests := []struct {
		name      string
		mapFields string
		input     string
		want      []string // the iteration inputs, in item order
		output    string
	}{
		{
			name:      "items as they are",
			mapFields: `"ItemsPath":"$.items","ResultPath":"$.results","ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}`,
			input:     `{"items":[{"id":1},{"id":2}],"keep":true}`,
			want:      []string{`{"id":1}`, `{"id":2}`},
			output:    `{"items":[{"id":1},{"id":2}],"keep":true,"results":[{"echo":{"id":1}},{"echo":{"id":2}}]}`,
		},
		{
			name: "ItemSelector with the Map context and the Map's input",
			mapFields: `"ItemsPath":"$.items","ItemSelector":{"shared.$":"$.shared","index.$":"$$.Map.Item.Index","value.$":"$$.Map.Item.Value"},
				"ResultPath":null,"ItemProcessor":{"ProcessorConfig":{"Mode":"INLINE"},"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}`,
			input:  `{"items":["a","b","c"],"shared":"s"}`,
			want:   []string{`{"shared":"s","index":0,"value":"a"}`, `{"shared":"s","index":1,"value":"b"}`, `{"shared":"s","index":2,"value":"c"}`},
			output: `{"items":["a","b","c"],"shared":"s"}`,
		},
		{
			name: "legacy Parameters and Iterator",
			mapFields: `"ItemsPath":"$.items","Parameters":{"v.$":"$$.Map.Item.Value"},
				"Iterator":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}`,
			input:  `{"items":[1,2]}`,
			want:   []string{`{"v":1}`, `{"v":2}`},
			output: `[{"echo":{"v":1}},{"echo":{"v":2}}]`,
		},
		{
			name: "InputPath, ResultSelector and OutputPath",
			mapFields: `"InputPath":"$.in","ItemsPath":"$.list","ResultSelector":{"n.$":"States.ArrayLength($)","first.$":"$[0]"},
				"ResultPath":"$.summary","OutputPath":"$.summary",
				"ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}`,
			input:  `{"in":{"list":[5,6,7]}}`,
			want:   []string{`5`, `6`, `7`},
			output: `{"n":3,"first":{"echo":5}}`,
		},
		{
			name:      "an empty array runs nothing",
			mapFields: `"ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}`,
			input:     `[]`,
			want:      nil,
			output:    `[]`,
		},
		{
			name: "several states per iteration",
			mapFields: `"ItemsPath":"$.items","ItemProcessor":{"StartAt":"P","States":{
				"P":{"Type":"Pass","Parameters":{"doubled.$":"States.MathAdd($, $)"},"Next":"T"},
				"T":{"Type":"Task","Resource":"fn","OutputPath":"$.echo.doubled","End":true}}}`,
			input:  `{"items":[1,2,3]}`,
			want:   []string{`{"doubled":2}`, `{"doubled":4}`, `{"doubled":6}`},
			output: `[2,4,6]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, `{"StartAt":"M","States":{"M":{"Type":"Map","End":true,`+tt.mapFields+`}}}`)
			rec := newRecorder()
			echo := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
				rec.record("fn", in)
				return json.RawMessage(`{"echo":` + string(in) + `}`), nil
			}
			out, err := m.Run(context.Background(), json.RawMessage(tt.input), Options{Handlers: map[string]Handler{"fn": echo}})
			if err != nil {
				t.Fatal(err)
			}
			got := canonical(t, rec.got("fn"))
			want := canonical(t, tt.want)
			if !slices.Equal(got, want) {
				t.Errorf("iteration inputs %v, want %v", got, want)
			}
			assertJSON(t, "output", out, tt.output)
		})
	}
}

// TestMapResultsInItemOrder makes the iterations finish in reverse order.
func TestMapResultsInItemOrder(t *testing.T) {
	const n = 6
	m := mustParse(t, `{"StartAt":"M","States":{"M":{"Type":"Map","End":true,
		"ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}}}}`)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	var order []int
	var mu = make(chan struct{}, 1)
	h := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		var i int
		if err := json.Unmarshal(in, &i); err != nil {
			return nil, err
		}
		defer close(done[i])
		if i+1 < n {
			select { // item i finishes only after item i+1
			case <-done[i+1]:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		mu <- struct{}{}
		order = append(order, i)
		<-mu
		return json.RawMessage(fmt.Sprintf(`"r%d"`, i)), nil
	}
	out, err := m.Run(context.Background(), json.RawMessage(`[0,1,2,3,4,5]`), Options{Handlers: map[string]Handler{"fn": h}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []int{5, 4, 3, 2, 1, 0}) {
		t.Errorf("completion order %v, want reverse", order)
	}
	assertJSON(t, "output", out, `["r0","r1","r2","r3","r4","r5"]`)
}

// TestMapMaxConcurrency holds iterations until MaxConcurrency of them run,
// then releases them one by one: the bound is reached and never exceeded.
// Handlers signal entry without blocking and the test yields before each
// release, so that an unbounded Map would let the other iterations in (a
// correct Map never fails this test; a broken one fails it in practice).
func TestMapMaxConcurrency(t *testing.T) {
	for _, tt := range []struct {
		name, field string
		input       string
		limit       int
	}{
		{"MaxConcurrency", `"MaxConcurrency":3`, `{"items":[0,1,2,3,4,5,6,7,8,9]}`, 3},
		{"MaxConcurrency 1 runs items one at a time", `"MaxConcurrency":1`, `{"items":[0,1,2,3]}`, 1},
		{"MaxConcurrencyPath", `"MaxConcurrencyPath":"$.limit"`, `{"items":[0,1,2,3,4,5,6],"limit":2}`, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, `{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.items",`+tt.field+`,"End":true,
				"ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}}}}`)
			var items []int
			var in struct{ Items []int }
			if err := json.Unmarshal([]byte(tt.input), &in); err != nil {
				t.Fatal(err)
			}
			items = in.Items
			var running, peak atomic.Int32
			entered := make(chan int, len(items))
			release := make(chan struct{})
			h := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				defer running.Add(-1)
				entered <- 0
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return in, nil
			}
			type result struct {
				out json.RawMessage
				err error
			}
			res := make(chan result, 1)
			go func() {
				out, err := m.Run(context.Background(), json.RawMessage(tt.input), Options{Handlers: map[string]Handler{"fn": h}})
				res <- result{out, err}
			}()
			for range tt.limit {
				<-entered
			}
			for range len(items) - tt.limit {
				yield()
				release <- struct{}{}
				<-entered
			}
			for range tt.limit {
				release <- struct{}{}
			}
			r := <-res
			if r.err != nil {
				t.Fatal(r.err)
			}
			if p := peak.Load(); int(p) != tt.limit {
				t.Errorf("peak concurrency %d, want %d", p, tt.limit)
			}
			want, _ := json.Marshal(items)
			assertJSON(t, "output", r.out, string(want))
		})
	}
}

// TestMapItemFailure pins that one failed iteration fails the Map (and is
// caught by the Map's Catch), that its siblings are cancelled, and that every
// iteration has returned before Run does.
// yield lets runnable goroutines run.
func yield() {
	for range 100 {
		runtime.Gosched()
	}
}

func TestMapItemFailure(t *testing.T) {
	def := `{"StartAt":"M","States":{
		"M":{"Type":"Map","ItemsPath":"$.items","ResultPath":"$.results","End":true,%s
			"ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}},
		"Caught":{"Type":"Pass","End":true}}}`
	for _, tt := range []struct {
		name, catch, wantState string
	}{
		{"caught by the Map's Catch", `"Catch":[{"ErrorEquals":["ItemFailed"],"ResultPath":"$.error","Next":"Caught"}],`, "Caught"},
		{"uncaught fails the execution", ``, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := fmt.Sprintf(def, tt.catch)
			if tt.catch == "" {
				d = `{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.items","End":true,
					"ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}}}}`
			}
			m := mustParse(t, d)
			var running, cancelled atomic.Int32
			waiting := make(chan struct{}, 3)
			h := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
				running.Add(1)
				defer running.Add(-1)
				if string(in) == `"bad"` {
					for range 3 { // fail once the others are running
						<-waiting
					}
					return nil, &namedErr{"ItemFailed", "item bad failed"}
				}
				waiting <- struct{}{}
				<-ctx.Done() // the others wait until the failure cancels them
				cancelled.Add(1)
				return nil, ctx.Err()
			}
			rec := newRecorder()
			out, err := m.Run(context.Background(), json.RawMessage(`{"items":["ok1","ok2","bad","ok3"]}`), Options{
				Handlers: map[string]Handler{"fn": h}, OnTransition: rec.onTransition,
			})
			if n := running.Load(); n != 0 {
				t.Errorf("%d iterations still running after Run returned", n)
			}
			if n := cancelled.Load(); n != 3 {
				t.Errorf("%d iterations cancelled, want 3", n)
			}
			if tt.wantState == "" {
				if ee := execErr(t, err); ee.Name != "ItemFailed" || ee.Cause != "item bad failed" || ee.State != "T" {
					t.Errorf("got %+v", ee)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v := rec.visited(); v[len(v)-1] != tt.wantState {
				t.Errorf("visited %v", v)
			}
			assertJSON(t, "output", out, `{"items":["ok1","ok2","bad","ok3"],"error":{"Error":"ItemFailed","Cause":"item bad failed"}}`)
		})
	}
}

func TestMapFailStateInIteration(t *testing.T) {
	m := mustParse(t, `{"StartAt":"M","States":{
		"M":{"Type":"Map","End":true,"Catch":[{"ErrorEquals":["Negative"],"Next":"C"}],
			"ItemProcessor":{"StartAt":"Check","States":{
				"Check":{"Type":"Choice","Choices":[{"Variable":"$","NumericLessThan":0,"Next":"Bad"}],"Default":"Good"},
				"Bad":{"Type":"Fail","Error":"Negative","Cause":"a negative item"},
				"Good":{"Type":"Succeed"}}}},
		"C":{"Type":"Pass","End":true}}}`)
	out, err := m.Run(context.Background(), json.RawMessage(`[1,-1,2]`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, "output", out, `{"Error":"Negative","Cause":"a negative item"}`)
}

func TestMapRetryRerunsTheMap(t *testing.T) {
	m := mustParse(t, `{"StartAt":"M","States":{"M":{"Type":"Map","End":true,
		"Retry":[{"ErrorEquals":["Flaky"],"MaxAttempts":1}],
		"ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"fn","End":true}}}}}}`)
	var calls atomic.Int32
	h := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		if calls.Add(1) == 1 {
			return nil, &namedErr{"Flaky", "first call fails"}
		}
		return in, nil
	}
	sl := &clocktest.Sleeps{}
	out, err := m.Run(context.Background(), json.RawMessage(`[1]`), Options{Handlers: map[string]Handler{"fn": h}, Sleep: sl.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || len(sl.Got()) != 1 {
		t.Errorf("calls %d, sleeps %v", calls.Load(), sl.Got())
	}
	assertJSON(t, "output", out, `[1]`)
}

func TestMapItemsPathErrors(t *testing.T) {
	m := mustParse(t, `{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.items","End":true,
		"Catch":[{"ErrorEquals":["States.ALL"],"Next":"C"}],
		"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}},"C":{"Type":"Succeed"}}}`)
	for _, in := range []string{`{"items":"not an array"}`, `{}`} {
		_, err := m.Run(context.Background(), json.RawMessage(in), Options{})
		if ee := execErr(t, err); ee.Name != StatesRuntime {
			t.Errorf("%s: got %v, want States.Runtime", in, ee)
		}
	}
}

func TestParallel(t *testing.T) {
	m := mustParse(t, `{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,"ResultPath":"$.both",
		"Parameters":{"x.$":"$.x"},
		"Branches":[
			{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"fn","End":true}}},
			{"StartAt":"B","States":{"B":{"Type":"Pass","Parameters":{"doubled.$":"States.MathAdd($.x, $.x)"},"End":true}}}]}}}`)
	out, err := m.Run(context.Background(), json.RawMessage(`{"x":21}`), Options{Handlers: map[string]Handler{"fn": newRecorder().returning("fn", `"task"`)}})
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, "output", out, `{"x":21,"both":["task",{"doubled":42}]}`)

	failing := mustParse(t, `{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,"Branches":[
		{"StartAt":"A","States":{"A":{"Type":"Fail","Error":"BranchBroke","Cause":"b"}}},
		{"StartAt":"B","States":{"B":{"Type":"Pass","End":true}}}]}}}`)
	_, err = failing.Run(context.Background(), nil, Options{})
	if ee := execErr(t, err); ee.Name != "BranchBroke" {
		t.Errorf("got %v", ee)
	}
}

// canonical re-encodes JSON texts (sorting object keys) and sorts them, to
// compare the inputs of concurrent iterations.
func canonical(t *testing.T, docs []string) []string {
	t.Helper()
	out := make([]string, len(docs))
	for i, d := range docs {
		v, err := decodeJSON([]byte(d))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		b, _ := encodeJSON(v)
		out[i] = string(b)
	}
	slices.Sort(out)
	return out
}
