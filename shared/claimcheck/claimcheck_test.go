package claimcheck_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/boltstore/bolttest"
	"github.com/insightedge/insightedge/shared/claimcheck"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/session/sessiontest"
)

func newFS(t *testing.T) (*blob.FS, string) {
	t.Helper()
	dir := t.TempDir()
	fs, err := blob.NewFS(blob.FSConfig{Dir: dir, BaseURL: "http://127.0.0.1:1", Secret: []byte("sixteen-byte-key!")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fs.Close() })
	return fs, dir
}

func newBolt(t *testing.T) session.Store {
	t.Helper()
	db := bolttest.Open(t)
	return db.Sessions()
}

// TestContract: the wrapped store is still a session store.
func TestContract(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store {
		fs, _ := newFS(t)
		return claimcheck.Wrap(newBolt(t), fs, 1024) // a small limit: most records take the claim path
	})
}

// TestClaim checks where values go: a small one in the record, a large one
// in the blob store with a claim in the record; a blob changed behind the
// claim's back is an error, not other data.
func TestClaim(t *testing.T) {
	ctx := context.Background()
	fs, dir := newFS(t)
	inner := newBolt(t)
	s := claimcheck.Wrap(inner, fs, 100)
	if err := inner.CreateSession(ctx, session.Session{ID: "s/1", TeacherID: "t"}); err != nil {
		t.Fatal(err)
	}
	small, large := []byte(`{"a":1}`), bytes.Repeat([]byte("x"), 1000)
	for k, v := range map[string][]byte{"small": small, "large": large} {
		if err := s.PutRecord(ctx, "s/1", k, v); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := inner.GetRecord(ctx, "s/1", "small")
	if !bytes.Equal(raw, small) {
		t.Errorf("small record stored as %q", raw)
	}
	raw, _ = inner.GetRecord(ctx, "s/1", "large")
	if len(raw) >= len(large) || !bytes.Contains(raw, []byte(claimcheck.Prefix)) {
		t.Errorf("large record stored as %q, want a claim", raw)
	}
	got, err := s.GetRecord(ctx, "s/1", "large")
	if err != nil || !bytes.Equal(got, large) {
		t.Fatalf("GetRecord(large) = %d bytes, %v", len(got), err)
	}
	// Tamper with the blob.
	var objects []string
	_ = filepath.WalkDir(filepath.Join(dir, "objects", "records"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			objects = append(objects, p)
		}
		return nil
	})
	if len(objects) != 1 || strings.Contains(objects[0], "s/1") {
		t.Fatalf("blob objects %v, want one, under an escaped session id", objects)
	}
	if err := os.WriteFile(objects[0], bytes.Repeat([]byte("y"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetRecord(ctx, "s/1", "large"); err == nil {
		t.Error("a changed blob was returned as the record")
	}
}
