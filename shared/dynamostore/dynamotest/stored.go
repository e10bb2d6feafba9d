package dynamotest

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// itemOverhead is what DynamoDB adds to each item's size when it bills
// storage ("to account for indexing"; the DynamoDB pricing page).
const itemOverhead = 100

// Stored is what a table holds, as DynamoDB bills its storage.
type Stored struct {
	Items int
	Bytes int64 // the items' sizes, each with itemOverhead
	// ByKind is Bytes by the kind of partition key (what comes before its
	// first '#': SESSION, STREAM …).
	ByKind map[string]int64
}

// maxScanPages bounds StoredIn's scan: a test table, not a production one.
const maxScanPages = 10_000

// StoredIn scans the whole table (a test's, never a shared production
// table: it reads every partition) and adds up its items' sizes by
// DynamoDB's rules for item size (issue 25: the storage a turn leaves).
func StoredIn(ctx context.Context, c *dynamodb.Client, table string) (Stored, error) {
	s := Stored{ByKind: map[string]int64{}}
	var start map[string]types.AttributeValue
	for range maxScanPages {
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ExclusiveStartKey: start, Limit: aws.Int32(500)})
		if err != nil {
			return s, fmt.Errorf("dynamotest: scan %s: %w", table, err)
		}
		for _, it := range out.Items {
			n := int64(itemOverhead)
			for name, v := range it {
				n += int64(len(name)) + valueSize(v)
			}
			kind, _, _ := strings.Cut(attrString(it["PK"]), "#")
			s.Items, s.Bytes, s.ByKind[kind] = s.Items+1, s.Bytes+n, s.ByKind[kind]+n
		}
		if start = out.LastEvaluatedKey; len(start) == 0 {
			return s, nil
		}
	}
	return s, fmt.Errorf("dynamotest: scan %s: more than %d pages", table, maxScanPages)
}

// valueSize is an attribute value's size by DynamoDB's rules ("Item
// sizes and formats" in the DynamoDB developer guide): a string's UTF-8
// bytes, a binary's bytes, a number's significant digits two to a byte
// plus one, one byte for a boolean or null, and for a list or map 3 bytes,
// one byte an element and the elements (with a map's names).
func valueSize(v types.AttributeValue) int64 {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return int64(len(v.Value))
	case *types.AttributeValueMemberB:
		return int64(len(v.Value))
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		return sizeOfSet(v.Value, func(s string) int64 { return int64(len(s)) })
	case *types.AttributeValueMemberNS:
		return sizeOfSet(v.Value, numberSize)
	case *types.AttributeValueMemberBS:
		return sizeOfSet(v.Value, func(b []byte) int64 { return int64(len(b)) })
	case *types.AttributeValueMemberL:
		n := int64(3)
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := int64(3)
		for k, e := range v.Value {
			n += 1 + int64(len(k)) + valueSize(e)
		}
		return n
	}
	return 0
}

// sizeOfSet is a set's size: its elements' sizes, nothing more.
func sizeOfSet[T any](elems []T, size func(T) int64) int64 {
	var n int64
	for _, e := range elems {
		n += size(e)
	}
	return n
}

func numberSize(s string) int64 {
	digits := strings.Trim(strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.SplitN(strings.ToLower(s), "e", 2)[0]), "0")
	return int64(len(digits)+1)/2 + 1
}
