package boltstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// testEvents returns n events of a stream as the relay writes them: text
// deltas, a named one, a large one (a run alone), the last closing it.
func testEvents(n int) []eventlog.Event {
	evs := make([]eventlog.Event, n)
	for i := range evs {
		seq := int64(i + 1)
		data := fmt.Sprintf(`{"type":"text-delta","id":"t1","delta":"word %d "}`, seq)
		switch {
		case seq%17 == 0:
			data = `"` + strings.Repeat("x", maxRunBytes) + `"`
		case seq%5 == 0:
			evs[i].Name = "progress"
		}
		evs[i].Seq, evs[i].Data, evs[i].Close = seq, json.RawMessage(data), seq == int64(n)
	}
	return evs
}

// readsAll checks Read from every position with several limits against
// want (the whole stream).
func readsAll(t *testing.T, log *EventLog, stream string, want []eventlog.Event) {
	t.Helper()
	ctx := context.Background()
	for after := range len(want) + 2 {
		for _, limit := range []int{0, 1, 3, 50} {
			got, err := log.Read(ctx, stream, int64(after), limit)
			if err != nil {
				t.Fatalf("Read after %d, limit %d: %v", after, limit, err)
			}
			w := want[min(after, len(want)):]
			if limit > 0 && len(w) > limit {
				w = w[:limit]
			}
			if len(got) == 0 && len(w) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("Read after %d, limit %d: got %d events from %v, want %d from %v", after, limit, len(got), seqOf(got), len(w), seqOf(w))
			}
		}
	}
}

func seqOf(evs []eventlog.Event) any {
	if len(evs) == 0 {
		return "none"
	}
	return evs[0].Seq
}

// TestRunsReadFromAnyPosition: events appended in commits of varying
// size (one event, many, a run split at maxRunBytes, packed or not) are
// read back exactly from every position and with every limit, from the
// file and after a reopen.
func TestRunsReadFromAnyPosition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want := testEvents(60)
	for i, size := 0, 1; i < len(want); i, size = i+size, size*2 { // commits of 1, 2, 4, ... events
		batch := want[i:min(i+size, len(want))]
		in := make([]eventlog.Event, len(batch))
		for j, ev := range batch {
			in[j] = eventlog.Event{Name: ev.Name, Data: ev.Data, Close: ev.Close}
		}
		if _, err := db.Events().Append(ctx, "turn-1", in...); err != nil {
			t.Fatal(err)
		}
		if err := db.Events().Flush(); err != nil {
			t.Fatal(err)
		}
	}
	var values, packed int
	_ = db.bolt.View(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(bucketEvents)).Bucket([]byte("turn-1")).ForEach(func(_, v []byte) error {
			values++
			if v[0]&flagPacked != 0 {
				packed++
			}
			return nil
		})
	})
	if values >= len(want)/2 || packed == 0 {
		t.Errorf("%d values (%d packed) for %d events: want runs, some packed", values, packed, len(want))
	}
	readsAll(t, db.Events(), "turn-1", want)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(path, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	readsAll(t, db.Events(), "turn-1", want)
}

// TestFileFromBeforeRuns: a file that holds one event per key (as written
// before runs) reads as it did, and a stream continued on it mixes both.
func TestFileFromBeforeRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	want := testEvents(30)
	old := want[:20]
	old[len(old)-1].Close = false
	err = db.bolt.Update(func(tx *bbolt.Tx) error {
		b, err := tx.Bucket([]byte(bucketEvents)).CreateBucket([]byte("turn-1"))
		if err != nil {
			return err
		}
		for _, ev := range old {
			if err := b.Put(u64key(ev.Seq), appendEvent(nil, ev)); err != nil {
				return err
			}
		}
		return putJSON(tx.Bucket([]byte(bucketStreams)), []byte("turn-1"), streamMeta{Last: 20})
	})
	if err != nil {
		t.Fatal(err)
	}
	readsAll(t, db.Events(), "turn-1", old)
	var in []eventlog.Event
	for _, ev := range want[20:] {
		in = append(in, eventlog.Event{Name: ev.Name, Data: ev.Data, Close: ev.Close})
	}
	if last, err := db.Events().Append(context.Background(), "turn-1", in...); err != nil || last != 30 {
		t.Fatalf("append after the old events: %d, %v", last, err)
	}
	if err := db.Events().Flush(); err != nil {
		t.Fatal(err)
	}
	readsAll(t, db.Events(), "turn-1", want)
	db.Close()
}

// TestDamagedRunIsAnError: a run cut short or or with a bad S2 block
// is reported by Read, never a panic or a silent short read.
func TestDamagedRunIsAnError(t *testing.T) {
	run := encodeRun(testEvents(16)[:15])
	if run[0]&flagPacked == 0 {
		t.Fatal("the test run is not packed")
	}
	plain := append([]byte{flagRun}, 3, 40, 0)
	for name, v := range map[string][]byte{
		"cut packed": run[:len(run)/2],
		"cut plain":  plain,
		"no count":   {flagRun},
		"empty":      {},
	} {
		t.Run(name, func(t *testing.T) {
			db := slowGroup(t)
			err := db.bolt.Update(func(tx *bbolt.Tx) error {
				b, err := tx.Bucket([]byte(bucketEvents)).CreateBucket([]byte("turn-1"))
				if err != nil {
					return err
				}
				return b.Put(u64key(1), v)
			})
			if err != nil {
				t.Fatal(err)
			}
			if evs, err := db.Events().Read(context.Background(), "turn-1", 0, 0); err == nil {
				t.Fatalf("read %d events of a damaged value without an error", len(evs))
			}
		})
	}
}
