package session

import (
	"context"
	"iter"
	"math"
	"slices"
)

// Pager reads a session's turns a page at a time (Store.PageTurns).
type Pager interface {
	PageTurns(ctx context.Context, sessionID string, before, limit int) (turns []Turn, more bool, err error)
}

// maxPageReads bounds the store reads one visible page may make beyond
// those its own turns need: they are only for turns a regenerated answer
// hid.
const maxPageReads = 8

// PageVisible is PageTurns over the turns Visible keeps: the latest limit
// visible turns whose Index is below before (no bound when before <= 0),
// oldest first, and whether earlier turns remain.
//
// Walking back from the newest turn, a turn is hidden when a later one
// replaces from an index at or below its own. A cursor an earlier page gave
// is a visible turn's index, so no turn after it hides a turn below it, but
// the cursor's turn itself may: a page reads from that turn down.
func PageVisible(ctx context.Context, p Pager, sessionID string, before, limit int) ([]Turn, bool, error) {
	var out []Turn // newest first
	more, err := walkVisible(ctx, p, sessionID, before, limit, limit, func(t Turn) { out = append(out, t) })
	if err != nil {
		return nil, false, err
	}
	slices.Reverse(out)
	return out, more, nil
}

// issue 32: a page held as references, read again a few turns at a time.

// Store reads of a page held as TurnRefs: refRead turns a read while the
// page's turns are chosen (held only for that read), at most pageRead
// while they are written, and fewer when the turns are large, about
// pageReadBytes a read, so that a client that reads slowly holds a few
// kilobytes of turns, not the page (a 200-turn page of long messages is
// megabytes). pageRead matches the turn items the DynamoDB store reads at
// once.
const (
	refRead       = 32
	pageRead      = 8
	pageReadBytes = 48 << 10
)

// TurnRef names a turn of a page: what PageRefs keeps of it, with about
// the bytes it holds.
type TurnRef struct {
	Index int
	ID    string
	Size  int
}

// PageRefs is PageVisible keeping only each turn's TurnRef, reading the
// store refRead turns at a time: the page's turns are read again, a few at
// a time, by EachTurn when they are written.
func PageRefs(ctx context.Context, p Pager, sessionID string, before, limit int) ([]TurnRef, bool, error) {
	var out []TurnRef // newest first
	more, err := walkVisible(ctx, p, sessionID, before, limit, min(limit, refRead), func(t Turn) {
		out = append(out, TurnRef{Index: t.Index, ID: t.ID, Size: t.size()})
	})
	if err != nil {
		return nil, false, err
	}
	slices.Reverse(out)
	return out, more, nil
}

// EachTurn yields the turns refs names (oldest first, as PageRefs gives
// them), reading the store a few turns at a time (pageRead indexes at most,
// fewer when the turns are large) and letting go of each turn once it is
// yielded. A turn that is no longer there is skipped; a read error
// is yielded and ends the sequence.
func EachTurn(ctx context.Context, p Pager, sessionID string, refs []TurnRef) iter.Seq2[Turn, error] {
	return func(yield func(Turn, error) bool) {
		for len(refs) > 0 {
			// The refs within pageRead indexes of the first, of about
			// pageReadBytes in all (one at least).
			n, size := 1, refs[0].Size
			for n < len(refs) && refs[n].Index-refs[0].Index < pageRead && size+refs[n].Size <= pageReadBytes {
				size += refs[n].Size
				n++
			}
			chunk, last := refs[:n], refs[n-1].Index
			refs = refs[n:]
			turns, _, err := p.PageTurns(ctx, sessionID, last+1, last-chunk[0].Index+1)
			if err != nil {
				yield(Turn{}, err)
				return
			}
			for i, t := range turns {
				turns[i] = Turn{} // held only until it is written
				if !slices.ContainsFunc(chunk, func(r TurnRef) bool { return r.Index == t.Index && r.ID == t.ID }) {
					continue // hidden between two visible ones, or gone
				}
				if !yield(t, nil) {
					return
				}
			}
		}
	}
}

// size is about the bytes a turn holds: its texts and JSON values.
func (t Turn) size() int {
	o := t.Outcome
	n := len(t.Message) + len(o.Text) + len(o.Error) + len(o.Blueprint) + len(o.ResolvedEntities) + len(o.PatchPlan)
	for _, m := range o.Memory {
		n += len(m)
	}
	return n + 256 // ids, times, small fields
}

// walkVisible walks back from before over the visible turns, reading the
// store read turns at a time, and gives keep the latest limit of them,
// newest first; it reports whether earlier visible turns remain.
func walkVisible(ctx context.Context, p Pager, sessionID string, before, limit, read int, keep func(Turn)) (bool, error) {
	kept := 0
	floor := math.MaxInt
	cursor := before
	if before > 0 {
		cursor = before + 1 // the cursor's own turn, for what it replaces
	}
	// The reads the page's own turns need, and maxPageReads more for the
	// turns regenerated answers hid.
	for range (limit+read-1)/read + maxPageReads {
		page, more, err := p.PageTurns(ctx, sessionID, cursor, read)
		if err != nil {
			return false, err
		}
		for i := len(page) - 1; i >= 0; i-- {
			t := page[i]
			if t.Index < floor && (before <= 0 || t.Index < before) {
				if kept == limit {
					return true, nil
				}
				keep(t)
				kept++
			}
			if t.Replaces > 0 {
				floor = min(floor, t.Replaces)
			}
		}
		if !more || len(page) == 0 {
			return false, nil
		}
		cursor = page[0].Index
	}
	return true, nil
}
