package boltstore_test

import (
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/shared/apps/appstest"
	"github.com/insightedge/insightedge/shared/boltstore"
)

func TestAppStoreContract(t *testing.T) {
	appstest.Run(t, func(t *testing.T) appstest.Store {
		db, err := boltstore.Open(filepath.Join(t.TempDir(), "apps.db"), boltstore.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return db.Apps()
	})
}
