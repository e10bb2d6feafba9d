package boltstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/report"
)

// The template-report buckets (created on first write):
//
//	report-sessions      session id → report.Session
//	report-connections   connection id → report.Connection
const (
	bucketReportSessions    = "report-sessions"
	bucketReportConnections = "report-connections"
)

// ReportStore is the report.Store of a file.
type ReportStore struct{ db *DB }

var _ report.Store = (*ReportStore)(nil)

// Reports returns the template-report store of the file.
func (d *DB) Reports() *ReportStore { return &ReportStore{db: d} }

// CreateSession implements report.Store.
func (s *ReportStore) CreateSession(ctx context.Context, sess report.Session) error {
	if err := check(ctx, "session id", sess.ID); err != nil {
		return fmt.Errorf("boltstore: create report session: %w", err)
	}
	now := time.Now().UTC()
	sess.Version, sess.CreatedAt, sess.UpdatedAt = 1, now, now
	err := s.db.update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(bucketReportSessions))
		if err != nil {
			return err
		}
		if b.Get([]byte(sess.ID)) != nil {
			return report.ErrExists
		}
		return putJSON(b, []byte(sess.ID), sess)
	})
	if err != nil {
		return fmt.Errorf("boltstore: create report session %s: %w", sess.ID, err)
	}
	return nil
}

// GetSession implements report.Store.
func (s *ReportStore) GetSession(ctx context.Context, id string) (report.Session, error) {
	var sess report.Session
	err := s.get(ctx, bucketReportSessions, id, &sess)
	if err != nil {
		return report.Session{}, fmt.Errorf("boltstore: get report session %s: %w", id, err)
	}
	return sess, nil
}

// UpdateSession implements report.Store: one read-write transaction, so no
// concurrent update is lost.
func (s *ReportStore) UpdateSession(ctx context.Context, id string, fn func(*report.Session) error) (report.Session, error) {
	var out report.Session
	if err := ctx.Err(); err != nil {
		return out, err
	}
	err := s.db.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketReportSessions))
		if b == nil || id == "" {
			return report.ErrNotFound
		}
		v := b.Get([]byte(id))
		if v == nil {
			return report.ErrNotFound
		}
		if err := json.Unmarshal(v, &out); err != nil {
			return err
		}
		if err := fn(&out); err != nil {
			return err
		}
		out.ID = id
		out.Version++
		out.UpdatedAt = time.Now().UTC()
		return putJSON(b, []byte(id), out)
	})
	if err != nil {
		return report.Session{}, fmt.Errorf("boltstore: update report session %s: %w", id, err)
	}
	return out, nil
}

// PutConnection implements report.Store.
func (s *ReportStore) PutConnection(ctx context.Context, c report.Connection) error {
	if err := check(ctx, "connection id", c.ID); err != nil {
		return fmt.Errorf("boltstore: put connection: %w", err)
	}
	err := s.db.update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(bucketReportConnections))
		if err != nil {
			return err
		}
		return putJSON(b, []byte(c.ID), c)
	})
	if err != nil {
		return fmt.Errorf("boltstore: put connection %s: %w", c.ID, err)
	}
	return nil
}

// GetConnection implements report.Store.
func (s *ReportStore) GetConnection(ctx context.Context, id string) (report.Connection, error) {
	var c report.Connection
	if err := s.get(ctx, bucketReportConnections, id, &c); err != nil {
		return report.Connection{}, fmt.Errorf("boltstore: get connection %s: %w", id, err)
	}
	return c, nil
}

// AddSession implements report.Store.
func (s *ReportStore) AddSession(ctx context.Context, connID, sessionID string) error {
	if err := check(ctx, "connection id", connID, "session id", sessionID); err != nil {
		return fmt.Errorf("boltstore: add session: %w", err)
	}
	err := s.db.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketReportConnections))
		if b == nil {
			return report.ErrNotFound
		}
		v := b.Get([]byte(connID))
		if v == nil {
			return report.ErrNotFound
		}
		var c report.Connection
		if err := json.Unmarshal(v, &c); err != nil {
			return err
		}
		if !slices.Contains(c.Sessions, sessionID) {
			c.Sessions = append(c.Sessions, sessionID)
		}
		return putJSON(b, []byte(connID), c)
	})
	if err != nil {
		return fmt.Errorf("boltstore: add session to %s: %w", connID, err)
	}
	return nil
}

// DeleteConnection implements report.Store.
func (s *ReportStore) DeleteConnection(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketReportConnections))
		if b == nil {
			return nil
		}
		return b.Delete([]byte(id))
	})
}

func (s *ReportStore) get(ctx context.Context, bucket, id string, into any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.bolt.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil || id == "" {
			return report.ErrNotFound
		}
		v := b.Get([]byte(id))
		if v == nil {
			return report.ErrNotFound
		}
		return json.Unmarshal(v, into)
	})
}
