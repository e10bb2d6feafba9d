package dynamostore

// Counters: limits.Counters, the fair-use token counts.
//
//	PK               SK      what
//	COUNT#<key>      META    n (the count), ttl
//
// Add is one UpdateItem, ADD n :n (atomic, no read, no condition: adds
// never race). A school's day is spread by limits over several keys, so
// that its adds land on several partitions. Counts reads up to 100 keys
// with one strongly consistent BatchGetItem.

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	counterPrefix = "COUNT#"
	attrCounter   = "n"
)

// Counters are the limits.Counters of a table.
type Counters struct{ t *Table }

// NewCounters returns the counters of the table name.
func NewCounters(db API, name string, o Options) *Counters { return &Counters{t: New(db, name, o)} }

// Add implements limits.Counters.
func (c *Counters) Add(ctx context.Context, k string, n int64, expires time.Time) error {
	if err := nonEmpty("key", k); err != nil {
		return fmt.Errorf("dynamostore: add: %w", err)
	}
	if expires.IsZero() {
		expires = c.t.o.Now().Add(c.t.o.TTL)
	}
	_, err := c.t.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(c.t.name), Key: key(counterPrefix+k, skMeta),
		UpdateExpression:          aws.String("ADD #n :n SET #ttl = :ttl"),
		ExpressionAttributeNames:  map[string]string{"#n": attrCounter, "#ttl": AttrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": num(n), ":ttl": num(expires.Unix())}})
	if err != nil {
		return fmt.Errorf("dynamostore: add %s: %w", k, err)
	}
	return nil
}

// Counts implements limits.Counters.
func (c *Counters) Counts(ctx context.Context, keys []string) ([]int64, error) {
	out := make([]int64, len(keys))
	at := make(map[string][]int, len(keys)) // PK → positions (a key may repeat)
	for i, k := range keys {
		at[counterPrefix+k] = append(at[counterPrefix+k], i)
	}
	var pending []map[string]types.AttributeValue
	for pk := range at {
		pending = append(pending, key(pk, skMeta))
	}
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt == batchAttempts {
			return nil, fmt.Errorf("dynamostore: counts: %d keys unread after %d attempts", len(pending), batchAttempts)
		}
		batch := pending[:min(len(pending), batchGetSize)]
		res, err := c.t.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			c.t.name: {Keys: batch, ConsistentRead: aws.Bool(true)}}})
		if err != nil {
			return nil, fmt.Errorf("dynamostore: counts: %w", err)
		}
		for _, item := range res.Responses[c.t.name] {
			n, err := getNum(item, attrCounter)
			if err != nil {
				return nil, fmt.Errorf("dynamostore: counts: %w", err)
			}
			for _, i := range at[getStr(item, AttrPK)] {
				out[i] = n
			}
		}
		pending = append(pending[len(batch):], res.UnprocessedKeys[c.t.name].Keys...)
	}
	return out, nil
}
