package boltstore_test

import (
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/limits/limitstest"
)

// TestLimitsContract runs the fair-use limits' suite (issue 26) on the
// file: the admissions as records, the token counts as counters.
func TestLimitsContract(t *testing.T) {
	limitstest.Run(t, func(t *testing.T) limitstest.Stores {
		db := open(t, boltstore.Options{NoSync: true})
		return limitstest.Stores{Records: db, Counters: db.Counters()}
	})
}

// BenchmarkLimitsAdmitTurn is what the limits add to a turn of the local
// run (bbolt without fsync, as go run ./local opens it).
func BenchmarkLimitsAdmitTurn(b *testing.B) {
	db, err := boltstore.Open(filepath.Join(b.TempDir(), "bench.db"), boltstore.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	limitstest.Bench(b, limitstest.Stores{Records: db, Counters: db.Counters()})
}
