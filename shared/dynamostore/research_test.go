package dynamostore_test

import (
	"testing"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/research/researchtest"
)

func TestResearchContract(t *testing.T) {
	srv := dynamotest.Start(t)
	researchtest.Run(t, func(t *testing.T) research.Store {
		return dynamostore.New(srv.Client, srv.NewTable(t), dynamostore.Options{}).Research()
	})
}
