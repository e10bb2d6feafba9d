// Package recordstest is the contract suite of records.Backend: every
// backend (the embedded bbolt file, the DynamoDB table, records.Memory)
// runs it, so that the typed layers on top (report and research sessions)
// behave the same on each.
package recordstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/insightedge/insightedge/shared/records"
)

// Run runs the suite; newBackend returns an empty backend for each case.
func Run(t *testing.T, newBackend func(t *testing.T) records.Backend) {
	run := func(name string, test func(*testing.T, records.Backend)) {
		t.Run(name, func(t *testing.T) { test(t, newBackend(t)) })
	}
	run("CreateGet", testCreateGet)
	run("Missing", testMissing)
	run("Update", testUpdate)
	run("FailedUpdateWritesNothing", testFailedUpdate)
	run("NoLostUpdates", testNoLostUpdates)
	run("Delete", testDelete)
	run("KindsApart", testKindsApart)
	run("List", testList)
}

// note is the value the suite keeps.
type note struct {
	Text  string   `json:"text"`
	Lines []string `json:"lines,omitempty"`
}

var notes = records.Kind[note]{Name: "notes"}

func create(t *testing.T, s records.Store[note], key string, n note) {
	t.Helper()
	if err := s.Create(context.Background(), key, n); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, s records.Store[note], key string) note {
	t.Helper()
	n, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func testCreateGet(t *testing.T, b records.Backend) {
	ctx := context.Background()
	s := records.Open(b, notes)
	create(t, s, "n1", note{Text: "牛顿 <&>"})
	if got := get(t, s, "n1"); got.Text != "牛顿 <&>" {
		t.Fatalf("got %+v", got)
	}
	if err := s.Create(ctx, "n1", note{Text: "again"}); !errors.Is(err, records.ErrExists) {
		t.Fatalf("second create: %v", err)
	}
	if got := get(t, s, "n1"); got.Text != "牛顿 <&>" {
		t.Fatalf("a refused create wrote %+v", got)
	}
	if err := s.Create(ctx, "", note{}); err == nil {
		t.Fatal("create with an empty key succeeded")
	}
	// The items are the value's JSON, as given.
	it, err := b.Items(notes.Name).Get(ctx, "n1")
	if err != nil || string(it.Data) != `{"text":"牛顿 \u003c\u0026\u003e"}` {
		t.Fatalf("item %q %v", it.Data, err)
	}
}

func testMissing(t *testing.T, b records.Backend) {
	ctx := context.Background()
	s := records.Open(b, notes)
	for _, key := range []string{"nope", ""} {
		if _, err := s.Get(ctx, key); !errors.Is(err, records.ErrNotFound) {
			t.Fatalf("get %q: %v", key, err)
		}
		if _, err := s.Update(ctx, key, func(*note) error { return nil }); !errors.Is(err, records.ErrNotFound) {
			t.Fatalf("update %q: %v", key, err)
		}
	}
}

func testUpdate(t *testing.T, b records.Backend) {
	ctx := context.Background()
	s := records.Open(b, notes)
	create(t, s, "n1", note{Text: "a"})
	got, err := s.Update(ctx, "n1", func(n *note) error {
		n.Lines = append(n.Lines, n.Text)
		n.Text = "b"
		return nil
	})
	want := note{Text: "b", Lines: []string{"a"}}
	if err != nil || got.Text != want.Text || !slices.Equal(got.Lines, want.Lines) {
		t.Fatalf("update returned %+v %v", got, err)
	}
	if got := get(t, s, "n1"); got.Text != want.Text || !slices.Equal(got.Lines, want.Lines) {
		t.Fatalf("after the update %+v", got)
	}
}

func testFailedUpdate(t *testing.T, b records.Backend) {
	ctx := context.Background()
	s := records.Open(b, notes)
	create(t, s, "n1", note{Text: "a"})
	boom := errors.New("boom")
	if _, err := s.Update(ctx, "n1", func(n *note) error {
		n.Text = "changed"
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("update: %v", err)
	}
	if got := get(t, s, "n1"); got.Text != "a" {
		t.Fatalf("a failed update wrote %+v", got)
	}
}

// testNoLostUpdates: concurrent updates all land, each applied to what the
// others wrote (a backend that retries calls fn again on the new value).
func testNoLostUpdates(t *testing.T, b records.Backend) {
	ctx := context.Background()
	s := records.Open(b, notes)
	create(t, s, "n1", note{})
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := s.Update(ctx, "n1", func(x *note) error {
				x.Lines = append(x.Lines, fmt.Sprint(i))
				return nil
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := get(t, s, "n1")
	slices.Sort(got.Lines)
	if !slices.Equal(got.Lines, []string{"0", "1", "2", "3", "4", "5", "6", "7"}) {
		t.Fatalf("%d of %d updates kept: %v", len(got.Lines), n, got.Lines)
	}
}

func testDelete(t *testing.T, b records.Backend) {
	ctx := context.Background()
	s := records.Open(b, notes)
	create(t, s, "n1", note{Text: "a"})
	for range 2 { // deleting a missing record is not an error
		if err := s.Delete(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Get(ctx, "n1"); !errors.Is(err, records.ErrNotFound) {
		t.Fatalf("deleted: %v", err)
	}
	create(t, s, "n1", note{Text: "new"})
	if got := get(t, s, "n1"); got.Text != "new" {
		t.Fatalf("created again: %+v", got)
	}
}

func testKindsApart(t *testing.T, b records.Backend) {
	s, other := records.Open(b, notes), records.Open(b, records.Kind[note]{Name: "other-notes"})
	create(t, s, "n1", note{Text: "a"})
	create(t, other, "n1", note{Text: "b"})
	if a, b := get(t, s, "n1"), get(t, other, "n1"); a.Text != "a" || b.Text != "b" {
		t.Fatalf("kinds mixed: %+v %+v", a, b)
	}
}

// testList: a backend that lists returns every record of the kind in key
// order.
func testList(t *testing.T, b records.Backend) {
	s := records.Open(b, notes)
	if !s.CanList() {
		if _, err := s.List(context.Background()); !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("list without a Lister: %v", err)
		}
		return
	}
	for _, key := range []string{"b", "a", "c"} {
		create(t, s, key, note{Text: key})
	}
	create(t, records.Open(b, records.Kind[note]{Name: "other-notes"}), "d", note{Text: "d"})
	got, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, n := range got {
		texts = append(texts, n.Text)
	}
	if !slices.Equal(texts, []string{"a", "b", "c"}) {
		t.Fatalf("listed %v", texts)
	}
}
