package dynamostore_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/limits/limitstest"
)

// TestLimitsContract runs the fair-use limits' suite (issue 26) on the
// table: the admissions as records, the token counts as counters.
func TestLimitsContract(t *testing.T) {
	srv := dynamotest.Start(t)
	limitstest.Run(t, func(t *testing.T) limitstest.Stores {
		table := srv.NewTable(t)
		return limitstest.Stores{Records: dynamostore.NewRecords(srv.Client, table, dynamostore.Options{}),
			Counters: dynamostore.NewCounters(srv.Client, table, dynamostore.Options{})}
	})
}

// TestCounterItem: a count is one item with its ttl, which DynamoDB's TTL
// (absent from dynalite) deletes.
func TestCounterItem(t *testing.T) {
	ctx := context.Background()
	srv := dynamotest.Start(t)
	table := srv.NewTable(t)
	c := dynamostore.NewCounters(srv.Client, table, dynamostore.Options{})
	exp := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for range 2 {
		if err := c.Add(ctx, "tokens:teacher:t-1:2026-11-28", 21, exp); err != nil {
			t.Fatal(err)
		}
	}
	out, err := srv.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"PK": s("COUNT#tokens:teacher:t-1:2026-11-28"), "SK": s("META")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"n:42", "ttl:1796083200"} {
		if got := describe(out.Item, w); got != w {
			t.Errorf("%s, want %s", got, w)
		}
	}
}
