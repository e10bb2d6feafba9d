package awswire

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// ExpressLimit is the longest an Express execution lives: Step Functions
// ends it there, whatever state it is in, and its Finish never runs.
const ExpressLimit = 5 * time.Minute

// TurnDeadlineGrace is how long after ExpressLimit the edge waits for a
// turn's closing event before it closes the stream itself: the last
// append of a Finish that ran just in time, and clock skew.
const TurnDeadlineGrace = 15 * time.Second

// turnDeadline is the conversation Starter of an Express machine with a
// bound on every turn it starts (issue 24): an execution that died without
// its Finish (its 5 minutes ran out, or an error no Catch can take:
// States.DataLimitExceeded, States.Runtime) leaves its stream open, and the
// relay's silence bound (TURN_TIMEOUT) would close it only that long after
// its last event. After ExpressLimit + TurnDeadlineGrace from the start,
// when no execution of the turn can still be running, a turn that has not
// ended is ended failed and its stream closed with error + finish. A turn
// that ended is left as it is (EndTurn refuses it).
type turnDeadline struct {
	edge.Starter
	store  session.Store
	log    eventlog.Log
	logger *slog.Logger
	after  time.Duration
	// afterFunc is time.AfterFunc; tests run the timer themselves.
	afterFunc func(time.Duration, func())
}

func (d turnDeadline) Start(ctx context.Context, name string, in workflow.ConversationState) error {
	if err := d.Starter.Start(ctx, name, in); err != nil {
		return err
	}
	turn := in.Turn
	d.afterFunc(d.after, func() { d.expire(context.WithoutCancel(ctx), turn) })
	return nil
}

// expire ends the turn failed and closes its stream, unless it ended.
func (d turnDeadline) expire(ctx context.Context, t workflow.Turn) {
	msg := i18n.Of(t.Language, t.Message).Text(i18n.TurnTimedOut)
	err := d.store.EndTurn(ctx, t.SessionID, t.TurnID, session.TurnFailed,
		session.Outcome{Error: msg, ErrorCode: string(apperr.ServiceUnavailable)})
	if errors.Is(err, session.ErrConflict) {
		return // it ended: its Finish ran, or it was stopped
	}
	if err != nil {
		d.logger.ErrorContext(ctx, "could not end a turn past its execution's deadline", "turnId", t.TurnID, "err", err)
	}
	em := eventlog.Emitter[protocol.Chunk]{Log: d.log, Stream: workflow.TurnStream(t.TurnID), Encode: protocol.MarshalChunk}
	if err := em.Close(ctx, protocol.Error{ErrorText: msg}, protocol.Finish{FinishReason: protocol.FinishError}); err != nil && !errors.Is(err, eventlog.ErrClosed) {
		d.logger.ErrorContext(ctx, "could not close a turn past its execution's deadline", "turnId", t.TurnID, "err", err)
	}
	d.logger.ErrorContext(ctx, "turn closed: its execution ended without Finish", "turnId", t.TurnID, "after", d.after)
}
