package boltstore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/session"
)

// slowGroup opens a store whose group commit waits an hour unless a writer
// needs it, so the tests see what is sequenced and not yet committed.
func slowGroup(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "store.db"), Options{NoSync: true, GroupDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func (w *writer) commitCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.commits
}

// TestRelayedBeforeCommit: a tailer gets an event the moment it is
// sequenced, from the feed, while its commit is still to come; Read has it
// too, so a cursor the relay gave out is valid at once.
func TestRelayedBeforeCommit(t *testing.T) {
	db := slowGroup(t)
	log := db.Events()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan eventlog.Event, 4)
	go func() {
		_ = eventlog.Tail(ctx, log, "turn-1", 0, eventlog.TailOptions{}, func(ev eventlog.Event) error {
			got <- ev
			return nil
		})
	}()
	time.Sleep(20 * time.Millisecond) // let the tailer subscribe (either way it must get the event)
	if _, err := log.Append(ctx, "turn-1", eventlog.Event{Data: json.RawMessage(`"a"`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-got:
		if ev.Seq != 1 || string(ev.Data) != `"a"` {
			t.Fatalf("tailer got %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("the tailer did not get the sequenced event")
	}
	if n := db.events.commitCount(); n != 0 {
		t.Fatalf("%d commits before the group delay: the relay should not have needed one", n)
	}
	if evs, err := log.Read(ctx, "turn-1", 0, 10); err != nil || len(evs) != 1 || evs[0].Seq != 1 {
		t.Fatalf("Read of a sequenced event: %v, %v", evs, err)
	}
	if err := log.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := db.events.commitCount(); n != 1 {
		t.Fatalf("%d commits after Flush, want 1", n)
	}
}

// TestOtherWritesFollowEvents: a write to the session store commits the
// events appended before it first (to the journal), so the store never
// holds a turn's end without the events the turn appended before it: a
// copy of the files taken right after it (what a killed process leaves)
// opens with both.
func TestOtherWritesFollowEvents(t *testing.T) {
	db := slowGroup(t)
	ctx := context.Background()
	for i := range 3 {
		if _, err := db.Events().Append(ctx, "turn-1", eventlog.Event{Data: json.RawMessage(`1`), Close: i == 2}); err != nil {
			t.Fatal(err)
		}
	}
	if n := db.events.commitCount(); n != 0 {
		t.Fatalf("%d commits before the group delay", n)
	}
	if err := db.Sessions().CreateSession(ctx, session.Session{ID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if n := db.events.commitCount(); n != 1 {
		t.Fatalf("the session write did not wait for the events' commit: %d commits", n)
	}
	crashed := openCopy(t, db)
	if _, err := crashed.Sessions().GetSession(ctx, "s1"); err != nil {
		t.Fatalf("the session after a crash: %v", err)
	}
	evs, err := crashed.Events().Read(ctx, "turn-1", 0, 0)
	if err != nil || len(evs) != 3 || !evs[2].Close {
		t.Fatalf("the stream after a crash: %+v, %v; want 3 events, closed", evs, err)
	}
}

// openCopy copies the files of db (the store and its journal) as they are
// now, as a killed process leaves them, and opens the copy.
func openCopy(t *testing.T, db *DB) *DB {
	t.Helper()
	path := db.bolt.Path()
	dst := filepath.Join(t.TempDir(), "copy.db")
	for _, suffix := range []string{"", ".journal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Open(dst, Options{NoSync: true, GroupDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestOpenCommitsOnlyMissingBuckets: opening a file that has its buckets
// commits nothing (a commit is a sync on every start); a new file gets
// them all, and they are there after a reopen.
func TestOpenCommitsOnlyMissingBuckets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	txID := func() (id int, missing []string) {
		d, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		_ = d.bolt.View(func(tx *bbolt.Tx) error {
			id = tx.ID()
			for _, name := range buckets {
				if tx.Bucket([]byte(name)) == nil {
					missing = append(missing, name)
				}
			}
			return nil
		})
		return id, missing
	}
	first, missing := txID()
	if len(missing) > 0 {
		t.Fatalf("a new file lacks buckets %v", missing)
	}
	if again, missing := txID(); again != first || len(missing) > 0 {
		t.Errorf("reopened: transaction %d (was %d), missing %v: the open committed again", again, first, missing)
	}
}
