package boltstore

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/records"
)

// The records of each kind are a bucket of that name (created on first
// write, so that files made before it open unchanged), key → the value's
// JSON. The kinds of the flows:
//
//	report-sessions      report.Session
//	report-connections   report.Connection
//	research             research.Session
//
// A kind must not be named as a bucket of the package comment's layout.
//
// An update is a read, fn and a write inside one bbolt transaction, which
// runs alone: the compare-and-swap cannot lose, and never retries.

// Items implements records.Backend.
func (d *DB) Items(kind string) records.Store[records.Item] { return &items{db: d, kind: kind} }

// items is the records.Store of one bucket; it is a records.Lister.
type items struct {
	db   *DB
	kind string
}

var _ records.Lister = (*items)(nil)

func (s *items) Create(ctx context.Context, key string, it records.Item) error {
	if err := check(ctx, "key", key); err != nil {
		return fmt.Errorf("boltstore: create %s: %w", s.kind, err)
	}
	err := s.db.update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(s.kind))
		if err != nil {
			return err
		}
		if b.Get([]byte(key)) != nil {
			return records.ErrExists
		}
		return b.Put([]byte(key), it.Data)
	})
	if err != nil {
		return fmt.Errorf("boltstore: create %s %s: %w", s.kind, key, err)
	}
	return nil
}

func (s *items) Get(ctx context.Context, key string) (records.Item, error) {
	var it records.Item
	err := s.db.view(ctx, func(tx *bbolt.Tx) (err error) {
		it, err = s.get(tx, key)
		return err
	})
	if err != nil {
		return records.Item{}, fmt.Errorf("boltstore: get %s %s: %w", s.kind, key, err)
	}
	return it, nil
}

func (s *items) Update(ctx context.Context, key string, fn func(*records.Item) error) (records.Item, error) {
	if err := ctx.Err(); err != nil {
		return records.Item{}, err
	}
	var it records.Item
	err := s.db.update(func(tx *bbolt.Tx) (err error) {
		if it, err = s.get(tx, key); err != nil {
			return err
		}
		if err := fn(&it); err != nil {
			return err
		}
		return tx.Bucket([]byte(s.kind)).Put([]byte(key), it.Data)
	})
	if err != nil {
		return records.Item{}, fmt.Errorf("boltstore: update %s %s: %w", s.kind, key, err)
	}
	return it, nil
}

func (s *items) Delete(ctx context.Context, key string) error {
	if err := check(ctx, "key", key); err != nil {
		return fmt.Errorf("boltstore: delete %s: %w", s.kind, err)
	}
	err := s.db.update(func(tx *bbolt.Tx) error {
		if b := tx.Bucket([]byte(s.kind)); b != nil {
			return b.Delete([]byte(key))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("boltstore: delete %s %s: %w", s.kind, key, err)
	}
	return nil
}

// List implements records.Lister: a scan of the bucket, in key order.
func (s *items) List(ctx context.Context) ([]records.Item, error) {
	out := []records.Item{}
	err := s.db.view(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(s.kind))
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, v []byte) error {
			out = append(out, records.Item{Data: append([]byte(nil), v...)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: list %s: %w", s.kind, err)
	}
	return out, nil
}

// get returns a copy of the item: bbolt's bytes are valid only inside tx.
func (s *items) get(tx *bbolt.Tx, key string) (records.Item, error) {
	b := tx.Bucket([]byte(s.kind))
	if b == nil || key == "" {
		return records.Item{}, records.ErrNotFound
	}
	v := b.Get([]byte(key))
	if v == nil {
		return records.Item{}, records.ErrNotFound
	}
	return records.Item{Data: append([]byte(nil), v...)}, nil
}
