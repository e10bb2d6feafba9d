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

var _ session.Leases = (*SessionStore)(nil)

func leaseKey(kind session.LeaseKind, id string) []byte { return []byte(string(kind) + "#" + id) }

// HoldLease implements session.Leases.
func (s *SessionStore) HoldLease(ctx context.Context, l session.Lease) error {
	if err := check(ctx, "lease kind", string(l.Kind), "lease id", l.ID); err != nil {
		return fmt.Errorf("boltstore: hold lease: %w", err)
	}
	err := s.db.grouped(func(tx *bbolt.Tx) error {
		return putJSON(tx.Bucket([]byte(bucketLeases)), leaseKey(l.Kind, l.ID), l)
	})
	if err != nil {
		return fmt.Errorf("boltstore: hold lease %s %s: %w", l.Kind, l.ID, err)
	}
	return nil
}

// GetLease implements session.Leases.
func (s *SessionStore) GetLease(ctx context.Context, kind session.LeaseKind, id string) (session.Lease, error) {
	var l session.Lease
	err := s.db.view(ctx, func(tx *bbolt.Tx) error {
		return getJSON(tx.Bucket([]byte(bucketLeases)), leaseKey(kind, id), &l, session.ErrNotFound)
	})
	if err != nil {
		return session.Lease{}, fmt.Errorf("boltstore: get lease %s %s: %w", kind, id, err)
	}
	return l, nil
}

// DropLease implements session.Leases.
func (s *SessionStore) DropLease(ctx context.Context, kind session.LeaseKind, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := s.db.grouped(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(bucketLeases)).Delete(leaseKey(kind, id))
	})
	if err != nil {
		return fmt.Errorf("boltstore: drop lease %s %s: %w", kind, id, err)
	}
	return nil
}

// ExpiredLeases implements session.Leases. The bucket holds the leases of
// running work only, so a scan of it is short.
func (s *SessionStore) ExpiredLeases(ctx context.Context, now time.Time, limit int) ([]session.Lease, error) {
	var out []session.Lease
	err := s.db.view(ctx, func(tx *bbolt.Tx) (err error) {
		out, err = decodeAll(tx.Bucket([]byte(bucketLeases)), out, func(l session.Lease) bool { return l.Expired(now) })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: expired leases: %w", err)
	}
	slices.SortFunc(out, session.LeaseOrder)
	return out[:min(len(out), max(limit, 0))], nil
}

// LiveLeases implements session.Leases: a seek to the prefix in the
// bucket, whose keys are <kind>#<id>.
func (s *SessionStore) LiveLeases(ctx context.Context, kind session.LeaseKind, idPrefix string, now time.Time, limit int) ([]session.Lease, error) {
	var out []session.Lease
	prefix := leaseKey(kind, idPrefix)
	err := s.db.view(ctx, func(tx *bbolt.Tx) error {
		c := tx.Bucket([]byte(bucketLeases)).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, v = c.Next() {
			var l session.Lease
			if err := json.Unmarshal(v, &l); err != nil {
				return err
			}
			if !l.Expired(now) {
				out = append(out, l)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: live leases %s %s: %w", kind, idPrefix, err)
	}
	return out, nil
}
