package dynamostore

// Shared partitions. Most partition keys name one entity (a session, a
// stream, an app, a teacher), so their load grows with that entity's work
// only. The leases and the due apps' index are kept for the whole product;
// under one key each they would be one partition, and one DynamoDB
// partition takes at most 1,000 write units and 3,000 read units a second
// (docs/scale.md). So each is split into shards, <base>#<n>, n chosen by a
// hash of the entity's id, and a read of all of them goes shard by shard,
// a page (Limit) at a time. test/scale counts the writes per key and fails
// when one key takes more than 2 % of them; TestSharedPartitionsPaged fails
// on a query of a shared key without a Limit.

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// sharedPage is the Limit of one page of a shared partition's query: the
// items DynamoDB evaluates for it (before a filter), so a page costs at
// most about 100 small items' worth of read units.
const sharedPage = 100

// shardOf returns the shard, 0 to n-1, of an entity id.
func shardOf(id string, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum32() % uint32(n))
}

// shardKey is the partition key of shard i of a shared partition.
func shardKey(base string, i int) string { return base + "#" + strconv.Itoa(i) }

// queryPages runs in a page of at most sharedPage items at a time
// (strongly consistent) and hands each page to keep until keep says it has
// enough or the query ends.
func (t *Table) queryPages(ctx context.Context, in *dynamodb.QueryInput, keep func([]map[string]types.AttributeValue) (enough bool, err error)) error {
	in.TableName = aws.String(t.name)
	in.ConsistentRead = aws.Bool(true)
	in.Limit = aws.Int32(sharedPage)
	for range maxPages {
		out, err := t.db.Query(ctx, in)
		if err != nil {
			return err
		}
		enough, err := keep(out.Items)
		if err != nil || enough || len(out.LastEvaluatedKey) == 0 {
			return err
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return fmt.Errorf("query read more than %d pages", maxPages)
}
