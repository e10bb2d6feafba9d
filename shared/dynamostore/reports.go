package dynamostore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/report"
)

// The template-report items (seed 002), in the same table:
//
//	PK                 SK     what
//	TSESSION#<id>      META   a report session: data (JSON), version, ttl
//	TCONN#<id>         META   a WebSocket connection: data (JSON), sessions (string set), ttl
//
// UpdateSession is optimistic: read (consistent), apply, PutItem on the
// condition that the version is still the one read; a lost race reads
// again, at most maxUpdateAttempts times. AddSession is one UpdateItem
// (ADD to a string set), so concurrent adds never lose one.

// ReportsAPI is the part of the DynamoDB client the report store uses.
type ReportsAPI interface {
	API
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// ReportStore is the report.Store of a table.
type ReportStore struct {
	db   ReportsAPI
	name string
	o    Options
}

var _ report.Store = (*ReportStore)(nil)

// NewReportStore returns the store on table name.
func NewReportStore(db ReportsAPI, name string, o Options) *ReportStore {
	t := New(db, name, o) // the defaults
	return &ReportStore{db: db, name: name, o: t.o}
}

// maxUpdateAttempts bounds UpdateSession's optimistic retries.
const maxUpdateAttempts = 50

// ErrContended is returned by UpdateSession after maxUpdateAttempts lost races.
var ErrContended = errors.New("dynamostore: too many concurrent updates")

func reportKey(prefix, id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		AttrPK: &types.AttributeValueMemberS{Value: prefix + id},
		AttrSK: &types.AttributeValueMemberS{Value: "META"},
	}
}

func (s *ReportStore) ttl(exp time.Time) int64 {
	if exp.IsZero() {
		return s.o.Now().Add(s.o.TTL).Unix()
	}
	return exp.Unix()
}

func (s *ReportStore) putSession(ctx context.Context, sess report.Session, cond string, vals map[string]types.AttributeValue) error {
	data, err := json.Marshal(sess)
	if err != nil {
		return err
	}
	item := reportKey("TSESSION#", sess.ID)
	item["data"] = &types.AttributeValueMemberS{Value: string(data)}
	item["version"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(sess.Version, 10)}
	item[AttrTTL] = &types.AttributeValueMemberN{Value: strconv.FormatInt(s.ttl(sess.ExpiresAt), 10)}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.name), Item: item,
		ConditionExpression: aws.String(cond), ExpressionAttributeValues: vals})
	return err
}

// CreateSession implements report.Store.
func (s *ReportStore) CreateSession(ctx context.Context, sess report.Session) error {
	if sess.ID == "" {
		return errors.New("dynamostore: create report session: empty id")
	}
	now := s.o.Now().UTC()
	sess.Version, sess.CreatedAt, sess.UpdatedAt = 1, now, now
	err := s.putSession(ctx, sess, "attribute_not_exists(PK)", nil)
	if conditionFailed(err) {
		return fmt.Errorf("dynamostore: create report session %s: %w", sess.ID, report.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("dynamostore: create report session %s: %w", sess.ID, err)
	}
	return nil
}

// GetSession implements report.Store.
func (s *ReportStore) GetSession(ctx context.Context, id string) (report.Session, error) {
	var sess report.Session
	if _, err := s.get(ctx, "TSESSION#", id, &sess); err != nil {
		return report.Session{}, fmt.Errorf("dynamostore: get report session %s: %w", id, err)
	}
	return sess, nil
}

// UpdateSession implements report.Store.
func (s *ReportStore) UpdateSession(ctx context.Context, id string, fn func(*report.Session) error) (report.Session, error) {
	for range maxUpdateAttempts {
		var sess report.Session
		if _, err := s.get(ctx, "TSESSION#", id, &sess); err != nil {
			return report.Session{}, fmt.Errorf("dynamostore: update report session %s: %w", id, err)
		}
		read := sess.Version
		if err := fn(&sess); err != nil {
			return report.Session{}, fmt.Errorf("dynamostore: update report session %s: %w", id, err)
		}
		sess.ID, sess.Version, sess.UpdatedAt = id, read+1, s.o.Now().UTC()
		err := s.putSession(ctx, sess, "version = :v", map[string]types.AttributeValue{
			":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(read, 10)}})
		if conditionFailed(err) {
			continue // another writer won: read again
		}
		if err != nil {
			return report.Session{}, fmt.Errorf("dynamostore: update report session %s: %w", id, err)
		}
		return sess, nil
	}
	return report.Session{}, fmt.Errorf("dynamostore: update report session %s: %w", id, ErrContended)
}

// PutConnection implements report.Store.
func (s *ReportStore) PutConnection(ctx context.Context, c report.Connection) error {
	if c.ID == "" {
		return errors.New("dynamostore: put connection: empty id")
	}
	sessions := c.Sessions
	c.Sessions = nil
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	item := reportKey("TCONN#", c.ID)
	item["data"] = &types.AttributeValueMemberS{Value: string(data)}
	item[AttrTTL] = &types.AttributeValueMemberN{Value: strconv.FormatInt(s.ttl(c.ExpiresAt), 10)}
	if len(sessions) > 0 {
		item["sessions"] = &types.AttributeValueMemberSS{Value: sessions}
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.name), Item: item}); err != nil {
		return fmt.Errorf("dynamostore: put connection %s: %w", c.ID, err)
	}
	return nil
}

// GetConnection implements report.Store.
func (s *ReportStore) GetConnection(ctx context.Context, id string) (report.Connection, error) {
	var c report.Connection
	item, err := s.get(ctx, "TCONN#", id, &c)
	if err != nil {
		return c, fmt.Errorf("dynamostore: get connection %s: %w", id, err)
	}
	if ss, ok := item["sessions"].(*types.AttributeValueMemberSS); ok {
		c.Sessions = slices.Sorted(slices.Values(ss.Value))
	}
	return c, nil
}

// AddSession implements report.Store.
func (s *ReportStore) AddSession(ctx context.Context, connID, sessionID string) error {
	if connID == "" || sessionID == "" {
		return errors.New("dynamostore: add session: empty id")
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.name), Key: reportKey("TCONN#", connID),
		UpdateExpression:          aws.String("ADD sessions :s"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberSS{Value: []string{sessionID}}}})
	if conditionFailed(err) {
		return fmt.Errorf("dynamostore: add session to %s: %w", connID, report.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("dynamostore: add session to %s: %w", connID, err)
	}
	return nil
}

// DeleteConnection implements report.Store.
func (s *ReportStore) DeleteConnection(ctx context.Context, id string) error {
	if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.name), Key: reportKey("TCONN#", id)}); err != nil {
		return fmt.Errorf("dynamostore: delete connection %s: %w", id, err)
	}
	return nil
}

func (s *ReportStore) get(ctx context.Context, prefix, id string, into any) (map[string]types.AttributeValue, error) {
	if id == "" {
		return nil, report.ErrNotFound
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.name), Key: reportKey(prefix, id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	data, ok := out.Item["data"].(*types.AttributeValueMemberS)
	if !ok {
		return nil, report.ErrNotFound
	}
	return out.Item, json.Unmarshal([]byte(data.Value), into)
}
