package boltstore_test

import (
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/reporttest"
)

func TestReportStoreContract(t *testing.T) {
	reporttest.Run(t, func(t *testing.T) report.Store {
		db, err := boltstore.Open(filepath.Join(t.TempDir(), "x.db"), boltstore.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.Reports()
	})
}
