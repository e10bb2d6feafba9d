// Package boltstore is the embedded store of the local run: the session Store,
// the event log, the saved apps and the records (records.Backend) in one
// bbolt file, so that sessions, turns and streams survive a restart of
// `go run ./local`.
//
// bbolt runs one read-write transaction at a time, so every conditional write
// of the contracts (one active turn, a turn ends once, nothing after a
// stream's close) is a read, a check and a write inside one Update: no two
// writers can both win. The session store's writes that arrive together
// share one transaction and commit (group.go), their fns run one after
// the other, and each caller is answered once that commit is done.
//
// Layout (values are JSON except events and records, see below):
//
//	sessions               session id → Session
//	turns/<session id>     8-byte big-endian index → Turn
//	turn-ids/<session id>  turn id → 8-byte big-endian index
//	records/<session id>   record key → value as given
//	streams                stream name → streamMeta (last seq, closed, expiry)
//	events/<stream>        8-byte big-endian seq → flags byte + data
//	<kind>                 records of a kind: key → the value's JSON (records.go)
//
// A name/ entry is a nested bucket, which plays the part of a DynamoDB
// partition: a session's turns or a stream's events are one ordered range
// with no prefix to get wrong (session "a" and session "a/b" cannot mix).
// Big-endian integer keys sort like the numbers they hold, as zero-padded
// text would, in 8 bytes.
//
// Event data is stored byte for byte after one flags byte, not as JSON:
// encoding/json would compact it and escape <, > and &, and the edge writes
// Data as the SSE data line, so the bytes read must be the bytes appended.
// Records are the caller's opaque bytes for the same reason.
//
// # Durability and NoSync
//
// With NoSync a commit returns once its pages are written to the file, before
// they reach the disk, and a group of events once its frame is written to the
// journal (<file>.journal, see EventLog): an Append costs microseconds instead
// of an fsync (milliseconds). A crash or kill of the process loses nothing
// written, because the written pages are in the operating system's cache (the
// journal is replayed at the next Open). An operating-system crash or power
// loss can lose the last commits and, since without fsync nothing orders
// bbolt's meta page after the data pages it points to, can leave a file that
// no longer opens; for a development machine's sessions that is an acceptable
// price (delete the file). Without NoSync every journal frame and every commit
// is synced before the writer is answered. Close syncs, so a clean shutdown
// is durable. Production uses DynamoDB, not this package.
package boltstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/session"
)

// Bucket names.
const (
	bucketSessions = "sessions"
	bucketTurns    = "turns"
	bucketTurnIDs  = "turn-ids"
	bucketRecords  = "records"
	bucketStreams  = "streams"
	bucketEvents   = "events"
	bucketLeases   = "leases"
)

// lockTimeout bounds the wait for the file lock: a second process on the same
// file fails to open instead of hanging.
const lockTimeout = 2 * time.Second

// ErrInUse is Open's error when another process holds the store file.
var ErrInUse = errors.New("the store file is in use by another process")

// Options configure Open.
type Options struct {
	// NoSync skips the fsync after each commit (see the package comment);
	// the local server sets it for latency and relies on Close to sync.
	NoSync bool
	// TTL, when positive, is the lifetime of sessions created without an
	// ExpiresAt and of event streams, counted from their last write (a
	// session's from its last BeginTurn). Sweep deletes what has expired.
	TTL time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// GroupDelay is the longest an appended event waits for its group
	// commit (see EventLog) [2 ms]; negative commits at once.
	GroupDelay time.Duration
}

// update runs fn in a write transaction after the events appended before
// it are committed (see EventLog).
func (d *DB) update(fn func(*bbolt.Tx) error) error {
	if err := d.events.barrier(); err != nil {
		return err
	}
	return d.bolt.Update(fn)
}

// view runs fn in a read transaction, unless ctx is done.
func (d *DB) view(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.bolt.View(fn)
}

// DB is an open store file.
type DB struct {
	bolt   *bbolt.DB
	ttl    time.Duration
	now    func() time.Time
	notify *eventlog.SharedNotifier
	events *writer
	group  *grouper // the session store's writes (group.go)

	closeOnce sync.Once
	closeErr  error
}

// Open opens or creates the store file at path, creating its directory.
func Open(path string, opts Options) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:      lockTimeout,
		NoSync:       opts.NoSync,
		FreelistType: bbolt.FreelistMapType,
		// Every commit would also write the free-page list: a page or more
		// of ~6 per session write (issue 29 item 3). Open rebuilds the list
		// from the file instead, a scan of its page headers (etcd's
		// default too).
		NoFreelistSync: true,
	})
	if errors.Is(err, bbolt.ErrTimeout) {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	if err := ensureBuckets(b); err != nil {
		return nil, errors.Join(fmt.Errorf("boltstore: open %s: %w", path, err), b.Close())
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	d := &DB{bolt: b, ttl: opts.TTL, now: now, notify: eventlog.NewNotifier(), group: &grouper{bolt: b}}
	delay := opts.GroupDelay
	if delay == 0 {
		delay = defaultGroupDelay
	}
	j, err := replayJournal(b, path+".journal", !opts.NoSync)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("boltstore: open %s: %w", path, err), b.Close())
	}
	d.events = newWriter(b, j, max(delay, 0), func() time.Time { return d.expiry(d.now()) }, d.notify)
	return d, nil
}

// replayJournal opens the event log's journal and writes what it holds
// beyond the file's end of each stream (what a crash left unsaved) to the
// file, then empties it. A journal that holds nothing commits nothing.
func replayJournal(b *bbolt.DB, path string, sync bool) (*journal, error) {
	j, data, err := openJournal(path, sync)
	if err != nil {
		return nil, err
	}
	streams, err := parseJournal(data)
	if err == nil {
		err = saveJournaled(b, streams)
	}
	if err == nil {
		err = j.reset()
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("replay %s: %w", path, err), j.close())
	}
	return j, nil
}

// saveJournaled writes the journaled events of each stream that follow
// the file's last seq of the stream, if any do.
func saveJournaled(b *bbolt.DB, streams map[string]*journaled) error {
	batch := map[string][]eventlog.Event{}
	expires := map[string]time.Time{}
	err := b.View(func(tx *bbolt.Tx) error {
		for stream, j := range streams {
			meta, err := getMeta(tx, stream)
			if err != nil {
				return err
			}
			if len(j.events) == 0 || meta.Closed || j.events[0].Seq > meta.Last+1 {
				continue // nothing new, or not gap-free after the file's end
			}
			if evs := j.events[meta.Last+1-j.events[0].Seq:]; len(evs) > 0 {
				batch[stream], expires[stream] = evs, j.expires
			}
		}
		return nil
	})
	if err != nil || len(batch) == 0 {
		return err
	}
	return writeFile(b, batch, expires)
}

var buckets = []string{bucketSessions, bucketTurns, bucketTurnIDs, bucketRecords, bucketStreams, bucketEvents, bucketLeases}

// ensureBuckets creates the buckets a file lacks. A file that has them all
// is not written (a commit costs a sync, on every start); the buckets of a
// new file are committed without one: they hold nothing a crash could
// lose, the next start makes them again, and the first synced commit after
// them makes them durable.
func ensureBuckets(b *bbolt.DB) error {
	complete := true
	_ = b.View(func(tx *bbolt.Tx) error {
		for _, name := range buckets {
			complete = complete && tx.Bucket([]byte(name)) != nil
		}
		return nil
	})
	if complete {
		return nil
	}
	noSync := b.NoSync
	b.NoSync = true // no other user of b yet
	defer func() { b.NoSync = noSync }()
	return b.Update(func(tx *bbolt.Tx) error {
		for _, name := range buckets {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return fmt.Errorf("bucket %s: %w", name, err)
			}
		}
		return nil
	})
}

// Close syncs the file (writes made with NoSync reach the disk) and closes
// it. Later calls return the first call's result.
func (d *DB) Close() error {
	d.closeOnce.Do(func() {
		err := d.events.close() // the queued appends are committed first
		d.closeErr = errors.Join(err, d.bolt.Sync(), d.bolt.Close())
		if d.closeErr != nil {
			d.closeErr = fmt.Errorf("boltstore: close: %w", d.closeErr)
		}
	})
	return d.closeErr
}

// Sessions returns the session store of the file.
func (d *DB) Sessions() *SessionStore { return &SessionStore{db: d} }

// Events returns the event log of the file. It is also an eventlog.Notifier
// for tailers in this process.
func (d *DB) Events() *EventLog { return &EventLog{db: d} }

// expiry returns the time something written now expires, or zero without a TTL.
func (d *DB) expiry(now time.Time) time.Time {
	if d.ttl <= 0 {
		return time.Time{}
	}
	return now.Add(d.ttl)
}

// Sweep deletes the sessions (with their turns and records) and the event
// streams whose expiry has passed, and returns how many of each it deleted.
// The local server calls it now and then; DynamoDB's TTL does this in AWS.
func (d *DB) Sweep(ctx context.Context) (sessions, streams int, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, fmt.Errorf("boltstore: sweep: %w", err)
	}
	// The file's stream counters are the expiries Sweep reads: what is
	// journaled is checkpointed first.
	if err := d.Events().Flush(); err != nil {
		return 0, 0, fmt.Errorf("boltstore: sweep: %w", err)
	}
	now := d.now()
	// The event writer's lock keeps appends from being sequenced on the
	// memory state of a stream this deletes.
	d.events.mu.Lock()
	defer d.events.mu.Unlock()
	err = d.bolt.Update(func(tx *bbolt.Tx) error {
		expired, err := expiredKeys(tx.Bucket([]byte(bucketSessions)), now, func(v []byte) (time.Time, error) {
			var s session.Session
			err := json.Unmarshal(v, &s)
			return s.ExpiresAt, err
		})
		if err != nil {
			return err
		}
		for _, id := range expired {
			if err := tx.Bucket([]byte(bucketSessions)).Delete(id); err != nil {
				return err
			}
			if err := deleteNested(tx, id, bucketTurns, bucketTurnIDs, bucketRecords); err != nil {
				return err
			}
		}
		sessions = len(expired)

		expired, err = expiredKeys(tx.Bucket([]byte(bucketStreams)), now, func(v []byte) (time.Time, error) {
			var m streamMeta
			err := json.Unmarshal(v, &m)
			return m.ExpiresAt, err
		})
		if err != nil {
			return err
		}
		streams = 0
		for _, name := range expired {
			if st := d.events.streams[string(name)]; st != nil && st.pending != nil {
				continue // being written: not expired
			}
			streams++
			delete(d.events.streams, string(name))
			if err := tx.Bucket([]byte(bucketStreams)).Delete(name); err != nil {
				return err
			}
			if err := deleteNested(tx, name, bucketEvents); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("boltstore: sweep: %w", err)
	}
	return sessions, streams, nil
}

// expiredKeys returns the keys of b whose value has an expiry before now.
// They are collected first because a bbolt cursor must not delete as it goes.
func expiredKeys(b *bbolt.Bucket, now time.Time, expiresAt func([]byte) (time.Time, error)) ([][]byte, error) {
	var keys [][]byte
	err := b.ForEach(func(k, v []byte) error {
		exp, err := expiresAt(v)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		if !exp.IsZero() && now.After(exp) {
			keys = append(keys, append([]byte(nil), k...))
		}
		return nil
	})
	return keys, err
}

// deleteNested deletes the nested bucket name from each parent, if there.
func deleteNested(tx *bbolt.Tx, name []byte, parents ...string) error {
	for _, p := range parents {
		err := tx.Bucket([]byte(p)).DeleteBucket(name)
		if err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return fmt.Errorf("%s/%s: %w", p, name, err)
		}
	}
	return nil
}

// u64key encodes n as a key that sorts like the number.
func u64key(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

func keyU64(k []byte) (int64, bool) {
	if len(k) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(k)), true
}
