package boltstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/session"
)

// SessionStore is the session.Store of a DB. Beyond the contract:
// BeginTurn of a turn id the session already has fails with
// session.ErrExists, and with a TTL each BeginTurn moves the session's expiry
// to at least now+TTL, so that a session in use does not expire.
type SessionStore struct{ db *DB }

var _ session.Store = (*SessionStore)(nil)

// CreateSession implements session.Store.
func (s *SessionStore) CreateSession(ctx context.Context, sess session.Session) error {
	if err := check(ctx, "session id", sess.ID); err != nil {
		return fmt.Errorf("boltstore: create session: %w", err)
	}
	now := s.db.now()
	sess.ActiveTurn, sess.Turns, sess.Version = "", 0, 1
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = now
	}
	sess.UpdatedAt = now
	if sess.ExpiresAt.IsZero() {
		sess.ExpiresAt = s.db.expiry(now)
	}
	err := s.db.grouped(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketSessions))
		if b.Get([]byte(sess.ID)) != nil {
			return session.ErrExists
		}
		return putJSON(b, []byte(sess.ID), sess)
	})
	if err != nil {
		return fmt.Errorf("boltstore: create session %s: %w", sess.ID, err)
	}
	return nil
}

// GetSession implements session.Store.
func (s *SessionStore) GetSession(ctx context.Context, id string) (session.Session, error) {
	var sess session.Session
	err := s.db.view(ctx, func(tx *bbolt.Tx) (err error) {
		sess, err = getSession(tx, id)
		return err
	})
	if err != nil {
		return session.Session{}, fmt.Errorf("boltstore: get session %s: %w", id, err)
	}
	return sess, nil
}

// BeginTurn implements session.Store.
func (s *SessionStore) BeginTurn(ctx context.Context, t session.Turn) (session.Turn, error) {
	if err := check(ctx, "session id", t.SessionID, "turn id", t.ID); err != nil {
		return session.Turn{}, fmt.Errorf("boltstore: begin turn: %w", err)
	}
	err := s.db.grouped(func(tx *bbolt.Tx) error {
		sess, err := getSession(tx, t.SessionID)
		if err != nil {
			return err
		}
		if sess.ActiveTurn != "" {
			return fmt.Errorf("turn %s is running: %w", sess.ActiveTurn, session.ErrConflict)
		}
		ids, err := tx.Bucket([]byte(bucketTurnIDs)).CreateBucketIfNotExists([]byte(t.SessionID))
		if err != nil {
			return err
		}
		if ids.Get([]byte(t.ID)) != nil {
			return fmt.Errorf("turn id taken: %w", session.ErrExists)
		}
		turns, err := tx.Bucket([]byte(bucketTurns)).CreateBucketIfNotExists([]byte(t.SessionID))
		if err != nil {
			return err
		}

		now := s.db.now()
		t.Index = sess.Turns + 1
		t.Status = session.TurnRunning
		t.Outcome = session.Outcome{}
		t.EndedAt = time.Time{}
		if t.StartedAt.IsZero() {
			t.StartedAt = now
		}
		sess.Turns = t.Index
		sess.ActiveTurn = t.ID
		sess.Version++
		sess.UpdatedAt = now
		if exp := s.db.expiry(now); exp.After(sess.ExpiresAt) {
			sess.ExpiresAt = exp
		}

		key := u64key(int64(t.Index))
		if err := ids.Put([]byte(t.ID), key); err != nil {
			return err
		}
		if err := putJSON(turns, key, t); err != nil {
			return err
		}
		return putJSON(tx.Bucket([]byte(bucketSessions)), []byte(sess.ID), sess)
	})
	if err != nil {
		return session.Turn{}, fmt.Errorf("boltstore: begin turn %s/%s: %w", t.SessionID, t.ID, err)
	}
	return t, nil
}

// EndTurn implements session.Store.
func (s *SessionStore) EndTurn(ctx context.Context, sessionID, turnID string, status session.TurnStatus, out session.Outcome) error {
	if err := check(ctx, "session id", sessionID, "turn id", turnID); err != nil {
		return fmt.Errorf("boltstore: end turn: %w", err)
	}
	switch status {
	case session.TurnCompleted, session.TurnFailed, session.TurnStopped:
	default:
		return fmt.Errorf("boltstore: end turn %s/%s: %q is not a final status", sessionID, turnID, status)
	}
	err := s.db.grouped(func(tx *bbolt.Tx) error {
		sess, err := getSession(tx, sessionID)
		if err != nil {
			return err
		}
		key, t, err := getTurn(tx, sessionID, turnID)
		if err != nil {
			return err
		}
		if t.Status != session.TurnRunning {
			return fmt.Errorf("turn is %s: %w", t.Status, session.ErrConflict)
		}
		now := s.db.now()
		t.Status, t.Outcome, t.EndedAt = status, out, now
		if sess.ActiveTurn == turnID {
			sess.ActiveTurn = ""
		}
		sess.Version++
		sess.UpdatedAt = now
		if err := putJSON(tx.Bucket([]byte(bucketTurns)).Bucket([]byte(sessionID)), key, t); err != nil {
			return err
		}
		return putJSON(tx.Bucket([]byte(bucketSessions)), []byte(sessionID), sess)
	})
	if err != nil {
		return fmt.Errorf("boltstore: end turn %s/%s: %w", sessionID, turnID, err)
	}
	return nil
}

// GetTurn implements session.Store.
func (s *SessionStore) GetTurn(ctx context.Context, sessionID, turnID string) (session.Turn, error) {
	var t session.Turn
	err := s.db.view(ctx, func(tx *bbolt.Tx) (err error) {
		_, t, err = getTurn(tx, sessionID, turnID)
		return err
	})
	if err != nil {
		return session.Turn{}, fmt.Errorf("boltstore: get turn %s/%s: %w", sessionID, turnID, err)
	}
	return t, nil
}

// ListTurns implements session.Store. An unknown session has no turns.
func (s *SessionStore) ListTurns(ctx context.Context, sessionID string) ([]session.Turn, error) {
	var turns []session.Turn
	err := s.db.view(ctx, func(tx *bbolt.Tx) (err error) {
		turns, err = decodeAll(tx.Bucket([]byte(bucketTurns)).Bucket([]byte(sessionID)), turns, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: list turns %s: %w", sessionID, err)
	}
	return turns, nil
}

// PageTurns implements session.Store: a cursor walks back from before over
// the turns bucket (keyed by index), reading limit+1 turns at most.
func (s *SessionStore) PageTurns(ctx context.Context, sessionID string, before, limit int) ([]session.Turn, bool, error) {
	if limit <= 0 {
		return nil, false, fmt.Errorf("boltstore: page turns %s: limit %d is not positive", sessionID, limit)
	}
	var (
		turns []session.Turn
		more  bool
	)
	err := s.db.view(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketTurns)).Bucket([]byte(sessionID))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		var k, v []byte
		if before > 0 {
			// Seek lands on the first key >= before (or nothing): step back once.
			if k, _ = c.Seek(u64key(int64(before))); k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		} else {
			k, v = c.Last()
		}
		for ; k != nil; k, v = c.Prev() {
			if len(turns) == limit {
				more = true
				break
			}
			var t session.Turn
			if err := json.Unmarshal(v, &t); err != nil {
				return fmt.Errorf("turn %x: %w", k, err)
			}
			turns = append(turns, t)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("boltstore: page turns %s: %w", sessionID, err)
	}
	slices.Reverse(turns)
	return turns, more, nil
}

// PutRecord implements session.Records. It does not check that the session
// exists (the contract leaves that open); Sweep deletes a session's records
// with it.
func (s *SessionStore) PutRecord(ctx context.Context, sessionID, key string, value []byte) error {
	if err := check(ctx, "session id", sessionID, "record key", key); err != nil {
		return fmt.Errorf("boltstore: put record: %w", err)
	}
	if len(key) > bbolt.MaxKeySize {
		return fmt.Errorf("boltstore: put record %s/%.40s...: key longer than %d bytes", sessionID, key, bbolt.MaxKeySize)
	}
	err := s.db.grouped(func(tx *bbolt.Tx) error {
		b, err := tx.Bucket([]byte(bucketRecords)).CreateBucketIfNotExists([]byte(sessionID))
		if err != nil {
			return err
		}
		// bbolt keeps the slice until the commit, which copies it; the
		// caller is blocked in this call until then.
		return b.Put([]byte(key), value)
	})
	if err != nil {
		return fmt.Errorf("boltstore: put record %s/%s: %w", sessionID, key, err)
	}
	return nil
}

// GetRecord implements session.Records.
func (s *SessionStore) GetRecord(ctx context.Context, sessionID, key string) ([]byte, error) {
	var value []byte
	err := s.db.view(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketRecords)).Bucket([]byte(sessionID))
		if b == nil {
			return session.ErrNotFound
		}
		// A cursor tells a missing key from an empty value, which Get
		// would both return as nil.
		k, v := b.Cursor().Seek([]byte(key))
		if k == nil || !bytes.Equal(k, []byte(key)) {
			return session.ErrNotFound
		}
		value = bytes.Clone(v) // v is only valid inside the transaction
		if value == nil {
			value = []byte{}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: get record %s/%s: %w", sessionID, key, err)
	}
	return value, nil
}

// ListRecords implements session.Records.
func (s *SessionStore) ListRecords(ctx context.Context, sessionID, prefix string) ([]session.Record, error) {
	var recs []session.Record
	err := s.db.view(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketRecords)).Bucket([]byte(sessionID))
		if b == nil {
			return nil
		}
		p := []byte(prefix)
		c := b.Cursor()
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			recs = append(recs, session.Record{Key: string(k), Value: append([]byte{}, v...)})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: list records %s/%s: %w", sessionID, prefix, err)
	}
	return recs, nil
}

func getSession(tx *bbolt.Tx, id string) (session.Session, error) {
	var sess session.Session
	err := getJSON(tx.Bucket([]byte(bucketSessions)), []byte(id), &sess, session.ErrNotFound)
	return sess, err
}

// getTurn returns a turn and its key in the session's turns bucket.
func getTurn(tx *bbolt.Tx, sessionID, turnID string) ([]byte, session.Turn, error) {
	ids := tx.Bucket([]byte(bucketTurnIDs)).Bucket([]byte(sessionID))
	if ids == nil {
		return nil, session.Turn{}, session.ErrNotFound
	}
	key := ids.Get([]byte(turnID))
	turns := tx.Bucket([]byte(bucketTurns)).Bucket([]byte(sessionID))
	if key == nil || turns == nil {
		return nil, session.Turn{}, session.ErrNotFound
	}
	v := turns.Get(key)
	if v == nil {
		return nil, session.Turn{}, fmt.Errorf("turn id %s points at a missing index %x", turnID, key)
	}
	var t session.Turn
	if err := json.Unmarshal(v, &t); err != nil {
		return nil, session.Turn{}, fmt.Errorf("decode turn: %w", err)
	}
	return bytes.Clone(key), t, nil
}

func putJSON(b *bbolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
}

// getJSON decodes the value of key in b into v; notFound when b (nil) or
// key has none.
func getJSON(b *bbolt.Bucket, key []byte, v any, notFound error) error {
	if b == nil || len(key) == 0 {
		return notFound
	}
	data := b.Get(key)
	if data == nil {
		return notFound
	}
	return json.Unmarshal(data, v)
}

// decodeAll appends the values of b (nil: none), decoded in key order, to
// out, those that keep accepts (nil: all).
func decodeAll[T any](b *bbolt.Bucket, out []T, keep func(T) bool) ([]T, error) {
	if b == nil {
		return out, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return fmt.Errorf("decode %x: %w", k, err)
		}
		if keep == nil || keep(x) {
			out = append(out, x)
		}
		return nil
	})
	return out, err
}

// check returns ctx's error, or an error naming the first empty value of
// name, value pairs: bbolt keys and bucket names cannot be empty.
func check(ctx context.Context, pairs ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return fmt.Errorf("empty %s", pairs[i])
		}
	}
	return nil
}
