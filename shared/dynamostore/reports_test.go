package dynamostore_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/reporttest"
)

func TestReportStoreContract(t *testing.T) {
	srv := dynamotest.Start(t)
	reporttest.Run(t, func(t *testing.T) report.Store {
		return dynamostore.NewReportStore(srv.Client, srv.NewTable(t), dynamostore.Options{})
	})
}

// dynalite never expires items: the TTL attribute is checked instead.
func TestReportItemsCarryTTL(t *testing.T) {
	srv := dynamotest.Start(t)
	table := srv.NewTable(t)
	s := dynamostore.NewReportStore(srv.Client, table, dynamostore.Options{})
	ctx := context.Background()
	if err := s.CreateSession(ctx, report.Session{ID: "s-1", TeacherID: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutConnection(ctx, report.Connection{ID: "c-1", TeacherID: "t"}); err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"TSESSION#s-1", "TCONN#c-1"} {
		out, err := srv.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "META"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := out.Item["ttl"].(*types.AttributeValueMemberN); !ok {
			t.Errorf("%s has no ttl: %v", pk, out.Item)
		}
	}
}
