// Command create-table creates the product's DynamoDB table
// (dynamostore.CreateTableInput: the same keys as template.yaml's Table) in
// a local DynamoDB, for `sam local invoke` against DynamoDB Local:
//
//	AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8001 go run ./infra/cmd/create-table -sample insightedge-local
//
// With -sample it also stores what the edge stores before it starts a
// turn's workflow for the sample turn of events/*.json (its session, the
// running turn and the first event of its stream), so that the task
// functions can be invoked with those events in order.
//
// It refuses to run without AWS_ENDPOINT_URL_DYNAMODB, so that it never
// creates a table in an AWS account (the stack owns that one). A table that
// exists already is fine.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/infra/sample"
	"github.com/insightedge/insightedge/shared/dynamostore"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "create-table:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string) error {
	fs := flag.NewFlagSet("create-table", flag.ContinueOnError)
	withSample := fs.Bool("sample", false, "also store the sample turn of events/*.json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	args = fs.Args()
	if len(args) != 1 {
		return errors.New("usage: create-table [-sample] <table name>")
	}
	endpoint := getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if endpoint == "" {
		return errors.New("AWS_ENDPOINT_URL_DYNAMODB is not set: this command only creates tables in a local DynamoDB")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// DynamoDB Local accepts any credentials and region.
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	if err != nil {
		return err
	}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) })
	_, err = db.CreateTable(ctx, dynamostore.CreateTableInput(args[0]))
	var exists *types.ResourceInUseException
	switch {
	case errors.As(err, &exists):
		fmt.Printf("table %s exists at %s\n", args[0], endpoint)
	case err != nil:
		return fmt.Errorf("create %s at %s: %w", args[0], endpoint, err)
	default:
		fmt.Printf("created table %s at %s\n", args[0], endpoint)
	}
	if *withSample {
		if err := sample.Seed(ctx, dynamostore.New(db, args[0], dynamostore.Options{})); err != nil {
			return err
		}
		fmt.Printf("stored the sample turn %s of session %s\n", sample.Turn.TurnID, sample.Turn.SessionID)
	}
	return nil
}
