package boltstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/insightedge/insightedge/shared/apps"
)

// The saved apps' buckets (created on first write, so that files made
// before them open unchanged):
//
//	apps                  app id → App
//	app-snapshots/<app>   run id → Snapshot
const (
	bucketApps      = "apps"
	bucketSnapshots = "app-snapshots"
)

// AppStore is the apps.Store (and apps.DueLister) of a file.
type AppStore struct{ db *DB }

var (
	_ apps.Store     = (*AppStore)(nil)
	_ apps.DueLister = (*AppStore)(nil)
)

// Apps returns the app store of the file.
func (d *DB) Apps() *AppStore { return &AppStore{db: d} }

// PutApp implements apps.Store.
func (s *AppStore) PutApp(ctx context.Context, a apps.App) error {
	if err := check(ctx, "app id", a.ID); err != nil {
		return fmt.Errorf("boltstore: put app: %w", err)
	}
	err := s.db.update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(bucketApps))
		if err != nil {
			return err
		}
		return putJSON(b, []byte(a.ID), a)
	})
	if err != nil {
		return fmt.Errorf("boltstore: put app %s: %w", a.ID, err)
	}
	return nil
}

// GetApp implements apps.Store.
func (s *AppStore) GetApp(ctx context.Context, id string) (apps.App, error) {
	var a apps.App
	err := s.db.view(ctx, func(tx *bbolt.Tx) error {
		return getJSON(tx.Bucket([]byte(bucketApps)), []byte(id), &a, apps.ErrNotFound)
	})
	if err != nil {
		return apps.App{}, fmt.Errorf("boltstore: get app %s: %w", id, err)
	}
	return a, nil
}

// ListApps implements apps.Store: a scan, which a development machine's
// handful of apps allows.
func (s *AppStore) ListApps(ctx context.Context, teacherID string) ([]apps.App, error) {
	out, err := s.scan(ctx, func(a apps.App) bool { return a.TeacherID == teacherID })
	if err != nil {
		return nil, fmt.Errorf("boltstore: list apps: %w", err)
	}
	slices.SortStableFunc(out, func(a, b apps.App) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// DueApps implements apps.DueLister.
func (s *AppStore) DueApps(ctx context.Context, now time.Time, limit int) ([]apps.App, error) {
	out, err := s.scan(ctx, func(a apps.App) bool {
		return a.Schedule != nil && !a.NextRunAt.IsZero() && !a.NextRunAt.After(now)
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: due apps: %w", err)
	}
	slices.SortStableFunc(out, func(a, b apps.App) int {
		return cmp.Or(a.NextRunAt.Compare(b.NextRunAt), cmp.Compare(a.ID, b.ID))
	})
	return out[:min(len(out), max(limit, 0))], nil
}

func (s *AppStore) scan(ctx context.Context, keep func(apps.App) bool) ([]apps.App, error) {
	out := []apps.App{}
	err := s.db.view(ctx, func(tx *bbolt.Tx) (err error) {
		out, err = decodeAll(tx.Bucket([]byte(bucketApps)), out, keep)
		return err
	})
	return out, err
}

// DeleteApp implements apps.Store.
func (s *AppStore) DeleteApp(ctx context.Context, id string) error {
	if err := check(ctx, "app id", id); err != nil {
		return fmt.Errorf("boltstore: delete app: %w", err)
	}
	err := s.db.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketApps))
		if b == nil || b.Get([]byte(id)) == nil {
			return apps.ErrNotFound
		}
		if err := b.Delete([]byte(id)); err != nil {
			return err
		}
		if sb := tx.Bucket([]byte(bucketSnapshots)); sb != nil {
			if err := sb.DeleteBucket([]byte(id)); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("boltstore: delete app %s: %w", id, err)
	}
	return nil
}

// PutSnapshot implements apps.Store.
func (s *AppStore) PutSnapshot(ctx context.Context, snap apps.Snapshot) error {
	if err := check(ctx, "app id", snap.AppID, "run id", snap.RunID); err != nil {
		return fmt.Errorf("boltstore: put snapshot: %w", err)
	}
	err := s.db.update(func(tx *bbolt.Tx) error {
		root, err := tx.CreateBucketIfNotExists([]byte(bucketSnapshots))
		if err != nil {
			return err
		}
		b, err := root.CreateBucketIfNotExists([]byte(snap.AppID))
		if err != nil {
			return err
		}
		return putJSON(b, []byte(snap.RunID), snap)
	})
	if err != nil {
		return fmt.Errorf("boltstore: put snapshot %s/%s: %w", snap.AppID, snap.RunID, err)
	}
	return nil
}

// GetSnapshot implements apps.Store.
func (s *AppStore) GetSnapshot(ctx context.Context, appID, runID string) (apps.Snapshot, error) {
	var snap apps.Snapshot
	err := s.db.view(ctx, func(tx *bbolt.Tx) error {
		return getJSON(snapshots(tx, appID), []byte(runID), &snap, apps.ErrNotFound)
	})
	if err != nil {
		return apps.Snapshot{}, fmt.Errorf("boltstore: get snapshot %s/%s: %w", appID, runID, err)
	}
	return snap, nil
}

// ListSnapshots implements apps.Store.
func (s *AppStore) ListSnapshots(ctx context.Context, appID string) ([]apps.Snapshot, error) {
	out := []apps.Snapshot{}
	err := s.db.view(ctx, func(tx *bbolt.Tx) (err error) {
		out, err = decodeAll(snapshots(tx, appID), out, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: list snapshots %s: %w", appID, err)
	}
	slices.SortStableFunc(out, func(a, b apps.Snapshot) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), cmp.Compare(a.RunID, b.RunID))
	})
	return out, nil
}

func snapshots(tx *bbolt.Tx, appID string) *bbolt.Bucket {
	root := tx.Bucket([]byte(bucketSnapshots))
	if root == nil || appID == "" {
		return nil
	}
	return root.Bucket([]byte(appID))
}
