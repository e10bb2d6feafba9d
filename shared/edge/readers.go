package edge

import (
	"context"
	"errors"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
)

// A running turn's readers are the clients relaying its stream (a POST's
// own, a resume, the JSON API waiting for its answer). Each holds a reader
// lease (session.LeaseReader) while it reads, renewed by session.KeepLease
// and dropped when it ends, so that every instance of the edge sees them in
// the session store. A new message for a conversation whose running turn
// has no reader left (useChat's stop() aborts only its fetch) stops that
// turn and starts the new one; while a client still reads it, the new
// message is refused with 409 (docs/reliability.md).
const (
	// readerGrace bounds the wait of a new message for the readers of the
	// running turn to be gone: a client that aborted its stream and sent the
	// next message at once may come before the edge saw the abort.
	readerGrace = time.Second
	readerPoll  = 50 * time.Millisecond
	// maxReaders bounds the reader leases read for one decision.
	maxReaders = 100
	// originReader is the reader lease taken with the turn, before the
	// workflow starts: it is the lease of the request that began the turn,
	// which then keeps it while it relays the turn (or waits for its answer)
	// and drops it when it stops: one write to take it, one to drop it
	// (docs/cost.md).
	originReader = "origin"
)

// holdReader marks the caller as a live reader of t until the returned
// release is called. The request that began t (began) keeps the turn's
// origin lease, taken with the turn; any other reader takes a lease of
// its own.
func (s *Server) holdReader(ctx context.Context, t session.Turn, began bool) (release func()) {
	if s.o.Leases == nil {
		return func() {}
	}
	l := session.Lease{Kind: session.LeaseReader, ID: session.ReaderLeaseID(t.ID, s.o.NewID("reader")), Owner: t.SessionID}
	if began {
		// Held since the turn began (holdOrigin, after t.StartedAt).
		l.ID, l.Until = session.ReaderLeaseID(t.ID, originReader), t.StartedAt.Add(session.LeaseTTL)
	}
	stop := session.KeepLease(ctx, s.o.Leases, l, s.o.Now)
	return func() {
		stop()
		ctx := context.WithoutCancel(ctx)
		if err := s.o.Leases.DropLease(ctx, session.LeaseReader, l.ID); err != nil {
			s.rl.Logger.WarnContext(ctx, "could not drop a reader lease (it runs out by itself)", "turnId", t.ID, "err", err)
		}
	}
}

// holdOrigin takes the reader lease that a turn begins with: the lease of
// the request that begins it (holdReader with began), which counts on it.
func (s *Server) holdOrigin(ctx context.Context, t session.Turn) error {
	if s.o.Leases == nil {
		return nil
	}
	l := session.Lease{Kind: session.LeaseReader, ID: session.ReaderLeaseID(t.ID, originReader), Owner: t.SessionID, Until: s.o.Now().Add(session.LeaseTTL)}
	return s.o.Leases.HoldLease(ctx, l)
}

// unread reports whether the running turn has no reader left, waiting up
// to readerGrace for the last ones to go.
func (s *Server) unread(ctx context.Context, turnID string) bool {
	if s.o.Leases == nil {
		return false
	}
	deadline := time.Now().Add(readerGrace)
	for {
		live, err := s.o.Leases.LiveLeases(ctx, session.LeaseReader, session.ReaderLeasePrefix(turnID), s.o.Now(), maxReaders)
		if err != nil {
			s.rl.Logger.WarnContext(ctx, "could not read the running turn's readers", "turnId", turnID, "err", err)
			return false
		}
		if len(live) == 0 {
			return true
		}
		if time.Now().Add(readerPoll).After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(readerPoll):
		}
	}
}

// supersede stops the session's running turn when no client reads it any
// more, so that a new message can begin; it reports whether the session
// may be free now.
func (s *Server) supersede(ctx context.Context, sessionID string) bool {
	sess, err := s.store.GetSession(ctx, sessionID)
	if err != nil || sess.ActiveTurn == "" {
		return err == nil // it ended meanwhile: try again
	}
	if !s.unread(ctx, sess.ActiveTurn) {
		return false
	}
	if _, err := s.stopTurn(ctx, sessionID, sess.ActiveTurn); err != nil {
		s.rl.Logger.WarnContext(ctx, "could not stop an unread turn", "turnId", sess.ActiveTurn, "err", err)
		return false
	}
	s.endSlot(ctx, sess.TeacherID, sess.ActiveTurn) // issue 26: a stopped workflow reports no end
	s.rl.Logger.InfoContext(ctx, "turn superseded by a new message: no client read it", "sessionId", sessionID, "turnId", sess.ActiveTurn)
	return true
}

// stopTurn ends a running turn as stopped, closes its stream with finish
// and stops its workflow (which cancels its model call). It reports false
// when the turn had ended already.
func (s *Server) stopTurn(ctx context.Context, sessionID, turnID string) (bool, error) {
	err := s.store.EndTurn(ctx, sessionID, turnID, session.TurnStopped, session.Outcome{Action: session.ActionChat})
	if errors.Is(err, session.ErrConflict) {
		return false, nil
	}
	if err != nil {
		return false, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	// Text parts the turn left open are closed by the relay (textParts).
	s.closeStream(ctx, turnID, protocol.Finish{FinishReason: protocol.FinishOther})
	if err := s.starter.Stop(context.WithoutCancel(ctx), turnID); err != nil {
		// The stream is closed: the workflow's next append fails and it ends.
		s.rl.Logger.WarnContext(ctx, "could not stop the workflow", "turnId", turnID, "err", err)
	}
	return true, nil
}
