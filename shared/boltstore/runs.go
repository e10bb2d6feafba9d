package boltstore

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/s2"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// # How a stream's events are stored
//
// A stream's bucket maps a seq to a run: the events from that seq on that
// one commit wrote, as one value (up to maxRunBytes of them), compressed
// (S2, a block format: no state kept between values, the size in its
// header) when that makes it smaller. One value per stream and commit
// instead of one per event: the tree has a fraction of the entries, a
// commit a fraction of the puts, and the file (whose pages the process maps
// as it reads them) a fraction of the size. Files written before runs hold
// one event per key (a value without flagRun); both are read.
//
// A run's value: a flags byte (flagRun, and flagPacked when the rest is
// S2-compressed), then the count of its events as a uvarint, then each
// event: its length as a uvarint and its single-value encoding
// (appendEvent).

// Flags of a value's first byte beyond flagClose and flagNamed.
const (
	flagRun    = 4
	flagPacked = 8
)

// maxRunBytes bounds a run's encoded events: a resume from the middle of a
// run decodes its start for nothing, so a run stays a few pages long.
const maxRunBytes = 16 << 10

// minPacked is the smallest run worth compressing.
const minPacked = 256

// maxRunValue bounds what a packed run may expand to: its events, each at
// most eventlog's largest, past maxRunBytes.
const maxRunValue = 64 << 20

// splitRuns calls put with each run of evs: consecutive events of one
// stream, at most maxRunBytes together (a larger event is a run alone).
func splitRuns(evs []eventlog.Event, put func(run []eventlog.Event) error) error {
	for len(evs) > 0 {
		n, size := 1, encodedLen(evs[0])
		for n < len(evs) && size+encodedLen(evs[n]) <= maxRunBytes {
			size += encodedLen(evs[n])
			n++
		}
		if err := put(evs[:n]); err != nil {
			return err
		}
		evs = evs[n:]
	}
	return nil
}

// encodeRun encodes a run of events (their seqs follow from the key).
func encodeRun(run []eventlog.Event) []byte {
	size := binary.MaxVarintLen32
	for _, ev := range run {
		size += binary.MaxVarintLen32 + encodedLen(ev)
	}
	body := binary.AppendUvarint(make([]byte, 0, size), uint64(len(run)))
	for _, ev := range run {
		body = binary.AppendUvarint(body, uint64(encodedLen(ev)))
		body = appendEvent(body, ev)
	}
	if len(body) >= minPacked {
		v := make([]byte, 1+s2.MaxEncodedLen(len(body)))
		if z := s2.Encode(v[1:], body); len(z) < len(body) {
			v[0] = flagRun | flagPacked
			return v[:1+len(z)]
		}
	}
	return append([]byte{flagRun}, body...)
}

// decodeValue decodes a stored value holding the events from seq first on
// (a run, or one event of a file from before runs) and passes each to
// yield until it returns false. The events' data never aliases v (which is
// valid only inside the transaction).
func decodeValue(first int64, v []byte, yield func(eventlog.Event) bool) error {
	if len(v) == 0 {
		return errors.New("empty value")
	}
	if v[0]&flagRun == 0 {
		ev, err := decodeEvent(v, false)
		if err != nil {
			return err
		}
		ev.Seq = first
		yield(ev)
		return nil
	}
	body, owned := v[1:], false
	if v[0]&flagPacked != 0 {
		n, err := s2.DecodedLen(body)
		if err != nil || n > maxRunValue {
			return fmt.Errorf("run: packed size %d: %v", n, err)
		}
		if body, err = s2.Decode(nil, body); err != nil {
			return fmt.Errorf("run: %w", err)
		}
		owned = true // a new slice: the events may keep parts of it
	}
	count, n := binary.Uvarint(body)
	if n <= 0 {
		return errors.New("run: bad count")
	}
	body = body[n:]
	for i := range count {
		size, n := binary.Uvarint(body)
		if n <= 0 || uint64(len(body)-n) < size {
			return fmt.Errorf("run: event %d of %d truncated", i+1, count)
		}
		ev, err := decodeEvent(body[n:n+int(size)], owned)
		if err != nil {
			return fmt.Errorf("run: event %d of %d: %w", i+1, count, err)
		}
		body = body[n+int(size):]
		ev.Seq = first + int64(i)
		if !yield(ev) {
			return nil
		}
	}
	return nil
}
