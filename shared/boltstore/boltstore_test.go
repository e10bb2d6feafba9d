package boltstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/eventlog/eventlogtest"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/session/sessiontest"
)

// open opens a store in a fresh directory and closes it after the test.
func open(t testing.TB, opts boltstore.Options) *boltstore.DB {
	t.Helper()
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "data", "store.db"), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

func TestSessionsContract(t *testing.T) {
	tests := []struct {
		name string
		opts boltstore.Options
	}{
		{"NoSync", boltstore.Options{NoSync: true}},
		{"NoSync with TTL", boltstore.Options{NoSync: true, TTL: time.Hour}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessiontest.Run(t, func(t *testing.T) session.Store { return open(t, tt.opts).Sessions() })
		})
	}
}

func TestLeasesContract(t *testing.T) {
	sessiontest.RunLeases(t, func(t *testing.T) session.Leases { return open(t, boltstore.Options{NoSync: true}).Sessions() })
}

func TestEventsContract(t *testing.T) {
	tests := []struct {
		name string
		opts boltstore.Options
	}{
		{"NoSync", boltstore.Options{NoSync: true}},
		{"Sync", boltstore.Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eventlogtest.Run(t, func(t *testing.T) eventlog.Log { return open(t, tt.opts).Events() })
		})
	}
}

// TestTail tails the store's log while a producer appends: the Notifier wakes
// the tailer, and every event arrives once and in order.
func TestTail(t *testing.T) {
	log := open(t, boltstore.Options{NoSync: true}).Events()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []int64
	done := make(chan error, 1)
	go func() {
		done <- eventlog.Tail(ctx, log, "turn-1", 0, eventlog.TailOptions{Batch: 7}, func(e eventlog.Event) error {
			got = append(got, e.Seq)
			return nil
		})
	}()
	const n = 40
	for i := range n {
		if _, err := log.Append(ctx, "turn-1", eventlog.Event{Data: json.RawMessage(fmt.Sprint(i)), Close: i == n-1}); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("Tail: %v", err)
	}
	if len(got) != n {
		t.Fatalf("Tail delivered %d events, want %d", len(got), n)
	}
	for i, s := range got {
		if s != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, s)
		}
	}
}

// TestPersistence writes everything the store holds, closes the file, opens
// it again and reads it all back; the conditions (active turn, closed
// stream) hold across the restart.
func TestPersistence(t *testing.T) {
	for _, noSync := range []bool{true, false} {
		t.Run(fmt.Sprint("NoSync=", noSync), func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "store.db")
			db, err := boltstore.Open(path, boltstore.Options{NoSync: noSync})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			ss, log := db.Sessions(), db.Events()
			must(t, ss.CreateSession(ctx, session.Session{ID: "s1", TeacherID: "teacher-1", Kind: "chat", ExpiresAt: time.Unix(1924992000, 0)}))
			t1, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t1", Message: "hello"})
			must(t, err)
			out := session.Outcome{Action: "chat", Text: "hi", Artifacts: []string{"quiz:5"}}
			must(t, ss.EndTurn(ctx, "s1", "t1", session.TurnCompleted, out))
			_, err = ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t2", Message: "again"})
			must(t, err)
			must(t, ss.PutRecord(ctx, "s1", "history/t1", []byte(`[1,2]`)))
			_, err = log.Append(ctx, "closed", eventlog.Event{Data: json.RawMessage(`"a"`)}, eventlog.Event{Data: json.RawMessage(`"end"`), Close: true})
			must(t, err)
			_, err = log.Append(ctx, "open", eventlog.Event{Data: json.RawMessage(`1`)}, eventlog.Event{Data: json.RawMessage(`2`)})
			must(t, err)
			before, err := ss.GetSession(ctx, "s1")
			must(t, err)
			must(t, db.Close())

			db, err = boltstore.Open(path, boltstore.Options{NoSync: noSync})
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer db.Close()
			ss, log = db.Sessions(), db.Events()

			after, err := ss.GetSession(ctx, "s1")
			must(t, err)
			if !reflect.DeepEqual(jsonOf(t, after), jsonOf(t, before)) {
				t.Fatalf("session after reopen = %+v, want %+v", after, before)
			}
			turns, err := ss.ListTurns(ctx, "s1")
			must(t, err)
			if len(turns) != 2 || turns[0].ID != "t1" || turns[1].ID != "t2" {
				t.Fatalf("turns after reopen = %+v", turns)
			}
			if turns[0].Status != session.TurnCompleted || !reflect.DeepEqual(turns[0].Outcome, out) || !turns[0].StartedAt.Equal(t1.StartedAt) {
				t.Fatalf("t1 after reopen = %+v", turns[0])
			}
			if _, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t3"}); !errors.Is(err, session.ErrConflict) {
				t.Fatalf("BeginTurn while t2 runs, after reopen: %v, want ErrConflict", err)
			}
			rec, err := ss.GetRecord(ctx, "s1", "history/t1")
			if err != nil || string(rec) != `[1,2]` {
				t.Fatalf("record after reopen = %q, %v", rec, err)
			}
			if _, err := log.Append(ctx, "closed", eventlog.Event{Data: json.RawMessage(`"late"`)}); !errors.Is(err, eventlog.ErrClosed) {
				t.Fatalf("Append to the closed stream after reopen: %v, want ErrClosed", err)
			}
			last, err := log.Append(ctx, "open", eventlog.Event{Data: json.RawMessage(`3`)})
			if err != nil || last != 3 {
				t.Fatalf("Append to the open stream after reopen = %d, %v; want 3", last, err)
			}
			evs, err := log.Read(ctx, "open", 0, 10)
			must(t, err)
			if len(evs) != 3 || string(evs[0].Data) != "1" || string(evs[2].Data) != "3" {
				t.Fatalf("open stream after reopen = %+v", evs)
			}
		})
	}
}

func TestTTLAndSweep(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	clk := clocktest.New(start)
	db := open(t, boltstore.Options{NoSync: true, TTL: time.Hour, Now: clk.Now})
	ss, log := db.Sessions(), db.Events()

	must(t, ss.CreateSession(ctx, session.Session{ID: "short", TeacherID: "teacher-1"}))
	must(t, ss.CreateSession(ctx, session.Session{ID: "kept", TeacherID: "teacher-1", ExpiresAt: start.Add(24 * time.Hour)}))
	s, err := ss.GetSession(ctx, "short")
	must(t, err)
	if want := start.Add(time.Hour); !s.ExpiresAt.Equal(want) {
		t.Fatalf("ExpiresAt without a given one = %v, want now+TTL %v", s.ExpiresAt, want)
	}
	_, err = log.Append(ctx, "early", eventlog.Event{Data: json.RawMessage(`1`)})
	must(t, err)

	clk.Advance(30 * time.Minute)
	_, err = ss.BeginTurn(ctx, session.Turn{SessionID: "short", ID: "t1"})
	must(t, err)
	must(t, ss.PutRecord(ctx, "short", "history/t1", []byte("x")))
	s, err = ss.GetSession(ctx, "short")
	must(t, err)
	if want := start.Add(90 * time.Minute); !s.ExpiresAt.Equal(want) {
		t.Fatalf("ExpiresAt after BeginTurn = %v, want it moved to %v", s.ExpiresAt, want)
	}
	_, err = log.Append(ctx, "late", eventlog.Event{Data: json.RawMessage(`1`)})
	must(t, err)

	// The clock is at 30 min; "short" expires at 90 min, "early" at 60 min,
	// "late" at 90 min, "kept" at 24 h.
	tests := []struct {
		at                     string
		advance                time.Duration
		sessions, streams      int
		goneSessions, goneLogs []string
	}{
		{at: "50 min", advance: 20 * time.Minute},
		{at: "70 min", advance: 20 * time.Minute, streams: 1, goneLogs: []string{"early"}},
		{at: "110 min", advance: 40 * time.Minute, sessions: 1, streams: 1, goneSessions: []string{"short"}, goneLogs: []string{"late"}},
		{at: "170 min", advance: time.Hour},
	}
	for _, tt := range tests {
		clk.Advance(tt.advance)
		sessions, streams, err := db.Sweep(ctx)
		must(t, err)
		if sessions != tt.sessions || streams != tt.streams {
			t.Fatalf("sweep at %s deleted %d sessions and %d streams, want %d and %d", tt.at, sessions, streams, tt.sessions, tt.streams)
		}
		for _, id := range tt.goneSessions {
			if _, err := ss.GetSession(ctx, id); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("swept session %s: GetSession = %v", id, err)
			}
			if _, err := ss.GetTurn(ctx, id, "t1"); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("swept session %s: GetTurn = %v", id, err)
			}
			if turns, err := ss.ListTurns(ctx, id); err != nil || len(turns) != 0 {
				t.Fatalf("swept session %s: ListTurns = %v, %v", id, turns, err)
			}
			if recs, err := ss.ListRecords(ctx, id, ""); err != nil || len(recs) != 0 {
				t.Fatalf("swept session %s: ListRecords = %v, %v", id, recs, err)
			}
		}
		for _, stream := range tt.goneLogs {
			if evs, err := log.Read(ctx, stream, 0, 10); err != nil || len(evs) != 0 {
				t.Fatalf("swept stream %s: Read = %v, %v", stream, evs, err)
			}
		}
	}
	if _, err := ss.GetSession(ctx, "kept"); err != nil {
		t.Fatalf("the session with a later expiry was swept: %v", err)
	}
	// A swept session id and stream name can be used again from scratch.
	must(t, ss.CreateSession(ctx, session.Session{ID: "short", TeacherID: "teacher-1"}))
	if tr, err := ss.BeginTurn(ctx, session.Turn{SessionID: "short", ID: "t1"}); err != nil || tr.Index != 1 {
		t.Fatalf("BeginTurn in a re-created session = %+v, %v; want index 1", tr, err)
	}
	if last, err := log.Append(ctx, "late", eventlog.Event{Data: json.RawMessage(`1`)}); err != nil || last != 1 {
		t.Fatalf("Append to a swept stream = %d, %v; want 1", last, err)
	}
}

func TestSweepWithoutTTL(t *testing.T) {
	ctx := context.Background()
	db := open(t, boltstore.Options{NoSync: true})
	must(t, db.Sessions().CreateSession(ctx, session.Session{ID: "s1"}))
	_, err := db.Events().Append(ctx, "turn-1", eventlog.Event{Data: json.RawMessage(`1`)})
	must(t, err)
	s, err := db.Sessions().GetSession(ctx, "s1")
	must(t, err)
	if !s.ExpiresAt.IsZero() {
		t.Fatalf("ExpiresAt without a TTL = %v, want zero", s.ExpiresAt)
	}
	if sessions, streams, err := db.Sweep(ctx); err != nil || sessions != 0 || streams != 0 {
		t.Fatalf("Sweep = %d, %d, %v; want nothing deleted", sessions, streams, err)
	}
}

// TestValuesOutliveTransactions reads values, then grows the file until
// bbolt maps it anew: values that still pointed into the old mapping would
// change or fault.
func TestValuesOutliveTransactions(t *testing.T) {
	ctx := context.Background()
	db := open(t, boltstore.Options{NoSync: true})
	ss, log := db.Sessions(), db.Events()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1024) // 16 KiB: not inline
	must(t, ss.PutRecord(ctx, "s1", "big", big))
	data := json.RawMessage(`"` + strings.Repeat("x", 16<<10) + `"`)
	_, err := log.Append(ctx, "turn-1", eventlog.Event{Data: data})
	must(t, err)

	rec, err := ss.GetRecord(ctx, "s1", "big")
	must(t, err)
	recs, err := ss.ListRecords(ctx, "s1", "")
	must(t, err)
	evs, err := log.Read(ctx, "turn-1", 0, 1)
	must(t, err)

	filler := bytes.Repeat([]byte{0xAA}, 64<<10)
	for i := range 64 { // 4 MiB: several remaps
		must(t, ss.PutRecord(ctx, "s2", fmt.Sprint("filler-", i), filler))
	}
	if !bytes.Equal(rec, big) || len(recs) != 1 || !bytes.Equal(recs[0].Value, big) {
		t.Fatal("a record value read before the file grew has changed")
	}
	if len(evs) != 1 || !bytes.Equal(evs[0].Data, data) {
		t.Fatal("event data read before the file grew has changed")
	}
}

func TestBeginTurnDuplicateID(t *testing.T) {
	ctx := context.Background()
	ss := open(t, boltstore.Options{NoSync: true}).Sessions()
	must(t, ss.CreateSession(ctx, session.Session{ID: "s1"}))
	_, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t1"})
	must(t, err)
	must(t, ss.EndTurn(ctx, "s1", "t1", session.TurnCompleted, session.Outcome{}))
	if _, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t1"}); !errors.Is(err, session.ErrExists) {
		t.Fatalf("BeginTurn with a used turn id: %v, want ErrExists", err)
	}
	if s, err := ss.GetSession(ctx, "s1"); err != nil || s.Turns != 1 || s.ActiveTurn != "" {
		t.Fatalf("session after the rejected turn = %+v, %v", s, err)
	}
}

func TestEmptyNames(t *testing.T) {
	ctx := context.Background()
	db := open(t, boltstore.Options{NoSync: true})
	ss, log := db.Sessions(), db.Events()
	must(t, ss.CreateSession(ctx, session.Session{ID: "s1"}))
	tests := []struct {
		name string
		call func() error
	}{
		{"session id", func() error { return ss.CreateSession(ctx, session.Session{}) }},
		{"turn id", func() error { _, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1"}); return err }},
		{"end turn id", func() error { return ss.EndTurn(ctx, "s1", "", session.TurnCompleted, session.Outcome{}) }},
		{"record key", func() error { return ss.PutRecord(ctx, "s1", "", []byte("x")) }},
		{"record session", func() error { return ss.PutRecord(ctx, "", "k", []byte("x")) }},
		{"stream", func() error { _, err := log.Append(ctx, "", eventlog.Event{}); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err == nil {
				t.Fatal("an empty name was accepted")
			}
		})
	}
	if s, err := ss.GetSession(ctx, "s1"); err != nil || s.Turns != 0 {
		t.Fatalf("a rejected call changed the session: %+v, %v", s, err)
	}
}

func TestCanceledContext(t *testing.T) {
	db := open(t, boltstore.Options{NoSync: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := db.Sessions().CreateSession(ctx, session.Session{ID: "s1"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("CreateSession with a canceled context: %v", err)
	}
	if _, err := db.Events().Append(ctx, "turn-1", eventlog.Event{Data: json.RawMessage(`1`)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Append with a canceled context: %v", err)
	}
	if _, err := db.Events().Read(ctx, "turn-1", 0, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with a canceled context: %v", err)
	}
	if _, err := db.Sessions().GetSession(context.Background(), "s1"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("a canceled CreateSession stored the session: %v", err)
	}
}

func TestUseAfterClose(t *testing.T) {
	ctx := context.Background()
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), boltstore.Options{NoSync: true})
	must(t, err)
	must(t, db.Close())
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := db.Sessions().GetSession(ctx, "s1"); err == nil || errors.Is(err, session.ErrNotFound) {
		t.Fatalf("GetSession after Close: %v, want a closed-database error", err)
	}
	if _, err := db.Events().Append(ctx, "turn-1", eventlog.Event{Data: json.RawMessage(`1`)}); err == nil {
		t.Fatal("Append after Close succeeded")
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	must(t, os.WriteFile(garbage, []byte("this is not a bbolt file, it is long enough to be read as pages? no."), 0o600))
	blocker := filepath.Join(dir, "file")
	must(t, os.WriteFile(blocker, nil, 0o600))
	tests := []struct{ name, path string }{
		{"not a store file", garbage},
		{"parent is a file", filepath.Join(blocker, "store.db")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := boltstore.Open(tt.path, boltstore.Options{})
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// jsonOf compares values as stored: times lose their monotonic reading.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}

func BenchmarkAppend(b *testing.B) {
	for _, noSync := range []bool{true, false} {
		b.Run(fmt.Sprint("NoSync=", noSync), func(b *testing.B) {
			log := open(b, boltstore.Options{NoSync: noSync}).Events()
			ev := eventlog.Event{Data: json.RawMessage(`{"type":"text-delta","id":"t1","delta":"Fractions are parts of a whole."}`)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := log.Append(ctx, "turn-bench", ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRead100(b *testing.B) {
	log := open(b, boltstore.Options{NoSync: true}).Events()
	ctx := context.Background()
	evs := make([]eventlog.Event, 1000)
	for i := range evs {
		evs[i].Data = json.RawMessage(fmt.Sprintf(`{"type":"text-delta","id":"t1","delta":"part %d of the answer"}`, i))
	}
	if _, err := log.Append(ctx, "turn-bench", evs...); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		got, err := log.Read(ctx, "turn-bench", 450, 100)
		if err != nil || len(got) != 100 {
			b.Fatalf("Read = %d events, %v", len(got), err)
		}
	}
}

// BenchmarkConcurrentAppend is the load of many turns streaming at once: 50
// producers, each appending 200 one-event chunks to its own stream (one
// op is the whole run of 10,000 appends, ended by a Flush: every event is
// committed), as the agents of 50 turns do. It reports the cost per append.
func BenchmarkConcurrentAppend(b *testing.B) {
	const producers, events = 50, 200
	for _, noSync := range []bool{true, false} {
		b.Run(fmt.Sprint("NoSync=", noSync), func(b *testing.B) {
			log := open(b, boltstore.Options{NoSync: noSync}).Events()
			run := 0
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				run++
				appendAll(b, log, run, producers, events, 0)
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			n := float64(b.N * producers * events)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/append")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/append")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "B/append")
		})
	}
}

// BenchmarkPacedAppend is the load of turns whose model streams at a pace
// (issue 29): each producer appends one chunk every 10 ms to its own
// stream, as an agent relaying a model does, so a group commit holds about
// one chunk of each stream. One op is a run of every producer's 50 chunks,
// ended by a Flush. It reports the process's CPU time per append (user +
// system, from getrusage: the wall time is the pacing), which is what the
// load benchmark's "CPU per chunk" row pays for the log.
func BenchmarkPacedAppend(b *testing.B) {
	const events, pace = 50, 10 * time.Millisecond
	for _, producers := range []int{50, 200} {
		b.Run(fmt.Sprint("producers=", producers), func(b *testing.B) {
			log := open(b, boltstore.Options{NoSync: true}).Events()
			run := 0
			cpu0 := cpuTime(b)
			for b.Loop() {
				run++
				appendAll(b, log, run, producers, events, pace)
			}
			b.StopTimer()
			n := float64(b.N * producers * events)
			b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/n, "cpu-ns/append")
		})
	}
}

// appendAll is one run of the append benchmarks: producers goroutines,
// each appending events one-event text chunks to its own stream (named
// after run), one every pace when pace is positive, then a Flush.
func appendAll(b *testing.B, log *boltstore.EventLog, run, producers, events int, pace time.Duration) {
	ev := eventlog.Event{Data: json.RawMessage(`{"type":"text-delta","id":"t1","delta":"Fractions are parts of a whole."}`)}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, producers)
	for p := range producers {
		wg.Go(func() {
			var tick <-chan time.Time
			if pace > 0 {
				t := time.NewTicker(pace)
				defer t.Stop()
				tick = t.C
			}
			stream := fmt.Sprintf("turn-%d-%d", run, p)
			for range events {
				if tick != nil {
					<-tick
				}
				if _, err := log.Append(ctx, stream, ev); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	if err := log.Flush(); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
