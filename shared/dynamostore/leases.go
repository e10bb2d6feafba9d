package dynamostore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/session"
)

// Leases live in one partition:
//
//	PK       SK            what
//	LEASES   <kind>#<id>   one lease: owner, until (epoch ms), ttl
//
// The partition holds the leases of running work only (a lease is dropped
// when its work is recovered, and DynamoDB's TTL removes any left behind),
// so ExpiredLeases is one short query. HoldLease is a PutItem (taking and
// renewing are the same write); DropLease a BatchWriteItem delete, so that
// the functions need no permission beyond the store's.
const (
	pkLeases   = "LEASES"
	attrOwner  = "owner"
	attrUntil  = "until"
	leaseTTLOf = 7 * 24 * time.Hour
)

var _ session.Leases = (*Sessions)(nil)

func leaseKey(kind session.LeaseKind, id string) map[string]types.AttributeValue {
	return key(pkLeases, string(kind)+"#"+id)
}

// HoldLease implements session.Leases.
func (s *Sessions) HoldLease(ctx context.Context, l session.Lease) error {
	if err := nonEmpty("lease kind", string(l.Kind), "lease id", l.ID); err != nil {
		return fmt.Errorf("dynamostore: hold lease: %w", err)
	}
	item := leaseKey(l.Kind, l.ID)
	setStr(item, attrOwner, l.Owner)
	item[attrUntil] = num(l.Until.UnixMilli())
	item[AttrTTL] = num(l.Until.Add(leaseTTLOf).Unix())
	if _, err := s.t.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.t.name), Item: item}); err != nil {
		return fmt.Errorf("dynamostore: hold lease %s %s: %w", l.Kind, l.ID, err)
	}
	return nil
}

// GetLease implements session.Leases.
func (s *Sessions) GetLease(ctx context.Context, kind session.LeaseKind, id string) (session.Lease, error) {
	if id == "" {
		return session.Lease{}, fmt.Errorf("dynamostore: get lease %s: %w", kind, session.ErrNotFound)
	}
	item, err := s.t.get(ctx, leaseKey(kind, id))
	if err == nil && item == nil {
		err = session.ErrNotFound
	}
	if err != nil {
		return session.Lease{}, fmt.Errorf("dynamostore: get lease %s %s: %w", kind, id, err)
	}
	return decodeLease(item)
}

// DropLease implements session.Leases.
func (s *Sessions) DropLease(ctx context.Context, kind session.LeaseKind, id string) error {
	if id == "" {
		return nil
	}
	_, err := s.t.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		s.t.name: {{DeleteRequest: &types.DeleteRequest{Key: leaseKey(kind, id)}}}}})
	if err != nil {
		return fmt.Errorf("dynamostore: drop lease %s %s: %w", kind, id, err)
	}
	return nil
}

// ExpiredLeases implements session.Leases.
func (s *Sessions) ExpiredLeases(ctx context.Context, now time.Time, limit int) ([]session.Lease, error) {
	items, err := s.t.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("PK = :pk"),
		FilterExpression:          aws.String("#until < :now"),
		ExpressionAttributeNames:  map[string]string{"#until": attrUntil},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkLeases), ":now": num(now.UnixMilli())},
	}, 0)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: expired leases: %w", err)
	}
	out := make([]session.Lease, 0, len(items))
	for _, it := range items {
		l, err := decodeLease(it)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	slices.SortFunc(out, session.LeaseOrder)
	return out[:min(len(out), max(limit, 0))], nil
}

// LiveLeases implements session.Leases: one query of the key range
// <kind>#<idPrefix> in the lease partition.
func (s *Sessions) LiveLeases(ctx context.Context, kind session.LeaseKind, idPrefix string, now time.Time, limit int) ([]session.Lease, error) {
	if limit <= 0 {
		return nil, nil
	}
	items, err := s.t.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		FilterExpression:          aws.String("#until >= :now"),
		ExpressionAttributeNames:  map[string]string{"#until": attrUntil},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkLeases), ":prefix": str(string(kind) + "#" + idPrefix), ":now": num(now.UnixMilli())},
	}, 0)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: live leases %s %s: %w", kind, idPrefix, err)
	}
	out := make([]session.Lease, 0, min(len(items), limit))
	for _, it := range items[:min(len(items), limit)] {
		l, err := decodeLease(it)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

func decodeLease(item map[string]types.AttributeValue) (session.Lease, error) {
	kind, id, ok := strings.Cut(getStr(item, AttrSK), "#")
	until, err := getNum(item, attrUntil)
	if !ok || err != nil {
		return session.Lease{}, fmt.Errorf("dynamostore: a lease item is malformed: %q", getStr(item, AttrSK))
	}
	return session.Lease{Kind: session.LeaseKind(kind), ID: id, Owner: getStr(item, attrOwner),
		Until: time.UnixMilli(until).UTC()}, nil
}
