// Package dynamostore is the AWS implementation of session.Store,
// eventlog.Log, apps.Store and records.Backend: one DynamoDB table, keyed by PK (partition)
// and SK (sort), both strings, with a TTL attribute "ttl" (epoch seconds) on
// every session, stream and snapshot item (saved apps are kept until
// deleted; apps.go describes their items).
//
// # Items
//
//	PK                 SK              what
//	SESSION#<id>       META            the session: owner, kind, title, activeTurn, turns, version
//	SESSION#<id>       TURN#<turn id>  one turn: index, message, status, outcome (JSON)
//	SESSION#<id>       TURNAT#<index, 12 digits>  the turn id at an index (PageTurns' range query)
//	SESSION#<id>       REC#<key>       one record of session.Records (value: binary)
//	STREAM#<name>      EV#<seq, 12 digits>  a block of events from that seq: one event (data: binary, name, close) or n events (evs)
//	APP#<id>, TEACHER#<id>, APPS#DUE#<n>    saved apps, their snapshots and indexes (apps.go)
//	TSESSION#<id>, TCONN#<id>, RESEARCH#<id>  records: report sessions and connections, research sessions (records.go)
//
// Turns are keyed by id, not by index: GetTurn and EndTurn address a turn
// with one GetItem or UpdateItem and no id→index pointer item has to be kept
// in step without a transaction; ListTurns sorts a session's turns by index.
// Event seqs are zero-padded so that the sort key orders them as numbers.
//
// # Correctness without transactions
//
// The local stand-in for DynamoDB used in tests (dynalite) has no
// TransactWriteItems, and the design needs none: every operation has one
// conditional single-item write that decides it (its linearization point),
// and what follows that write is either idempotent or repaired by the next
// writer.
//
//   - CreateSession: PutItem with attribute_not_exists(PK) → ErrExists.
//   - BeginTurn: UpdateItem of the session item with attribute_exists(PK) AND
//     attribute_not_exists(activeTurn) sets activeTurn and adds 1 to turns
//     (the new index) and version; exactly one concurrent BeginTurn wins.
//     Then PutItem of the turn item. If that put fails, the session update is
//     undone (conditional on activeTurn still naming this turn). If the
//     process dies between the two writes, the session names an active turn
//     with no item; the next BeginTurn that loses its condition reads the
//     session and the turn, and once the session is older than
//     Options.OrphanAfter it clears that pointer (conditional on the version
//     it read) and tries once more.
//   - EndTurn: UpdateItem of the turn item with status = running decides
//     which EndTurn wins (a loser reads the turn: missing → ErrNotFound, else
//     ErrConflict). Then the session item: REMOVE activeTurn, ADD version 1,
//     conditional on activeTurn naming this turn, so ending an old turn never
//     frees the session under a newer one. If the process dies between the
//     two writes, the session names a turn that has ended; the next BeginTurn
//     that loses its condition sees that and clears it as above.
//   - Append: one PutItem of a block (the batch's events, up to 100 or
//     300 KB; a larger batch is several blocks) keyed by its first seq,
//     conditional on attribute_not_exists(SK): the put takes the seqs and
//     writes the events in one write. A writer tries the seq after the
//     stream's end as it knows it (this process's last append or read, else
//     one query of the last block); if the put loses, another writer took
//     that seq, and it reads the blocks after what it knew to the new end
//     and tries again (at most 50 times). The closing event ends its
//     block; a writer that reads on to it gets ErrClosed, so nothing is
//     written after the close. Blocks are written whole and only right
//     after the end, so the stream never has a gap, and a batch that fits
//     one block is never split by another writer's events. Appends of one process to
//     one stream take turns (a lock), so they do not lose puts to each
//     other. (Until November 2026 an append was a counter update and the
//     event items, two writes; their streams read the same, a counter item
//     is ignored.)
//
// Every read that decides something is a strongly consistent read
// (ConsistentRead), so a writer's own writes and every won condition are
// visible to it.
//
// # Limits
//
// An item is at most 400 KB: a record or an event larger than that fails
// with DynamoDB's validation error (claim checks of that size belong in the
// blob store). TTL deletion is done by DynamoDB within a day or two after the
// expiry; the store does not hide expired items that are still there.
package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/clock"
)

// Attribute names of the table's keys and TTL, as template.yaml declares them.
const (
	AttrPK  = "PK"
	AttrSK  = "SK"
	AttrTTL = "ttl"
)

// API is the part of the DynamoDB client the store uses
// (*dynamodb.Client implements it).
type API interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
}

// Options configure a Table. Zero values take the defaults in brackets.
type Options struct {
	// TTL is the lifetime of the items that carry no expiry of their own:
	// sessions created without ExpiresAt, records, and event streams (counted
	// from their last append) [30 days].
	TTL time.Duration
	// OrphanAfter is how long a session may name an active turn that has no
	// item before BeginTurn takes it for the trace of a crash and clears it
	// [1 minute].
	OrphanAfter time.Duration
	// GapTimeout is how long a missing event may stay missing while a later
	// one exists before Read fails with ErrGap [30 seconds].
	GapTimeout time.Duration
	// SnapshotTTL is the lifetime of a saved app's snapshot, counted from
	// its last write [90 days]. Saved apps themselves do not expire.
	SnapshotTTL time.Duration
	// Now is the clock [time.Now].
	Now func() time.Time
}

// Table is one DynamoDB table holding sessions and event streams.
type Table struct {
	db    API
	name  string
	o     Options
	gaps  *gapTracker
	tips  *tips
	watch *watcher
}

// New returns the store on the table name, which must exist with the key
// schema of CreateTableInput.
func New(db API, name string, o Options) *Table {
	if o.TTL <= 0 {
		o.TTL = 30 * 24 * time.Hour
	}
	if o.OrphanAfter <= 0 {
		o.OrphanAfter = time.Minute
	}
	if o.GapTimeout <= 0 {
		o.GapTimeout = 30 * time.Second
	}
	if o.SnapshotTTL <= 0 {
		o.SnapshotTTL = 90 * 24 * time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	t := &Table{db: db, name: name, o: o, gaps: newGapTracker(), tips: newTips()}
	t.watch = newWatcher(t)
	return t
}

// Sessions returns the session.Store of the table.
func (t *Table) Sessions() *Sessions { return &Sessions{t: t} }

// Events returns the eventlog.Log of the table. It is not an
// eventlog.Notifier: appenders run in other processes, so tailers poll.
func (t *Table) Events() *Events { return &Events{t: t} }

// CreateTableInput is the table's definition for CreateTable, the same key
// schema, billing mode and TTL attribute as template.yaml (TTL itself is
// switched on with UpdateTimeToLive, or by CloudFormation).
func CreateTableInput(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(AttrPK), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(AttrSK), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(AttrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(AttrSK), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	}
}

// expiry returns the TTL value of an item written at now.
func (t *Table) expiry(now time.Time) int64 { return now.Add(t.o.TTL).Unix() }

// maxPages bounds the pages one query reads (each at most 1 MB).
const maxPages = 1000

// query runs in to the end (or until enough items, when enough > 0) and
// returns the items in order.
func (t *Table) query(ctx context.Context, in *dynamodb.QueryInput, enough int) ([]map[string]types.AttributeValue, error) {
	in.TableName = aws.String(t.name)
	in.ConsistentRead = aws.Bool(true)
	var items []map[string]types.AttributeValue
	for range maxPages {
		if enough > 0 {
			in.Limit = aws.Int32(int32(min(enough-len(items), 1000)))
		}
		out, err := t.db.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 || (enough > 0 && len(items) >= enough) {
			return items, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return nil, fmt.Errorf("query read more than %d pages", maxPages)
}

// get is a strongly consistent GetItem; nil without the item.
func (t *Table) get(ctx context.Context, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := t.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(t.name), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// Batch writes: at most 25 items a request (DynamoDB's limit), unprocessed
// items retried with a doubling pause, within bounds.
const (
	batchSize      = 25
	batchAttempts  = 8
	batchFirstWait = 20 * time.Millisecond
	batchMaxWait   = time.Second
)

// putAll writes items with BatchWriteItem.
func (t *Table) putAll(ctx context.Context, items []map[string]types.AttributeValue) error {
	reqs := make([]types.WriteRequest, len(items))
	for i, it := range items {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	return t.writeAll(ctx, reqs)
}

// deleteAll deletes the items of keys with BatchWriteItem (a missing item
// is not an error).
func (t *Table) deleteAll(ctx context.Context, keys []map[string]types.AttributeValue) error {
	reqs := make([]types.WriteRequest, len(keys))
	for i, k := range keys {
		reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
	}
	return t.writeAll(ctx, reqs)
}

// writeAll sends write requests with BatchWriteItem, batchSize at a time,
// retrying the unprocessed ones.
func (t *Table) writeAll(ctx context.Context, all []types.WriteRequest) error {
	for len(all) > 0 {
		n := min(len(all), batchSize)
		reqs := all[:n:n]
		all = all[n:]
		wait := batchFirstWait
		for attempt := 1; len(reqs) > 0; attempt++ {
			out, err := t.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{t.name: reqs}})
			if err != nil {
				return err
			}
			reqs = out.UnprocessedItems[t.name]
			if len(reqs) == 0 {
				break
			}
			if attempt == batchAttempts {
				return fmt.Errorf("%d items still unprocessed after %d attempts", len(reqs), batchAttempts)
			}
			if err := clock.Sleep(ctx, wait); err != nil {
				return err
			}
			wait = min(2*wait, batchMaxWait)
		}
	}
	return nil
}

// conditionFailed reports whether err is a lost condition of a write.
func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// Attribute value helpers. Empty strings are left out of items rather than
// stored: a missing attribute reads back as "".

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{AttrPK: str(pk), AttrSK: str(sk)}
}

// setStr sets item[name] unless v is empty.
func setStr(item map[string]types.AttributeValue, name, v string) {
	if v != "" {
		item[name] = str(v)
	}
}

func setTime(item map[string]types.AttributeValue, name string, v time.Time) {
	if !v.IsZero() {
		item[name] = str(v.Format(time.RFC3339Nano))
	}
}

func getStr(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func getNum(item map[string]types.AttributeValue, name string) (int64, error) {
	v, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("attribute %s: %w", name, err)
	}
	return n, nil
}

func getTime(item map[string]types.AttributeValue, name string) (time.Time, error) {
	v := getStr(item, name)
	if v == "" {
		return time.Time{}, nil
	}
	tm, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("attribute %s: %w", name, err)
	}
	return tm, nil
}

func getBytes(item map[string]types.AttributeValue, name string) []byte {
	if v, ok := item[name].(*types.AttributeValueMemberB); ok {
		return v.Value
	}
	return nil
}

func getBool(item map[string]types.AttributeValue, name string) bool {
	v, ok := item[name].(*types.AttributeValueMemberBOOL)
	return ok && v.Value
}
