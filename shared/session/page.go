package session

import (
	"context"
	"math"
	"slices"
)

// Pager reads a session's turns a page at a time (Store.PageTurns).
type Pager interface {
	PageTurns(ctx context.Context, sessionID string, before, limit int) (turns []Turn, more bool, err error)
}

// maxPageReads bounds the store pages one visible page may read: each read
// after the first is only for turns a regenerated answer hid.
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
	floor := math.MaxInt
	cursor := before
	if before > 0 {
		cursor = before + 1 // the cursor's own turn, for what it replaces
	}
	for range maxPageReads {
		page, more, err := p.PageTurns(ctx, sessionID, cursor, limit)
		if err != nil {
			return nil, false, err
		}
		for i := len(page) - 1; i >= 0; i-- {
			t := page[i]
			if t.Index < floor && (before <= 0 || t.Index < before) {
				if len(out) == limit {
					slices.Reverse(out)
					return out, true, nil
				}
				out = append(out, t)
			}
			if t.Replaces > 0 {
				floor = min(floor, t.Replaces)
			}
		}
		if !more || len(page) == 0 {
			slices.Reverse(out)
			return out, false, nil
		}
		cursor = page[0].Index
	}
	slices.Reverse(out)
	return out, true, nil
}
