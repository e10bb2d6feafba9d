// Command create-table creates the product's DynamoDB table
// (dynamostore.CreateTableInput: the same keys as template.yaml's Table) in
// a local DynamoDB, for `sam local invoke` against DynamoDB Local:
//
//	AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8001 go run ./infra/cmd/create-table insightedge-local
//
// It refuses to run without AWS_ENDPOINT_URL_DYNAMODB, so that it never
// creates a table in an AWS account (the stack owns that one). A table that
// exists already is fine.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/dynamostore"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "create-table:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string) error {
	if len(args) != 1 {
		return errors.New("usage: create-table <table name>")
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
		return nil
	case err != nil:
		return fmt.Errorf("create %s at %s: %w", args[0], endpoint, err)
	}
	fmt.Printf("created table %s at %s\n", args[0], endpoint)
	return nil
}
