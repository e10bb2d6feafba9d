// Package eventlogtest is the contract test suite of eventlog.Log. Every
// implementation (the in-process Memory, the embedded bbolt log, the DynamoDB
// log) runs it:
//
//	func TestContract(t *testing.T) {
//		eventlogtest.Run(t, func(t *testing.T) eventlog.Log { return eventlog.NewMemory() })
//	}
//
// Where the interface's comments leave a case open, the suite pins the reading
// that a DynamoDB log built from single-item conditional writes can also
// honour:
//
//   - Append ignores the Seq of the events it is given and assigns its own.
//   - Append with no events returns the stream's last seq (0 for a new stream),
//     or ErrClosed on a closed stream.
//   - A batch that contains a closing event stops at it: the events after it
//     are dropped, the call succeeds and returns the closing event's seq. (In
//     DynamoDB the block of seqs is allocated with one conditional update of
//     the stream's counter item that also sets the closed flag.)
//   - Read of an unknown stream, or after the last seq, returns no events and
//     no error; after < 0 reads from the start; limit <= 0 means no limit.
//   - Data comes back byte for byte (no re-encoding of the JSON).
//   - A Notifier's Changed channel is open until an append to its stream,
//     and closed after it.
package eventlogtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// waitBound bounds every wait of the suite; reaching it is a failure, not a
// measure of speed.
const waitBound = 10 * time.Second

// Run runs the contract suite; newLog returns an empty log for one subtest.
func Run(t *testing.T, newLog func(t *testing.T) eventlog.Log) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, l eventlog.Log)
	}{
		{"AppendAssignsSeqs", testAppendAssignsSeqs},
		{"AppendEmpty", testAppendEmpty},
		{"DataRoundTrip", testDataRoundTrip},
		{"NamedEvents", testNamedEvents},
		{"ReadAfterLimit", testReadAfterLimit},
		{"CloseRejectsAppend", testCloseRejectsAppend},
		{"BatchStopsAtClose", testBatchStopsAtClose},
		{"StreamsIndependent", testStreamsIndependent},
		{"ConcurrentAppenders", testConcurrentAppenders},
		{"ConcurrentAppendersAndClose", testConcurrentClose},
		{"Notifier", testNotifier},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newLog(t))
		})
	}
}

// ev returns an event whose data is the JSON string s.
func ev(s string) eventlog.Event {
	return eventlog.Event{Data: json.RawMessage(fmt.Sprintf("%q", s))}
}

func closing(s string) eventlog.Event {
	e := ev(s)
	e.Close = true
	return e
}

func mustAppend(t *testing.T, l eventlog.Log, stream string, events ...eventlog.Event) int64 {
	t.Helper()
	last, err := l.Append(context.Background(), stream, events...)
	if err != nil {
		t.Fatalf("Append(%s, %d events): %v", stream, len(events), err)
	}
	return last
}

func mustRead(t *testing.T, l eventlog.Log, stream string, after int64, limit int) []eventlog.Event {
	t.Helper()
	evs, err := l.Read(context.Background(), stream, after, limit)
	if err != nil {
		t.Fatalf("Read(%s, %d, %d): %v", stream, after, limit, err)
	}
	return evs
}

// dataOf returns the decoded string data of each event, for comparisons.
func dataOf(t *testing.T, evs []eventlog.Event) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		if err := json.Unmarshal(e.Data, &out[i]); err != nil {
			t.Fatalf("event %d: data %q: %v", e.Seq, e.Data, err)
		}
	}
	return out
}

// checkSeqs fails unless evs have seqs from, from+1, ... without a gap.
func checkSeqs(t *testing.T, evs []eventlog.Event, from int64) {
	t.Helper()
	for i, e := range evs {
		if want := from + int64(i); e.Seq != want {
			t.Fatalf("event %d has seq %d, want %d", i, e.Seq, want)
		}
	}
}

func testAppendAssignsSeqs(t *testing.T, l eventlog.Log) {
	const s = "turn-seqs"
	if got := mustAppend(t, l, s, ev("a")); got != 1 {
		t.Fatalf("first Append returned %d, want 1", got)
	}
	if got := mustAppend(t, l, s, ev("b"), ev("c"), ev("d")); got != 4 {
		t.Fatalf("batch Append returned %d, want 4", got)
	}
	stale := ev("e")
	stale.Seq = 99 // ignored: Append assigns seqs
	if got := mustAppend(t, l, s, stale); got != 5 {
		t.Fatalf("Append of an event with Seq 99 returned %d, want 5", got)
	}
	evs := mustRead(t, l, s, 0, 100)
	checkSeqs(t, evs, 1)
	if got, want := dataOf(t, evs), []string{"a", "b", "c", "d", "e"}; !slices.Equal(got, want) {
		t.Fatalf("Read = %q, want %q", got, want)
	}
	for _, e := range evs {
		if e.Close {
			t.Fatalf("event %d is marked closing", e.Seq)
		}
	}
}

func testAppendEmpty(t *testing.T, l eventlog.Log) {
	const s = "turn-empty"
	if got := mustAppend(t, l, s); got != 0 {
		t.Fatalf("empty Append on a new stream returned %d, want 0", got)
	}
	mustAppend(t, l, s, ev("a"), ev("b"))
	if got := mustAppend(t, l, s); got != 2 {
		t.Fatalf("empty Append returned %d, want the last seq 2", got)
	}
	mustAppend(t, l, s, closing("end"))
	if _, err := l.Append(context.Background(), s); !errors.Is(err, eventlog.ErrClosed) {
		t.Fatalf("empty Append on a closed stream: err = %v, want ErrClosed", err)
	}
}

func testDataRoundTrip(t *testing.T, l eventlog.Log) {
	const s = "turn-data"
	// Spacing, HTML characters and non-ASCII text must survive as they are:
	// the edge writes Data as the SSE data line.
	datas := []string{
		`{"type":"text-delta","id":"t1","delta":"<b>a & b</b>"}`,
		`{ "type" : "data-quiz" , "n" : [1, 2] }`,
		`"你好, Grüße"`,
		`null`,
	}
	for _, d := range datas {
		mustAppend(t, l, s, eventlog.Event{Data: json.RawMessage(d)})
	}
	evs := mustRead(t, l, s, 0, 0)
	if len(evs) != len(datas) {
		t.Fatalf("Read returned %d events, want %d", len(evs), len(datas))
	}
	for i, e := range evs {
		if !bytes.Equal(e.Data, []byte(datas[i])) {
			t.Errorf("event %d data = %s, want %s", e.Seq, e.Data, datas[i])
		}
	}
}

func testNamedEvents(t *testing.T, l eventlog.Log) {
	const s = "research-named"
	in := []eventlog.Event{
		{Name: "progress", Data: json.RawMessage(`{"percent":10}`)},
		{Data: json.RawMessage(`"unnamed"`)},
		{Name: "complete", Data: json.RawMessage(`{"total_nodes":3}`), Close: true},
	}
	mustAppend(t, l, s, in...)
	evs := mustRead(t, l, s, 0, 0)
	if len(evs) != len(in) {
		t.Fatalf("Read returned %d events, want %d", len(evs), len(in))
	}
	for i, e := range evs {
		if e.Name != in[i].Name || !bytes.Equal(e.Data, in[i].Data) || e.Close != in[i].Close {
			t.Errorf("event %d = {%q %s %v}, want {%q %s %v}", e.Seq, e.Name, e.Data, e.Close, in[i].Name, in[i].Data, in[i].Close)
		}
	}
	for _, bad := range []string{strings.Repeat("n", eventlog.MaxNameLen+1), "a\nb", "a:b"} {
		_, err := l.Append(context.Background(), "research-bad", eventlog.Event{Name: bad, Data: json.RawMessage(`1`)})
		if !errors.Is(err, eventlog.ErrBadName) {
			t.Errorf("Append with name %q: err = %v, want ErrBadName", bad, err)
		}
	}
	if evs := mustRead(t, l, "research-bad", 0, 0); len(evs) != 0 {
		t.Errorf("a refused append wrote %d events", len(evs))
	}
}

func testReadAfterLimit(t *testing.T, l eventlog.Log) {
	const s = "turn-read"
	for i := 1; i <= 10; i++ {
		mustAppend(t, l, s, ev(fmt.Sprint(i)))
	}
	tests := []struct {
		name         string
		after        int64
		limit        int
		first, count int64
	}{
		{"all", 0, 100, 1, 10},
		{"exact limit", 0, 10, 1, 10},
		{"no limit", 0, 0, 1, 10},
		{"negative after", -5, 3, 1, 3},
		{"middle", 3, 4, 4, 4},
		{"tail shorter than limit", 8, 10, 9, 2},
		{"after the last", 10, 5, 0, 0},
		{"far past the end", 100, 5, 0, 0},
		{"limit one", 6, 1, 7, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := mustRead(t, l, s, tt.after, tt.limit)
			if int64(len(evs)) != tt.count {
				t.Fatalf("Read(%d, %d) returned %d events, want %d", tt.after, tt.limit, len(evs), tt.count)
			}
			checkSeqs(t, evs, tt.first)
			for _, e := range evs {
				var d string
				if err := json.Unmarshal(e.Data, &d); err != nil || d != fmt.Sprint(e.Seq) {
					t.Fatalf("event %d carries data %s, want %q", e.Seq, e.Data, fmt.Sprint(e.Seq))
				}
			}
		})
	}
	t.Run("unknown stream", func(t *testing.T) {
		if evs := mustRead(t, l, "turn-never-written", 0, 10); len(evs) != 0 {
			t.Fatalf("Read of an unknown stream returned %d events", len(evs))
		}
	})
}

func testCloseRejectsAppend(t *testing.T, l eventlog.Log) {
	const s = "turn-close"
	if got := mustAppend(t, l, s, ev("a"), ev("b"), closing("end")); got != 3 {
		t.Fatalf("Append with a close returned %d, want 3", got)
	}
	for i := range 3 {
		last, err := l.Append(context.Background(), s, ev(fmt.Sprint("late", i)))
		if !errors.Is(err, eventlog.ErrClosed) {
			t.Fatalf("Append after close: (%d, %v), want ErrClosed", last, err)
		}
	}
	if _, err := l.Append(context.Background(), s, closing("second close")); !errors.Is(err, eventlog.ErrClosed) {
		t.Fatalf("second close: err = %v, want ErrClosed", err)
	}
	evs := mustRead(t, l, s, 0, 100)
	checkSeqs(t, evs, 1)
	if len(evs) != 3 {
		t.Fatalf("stream has %d events after rejected appends, want 3", len(evs))
	}
	if !evs[2].Close || evs[0].Close || evs[1].Close {
		t.Fatalf("close flags = %v %v %v, want only the last", evs[0].Close, evs[1].Close, evs[2].Close)
	}
}

func testBatchStopsAtClose(t *testing.T, l eventlog.Log) {
	const s = "turn-batch-close"
	mustAppend(t, l, s, ev("a"))
	got := mustAppend(t, l, s, ev("b"), closing("end"), ev("after"), closing("again"))
	if got != 3 {
		t.Fatalf("Append returned %d, want the closing event's seq 3", got)
	}
	evs := mustRead(t, l, s, 0, 100)
	if want := []string{"a", "b", "end"}; !slices.Equal(dataOf(t, evs), want) {
		t.Fatalf("stream = %q, want %q", dataOf(t, evs), want)
	}
	if !evs[len(evs)-1].Close {
		t.Fatal("the last event is not the closing one")
	}
	if _, err := l.Append(context.Background(), s, ev("late")); !errors.Is(err, eventlog.ErrClosed) {
		t.Fatalf("Append after the batch's close: err = %v, want ErrClosed", err)
	}
}

func testStreamsIndependent(t *testing.T, l eventlog.Log) {
	a, b := "turn-a", "turn-b"
	mustAppend(t, l, a, ev("a1"))
	mustAppend(t, l, b, ev("b1"))
	mustAppend(t, l, a, ev("a2"), closing("a-end"))
	if got := mustAppend(t, l, b, ev("b2")); got != 2 {
		t.Fatalf("stream b after closing a: Append returned %d, want 2", got)
	}
	if got, want := dataOf(t, mustRead(t, l, a, 0, 10)), []string{"a1", "a2", "a-end"}; !slices.Equal(got, want) {
		t.Fatalf("stream a = %q, want %q", got, want)
	}
	if got, want := dataOf(t, mustRead(t, l, b, 0, 10)), []string{"b1", "b2"}; !slices.Equal(got, want) {
		t.Fatalf("stream b = %q, want %q", got, want)
	}
	// A stream whose name extends another's is a different stream.
	if got := mustAppend(t, l, a+"x", ev("ax1")); got != 1 {
		t.Fatalf("stream %q: first Append returned %d, want 1", a+"x", got)
	}
}

// testConcurrentAppenders has producers append pairs of events at the same
// time, as the Map iterations of a turn do; the log, not luck, orders them.
func testConcurrentAppenders(t *testing.T, l eventlog.Log) {
	const (
		s         = "turn-concurrent"
		producers = 8
		pairs     = 25 // 50 events per producer
	)
	type result struct {
		producer int
		lasts    []int64
		err      error
	}
	results := make(chan result, producers)
	for p := range producers {
		go func() {
			r := result{producer: p}
			for i := range pairs {
				last, err := l.Append(context.Background(), s,
					ev(fmt.Sprintf("%d/%d", p, 2*i)), ev(fmt.Sprintf("%d/%d", p, 2*i+1)))
				if err != nil {
					r.err = err
					break
				}
				r.lasts = append(r.lasts, last)
			}
			results <- r
		}()
	}
	lasts := map[string]int64{} // "producer/pair" → returned last seq
	for range producers {
		r := <-results
		if r.err != nil {
			t.Fatalf("producer %d: %v", r.producer, r.err)
		}
		for i, last := range r.lasts {
			lasts[fmt.Sprintf("%d/%d", r.producer, 2*i+1)] = last
		}
	}

	const total = producers * pairs * 2
	evs := mustRead(t, l, s, 0, 0)
	if len(evs) != total {
		t.Fatalf("stream has %d events, want %d", len(evs), total)
	}
	checkSeqs(t, evs, 1)
	seen := map[string]int64{}
	next := make([]int, producers) // each producer's events keep their order
	for i, d := range dataOf(t, evs) {
		if prev, dup := seen[d]; dup {
			t.Fatalf("event %q appears at seq %d and %d", d, prev, evs[i].Seq)
		}
		seen[d] = evs[i].Seq
		var p, n int
		if _, err := fmt.Sscanf(d, "%d/%d", &p, &n); err != nil || p < 0 || p >= producers {
			t.Fatalf("unexpected event data %q", d)
		}
		if n != next[p] {
			t.Fatalf("producer %d: event %d at seq %d, want event %d next", p, n, evs[i].Seq, next[p])
		}
		next[p]++
		if n%2 == 1 {
			// The second event of a pair directly follows the first, and
			// Append returned its seq.
			if seen[fmt.Sprintf("%d/%d", p, n-1)] != evs[i].Seq-1 {
				t.Fatalf("pair %d/%d is split: seqs %d and %d", p, n-1, seen[fmt.Sprintf("%d/%d", p, n-1)], evs[i].Seq)
			}
			if lasts[d] != evs[i].Seq {
				t.Fatalf("Append of pair ending %q returned %d, but the event has seq %d", d, lasts[d], evs[i].Seq)
			}
		}
	}
}

// testConcurrentClose closes a stream while producers still append: each
// Append either lands before the closing event or fails with ErrClosed and
// adds nothing, which is how a stopped turn's late producers are turned away.
func testConcurrentClose(t *testing.T, l eventlog.Log) {
	const (
		s         = "turn-concurrent-close"
		producers = 4
		maxEach   = 200
	)
	var (
		mu        sync.Mutex
		succeeded = map[int64]bool{}
		wg        sync.WaitGroup
	)
	started := make(chan struct{}, producers)
	errs := make(chan error, producers)
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			for i := range maxEach {
				last, err := l.Append(context.Background(), s, ev(fmt.Sprintf("%d/%d", p, i)))
				if errors.Is(err, eventlog.ErrClosed) {
					return
				}
				if err != nil {
					errs <- fmt.Errorf("producer %d: %w", p, err)
					return
				}
				mu.Lock()
				succeeded[last] = true
				mu.Unlock()
			}
		}()
	}
	for range producers {
		<-started
	}
	closeSeq := mustAppend(t, l, s, closing("stop"))
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	evs := mustRead(t, l, s, 0, 0)
	if int64(len(evs)) != closeSeq {
		t.Fatalf("stream has %d events, want %d (the closing seq)", len(evs), closeSeq)
	}
	checkSeqs(t, evs, 1)
	if !evs[len(evs)-1].Close {
		t.Fatal("the last event is not the closing one")
	}
	if len(succeeded) != len(evs)-1 {
		t.Fatalf("%d appends succeeded but the stream holds %d events before its close", len(succeeded), len(evs)-1)
	}
	for seq := range succeeded {
		if seq >= closeSeq {
			t.Fatalf("an Append succeeded with seq %d at or after the closing seq %d", seq, closeSeq)
		}
	}
}

func testNotifier(t *testing.T, l eventlog.Log) {
	n, ok := l.(eventlog.Notifier)
	if !ok {
		t.Skip("the log is not a Notifier")
	}
	const s = "turn-notify"
	changed := n.Changed(s)
	select {
	case <-changed:
		t.Fatal("Changed is closed before any append")
	default:
	}
	mustAppend(t, l, s, ev("a"))
	select {
	case <-changed:
	case <-time.After(waitBound):
		t.Fatal("Changed was not closed after an append")
	}

	// A channel taken after the append waits for the next one, and it
	// wakes a waiter that is already blocked.
	next := n.Changed(s)
	select {
	case <-next:
		t.Fatal("Changed taken after an append is already closed")
	default:
	}
	woke := make(chan struct{})
	go func() {
		defer close(woke)
		select {
		case <-next:
		case <-time.After(waitBound):
		}
	}()
	mustAppend(t, l, s, closing("end"))
	<-woke
	select {
	case <-next:
	default:
		t.Fatal("Changed was not closed after the closing append")
	}
}
