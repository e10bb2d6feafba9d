package boltstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/bbolt"
)

// counterBucket holds limits.Counters: key → the count, 8 bytes big-endian
// (two's complement). A count is added inside one transaction, which runs
// alone, so concurrent adds never lose one. Expiry is not kept: a
// development machine's days of counts are a few bytes each.
const counterBucket = "limit-counters"

// Counters are the limits.Counters of the file (the fair-use token counts).
type Counters struct{ db *DB }

// Counters returns the file's counters.
func (d *DB) Counters() *Counters { return &Counters{db: d} }

// Add implements limits.Counters.
func (c *Counters) Add(ctx context.Context, key string, n int64, _ time.Time) error {
	if err := check(ctx, "key", key); err != nil {
		return fmt.Errorf("boltstore: add %s: %w", key, err)
	}
	err := c.db.grouped(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(counterBucket))
		if err != nil {
			return err
		}
		v := make([]byte, 8)
		binary.BigEndian.PutUint64(v, uint64(count(b.Get([]byte(key)))+n))
		return b.Put([]byte(key), v)
	})
	if err != nil {
		return fmt.Errorf("boltstore: add %s: %w", key, err)
	}
	return nil
}

// Counts implements limits.Counters.
func (c *Counters) Counts(ctx context.Context, keys []string) ([]int64, error) {
	out := make([]int64, len(keys))
	err := c.db.view(ctx, func(tx *bbolt.Tx) error {
		if b := tx.Bucket([]byte(counterBucket)); b != nil {
			for i, k := range keys {
				out[i] = count(b.Get([]byte(k)))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: counts: %w", err)
	}
	return out, nil
}

// count decodes a stored count (0 when missing).
func count(v []byte) int64 {
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}
