package boltstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/session"
)

var errRefused = errors.New("refused")

// groupOf runs lead and then, while lead's transaction is held open, the
// fns of others, so that they queue in order for one group behind it (the
// first of them leads it); it returns
// each fn's answer (a recovered panic as an error) and the transactions
// the grouper tried.
func groupOf(t *testing.T, g *grouper, lead func(*bbolt.Tx) error, others []func(*bbolt.Tx) error) ([]error, int) {
	t.Helper()
	queued := make(chan int, len(others)+1)
	g.mu.Lock()
	g.onQueue = func(n int) { queued <- n }
	g.mu.Unlock()
	entered, release := make(chan struct{}), make(chan struct{})
	errs := make([]error, len(others)+1)
	var wg sync.WaitGroup
	wg.Go(func() {
		errs[0] = g.run(func(tx *bbolt.Tx) error {
			close(entered)
			<-release
			return lead(tx)
		})
	})
	<-entered
	<-queued                    // the leader's own call
	for i, fn := range others { // one at a time: they queue in order
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					errs[i+1] = fmt.Errorf("panic: %v", p)
				}
			}()
			errs[i+1] = g.run(fn)
		})
		<-queued
	}
	close(release)
	wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.onQueue = nil
	return errs, g.commits
}

func put(key string) func(*bbolt.Tx) error {
	return func(tx *bbolt.Tx) error { return tx.Bucket([]byte(bucketRecords)).Put([]byte(key), []byte("v")) }
}

// createOnce writes key unless it is there: a conditional write.
func createOnce(key string) func(*bbolt.Tx) error {
	return func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketRecords))
		if b.Get([]byte(key)) != nil {
			return errRefused
		}
		return b.Put([]byte(key), []byte("v"))
	}
}

// TestGroupCommit: the writes that queue while a commit runs are committed
// together; a failing one is answered alone and leaves no write, and the
// others are committed without it; a panicking one rolls its group back and
// the writers are answered; of conditional writes racing in one group, one
// wins.
func TestGroupCommit(t *testing.T) {
	failing := func(tx *bbolt.Tx) error {
		if err := put("failed")(tx); err != nil {
			return err
		}
		return errRefused
	}
	panicking := func(tx *bbolt.Tx) error {
		if err := put("panicked")(tx); err != nil {
			return err
		}
		panic("boom")
	}
	tests := []struct {
		name    string
		others  []func(*bbolt.Tx) error
		want    []string // each fn's answer, "" for nil; nil: any order, one winner
		keys    []string // written (and "after", by a write after the group)
		absent  []string
		commits int
	}{
		{"all succeed", []func(*bbolt.Tx) error{put("a"), put("b"), put("c")},
			[]string{"", "", "", ""}, []string{"lead", "a", "b", "c"}, nil, 2},
		{"one fails", []func(*bbolt.Tx) error{put("a"), failing, put("c")},
			[]string{"", "", "refused", ""}, []string{"lead", "a", "c"}, []string{"failed"}, 4},
		// The panic is raised in the group's leader (a's caller); the group
		// is rolled back and its other writers are told.
		{"one panics", []func(*bbolt.Tx) error{put("a"), panicking, put("c")},
			[]string{"", "panic: boom", errGroupPanicked.Error(), errGroupPanicked.Error()}, []string{"lead"}, []string{"a", "c", "panicked"}, 2},
		{"conditional writes race", []func(*bbolt.Tx) error{createOnce("x"), createOnce("x"), createOnce("x")},
			nil, []string{"lead", "x"}, nil, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(filepath.Join(t.TempDir(), "store.db"), Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			errs, commits := groupOf(t, db.group, put("lead"), tt.others)
			if err := db.group.run(put("after")); err != nil { // the queue has moved on
				t.Errorf("a write after the group: %v", err)
			}
			wins := 0
			for i, err := range errs {
				got := ""
				if err != nil {
					got = err.Error()
				} else {
					wins++
				}
				if tt.want != nil && got != tt.want[i] {
					t.Errorf("fn %d answered %q, want %q", i, got, tt.want[i])
				}
			}
			if tt.want == nil && wins != 2 {
				t.Errorf("%d of the racing creates won, want 1: %v", wins-1, errs)
			}
			if commits != tt.commits {
				t.Errorf("%d transactions, want %d", commits, tt.commits)
			}
			_ = db.bolt.View(func(tx *bbolt.Tx) error {
				b := tx.Bucket([]byte(bucketRecords))
				for _, k := range tt.keys {
					if b.Get([]byte(k)) == nil {
						t.Errorf("key %s was not written", k)
					}
				}
				for _, k := range tt.absent {
					if b.Get([]byte(k)) != nil {
						t.Errorf("key %s of a failed write was kept", k)
					}
				}
				return nil
			})
		})
	}
}

// BenchmarkTurnWrites is the session store's part of 50 turns running at
// once: each creates its session, holds its lease, begins, writes two
// records, ends and drops the lease, as a turn of the local run does. One
// op is the 50 turns; it reports the transactions committed per turn
// (before the group commit, 7) and the time per turn.
func BenchmarkTurnWrites(b *testing.B) {
	const turns = 50
	db, err := Open(filepath.Join(b.TempDir(), "store.db"), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := db.Sessions()
	ctx := context.Background()
	record := []byte(`[{"role":"user","content":"What is photosynthesis?"}]`)
	run := 0
	for b.Loop() {
		run++
		var wg sync.WaitGroup
		for i := range turns {
			id := fmt.Sprintf("s-%d-%d", run, i)
			wg.Go(func() {
				if err := writeTurn(ctx, s, id, record); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	n := float64(b.N * turns)
	b.ReportMetric(float64(db.group.commits)/n, "commits/turn")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/turn")
}

func writeTurn(ctx context.Context, s *SessionStore, id string, record []byte) error {
	lease := session.Lease{Kind: session.LeaseTurn, ID: "t-" + id, Owner: id, Until: time.Now().Add(time.Minute)}
	return errors.Join(
		s.CreateSession(ctx, session.Session{ID: id}),
		s.HoldLease(ctx, lease),
		func() error { _, err := s.BeginTurn(ctx, session.Turn{SessionID: id, ID: lease.ID}); return err }(),
		s.PutRecord(ctx, id, "turn/"+lease.ID+"/history/1", record),
		s.PutRecord(ctx, id, "route", record),
		s.EndTurn(ctx, id, lease.ID, session.TurnCompleted, session.Outcome{}),
		s.DropLease(ctx, lease.Kind, lease.ID),
	)
}
