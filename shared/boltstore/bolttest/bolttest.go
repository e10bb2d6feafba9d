// Package bolttest opens a bbolt store for a test.
package bolttest

import (
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/shared/boltstore"
)

// Open opens a store in a folder of the test's own, without an fsync per
// commit (nothing outlives the test), and closes it when the test ends.
func Open(t testing.TB) *boltstore.DB {
	t.Helper()
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
