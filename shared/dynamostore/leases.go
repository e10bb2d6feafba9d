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

// Leases live in leaseShards partitions:
//
//	PK          SK            what
//	LEASES#<n>  <kind>#<id>   one lease: owner, until (epoch ms), ttl
//
// n is a hash of the id up to its first "/" (leaseGroup): the reader
// leases of a turn (<turn id>/<reader>) share their turn's shard, so the
// edge's LiveLeases of a turn's readers is one query of one shard.
//
// Why leaseShards = 32: at the peak of 1,000,000 teachers (≈ 2,100 turns
// a second, docs/scale.md) a turn writes about 4 lease items of under 1 KB
// (the turn's lease taken and dropped, the reader lease taken and
// dropped): ≈ 8,400 write units a second, against 1,000 a partition.
// Nine shards would carry it at their limit; 32 carry it at about a
// quarter of it (≈ 260 a shard, with the hash's spread over thousands of
// live ids), which leaves room for a bell-time burst, for renewals of long
// turns and builds, and for twice the teachers. A sweep reads all 32, a
// page at a time.
//
// The shards hold the leases of running work only (a lease is dropped
// when its work is recovered, and DynamoDB's TTL removes any left behind).
// HoldLease is a PutItem (taking and renewing are the same write);
// DropLease a BatchWriteItem delete, so that the functions need no
// permission beyond the store's.
//
// Items of the earlier layout (every lease under PK=LEASES, before issue
// 25 in November 2026) are no longer read: a lease lives 90 s unless renewed, and a
// renewal after the deploy writes the new key, so live work shows up again
// within one renewal (30 s); work that died in that window has no lease in
// the new layout and is left alone, as work without a lease always is
// (a new message still stops a turn no client reads). TTL deletes the old
// items a week after they ran out.
const (
	pkLeases    = "LEASES"
	leaseShards = 32
	attrOwner   = "owner"
	attrUntil   = "until"
	leaseTTLOf  = 7 * 24 * time.Hour
)

var _ session.Leases = (*Sessions)(nil)

func leaseKey(kind session.LeaseKind, id string) map[string]types.AttributeValue {
	return key(leasePK(id), string(kind)+"#"+id)
}

// leasePK is the shard of the lease id: a hash of its group.
func leasePK(id string) string { return shardKey(pkLeases, shardOf(leaseGroup(id), leaseShards)) }

// leaseGroup is the id up to its first "/": a reader lease's turn.
func leaseGroup(id string) string {
	g, _, _ := strings.Cut(id, "/")
	return g
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

// ExpiredLeases implements session.Leases: every shard, a page at a time,
// until it has given limit expired leases or has none left; the leases of
// all shards in LeaseOrder, the first limit of them. (With more than limit
// expired in one shard, which of them come is the shard's key order; a
// sweep asks again until none is left.)
func (s *Sessions) ExpiredLeases(ctx context.Context, now time.Time, limit int) ([]session.Lease, error) {
	if limit <= 0 {
		return nil, nil
	}
	var out []session.Lease
	for shard := range leaseShards {
		in := &dynamodb.QueryInput{
			KeyConditionExpression:    aws.String("PK = :pk"),
			FilterExpression:          aws.String("#until < :now"),
			ExpressionAttributeNames:  map[string]string{"#until": attrUntil},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(shardKey(pkLeases, shard)), ":now": num(now.UnixMilli())},
		}
		found, err := s.leasePages(ctx, in, limit)
		if err != nil {
			return nil, fmt.Errorf("dynamostore: expired leases: %w", err)
		}
		out = append(out, found...)
	}
	slices.SortFunc(out, session.LeaseOrder)
	return out[:min(len(out), limit)], nil
}

// LiveLeases implements session.Leases: a query of the key range
// <kind>#<idPrefix>, a page at a time; of the prefix's shard when it names
// a group (a turn's readers: "<turn id>/"), else of every shard.
func (s *Sessions) LiveLeases(ctx context.Context, kind session.LeaseKind, idPrefix string, now time.Time, limit int) ([]session.Lease, error) {
	if limit <= 0 {
		return nil, nil
	}
	shards := []int{shardOf(leaseGroup(idPrefix), leaseShards)}
	if !strings.Contains(idPrefix, "/") {
		shards = shards[:0]
		for i := range leaseShards {
			shards = append(shards, i)
		}
	}
	var out []session.Lease
	for _, shard := range shards {
		in := &dynamodb.QueryInput{
			KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
			FilterExpression:          aws.String("#until >= :now"),
			ExpressionAttributeNames:  map[string]string{"#until": attrUntil},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(shardKey(pkLeases, shard)), ":prefix": str(string(kind) + "#" + idPrefix), ":now": num(now.UnixMilli())},
		}
		found, err := s.leasePages(ctx, in, limit-len(out))
		if err != nil {
			return nil, fmt.Errorf("dynamostore: live leases %s %s: %w", kind, idPrefix, err)
		}
		if out = append(out, found...); len(out) == limit {
			break
		}
	}
	return out, nil
}

// leasePages reads the leases in gives, a page at a time, up to limit.
func (s *Sessions) leasePages(ctx context.Context, in *dynamodb.QueryInput, limit int) ([]session.Lease, error) {
	var out []session.Lease
	err := s.t.queryPages(ctx, in, func(items []map[string]types.AttributeValue) (bool, error) {
		for _, it := range items[:min(len(items), limit-len(out))] {
			l, err := decodeLease(it)
			if err != nil {
				return false, err
			}
			out = append(out, l)
		}
		return len(out) >= limit, nil
	})
	return out, err
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
