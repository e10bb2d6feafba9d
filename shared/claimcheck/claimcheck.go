// Package claimcheck keeps a session store's large records in the blob
// store: the claim-check pattern. A record's value over the store's limit
// (DynamoDB items stop at 400 KB; a tool-heavy turn's attempt history
// passes that) is written to the blob store under records/<session>/<sha256
// of the value>, and the record keeps only a small claim naming it; reads
// follow the claim. Records under the limit are stored as they are, so
// the common case costs nothing more.
//
// The embedded store (bbolt) has no item limit, but the local run wraps it
// too, with the file-system blob store, so that the same code path runs
// in both places.
package claimcheck

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/session"
)

// Limit is the largest value stored in the record itself: well under
// DynamoDB's 400 KB per item, which also counts the keys and attributes.
const Limit = 256 << 10

// Prefix is where the large values live in the blob store (template.yaml
// grants s3:GetObject/PutObject on it, and its lifecycle rule expires
// them with the sessions).
const Prefix = "records/"

// Blobs is the part of the blob store the claim check uses.
type Blobs interface {
	Put(ctx context.Context, key, contentType string, body []byte) (blob.Object, error)
	Get(ctx context.Context, key string) (io.ReadCloser, blob.Object, error)
}

// magic starts a claim: record values are JSON, which never starts with a
// NUL byte.
var magic = []byte("\x00claim-check\x00")

type claim struct {
	Key    string `json:"key"`
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
}

// Store is a session.Store whose large records live in Blobs.
type Store struct {
	session.Store
	blobs Blobs
	limit int
}

var _ session.Store = (*Store)(nil)

// Wrap returns s with large records in blobs; limit ≤ 0 means Limit.
func Wrap(s session.Store, blobs Blobs, limit int) *Store {
	if limit <= 0 {
		limit = Limit
	}
	return &Store{Store: s, blobs: blobs, limit: limit}
}

// Unwrap returns the wrapped store, for what it offers beyond session.Store
// (its lease table).
func (s *Store) Unwrap() session.Store { return s.Store }

// PutRecord stores value, in the blob store when it is over the limit.
func (s *Store) PutRecord(ctx context.Context, sessionID, key string, value []byte) error {
	if len(value) <= s.limit {
		return s.Store.PutRecord(ctx, sessionID, key, value)
	}
	sum := sha256.Sum256(value)
	c := claim{Key: Prefix + blob.ID(sessionID) + "/" + hex.EncodeToString(sum[:]), Size: len(value), SHA256: hex.EncodeToString(sum[:])}
	// The value first: a claim never names a blob that is not there.
	if _, err := s.blobs.Put(ctx, c.Key, "application/json", value); err != nil {
		return fmt.Errorf("claimcheck: store the record %s of %d bytes: %w", key, len(value), err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return s.Store.PutRecord(ctx, sessionID, key, append(bytes.Clone(magic), b...))
}

// GetRecord returns the record's value, following a claim.
func (s *Store) GetRecord(ctx context.Context, sessionID, key string) ([]byte, error) {
	v, err := s.Store.GetRecord(ctx, sessionID, key)
	if err != nil {
		return nil, err
	}
	return s.redeem(ctx, key, v)
}

// ListRecords returns the records under prefix, following claims.
func (s *Store) ListRecords(ctx context.Context, sessionID, prefix string) ([]session.Record, error) {
	recs, err := s.Store.ListRecords(ctx, sessionID, prefix)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		if recs[i].Value, err = s.redeem(ctx, recs[i].Key, recs[i].Value); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

func (s *Store) redeem(ctx context.Context, key string, v []byte) ([]byte, error) {
	raw, ok := bytes.CutPrefix(v, magic)
	if !ok {
		return v, nil
	}
	var c claim
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("claimcheck: record %s: a broken claim: %w", key, err)
	}
	rc, _, err := s.blobs.Get(ctx, c.Key)
	if err != nil {
		return nil, fmt.Errorf("claimcheck: record %s: %w", key, err)
	}
	defer rc.Close()
	// Read at most one byte more than claimed, to notice a different object.
	data, err := io.ReadAll(io.LimitReader(rc, int64(c.Size)+1))
	if err != nil {
		return nil, fmt.Errorf("claimcheck: record %s: %w", key, err)
	}
	sum := sha256.Sum256(data)
	if len(data) != c.Size || hex.EncodeToString(sum[:]) != c.SHA256 {
		return nil, fmt.Errorf("claimcheck: record %s: %w", key, errChanged)
	}
	return data, nil
}

var errChanged = errors.New("the stored value is not the one claimed")
