package records_test

import (
	"testing"

	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/records/recordstest"
)

func TestMemoryContract(t *testing.T) {
	recordstest.Run(t, func(*testing.T) records.Backend { return records.NewMemory() })
}
