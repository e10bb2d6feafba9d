package boltstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// TestJournalReplay: what a process killed between checkpoints leaves (the
// store file and the journal, as they were) opens with every journaled
// event of every stream, byte for byte and gap-free; a frame the crash cut
// off is ignored; events the file has already (a crash between a
// checkpoint and the journal's emptying) are not written twice; and the
// streams go on from their ends.
func TestJournalReplay(t *testing.T) {
	ctx := context.Background()
	crashes := []struct {
		name  string
		setup func(t *testing.T, db *DB) // after the appends, before the copy
	}{
		{"killed between checkpoints", func(*testing.T, *DB) {}},
		{"torn last frame", func(t *testing.T, db *DB) {
			appendJournal(t, db, []byte{40, 0, 0, 0, 1, 2, 3, 4, 5}) // a frame's header and a piece of it
		}},
		{"damaged last frame", func(t *testing.T, db *DB) {
			appendJournal(t, db, []byte{3, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}) // a wrong checksum
		}},
		{"killed before the journal was emptied", func(t *testing.T, db *DB) {
			old, err := os.ReadFile(db.journal())
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Events().Flush(); err != nil { // checkpoint, journal emptied
				t.Fatal(err)
			}
			if err := os.WriteFile(db.journal(), old, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range crashes {
		t.Run(tc.name, func(t *testing.T) {
			db := slowGroup(t)
			want := map[string][]eventlog.Event{}
			for g := range 3 { // three groups: a in each, b closed in the last
				for _, stream := range []string{"a", "b"} {
					evs := []eventlog.Event{{Data: json.RawMessage(fmt.Sprintf(`{"g":%d,"s":%q}`, g, stream))}, {Name: "n", Data: json.RawMessage(`"<&>"`)}}
					evs[1].Close = stream == "b" && g == 2
					last, err := db.Events().Append(ctx, stream, evs...)
					if err != nil {
						t.Fatal(err)
					}
					for i := range evs {
						evs[i].Seq = last - int64(len(evs)-1-i)
					}
					want[stream] = append(want[stream], evs...)
				}
				if err := db.events.barrier(); err != nil { // a group, to the journal only
					t.Fatal(err)
				}
			}
			tc.setup(t, db)
			c := openCopy(t, db)
			for stream, w := range want {
				got, err := c.Events().Read(ctx, stream, 0, 0)
				if err != nil || !reflect.DeepEqual(got, w) {
					t.Errorf("%s after the crash: %+v, %v; want %+v", stream, got, err, w)
				}
			}
			if fi, err := os.Stat(c.journal()); err != nil || fi.Size() != 0 {
				t.Errorf("the journal after the replay: %v, %v; want empty", fi, err)
			}
			if last, err := c.Events().Append(ctx, "a", eventlog.Event{Data: json.RawMessage(`1`)}); err != nil || last != 7 {
				t.Errorf("append to a after the crash: %d, %v; want seq 7", last, err)
			}
			if _, err := c.Events().Append(ctx, "b", eventlog.Event{Data: json.RawMessage(`1`)}); !errors.Is(err, eventlog.ErrClosed) {
				t.Errorf("append to the closed b after the crash: %v, want ErrClosed", err)
			}
		})
	}
}

// TestReadersSeeJournaledEvents: events in the journal and not yet in the
// file are read from memory, from any position.
func TestReadersSeeJournaledEvents(t *testing.T) {
	db := slowGroup(t)
	ctx := context.Background()
	for i := range 10 {
		if _, err := db.Events().Append(ctx, "s", eventlog.Event{Data: json.RawMessage(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
		if i == 4 {
			if err := db.Events().Flush(); err != nil { // 1-5 in the file
				t.Fatal(err)
			}
		}
	}
	if err := db.events.barrier(); err != nil { // 6-10 in the journal
		t.Fatal(err)
	}
	for after := range 10 {
		got, err := db.Events().Read(ctx, "s", int64(after), 3)
		if err != nil || len(got) != min(3, 10-after) || got[0].Seq != int64(after+1) || string(got[0].Data) != fmt.Sprint(after) {
			t.Errorf("Read after %d: %+v, %v", after, got, err)
		}
	}
}

func (d *DB) journal() string { return d.bolt.Path() + ".journal" }

func appendJournal(t *testing.T, db *DB, b []byte) {
	t.Helper()
	f, err := os.OpenFile(db.journal(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}
