package boltstore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/research"
)

// bucketResearch holds research sessions, id → research.Session (created on
// first write, so that files made before it open unchanged).
const bucketResearch = "research"

// ResearchStore is the research.Store (and research.Lister) of a file. An
// update is a read, fn and a write inside one bbolt transaction, which runs
// alone: the compare-and-swap cannot lose.
type ResearchStore struct{ db *DB }

var (
	_ research.Store  = (*ResearchStore)(nil)
	_ research.Lister = (*ResearchStore)(nil)
)

// Research returns the research session store of the file.
func (d *DB) Research() *ResearchStore { return &ResearchStore{db: d} }

// CreateResearch implements research.Store.
func (s *ResearchStore) CreateResearch(ctx context.Context, r research.Session) error {
	if err := check(ctx, "research id", r.ID); err != nil {
		return fmt.Errorf("boltstore: create research: %w", err)
	}
	err := s.db.update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(bucketResearch))
		if err != nil {
			return err
		}
		if b.Get([]byte(r.ID)) != nil {
			return research.ErrExists
		}
		r.Version = 1
		return putJSON(b, []byte(r.ID), r)
	})
	if err != nil {
		return fmt.Errorf("boltstore: create research %s: %w", r.ID, err)
	}
	return nil
}

// GetResearch implements research.Store.
func (s *ResearchStore) GetResearch(ctx context.Context, id string) (research.Session, error) {
	if err := ctx.Err(); err != nil {
		return research.Session{}, err
	}
	var r research.Session
	err := s.db.bolt.View(func(tx *bbolt.Tx) error {
		var err error
		r, err = getResearch(tx, id)
		return err
	})
	if err != nil {
		return research.Session{}, fmt.Errorf("boltstore: get research %s: %w", id, err)
	}
	return r, nil
}

// UpdateResearch implements research.Store.
func (s *ResearchStore) UpdateResearch(ctx context.Context, id string, fn func(*research.Session) error) (research.Session, error) {
	if err := check(ctx, "research id", id); err != nil {
		return research.Session{}, fmt.Errorf("boltstore: update research: %w", err)
	}
	var r research.Session
	err := s.db.update(func(tx *bbolt.Tx) error {
		var err error
		if r, err = getResearch(tx, id); err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
		r.Version++
		return putJSON(tx.Bucket([]byte(bucketResearch)), []byte(id), r)
	})
	if err != nil {
		return research.Session{}, fmt.Errorf("boltstore: update research %s: %w", id, err)
	}
	return r, nil
}

// ListResearch implements research.Lister: a scan, which a development
// machine's sessions allow.
func (s *ResearchStore) ListResearch(ctx context.Context, status research.Status) ([]research.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []research.Session{}
	err := s.db.bolt.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketResearch))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var r research.Session
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode research %s: %w", k, err)
			}
			if r.Status == status {
				out = append(out, r)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: list research: %w", err)
	}
	slices.SortFunc(out, func(a, b research.Session) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func getResearch(tx *bbolt.Tx, id string) (research.Session, error) {
	b := tx.Bucket([]byte(bucketResearch))
	if b == nil || id == "" {
		return research.Session{}, research.ErrNotFound
	}
	v := b.Get([]byte(id))
	if v == nil {
		return research.Session{}, research.ErrNotFound
	}
	var r research.Session
	return r, json.Unmarshal(v, &r)
}
