package boltstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// # The journal (issue 29)
//
// A group commit does not write bbolt's pages: it appends one frame, every
// stream's events of the group, to an append-only file next to the store
// (<store>.journal) with one write system call (and an fsync without
// NoSync). bbolt is written from memory in checkpoints (every
// checkpointEvery, when the journal passes maxJournalBytes, at Flush and at
// close), after which the journal is emptied: a stream streaming at a pace
// has one chunk in a group but tens in a checkpoint, so its pages are
// written once for tens of chunks, as when it streams at full speed. At
// Open the journal is replayed into bbolt (the events after each stream's
// last seq in the file, gap-free) before anything reads the store, so the
// store is the file and the journal together.
//
// A frame: its body's length (uint32, little-endian), the body's CRC-32C,
// the body. Replay stops at the first frame that is short or fails its
// check: a write the crash cut off, never acknowledged to a writer.
//
// A body: for each stream of the group, its name's length (uvarint), the
// name, the first seq (uvarint), the stream's expiry (Unix nanoseconds as
// a varint, 0 for none), the count of events (uvarint), then each event as
// a run holds it: its length (uvarint) and its single-value encoding.

const (
	// checkpointEvery is the longest journaled events wait for their
	// checkpoint into bbolt while appends go on.
	checkpointEvery = 250 * time.Millisecond
	// maxJournalBytes checkpoints early when the journal grows past it
	// (the events it holds are also held in memory until then).
	maxJournalBytes = 8 << 20
	// maxFrameBytes bounds a frame's length read back: a larger one is
	// damage, not a group (a group holds at most maxQueued events).
	maxFrameBytes = 1 << 30
	frameHeader   = 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// journal is the append-only file of the group commits. Only the
// committer uses it.
type journal struct {
	f    *os.File
	sync bool
	size int64
	buf  []byte // the frame being written, reused
}

// openJournal opens (or creates) the journal at path and returns what it
// holds.
func openJournal(path string, sync bool) (*journal, []byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, errors.Join(err, f.Close())
	}
	return &journal{f: f, sync: sync, size: int64(len(data))}, data, nil
}

// write appends one frame holding the queued events of every stream.
func (j *journal) write(queue map[string][]eventlog.Event, expires map[string]time.Time) error {
	b := append(j.buf[:0], make([]byte, frameHeader)...)
	for stream, evs := range queue {
		b = binary.AppendUvarint(b, uint64(len(stream)))
		b = append(b, stream...)
		b = binary.AppendUvarint(b, uint64(evs[0].Seq))
		var exp int64
		if t := expires[stream]; !t.IsZero() {
			exp = t.UnixNano()
		}
		b = binary.AppendVarint(b, exp)
		b = binary.AppendUvarint(b, uint64(len(evs)))
		for _, ev := range evs {
			b = binary.AppendUvarint(b, uint64(encodedLen(ev)))
			b = appendEvent(b, ev)
		}
	}
	body := b[frameHeader:]
	binary.LittleEndian.PutUint32(b[0:4], uint32(len(body)))
	binary.LittleEndian.PutUint32(b[4:8], crc32.Checksum(body, castagnoli))
	if cap(b) <= 1<<20 {
		j.buf = b // keep a usual frame's buffer, not a burst's
	}
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.size += int64(len(b))
	if j.sync {
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("journal: sync: %w", err)
		}
	}
	return nil
}

// reset empties the journal once bbolt holds everything in it.
func (j *journal) reset() error {
	if j.size == 0 {
		return nil
	}
	if err := j.f.Truncate(0); err != nil {
		return fmt.Errorf("journal: truncate: %w", err)
	}
	j.size = 0
	return nil
}

func (j *journal) close() error { return j.f.Close() }

// journaled is what a journal holds for one stream: its events in seq
// order (gap-free from the first) and its latest expiry.
type journaled struct {
	events  []eventlog.Event
	expires time.Time
}

// parseJournal decodes the frames of data up to the first damaged one. A
// stream's events that do not follow on from what came before in the
// journal (they cannot, short of damage) end that stream's replay.
func parseJournal(data []byte) (map[string]*journaled, error) {
	out := map[string]*journaled{}
	for len(data) >= frameHeader {
		n := binary.LittleEndian.Uint32(data[0:4])
		if n > maxFrameBytes || int64(len(data)-frameHeader) < int64(n) {
			break // cut off by the crash
		}
		body := data[frameHeader : frameHeader+int(n)]
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[4:8]) {
			break
		}
		if err := parseFrame(body, out); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		data = data[frameHeader+int(n):]
	}
	return out, nil
}

// parseFrame adds a frame's events to out. The frame passed its check, so
// a decoding error is a bug, not a torn write.
func parseFrame(body []byte, out map[string]*journaled) error {
	for len(body) > 0 {
		var (
			name        []byte
			first, cnt  uint64
			exp         int64
			err         error
			errTruncate = errors.New("truncated frame")
		)
		uv := func() uint64 {
			v, k := binary.Uvarint(body)
			if k <= 0 {
				err = errTruncate
				return 0
			}
			body = body[k:]
			return v
		}
		l := uv()
		if err != nil || uint64(len(body)) < l {
			return errTruncate
		}
		name, body = body[:l], body[l:]
		first = uv()
		exp, k := binary.Varint(body)
		if k <= 0 {
			return errTruncate
		}
		body = body[k:]
		cnt = uv()
		if err != nil {
			return err
		}
		j := out[string(name)]
		if j == nil {
			j = &journaled{}
			out[string(name)] = j
		}
		if exp != 0 {
			j.expires = time.Unix(0, exp)
		}
		follows := len(j.events) == 0 || j.events[len(j.events)-1].Seq+1 == int64(first)
		for i := range cnt {
			size := uv()
			if err != nil || uint64(len(body)) < size {
				return errTruncate
			}
			ev, derr := decodeEvent(body[:size], false)
			if derr != nil {
				return derr
			}
			body = body[size:]
			ev.Seq = int64(first + i)
			if follows {
				j.events = append(j.events, ev)
			}
		}
	}
	return nil
}
