package dynamostore

// Records: the records.Backend of the table, one item a record.
//
//	PK                 SK      what
//	<prefix><key>      META    the value's JSON, version, ttl, and the record's Attrs
//
// Create puts the item with attribute_not_exists(PK). Update reads it
// (strongly consistent), applies fn and puts it back on the condition that
// version is still the one read; a writer that loses reads again and
// re-applies fn to what won, at most updateAttempts times (then
// records.ErrConflict). Each is one single-item conditional write, which
// dynalite has too.
//
// The kinds the table held before records keep their items as they were
// (layouts); any other kind is PK <KIND>#<key> with the JSON in value.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/clock"
	"github.com/insightedge/insightedge/shared/records"
)

// layout is how the items of one kind of record are kept.
type layout struct {
	prefix string // PK is prefix+key, SK is META
	attr   string // the attribute that holds the JSON
	text   bool   // the JSON is a string (S), else binary (B)
	// set is a string set that items written before records kept beside the
	// JSON; it is read into the JSON's field of that name.
	set string
}

// layouts are the kinds the table held before records, as they were kept.
var layouts = map[string]layout{
	"report-sessions":    {prefix: "TSESSION#", attr: "data", text: true},
	"report-connections": {prefix: "TCONN#", attr: "data", text: true, set: "sessions"},
	"research":           {prefix: "RESEARCH#", attr: attrValue},
}

func layoutOf(kind string) layout {
	if l, ok := layouts[kind]; ok {
		return l
	}
	return layout{prefix: strings.ToUpper(kind) + "#", attr: attrValue}
}

// updateAttempts bounds the compare-and-swap loop of Update: each lost
// attempt means another writer won, so n concurrent writers need at most n.
const updateAttempts = 50

// RecordsAPI is the part of the DynamoDB client the records use.
type RecordsAPI interface {
	API
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// Records is the records.Backend of a table.
type Records struct {
	db RecordsAPI
	t  *Table
}

var _ records.Backend = (*Records)(nil)

// NewRecords returns the records of the table name.
func NewRecords(db RecordsAPI, name string, o Options) *Records {
	return &Records{db: db, t: New(db, name, o)}
}

// Items implements records.Backend.
func (r *Records) Items(kind string) records.Store[records.Item] {
	return &items{Records: r, kind: kind, l: layoutOf(kind)}
}

type items struct {
	*Records
	kind string
	l    layout
}

func (s *items) key(k string) map[string]types.AttributeValue { return key(s.l.prefix+k, skMeta) }

func (s *items) Create(ctx context.Context, k string, it records.Item) error {
	if err := nonEmpty("key", k); err != nil {
		return fmt.Errorf("dynamostore: create %s: %w", s.kind, err)
	}
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.t.name), Item: s.item(k, it, 1),
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	if conditionFailed(err) {
		err = records.ErrExists
	}
	if err != nil {
		return fmt.Errorf("dynamostore: create %s %s: %w", s.kind, k, err)
	}
	return nil
}

func (s *items) Get(ctx context.Context, k string) (records.Item, error) {
	it, _, err := s.get(ctx, k)
	if err != nil {
		return records.Item{}, fmt.Errorf("dynamostore: get %s %s: %w", s.kind, k, err)
	}
	return it, nil
}

func (s *items) Update(ctx context.Context, k string, fn func(*records.Item) error) (records.Item, error) {
	for range updateAttempts {
		it, read, err := s.get(ctx, k)
		if err != nil {
			return records.Item{}, fmt.Errorf("dynamostore: update %s %s: %w", s.kind, k, err)
		}
		if err := fn(&it); err != nil {
			return records.Item{}, err
		}
		in := &dynamodb.PutItemInput{TableName: aws.String(s.t.name), Item: s.item(k, it, read+1),
			ConditionExpression:       aws.String("#v = :v"),
			ExpressionAttributeNames:  map[string]string{"#v": attrVersion},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": num(read)}}
		if read == 0 { // written before records kept a version
			in.ConditionExpression, in.ExpressionAttributeValues = aws.String("attribute_exists(PK) AND attribute_not_exists(#v)"), nil
		}
		_, err = s.db.PutItem(ctx, in)
		if conditionFailed(err) {
			if err := clock.Sleep(ctx, time.Duration(1+read%5)*time.Millisecond); err != nil {
				return records.Item{}, err
			}
			continue // somebody else wrote: apply fn to what won
		}
		if err != nil {
			return records.Item{}, fmt.Errorf("dynamostore: update %s %s: %w", s.kind, k, err)
		}
		return it, nil
	}
	return records.Item{}, fmt.Errorf("dynamostore: update %s %s: lost %d conditional writes in a row: %w",
		s.kind, k, updateAttempts, records.ErrConflict)
}

func (s *items) Delete(ctx context.Context, k string) error {
	if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.t.name), Key: s.key(k)}); err != nil {
		return fmt.Errorf("dynamostore: delete %s %s: %w", s.kind, k, err)
	}
	return nil
}

// get returns the item and its version (0 for an item written without one).
func (s *items) get(ctx context.Context, k string) (records.Item, int64, error) {
	if k == "" {
		return records.Item{}, 0, records.ErrNotFound
	}
	item, err := s.t.get(ctx, s.key(k))
	if err != nil {
		return records.Item{}, 0, err
	}
	data := getBytes(item, s.l.attr)
	if s.l.text {
		data = []byte(getStr(item, s.l.attr))
	}
	if len(data) == 0 {
		return records.Item{}, 0, records.ErrNotFound
	}
	if set, ok := item[s.l.set].(*types.AttributeValueMemberSS); ok && s.l.set != "" {
		if data, err = withField(data, s.l.set, slices.Sorted(slices.Values(set.Value))); err != nil {
			return records.Item{}, 0, fmt.Errorf("decode %s: %w", s.l.set, err)
		}
	}
	v, err := getNum(item, attrVersion)
	return records.Item{Data: data}, v, err
}

// item is the item of it at version.
func (s *items) item(k string, it records.Item, version int64) map[string]types.AttributeValue {
	item := s.key(k)
	item[s.l.attr] = &types.AttributeValueMemberB{Value: it.Data}
	if s.l.text {
		item[s.l.attr] = str(string(it.Data))
	}
	item[attrVersion] = num(version)
	exp := it.Expires
	if exp.IsZero() {
		exp = s.t.o.Now().Add(s.t.o.TTL)
	}
	item[AttrTTL] = num(exp.Unix())
	for name, v := range it.Attrs {
		setStr(item, name, v)
	}
	return item
}

// withField returns the JSON object data with field set to v.
func withField(data []byte, field string, v any) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	obj[field] = raw
	return json.Marshal(obj)
}
