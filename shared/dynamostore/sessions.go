package dynamostore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/insightedge/insightedge/shared/session"
)

// Key prefixes and sort keys of the session items.
const (
	prefixSession = "SESSION#"
	skMeta        = "META"
	prefixTurn    = "TURN#"
	prefixRecord  = "REC#"
	// prefixTurnAt keys a turn's index item: TURNAT#<index, 12 digits>
	// holding the turn's id, so that a page of turns is a range query.
	prefixTurnAt = "TURNAT#"
)

// Attribute names of the session and turn items.
const (
	attrSessionID  = "sessionId"
	attrTeacherID  = "teacherId"
	attrKind       = "kind"
	attrTitle      = "title"
	attrActiveTurn = "activeTurn"
	attrTurns      = "turns"
	attrVersion    = "version"
	attrCreatedAt  = "createdAt"
	attrUpdatedAt  = "updatedAt"
	attrTurnID     = "turnId"
	attrIndex      = "index"
	attrMessage    = "message"
	attrMessageID  = "messageId"
	attrLanguage   = "language"
	attrStatus     = "status"
	attrOutcome    = "outcome"
	attrStartedAt  = "startedAt"
	attrEndedAt    = "endedAt"
	attrReplaces   = "replaces"
	attrValue      = "value"
)

// Sessions is the session.Store of a Table. Beyond the contract: BeginTurn
// with a turn id the session already has fails with session.ErrExists, and
// PutRecord does not check that the session exists.
type Sessions struct{ t *Table }

var _ session.Store = (*Sessions)(nil)

func sessionKey(id string) map[string]types.AttributeValue { return key(prefixSession+id, skMeta) }

func turnKey(sessionID, turnID string) map[string]types.AttributeValue {
	return key(prefixSession+sessionID, prefixTurn+turnID)
}

func recordKey(sessionID, k string) map[string]types.AttributeValue {
	return key(prefixSession+sessionID, prefixRecord+k)
}

// CreateSession implements session.Store. A session created without
// ExpiresAt expires after Options.TTL; ExpiresAt is kept to the second.
func (s *Sessions) CreateSession(ctx context.Context, sess session.Session) error {
	if err := nonEmpty("session id", sess.ID); err != nil {
		return fmt.Errorf("dynamostore: create session: %w", err)
	}
	now := s.t.o.Now()
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = now
	}
	ttl := s.t.expiry(now)
	if !sess.ExpiresAt.IsZero() {
		ttl = sess.ExpiresAt.Unix()
	}
	item := sessionKey(sess.ID)
	item[attrSessionID] = str(sess.ID)
	setStr(item, attrTeacherID, sess.TeacherID)
	setStr(item, attrKind, sess.Kind)
	setStr(item, attrTitle, sess.Title)
	item[attrTurns] = num(0)
	item[attrVersion] = num(1)
	setTime(item, attrCreatedAt, sess.CreatedAt)
	setTime(item, attrUpdatedAt, now)
	item[AttrTTL] = num(ttl)
	_, err := s.t.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.t.name),
		Item:                item,
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	if conditionFailed(err) {
		err = session.ErrExists
	}
	if err != nil {
		return fmt.Errorf("dynamostore: create session %s: %w", sess.ID, err)
	}
	return nil
}

// GetSession implements session.Store.
func (s *Sessions) GetSession(ctx context.Context, id string) (session.Session, error) {
	sess, err := s.getSession(ctx, id)
	if err != nil {
		return session.Session{}, fmt.Errorf("dynamostore: get session %s: %w", id, err)
	}
	return sess, nil
}

func (s *Sessions) getSession(ctx context.Context, id string) (session.Session, error) {
	if id == "" {
		return session.Session{}, session.ErrNotFound
	}
	item, err := s.t.get(ctx, sessionKey(id))
	if err != nil {
		return session.Session{}, err
	}
	if item == nil {
		return session.Session{}, session.ErrNotFound
	}
	return decodeSession(item)
}

// BeginTurn implements session.Store; see the package comment for how it
// stays correct without a transaction.
func (s *Sessions) BeginTurn(ctx context.Context, t session.Turn) (session.Turn, error) {
	if err := nonEmpty("session id", t.SessionID, "turn id", t.ID); err != nil {
		return session.Turn{}, fmt.Errorf("dynamostore: begin turn: %w", err)
	}
	now := s.t.o.Now()
	if t.StartedAt.IsZero() {
		t.StartedAt = now
	}
	t.Status, t.Outcome, t.EndedAt = session.TurnRunning, session.Outcome{}, time.Time{}

	sess, err := s.claim(ctx, t.SessionID, t.ID, now)
	if err != nil {
		return session.Turn{}, fmt.Errorf("dynamostore: begin turn %s/%s: %w", t.SessionID, t.ID, err)
	}
	t.Index = sess.Turns
	// The index item goes first: a turn without one would be missing from
	// the pages of /messages, whereas an index item whose turn was never
	// written (or is another's) is skipped by PageTurns.
	err = s.putTurnAt(ctx, t, sess.ExpiresAt.Unix())
	var item map[string]types.AttributeValue
	if err == nil {
		item, err = encodeTurn(t, sess.ExpiresAt.Unix())
	}
	if err == nil {
		_, err = s.t.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:           aws.String(s.t.name),
			Item:                item,
			ConditionExpression: aws.String("attribute_not_exists(PK)"),
		})
	}
	if err != nil {
		if conditionFailed(err) {
			err = fmt.Errorf("turn id taken: %w", session.ErrExists)
		}
		// Undo the claim, so that the session is not left busy.
		if uerr := s.unclaim(context.WithoutCancel(ctx), t.SessionID, t.ID); uerr != nil {
			err = errors.Join(err, fmt.Errorf("undo the claim: %w", uerr))
		}
		return session.Turn{}, fmt.Errorf("dynamostore: begin turn %s/%s: %w", t.SessionID, t.ID, err)
	}
	return t, nil
}

// claim makes turnID the session's active turn and returns the session as
// updated (Turns is the new turn's index). When the session is busy it
// checks once whether the active turn is the trace of a crash, clears it if
// so, and tries again.
func (s *Sessions) claim(ctx context.Context, sessionID, turnID string, now time.Time) (session.Session, error) {
	const attempts = 2
	for attempt := 1; ; attempt++ {
		out, err := s.t.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:           aws.String(s.t.name),
			Key:                 sessionKey(sessionID),
			ConditionExpression: aws.String("attribute_exists(PK) AND attribute_not_exists(activeTurn)"),
			UpdateExpression:    aws.String("SET activeTurn = :turn, updatedAt = :now ADD turns :one, version :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":turn": str(turnID), ":now": str(now.Format(time.RFC3339Nano)), ":one": num(1),
			},
			ReturnValues: types.ReturnValueAllNew,
		})
		if err == nil {
			return decodeSession(out.Attributes)
		}
		if !conditionFailed(err) {
			return session.Session{}, err
		}
		if attempt == attempts {
			return session.Session{}, session.ErrConflict
		}
		retry, err := s.repair(ctx, sessionID, now)
		if err != nil {
			return session.Session{}, err
		}
		if !retry {
			return session.Session{}, session.ErrConflict
		}
	}
}

// repair looks at a session whose claim failed: ErrNotFound without the
// session; true when the session is free again (the active turn ended
// meanwhile, or it was the trace of a crash and is now cleared); false when
// its active turn is really running (or may be: its item can still be on
// its way).
func (s *Sessions) repair(ctx context.Context, sessionID string, now time.Time) (bool, error) {
	sess, err := s.getSession(ctx, sessionID)
	if err != nil {
		return false, err
	}
	if sess.ActiveTurn == "" {
		return true, nil
	}
	active, err := s.getTurn(ctx, sessionID, sess.ActiveTurn)
	var orphan bool
	switch {
	case err == nil && active.Status == session.TurnRunning:
		return false, nil
	case err == nil:
		// An EndTurn stopped between its two writes.
	case errors.Is(err, session.ErrNotFound) && now.Sub(sess.UpdatedAt) >= s.t.o.OrphanAfter:
		// A BeginTurn stopped between its two writes.
		orphan = true
	case errors.Is(err, session.ErrNotFound):
		return false, nil
	default:
		return false, err
	}
	update := "REMOVE activeTurn ADD version :one"
	values := map[string]types.AttributeValue{":turn": str(sess.ActiveTurn), ":version": num(sess.Version), ":one": num(1)}
	if orphan {
		// The lost turn took an index that no turn item has: give it back.
		update += ", turns :minus"
		values[":minus"] = num(-1)
	}
	_, err = s.t.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.name),
		Key:                       sessionKey(sessionID),
		ConditionExpression:       aws.String("activeTurn = :turn AND version = :version"),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeValues: values,
	})
	if conditionFailed(err) {
		return false, nil // another writer changed the session first
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// unclaim undoes claim after the turn item could not be written.
func (s *Sessions) unclaim(ctx context.Context, sessionID, turnID string) error {
	_, err := s.t.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.name),
		Key:                       sessionKey(sessionID),
		ConditionExpression:       aws.String("activeTurn = :turn"),
		UpdateExpression:          aws.String("REMOVE activeTurn ADD turns :minus, version :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":turn": str(turnID), ":one": num(1), ":minus": num(-1)},
	})
	if conditionFailed(err) {
		return nil // no longer ours: nothing to undo
	}
	return err
}

// EndTurn implements session.Store; see the package comment.
func (s *Sessions) EndTurn(ctx context.Context, sessionID, turnID string, status session.TurnStatus, out session.Outcome) error {
	if err := nonEmpty("session id", sessionID, "turn id", turnID); err != nil {
		return fmt.Errorf("dynamostore: end turn: %w", err)
	}
	switch status {
	case session.TurnCompleted, session.TurnFailed, session.TurnStopped:
	default:
		return fmt.Errorf("dynamostore: end turn %s/%s: %q is not a final status", sessionID, turnID, status)
	}
	outcome, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("dynamostore: end turn %s/%s: encode outcome: %w", sessionID, turnID, err)
	}
	now := s.t.o.Now()
	_, err = s.t.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.t.name),
		Key:                      turnKey(sessionID, turnID),
		ConditionExpression:      aws.String("attribute_exists(PK) AND #status = :running"),
		UpdateExpression:         aws.String("SET #status = :status, outcome = :outcome, endedAt = :now"),
		ExpressionAttributeNames: map[string]string{"#status": attrStatus},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":running": str(string(session.TurnRunning)), ":status": str(string(status)),
			":outcome": str(string(outcome)), ":now": str(now.Format(time.RFC3339Nano)),
		},
	})
	if conditionFailed(err) {
		// Tell a missing turn from one that is no longer running.
		_, err = s.getTurn(ctx, sessionID, turnID)
		if err == nil {
			err = session.ErrConflict
		}
	}
	if err != nil {
		return fmt.Errorf("dynamostore: end turn %s/%s: %w", sessionID, turnID, err)
	}
	if err := s.release(ctx, sessionID, turnID, now); err != nil {
		return fmt.Errorf("dynamostore: end turn %s/%s: release the session: %w", sessionID, turnID, err)
	}
	return nil
}

// release clears the session's active turn if it is turnID, and counts the
// status change in the session's version either way.
func (s *Sessions) release(ctx context.Context, sessionID, turnID string, now time.Time) error {
	values := func(extra ...string) map[string]types.AttributeValue {
		v := map[string]types.AttributeValue{":one": num(1), ":now": str(now.Format(time.RFC3339Nano))}
		for i := 0; i+1 < len(extra); i += 2 {
			v[extra[i]] = str(extra[i+1])
		}
		return v
	}
	_, err := s.t.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.name),
		Key:                       sessionKey(sessionID),
		ConditionExpression:       aws.String("activeTurn = :turn"),
		UpdateExpression:          aws.String("REMOVE activeTurn SET updatedAt = :now ADD version :one"),
		ExpressionAttributeValues: values(":turn", turnID),
	})
	if !conditionFailed(err) {
		return err
	}
	// The session names another turn (or none, after a repair): leave it.
	_, err = s.t.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.name),
		Key:                       sessionKey(sessionID),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		UpdateExpression:          aws.String("SET updatedAt = :now ADD version :one"),
		ExpressionAttributeValues: values(),
	})
	if conditionFailed(err) {
		return nil // the session has expired: nothing to count
	}
	return err
}

// GetTurn implements session.Store.
func (s *Sessions) GetTurn(ctx context.Context, sessionID, turnID string) (session.Turn, error) {
	t, err := s.getTurn(ctx, sessionID, turnID)
	if err != nil {
		return session.Turn{}, fmt.Errorf("dynamostore: get turn %s/%s: %w", sessionID, turnID, err)
	}
	return t, nil
}

func (s *Sessions) getTurn(ctx context.Context, sessionID, turnID string) (session.Turn, error) {
	if sessionID == "" || turnID == "" {
		return session.Turn{}, session.ErrNotFound
	}
	item, err := s.t.get(ctx, turnKey(sessionID, turnID))
	if err != nil {
		return session.Turn{}, err
	}
	if item == nil {
		return session.Turn{}, session.ErrNotFound
	}
	return decodeTurn(item)
}

// ListTurns implements session.Store: one query of the session's partition.
func (s *Sessions) ListTurns(ctx context.Context, sessionID string) ([]session.Turn, error) {
	items, err := s.t.query(ctx, beginsWith(prefixSession+sessionID, prefixTurn), 0)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: list turns %s: %w", sessionID, err)
	}
	turns := make([]session.Turn, 0, len(items))
	for _, it := range items {
		t, err := decodeTurn(it)
		if err != nil {
			return nil, fmt.Errorf("dynamostore: list turns %s: %w", sessionID, err)
		}
		turns = append(turns, t)
	}
	sort.Slice(turns, func(i, j int) bool { return turns[i].Index < turns[j].Index })
	return turns, nil
}

func turnAtKey(sessionID string, index int) map[string]types.AttributeValue {
	return key(prefixSession+sessionID, turnAtSK(index))
}

func turnAtSK(index int) string { return fmt.Sprintf("%s%012d", prefixTurnAt, index) }

// putTurnAt writes the index item of t (unconditionally: an index freed by
// an undone claim is taken again by the next turn).
func (s *Sessions) putTurnAt(ctx context.Context, t session.Turn, ttl int64) error {
	item := turnAtKey(t.SessionID, t.Index)
	item[attrTurnID] = str(t.ID)
	item[AttrTTL] = num(ttl)
	_, err := s.t.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.t.name), Item: item})
	return err
}

// pageReads bounds the turn items PageTurns reads at once.
const pageReads = 8

// PageTurns implements session.Store: one query of at most limit+1 index
// items, newest first, below before; then the page's turn items (GetItem,
// strongly consistent, pageReads at a time). A session whose turns predate
// the index items (its page does not reach down to turn 1 and has no more)
// is read whole, as ListTurns does.
func (s *Sessions) PageTurns(ctx context.Context, sessionID string, before, limit int) ([]session.Turn, bool, error) {
	if limit <= 0 {
		return nil, false, fmt.Errorf("dynamostore: page turns %s: limit %d is not positive", sessionID, limit)
	}
	if before == 1 {
		return nil, false, nil // nothing is below turn 1
	}
	hi := prefixTurnAt + "~" // above every index
	if before > 0 {
		hi = turnAtSK(before - 1)
	}
	items, err := s.t.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(prefixSession + sessionID), ":lo": str(turnAtSK(1)), ":hi": str(hi)},
		ScanIndexForward: aws.Bool(false),
	}, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("dynamostore: page turns %s: %w", sessionID, err)
	}
	more := len(items) > limit
	items = items[:min(len(items), limit)]
	if !more && legacyPage(items, before) {
		return s.pageAll(ctx, sessionID, before, limit)
	}
	turns, err := s.turnsAt(ctx, sessionID, items)
	if err != nil {
		return nil, false, fmt.Errorf("dynamostore: page turns %s: %w", sessionID, err)
	}
	return turns, more, nil
}

// legacyPage reports whether a last page (nothing earlier) of index items
// fails to reach down to turn 1: turns written before index items existed
// lie below it. (A gap left by a crash between two writes reads the same
// way; the whole read is then merely slower.)
func legacyPage(items []map[string]types.AttributeValue, before int) bool {
	if len(items) == 0 {
		return before != 1
	}
	low := getStr(items[len(items)-1], AttrSK)
	return low != turnAtSK(1)
}

// pageAll is the page cut from the whole list (sessions older than the
// index items).
func (s *Sessions) pageAll(ctx context.Context, sessionID string, before, limit int) ([]session.Turn, bool, error) {
	all, err := s.ListTurns(ctx, sessionID)
	if err != nil {
		return nil, false, err
	}
	end := len(all)
	if before > 0 {
		end = sort.Search(len(all), func(i int) bool { return all[i].Index >= before })
	}
	start := max(0, end-limit)
	return all[start:end], start > 0, nil
}

// turnsAt reads the turns the index items name, oldest first. An index
// item whose turn is missing or has another index (a claim undone before
// its turn was written) is skipped.
func (s *Sessions) turnsAt(ctx context.Context, sessionID string, items []map[string]types.AttributeValue) ([]session.Turn, error) {
	turns := make([]session.Turn, len(items))
	found := make([]bool, len(items))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(pageReads)
	for i, it := range items {
		index, err := strconv.Atoi(strings.TrimPrefix(getStr(it, AttrSK), prefixTurnAt))
		if err != nil {
			return nil, fmt.Errorf("index item %q: %w", getStr(it, AttrSK), err)
		}
		id := getStr(it, attrTurnID)
		g.Go(func() error {
			t, err := s.getTurn(gctx, sessionID, id)
			switch {
			case errors.Is(err, session.ErrNotFound):
				return nil
			case err != nil:
				return err
			}
			turns[i], found[i] = t, t.Index == index
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]session.Turn, 0, len(turns))
	for i := len(turns) - 1; i >= 0; i-- { // the items are newest first
		if found[i] {
			out = append(out, turns[i])
		}
	}
	return out, nil
}

// PutRecord implements session.Records. Records expire after Options.TTL.
func (s *Sessions) PutRecord(ctx context.Context, sessionID, k string, value []byte) error {
	if err := nonEmpty("session id", sessionID, "record key", k); err != nil {
		return fmt.Errorf("dynamostore: put record: %w", err)
	}
	item := recordKey(sessionID, k)
	// The SDK serialises the value during the call, so the caller's slice is
	// not kept. An empty value is an item without the attribute (DynamoDB
	// takes no empty binary value); it reads back as empty. A large one is
	// stored deflated (compress.go).
	putBinary(item, attrValue, value)
	item[AttrTTL] = num(s.t.expiry(s.t.o.Now()))
	_, err := s.t.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.t.name), Item: item})
	if err != nil {
		return fmt.Errorf("dynamostore: put record %s/%s (%d bytes): %w", sessionID, k, len(value), err)
	}
	return nil
}

// GetRecord implements session.Records.
func (s *Sessions) GetRecord(ctx context.Context, sessionID, k string) ([]byte, error) {
	if sessionID == "" || k == "" {
		return nil, fmt.Errorf("dynamostore: get record %s/%s: %w", sessionID, k, session.ErrNotFound)
	}
	item, err := s.t.get(ctx, recordKey(sessionID, k))
	if err == nil && item == nil {
		err = session.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("dynamostore: get record %s/%s: %w", sessionID, k, err)
	}
	value, err := getBinary(item, attrValue)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: get record %s/%s: %w", sessionID, k, err)
	}
	// A fresh slice, never nil: an empty value is found, not missing.
	return append([]byte{}, value...), nil
}

// ListRecords implements session.Records. DynamoDB orders sort keys by
// their UTF-8 bytes, as Go compares strings.
func (s *Sessions) ListRecords(ctx context.Context, sessionID, prefix string) ([]session.Record, error) {
	items, err := s.t.query(ctx, beginsWith(prefixSession+sessionID, prefixRecord+prefix), 0)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: list records %s/%s: %w", sessionID, prefix, err)
	}
	recs := make([]session.Record, 0, len(items))
	for _, it := range items {
		value, err := getBinary(it, attrValue)
		if err != nil {
			return nil, fmt.Errorf("dynamostore: list records %s/%s: %w", sessionID, prefix, err)
		}
		recs = append(recs, session.Record{
			Key:   strings.TrimPrefix(getStr(it, AttrSK), prefixRecord),
			Value: append([]byte{}, value...),
		})
	}
	return recs, nil
}

func beginsWith(pk, skPrefix string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk), ":prefix": str(skPrefix)},
	}
}

func decodeSession(item map[string]types.AttributeValue) (session.Session, error) {
	sess := session.Session{
		ID:         getStr(item, attrSessionID),
		TeacherID:  getStr(item, attrTeacherID),
		Kind:       getStr(item, attrKind),
		Title:      getStr(item, attrTitle),
		ActiveTurn: getStr(item, attrActiveTurn),
	}
	turns, err1 := getNum(item, attrTurns)
	version, err2 := getNum(item, attrVersion)
	ttl, err3 := getNum(item, AttrTTL)
	created, err4 := getTime(item, attrCreatedAt)
	updated, err5 := getTime(item, attrUpdatedAt)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return session.Session{}, fmt.Errorf("decode session %s: %w", sess.ID, err)
	}
	sess.Turns, sess.Version = int(turns), version
	sess.CreatedAt, sess.UpdatedAt = created, updated
	if ttl > 0 {
		sess.ExpiresAt = time.Unix(ttl, 0).UTC()
	}
	return sess, nil
}

func encodeTurn(t session.Turn, ttl int64) (map[string]types.AttributeValue, error) {
	outcome, err := json.Marshal(t.Outcome)
	if err != nil {
		return nil, fmt.Errorf("encode outcome: %w", err)
	}
	item := turnKey(t.SessionID, t.ID)
	item[attrSessionID] = str(t.SessionID)
	item[attrTurnID] = str(t.ID)
	item[attrIndex] = num(int64(t.Index))
	setStr(item, attrMessage, t.Message)
	setStr(item, attrMessageID, t.MessageID)
	setStr(item, attrLanguage, t.Language)
	item[attrStatus] = str(string(t.Status))
	item[attrOutcome] = str(string(outcome))
	setTime(item, attrStartedAt, t.StartedAt)
	setTime(item, attrEndedAt, t.EndedAt)
	if t.Replaces > 0 {
		item[attrReplaces] = num(int64(t.Replaces))
	}
	item[AttrTTL] = num(ttl)
	return item, nil
}

func decodeTurn(item map[string]types.AttributeValue) (session.Turn, error) {
	t := session.Turn{
		SessionID: getStr(item, attrSessionID),
		ID:        getStr(item, attrTurnID),
		Message:   getStr(item, attrMessage),
		MessageID: getStr(item, attrMessageID),
		Language:  getStr(item, attrLanguage),
		Status:    session.TurnStatus(getStr(item, attrStatus)),
	}
	index, err1 := getNum(item, attrIndex)
	started, err2 := getTime(item, attrStartedAt)
	ended, err3 := getTime(item, attrEndedAt)
	replaces, err5 := getNum(item, attrReplaces)
	var err4 error
	if o := getStr(item, attrOutcome); o != "" {
		err4 = json.Unmarshal([]byte(o), &t.Outcome)
	}
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return session.Turn{}, fmt.Errorf("decode turn %s/%s: %w", t.SessionID, t.ID, err)
	}
	t.Index, t.StartedAt, t.EndedAt, t.Replaces = int(index), started, ended, int(replaces)
	return t, nil
}

// nonEmpty returns an error naming the first empty value of name, value
// pairs: key attributes cannot be empty.
func nonEmpty(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return fmt.Errorf("empty %s", pairs[i])
		}
	}
	return nil
}
