package boltstore_test

import (
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
