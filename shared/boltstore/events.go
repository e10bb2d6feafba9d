package boltstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// EventLog is the eventlog.Log of a DB, and an eventlog.Notifier for tailers
// in the same process (another process appending to the file would not wake
// them; the local run is one process).
type EventLog struct{ db *DB }

var (
	_ eventlog.Log      = (*EventLog)(nil)
	_ eventlog.Notifier = (*EventLog)(nil)
)

// streamMeta is a stream's counter item: the last seq, and whether the
// closing event has been appended.
type streamMeta struct {
	Last      int64     `json:"last"`
	Closed    bool      `json:"closed,omitempty"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// Flags of an event value's first byte: bit 0 closes the stream; bit 1 says
// a name follows (one length byte, then the name) before the data. The other
// bits are reserved.
const (
	flagClose = 1
	flagNamed = 2
)

// Append implements eventlog.Appender. The check of the closed flag, the seqs
// and the writes are one transaction, so concurrent appenders get
// consecutive blocks and none can write after the close.
func (l *EventLog) Append(ctx context.Context, stream string, events ...eventlog.Event) (int64, error) {
	if err := check(ctx, "stream", stream); err != nil {
		return 0, fmt.Errorf("boltstore: append: %w", err)
	}
	if err := eventlog.CheckNames(events); err != nil {
		return 0, fmt.Errorf("boltstore: append %s: %w", stream, err)
	}
	if len(events) == 0 {
		// Nothing to write: no commit (and no fsync) for it.
		var meta streamMeta
		err := l.db.bolt.View(func(tx *bbolt.Tx) (err error) {
			meta, err = getMeta(tx, stream)
			return err
		})
		if err == nil && meta.Closed {
			err = eventlog.ErrClosed
		}
		if err != nil {
			return 0, fmt.Errorf("boltstore: append %s: %w", stream, err)
		}
		return meta.Last, nil
	}
	var last int64
	err := l.db.bolt.Update(func(tx *bbolt.Tx) error {
		meta, err := getMeta(tx, stream)
		if err != nil {
			return err
		}
		if meta.Closed {
			return eventlog.ErrClosed
		}
		b, err := tx.Bucket([]byte(bucketEvents)).CreateBucketIfNotExists([]byte(stream))
		if err != nil {
			return err
		}
		for _, ev := range events {
			if meta.Closed {
				break // a batch stops at its closing event
			}
			meta.Last++
			if err := b.Put(u64key(meta.Last), encodeEvent(ev)); err != nil {
				return err
			}
			meta.Closed = ev.Close
		}
		meta.ExpiresAt = l.db.expiry(l.db.now())
		last = meta.Last
		return putJSON(tx.Bucket([]byte(bucketStreams)), []byte(stream), meta)
	})
	if err != nil {
		return 0, fmt.Errorf("boltstore: append %s: %w", stream, err)
	}
	l.db.notify.Broadcast(stream)
	return last, nil
}

// Read implements eventlog.Reader.
func (l *EventLog) Read(ctx context.Context, stream string, after int64, limit int) ([]eventlog.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("boltstore: read %s: %w", stream, err)
	}
	after = max(after, 0)
	var evs []eventlog.Event
	err := l.db.bolt.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketEvents)).Bucket([]byte(stream))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		next := after + 1
		for k, v := c.Seek(u64key(next)); k != nil && (limit <= 0 || len(evs) < limit); k, v = c.Next() {
			if seq, ok := keyU64(k); !ok || seq != next {
				break // stop before a gap
			}
			ev, err := decodeEvent(v)
			if err != nil {
				return fmt.Errorf("event %d: %w", next, err)
			}
			ev.Seq = next
			evs = append(evs, ev)
			next++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: read %s: %w", stream, err)
	}
	return evs, nil
}

// Changed implements eventlog.Notifier.
func (l *EventLog) Changed(stream string) <-chan struct{} { return l.db.notify.Changed(stream) }

func getMeta(tx *bbolt.Tx, stream string) (streamMeta, error) {
	var meta streamMeta
	v := tx.Bucket([]byte(bucketStreams)).Get([]byte(stream))
	if v == nil {
		return meta, nil
	}
	if err := json.Unmarshal(v, &meta); err != nil {
		return meta, fmt.Errorf("decode stream meta: %w", err)
	}
	return meta, nil
}

func encodeEvent(ev eventlog.Event) []byte {
	v := make([]byte, 1, 2+len(ev.Name)+len(ev.Data))
	if ev.Close {
		v[0] |= flagClose
	}
	if ev.Name != "" {
		v[0] |= flagNamed
		v = append(v, byte(len(ev.Name)))
		v = append(v, ev.Name...)
	}
	return append(v, ev.Data...)
}

func decodeEvent(v []byte) (eventlog.Event, error) {
	if len(v) == 0 {
		return eventlog.Event{}, fmt.Errorf("empty value")
	}
	ev := eventlog.Event{Close: v[0]&flagClose != 0}
	rest := v[1:]
	if v[0]&flagNamed != 0 {
		if len(rest) == 0 || len(rest) < 1+int(rest[0]) {
			return ev, fmt.Errorf("truncated event name")
		}
		ev.Name, rest = string(rest[1:1+int(rest[0])]), rest[1+int(rest[0]):]
	}
	if len(rest) > 0 {
		ev.Data = json.RawMessage(append([]byte(nil), rest...)) // v is only valid inside the transaction
	}
	return ev, nil
}
