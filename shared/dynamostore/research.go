package dynamostore

// Research sessions: the research.Store of the table.
//
//	PK                 SK      what
//	RESEARCH#<id>      META    the session (value: JSON), version, status, teacherId, ttl
//
// The whole session is one item, so every transition is one conditional
// write: CreateResearch puts it with attribute_not_exists(PK), and
// UpdateResearch reads it (strongly consistent), applies the change and
// puts it back with version = the version read. A writer that loses reads
// again and re-applies its change to what won, which is how the second of
// two concurrent streams finds the first one's lease and gets 409. status
// and teacherId are copied out of the JSON for an operator's queries.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/research"
)

const prefixResearch = "RESEARCH#"

// updateAttempts bounds the compare-and-swap loop of UpdateResearch: each
// lost attempt means another writer won, and the session's writers are a
// stream edge and one workflow step, so a handful is plenty.
const updateAttempts = 8

// ResearchStore is the research.Store of a table.
type ResearchStore struct{ t *Table }

var _ research.Store = (*ResearchStore)(nil)

// Research returns the research session store of the table.
func (t *Table) Research() *ResearchStore { return &ResearchStore{t: t} }

func researchKey(id string) map[string]types.AttributeValue { return key(prefixResearch+id, skMeta) }

func (s *ResearchStore) item(r research.Session) (map[string]types.AttributeValue, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	item := researchKey(r.ID)
	item[attrValue] = &types.AttributeValueMemberB{Value: raw}
	item[attrVersion] = num(r.Version)
	setStr(item, attrStatus, string(r.Status))
	setStr(item, attrTeacherID, r.TeacherID)
	exp := r.ExpiresAt
	if exp.IsZero() {
		exp = s.t.o.Now().Add(s.t.o.TTL)
	}
	item[AttrTTL] = num(exp.Unix())
	return item, nil
}

// CreateResearch implements research.Store.
func (s *ResearchStore) CreateResearch(ctx context.Context, r research.Session) error {
	if err := nonEmpty("research id", r.ID); err != nil {
		return fmt.Errorf("dynamostore: create research: %w", err)
	}
	r.Version = 1
	item, err := s.item(r)
	if err != nil {
		return fmt.Errorf("dynamostore: create research %s: %w", r.ID, err)
	}
	_, err = s.t.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.t.name), Item: item,
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	if conditionFailed(err) {
		return fmt.Errorf("dynamostore: create research %s: %w", r.ID, research.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("dynamostore: create research %s: %w", r.ID, err)
	}
	return nil
}

// GetResearch implements research.Store.
func (s *ResearchStore) GetResearch(ctx context.Context, id string) (research.Session, error) {
	r, err := s.get(ctx, id)
	if err != nil {
		return research.Session{}, fmt.Errorf("dynamostore: get research %s: %w", id, err)
	}
	return r, nil
}

func (s *ResearchStore) get(ctx context.Context, id string) (research.Session, error) {
	if id == "" {
		return research.Session{}, research.ErrNotFound
	}
	item, err := s.t.get(ctx, researchKey(id))
	if err != nil {
		return research.Session{}, err
	}
	if item == nil {
		return research.Session{}, research.ErrNotFound
	}
	var r research.Session
	if err := json.Unmarshal(getBytes(item, attrValue), &r); err != nil {
		return research.Session{}, fmt.Errorf("decode: %w", err)
	}
	return r, nil
}

// UpdateResearch implements research.Store.
func (s *ResearchStore) UpdateResearch(ctx context.Context, id string, fn func(*research.Session) error) (research.Session, error) {
	for range updateAttempts {
		r, err := s.get(ctx, id)
		if err != nil {
			return research.Session{}, fmt.Errorf("dynamostore: update research %s: %w", id, err)
		}
		read := r.Version
		if err := fn(&r); err != nil {
			return research.Session{}, err
		}
		r.Version = read + 1
		item, err := s.item(r)
		if err != nil {
			return research.Session{}, fmt.Errorf("dynamostore: update research %s: %w", id, err)
		}
		_, err = s.t.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.t.name), Item: item,
			ConditionExpression:       aws.String("#v = :v"),
			ExpressionAttributeNames:  map[string]string{"#v": attrVersion},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": num(read)}})
		if conditionFailed(err) {
			if err := pause(ctx, time.Duration(1+read%5)*time.Millisecond); err != nil {
				return research.Session{}, err
			}
			continue // somebody else wrote: apply fn to what won
		}
		if err != nil {
			return research.Session{}, fmt.Errorf("dynamostore: update research %s: %w", id, err)
		}
		return r, nil
	}
	return research.Session{}, fmt.Errorf("dynamostore: update research %s: lost %d conditional writes in a row: %w",
		id, updateAttempts, research.ErrConflict)
}
