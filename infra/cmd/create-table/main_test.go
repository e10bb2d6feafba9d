package main

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/insightedge/insightedge/infra/sample"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
)

// TestCreateTable creates the table in dynalite with the store's keys,
// accepts it existing, and refuses to run without a local endpoint.
func TestCreateTable(t *testing.T) {
	srv := dynamotest.Start(t)
	env := map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": srv.Endpoint}
	ctx := context.Background()
	for range 2 { // the second run finds it
		if err := run(ctx, []string{"-sample", "insightedge-local"}, func(k string) string { return env[k] }); err != nil {
			t.Fatal(err)
		}
	}
	out, err := srv.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("insightedge-local")})
	if err != nil {
		t.Fatal(err)
	}
	want := dynamostore.CreateTableInput("insightedge-local")
	if len(out.Table.KeySchema) != len(want.KeySchema) || *out.Table.KeySchema[0].AttributeName != *want.KeySchema[0].AttributeName {
		t.Errorf("keys %+v, want %+v", out.Table.KeySchema, want.KeySchema)
	}
	turn, err := dynamostore.New(srv.Client, "insightedge-local", dynamostore.Options{}).Sessions().GetTurn(ctx, sample.Turn.SessionID, sample.Turn.TurnID)
	if err != nil || turn.MessageID != sample.Turn.MessageID {
		t.Errorf("the sample turn: %+v, %v", turn, err)
	}
	err = run(ctx, []string{"insightedge-local"}, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "AWS_ENDPOINT_URL_DYNAMODB") {
		t.Errorf("without an endpoint: %v, want a refusal naming AWS_ENDPOINT_URL_DYNAMODB", err)
	}
}
