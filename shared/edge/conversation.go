package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/limits"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// handleStream is POST /api/conversation/stream: begin a turn, start its
// workflow, relay its event log as a UI message stream.
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) error {
	t, _, err := s.beginFromRequest(w, r)
	if err != nil {
		return err
	}
	return s.relay(r.Context(), w, t, 0, true)
}

// beginFromRequest authenticates, decodes and begins a turn.
func (s *Server) beginFromRequest(w http.ResponseWriter, r *http.Request) (session.Turn, ConversationRequest, error) {
	id, err := s.auth.Authenticate(r)
	if err != nil {
		return session.Turn{}, ConversationRequest{}, err
	}
	req, err := decodeRequest(w, r, maxBody, id, s.o.Tools)
	if err != nil {
		return session.Turn{}, req, err
	}
	if id.Dev && req.TeacherID != "" && r.Header.Get("X-Teacher-Id") == "" {
		if !auth.ValidTeacherID(req.TeacherID) {
			return session.Turn{}, req, apperr.New(apperr.ValidationError, "invalid teacherId")
		}
		id.TeacherID = req.TeacherID
	}
	t, err := s.begin(r.Context(), id, req)
	return t, req, err
}

func setUIHeaders(h http.Header) {
	protocol.SetHeaders(h)
	h.Set("X-Vercel-Ai-Ui-Message-Stream", "v1")
}

func uiHeaders(conversationID string) func(http.Header) {
	return func(h http.Header) {
		setUIHeaders(h)
		h.Set("X-Conversation-Id", conversationID)
	}
}

// begin creates or continues the session, begins the turn, writes its start
// chunk and starts the workflow.
func (s *Server) begin(ctx context.Context, id auth.Identity, req ConversationRequest) (_ session.Turn, err error) {
	turnID := s.o.NewID("turn")
	if err := admit(ctx, s.o.Limits, id, limits.Turn, turnID, i18n.Of(req.Language, req.Message)); err != nil {
		return session.Turn{}, err // issue 26: over a limit, before anything is written
	}
	defer func() {
		if err != nil {
			s.endSlot(ctx, id.TeacherID, turnID)
		}
	}()
	sess, err := s.sessionFor(ctx, id, req)
	if err != nil {
		return session.Turn{}, err
	}
	replaces, err := s.regenerated(ctx, sess.ID, req)
	if err != nil {
		return session.Turn{}, err
	}
	lang := turnLanguage(req, sess)
	now := s.o.Now()
	turn := session.Turn{SessionID: sess.ID, ID: turnID, Message: req.Message,
		MessageID: s.o.NewID("msg"), Language: lang, Status: session.TurnRunning, StartedAt: now,
		Replaces: replaces}
	t, err := s.store.BeginTurn(ctx, turn)
	if errors.Is(err, session.ErrConflict) && s.recoverTurn(ctx, sess.ID) {
		t, err = s.store.BeginTurn(ctx, turn) // the running turn was dead
	}
	if errors.Is(err, session.ErrConflict) && s.supersede(ctx, sess.ID) {
		t, err = s.store.BeginTurn(ctx, turn) // no client read the running turn: the new message wins
	}
	if errors.Is(err, session.ErrConflict) {
		return t, apperr.New(apperr.Conflict, "a turn of this conversation is still running and a client is reading it; stop it or wait for it to finish")
	}
	if err != nil {
		return t, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	if err := s.holdOrigin(ctx, t); err != nil {
		s.abandon(ctx, t, "the reader lease could not be taken")
		return t, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	var leaseUntil time.Time
	if s.o.Leases != nil {
		leaseUntil = now.Add(session.LeaseTTL)
		if err := s.o.Leases.HoldLease(ctx, session.Lease{Kind: session.LeaseTurn, ID: t.ID, Owner: sess.ID, Until: leaseUntil}); err != nil {
			s.abandon(ctx, t, "the lease could not be taken")
			return t, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
		}
	}
	if req.page != nil {
		rec, err := json.Marshal(req.page)
		if err == nil {
			err = s.store.PutRecord(ctx, sess.ID, workflow.PageKey(t.ID), rec)
		}
		if err != nil {
			s.abandon(ctx, t, "the page could not be stored")
			return t, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
		}
	}
	mode := s.chatMode(req)
	start, err := protocol.MarshalChunk(protocol.Start{MessageID: t.MessageID,
		MessageMetadata: &protocol.MessageMetadata{ConversationID: sess.ID, TurnID: t.ID, Mode: string(mode)}})
	if err != nil {
		return t, err
	}
	if _, err := s.log.Append(ctx, workflow.TurnStream(t.ID), eventlog.Event{Data: start}); err != nil {
		s.abandon(ctx, t, "the event log is unavailable")
		return t, apperr.Wrap(err, apperr.ServiceUnavailable, "event log unavailable")
	}
	in := workflow.NewConversationState(workflow.Turn{SessionID: sess.ID, TurnID: t.ID, TeacherID: id.TeacherID,
		MessageID: t.MessageID, Message: req.Message, Language: lang, Mode: mode,
		TraceID: TraceID(ctx), Context: req.Context, Followup: req.page != nil, LeaseUntil: leaseUntil})
	// The workflow outlives the request: a client that disconnects does not stop it.
	if err := s.starter.Start(context.WithoutCancel(ctx), t.ID, in); err != nil {
		s.abandon(ctx, t, "the workflow could not start")
		return t, apperr.Wrap(err, apperr.ServiceUnavailable, "the workflow could not start")
	}
	s.rl.Logger.InfoContext(ctx, "turn started", "sessionId", sess.ID, "turnId", t.ID, "teacherId", id.TeacherID, "traceId", TraceID(ctx))
	return t, nil
}

// turnLanguage is the turn's language tag, decided here once: every step,
// tool and retry of the turn reads it from the turn. A session's title is
// its opening words.
func turnLanguage(req ConversationRequest, sess session.Session) string {
	if req.Language != "" {
		return req.Language
	}
	return i18n.ForTurn("", req.Message, sess.Title).Tag()
}

// regenerated is the index of the turn a regenerate request replaces (0
// for any other request): useChat's regenerate() sends the history up to
// the question and, in messageId, the answer to regenerate (or the
// question: "user-<turnId>" in /messages), or none for the last answer.
// The new turn replaces that turn and every turn after it (session.Visible),
// so that the conversation shows the question once and the new answer.
func (s *Server) regenerated(ctx context.Context, sessionID string, req ConversationRequest) (int, error) {
	if req.Trigger != triggerRegenerate {
		return 0, nil
	}
	turns, err := s.store.ListTurns(ctx, sessionID)
	if err != nil {
		return 0, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	turns = session.Visible(turns)
	if req.MessageID == "" {
		if len(turns) == 0 {
			return 0, nil // nothing to regenerate yet: a first answer
		}
		return turns[len(turns)-1].Index, nil
	}
	for _, t := range turns {
		if req.MessageID == t.MessageID || req.MessageID == userMessageID(t) {
			return t.Index, nil
		}
	}
	return 0, apperr.New(apperr.ValidationError, "messageId %q names no message of this conversation", req.MessageID).
		WithDetails(map[string]any{"fields": []map[string]string{{"field": "messageId", "message": "not a message of this conversation"}}})
}

// triggerRegenerate is useChat's trigger of regenerate().
const triggerRegenerate = "regenerate-message"

// userMessageID is the id of a turn's user message in /messages.
func userMessageID(t session.Turn) string { return "user-" + t.ID }

// chatMode is the turn's effective chat mode (seed 003 §1.2): the
// request's (validated by decodeRequest), else the server's CHAT_MODE.
func (s *Server) chatMode(req ConversationRequest) workflow.ChatMode {
	return workflow.ChatMode(req.Mode).Or(s.o.ChatMode)
}

// recoverTurn closes the session's active turn if its process died, and
// reports whether it did.
func (s *Server) recoverTurn(ctx context.Context, sessionID string) bool {
	if s.o.Recover == nil {
		return false
	}
	sess, err := s.store.GetSession(ctx, sessionID)
	if err != nil || sess.ActiveTurn == "" {
		return false
	}
	dead, err := s.o.Recover.IfDead(ctx, session.LeaseTurn, sess.ActiveTurn)
	if err != nil {
		s.rl.Logger.WarnContext(ctx, "could not check the running turn", "turnId", sess.ActiveTurn, "err", err)
	}
	return dead
}

// sessionFor returns the caller's session for the request, creating it when
// the request starts a conversation. A useChat id names a new conversation
// the first time it is seen; a seed conversationId must exist.
func (s *Server) sessionFor(ctx context.Context, id auth.Identity, req ConversationRequest) (session.Session, error) {
	now := s.o.Now()
	newSess := session.Session{TeacherID: id.TeacherID, Kind: conversationSessionKind, Title: i18n.Clip(req.Message, 40),
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(s.o.SessionTTL)}
	if req.ConversationID == nil || *req.ConversationID == "" {
		newSess.ID = s.o.NewID("conv")
		if err := s.store.CreateSession(ctx, newSess); err != nil {
			return newSess, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
		}
		return newSess, nil
	}
	sess, err := s.ownedSession(ctx, id, *req.ConversationID)
	if err == nil || !req.useChat() || apperr.CodeOf(err) != apperr.EntityNotFound {
		return sess, err
	}
	newSess.ID = *req.ConversationID
	switch err := s.store.CreateSession(ctx, newSess); {
	case errors.Is(err, session.ErrExists):
		return s.ownedSession(ctx, id, newSess.ID) // another teacher's id → not found
	case err != nil:
		return newSess, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	return newSess, nil
}

// abandon ends a turn the edge could not run and closes its stream.
func (s *Server) abandon(ctx context.Context, t session.Turn, why string) {
	ctx = context.WithoutCancel(ctx)
	msg := i18n.Of(t.Language, t.Message).Text(i18n.ServiceUnavailable)
	if err := s.store.EndTurn(ctx, t.SessionID, t.ID, session.TurnFailed,
		session.Outcome{Error: msg, ErrorCode: string(apperr.ServiceUnavailable)}); err != nil && !errors.Is(err, session.ErrConflict) {
		s.rl.Logger.ErrorContext(ctx, "could not end abandoned turn", "turnId", t.ID, "err", err)
	}
	s.closeStream(ctx, t.ID, protocol.Error{ErrorText: msg}, protocol.Finish{FinishReason: protocol.FinishError})
	s.rl.Logger.ErrorContext(ctx, "turn abandoned", "turnId", t.ID, "why", why)
}

func (s *Server) closeStream(ctx context.Context, turnID string, chunks ...protocol.Chunk) {
	em := eventlog.Emitter[protocol.Chunk]{Log: s.log, Stream: workflow.TurnStream(turnID), Encode: protocol.MarshalChunk}
	if err := em.Close(ctx, chunks...); err != nil && !errors.Is(err, eventlog.ErrClosed) {
		s.rl.Logger.ErrorContext(ctx, "could not close stream", "turnId", turnID, "err", err)
	}
}

// relay writes the turn's events after seq as a UI message stream: the text
// parts a stopped turn left open are closed before its finish, and [DONE]
// follows the closing event. began is true for the request that began t.
func (s *Server) relay(ctx context.Context, w http.ResponseWriter, t session.Turn, after int64, began bool) error {
	defer s.holdReader(ctx, t, began)()
	parts := s.openParts(ctx, t.ID, after)
	return s.rl.relay(ctx, w, stream{header: uiHeaders(t.SessionID), key: workflow.TurnStream(t.ID), kind: "turn", id: t.ID, maxWait: s.o.TurnTimeout,
		abandon: func(ctx context.Context) { s.abandon(ctx, t, "no event within the turn timeout") },
		before:  func(ev eventlog.Event) [][]byte { return parts.CloseBefore(ev.Data) },
		done:    protocol.Done}, after)
}

// openParts returns the text parts open after seq after of a turn's stream.
func (s *Server) openParts(ctx context.Context, turnID string, after int64) *protocol.TextParts {
	p := &protocol.TextParts{}
	for seen := int64(0); seen < after; {
		evs, err := s.log.Read(ctx, workflow.TurnStream(turnID), seen, min(500, int(after-seen)))
		if err != nil || len(evs) == 0 {
			break // best effort: a resumed stream still ends with finish
		}
		for _, ev := range evs {
			p.See(ev.Data)
			seen = ev.Seq
		}
	}
	return p
}

// handleResume is GET /api/conversation/{id}/stream: the active turn from the
// start or after Last-Event-ID / ?after=; 204 when there is nothing to resume.
func (s *Server) handleResume(w http.ResponseWriter, r *http.Request) error {
	sess, found, err := s.idleSession(r)
	if err != nil {
		return err
	}
	after, err := resumePoint(r)
	if err != nil {
		return err
	}
	if !found {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	t, ok, err := s.resumable(r.Context(), sess, after)
	if err != nil {
		return err
	}
	if !ok {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	return s.relay(r.Context(), w, t, after, false)
}

func resumePoint(r *http.Request) (int64, error) {
	v := r.Header.Get("Last-Event-ID")
	if q := r.URL.Query().Get("after"); q != "" {
		v = q
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, apperr.New(apperr.ValidationError, "Last-Event-ID / after must be a non-negative integer")
	}
	return n, nil
}

// resumable picks the turn to resume: the running one; the last one when
// the client still misses some of its events; with no cursor, the last one
// when it ended within ReplayWindow.
func (s *Server) resumable(ctx context.Context, sess session.Session, after int64) (session.Turn, bool, error) {
	if sess.ActiveTurn != "" && s.recoverTurn(ctx, sess.ID) {
		// The turn's process died: it is closed now, and resumed as ended.
		return s.resumable(ctx, session.Session{ID: sess.ID, TeacherID: sess.TeacherID}, max(after, 1))
	}
	if sess.ActiveTurn != "" {
		t, err := s.store.GetTurn(ctx, sess.ID, sess.ActiveTurn)
		if err == nil {
			return t, true, nil
		}
		if !errors.Is(err, session.ErrNotFound) {
			return t, false, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
		}
	}
	// The newest turn is always visible: one turn read, not the session.
	turns, _, err := s.store.PageTurns(ctx, sess.ID, 0, 1)
	if err != nil {
		return session.Turn{}, false, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	if len(turns) == 0 {
		return session.Turn{}, false, nil
	}
	last := turns[0]
	if after == 0 {
		// The reload rule (docs/reliability.md): a page that read
		// /messages while the turn ran and resumes a moment after it
		// ended gets the whole turn again, which replaces the half-written
		// message it holds (same message id).
		return last, !last.EndedAt.IsZero() && s.o.Now().Sub(last.EndedAt) <= s.o.ReplayWindow, nil
	}
	evs, err := s.log.Read(ctx, workflow.TurnStream(last.ID), after, 1)
	if err != nil {
		return last, false, apperr.Wrap(err, apperr.ServiceUnavailable, "event log unavailable")
	}
	return last, len(evs) > 0, nil
}

// handleStop is POST /api/conversation/{id}/stop: it ends the running turn,
// closes its stream with finish, and stops its workflow.
func (s *Server) handleStop(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	sess, _, err := s.idleSession(r)
	if err != nil {
		return err
	}
	if sess.ActiveTurn == "" {
		writeJSON(w, http.StatusOK, map[string]any{"stopped": false, "conversationId": sess.ID})
		return nil
	}
	turnID := sess.ActiveTurn
	stopped, err := s.stopTurn(ctx, sess.ID, turnID)
	if err != nil {
		return err
	}
	if !stopped {
		writeJSON(w, http.StatusOK, map[string]any{"stopped": false, "conversationId": sess.ID})
		return nil
	}
	s.endSlot(ctx, sess.TeacherID, turnID) // a stopped workflow reports no end
	s.rl.Logger.InfoContext(ctx, "turn stopped", "sessionId", sess.ID, "turnId", turnID)
	writeJSON(w, http.StatusOK, map[string]any{"stopped": true, "conversationId": sess.ID, "turnId": turnID})
	return nil
}

// Paging of GET …/messages: a page holds at most maxPageTurns turns (two
// messages each), defaultPageTurns when the client names no limit.
const (
	defaultPageTurns = 50
	maxPageTurns     = 200
)

// handleMessages is GET /api/conversation/{id}/messages: the conversation as
// UIMessages, rebuilt from each turn's event log, a page at a time. A page
// is the latest ?limit= turns (before the turn ?before= names, which is the
// previous page's nextCursor), oldest first; nextCursor is there when older
// turns remain. The page is held as references to its turns, which are read
// again a few at a time (session.EachTurn) and written one message at a
// time, each write with its own deadline: a client that reads slowly holds
// a few turns of memory, not the page, and one that stops reading is let go
// (issue 32).
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	sess, found, err := s.idleSession(r)
	if err != nil {
		return err
	}
	limit, before, err := pageOf(r)
	if err != nil {
		return err
	}
	var refs []session.TurnRef
	var more bool
	if found {
		// The store reads this page only, not the whole conversation; a
		// regenerated answer hides the one it replaced.
		if refs, more, err = chooseTurns(ctx, s.store, sess.ID, before, limit); err != nil {
			return err
		}
	}
	pw := &pageWriter{w: w, rc: http.NewResponseController(w), conversationID: sess.ID, until: time.Now().Add(messagesWriteBound)}
	for t, err := range session.EachTurn(ctx, s.store, sess.ID, refs) {
		var m protocol.UIMessage
		if err != nil {
			err = apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
		} else {
			m, err = s.assemble(ctx, t)
		}
		if err != nil && !pw.started {
			return err // nothing is written yet: a JSON error
		}
		if err != nil {
			// Headers are out: end the JSON so that the client sees a
			// well-formed, shorter page, and log why.
			s.rl.Logger.ErrorContext(ctx, "messages page cut short", "turnId", t.ID, "err", err)
			break
		}
		s.resignFiles(ctx, sess.TeacherID, &m) // stored links die with the credentials that signed them
		if err := pw.write(t, m); err != nil {
			return nil // the client went away, or stopped reading
		}
	}
	cursor := ""
	if more && len(refs) > 0 {
		cursor = strconv.Itoa(refs[0].Index)
	}
	pw.end(cursor)
	return nil
}

// choosing bounds the pages whose turns are being chosen at once, in the
// process: choosing reads whole turns (session.PageRefs, up to 32 at a
// time, megabytes of long messages) only to keep their references, work
// for the CPU that more of at once would not speed up, while 50 clients
// asking for a large page at the same moment would hold 50 such reads
// (issue 32: measured in-process, a peak heap of 40 MB, 13 MB with this
// bound).
var choosing = make(chan struct{}, runtime.GOMAXPROCS(0))

// chooseTurns is session.PageRefs under the choosing bound.
func chooseTurns(ctx context.Context, p session.Pager, sessionID string, before, limit int) ([]session.TurnRef, bool, error) {
	select {
	case choosing <- struct{}{}:
	case <-ctx.Done():
		return nil, false, apperr.Wrap(ctx.Err(), apperr.ServiceUnavailable, "the request ended while waiting")
	}
	defer func() { <-choosing }()
	refs, more, err := session.PageRefs(ctx, p, sessionID, before, limit)
	if err != nil {
		return nil, false, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	return refs, more, nil
}

// messagesWriteBound bounds the whole answer of a messages page, and
// streamWriteBound each of its writes.
const messagesWriteBound = 5 * time.Minute

// pageWriter writes a messages page: its head with the first message, then
// each turn's two messages, each with a write deadline and flushed.
type pageWriter struct {
	w              http.ResponseWriter
	rc             *http.ResponseController
	conversationID string
	until          time.Time
	started        bool
	enc            *json.Encoder
}

func (pw *pageWriter) start() {
	pw.started = true
	pw.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	pw.w.WriteHeader(http.StatusOK)
	// The server's read deadline would cancel a long answer's request: the
	// write deadlines bound it instead.
	_ = pw.rc.SetReadDeadline(time.Time{})
	pw.enc = json.NewEncoder(pw.w)
	head, _ := json.Marshal(pw.conversationID)
	_, _ = fmt.Fprintf(pw.w, `{"conversationId":%s,"messages":[`, head)
}

// write writes a turn's user message and its assistant message m.
func (pw *pageWriter) write(t session.Turn, m protocol.UIMessage) error {
	if !pw.started {
		pw.start()
	} else {
		_, _ = io.WriteString(pw.w, ",")
	}
	pw.deadline()
	_ = pw.enc.Encode(protocol.UIMessage{ID: userMessageID(t), Role: "user", Parts: []protocol.Part{protocol.TextPart(t.Message)}})
	_, _ = io.WriteString(pw.w, ",")
	if err := pw.enc.Encode(m); err != nil {
		return err
	}
	if err := pw.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// deadline bounds the next write.
func (pw *pageWriter) deadline() {
	d := time.Now().Add(streamWriteBound)
	if d.After(pw.until) {
		d = pw.until
	}
	_ = pw.rc.SetWriteDeadline(d)
}

// end closes the page, with its nextCursor when there is one.
func (pw *pageWriter) end(cursor string) {
	if !pw.started {
		pw.start()
	}
	pw.deadline()
	_, _ = io.WriteString(pw.w, "]")
	if cursor != "" {
		_, _ = fmt.Fprintf(pw.w, `,"nextCursor":"%s"`, cursor)
	}
	_, _ = io.WriteString(pw.w, "}\n")
	// Sent: the next request on the connection is not held to this
	// page's deadline (a server without a WriteTimeout sets none).
	if err := pw.rc.Flush(); err == nil {
		_ = pw.rc.SetWriteDeadline(time.Time{})
	}
}

// pageOf reads ?limit= and ?before= of a messages page.
func pageOf(r *http.Request) (limit, before int, err error) {
	limit = defaultPageTurns
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > maxPageTurns {
			return 0, 0, apperr.New(apperr.ValidationError, "limit must be a whole number from 1 to %d", maxPageTurns)
		}
	}
	if v := q.Get("before"); v != "" {
		if before, err = strconv.Atoi(v); err != nil || before < 1 {
			return 0, 0, apperr.New(apperr.ValidationError, "before must be a nextCursor of an earlier page")
		}
	}
	return limit, before, nil
}

// maxAssembleEvents bounds the events read for one message.
const maxAssembleEvents = 100_000

// assemble rebuilds a turn's assistant message from its event log, as the
// live stream showed it.
func (s *Server) assemble(ctx context.Context, t session.Turn) (protocol.UIMessage, error) {
	a := protocol.NewAssembler(t.MessageID)
	var failure string // the error text the stream showed, if any
	var after int64
	for after < maxAssembleEvents {
		evs, err := s.log.Read(ctx, workflow.TurnStream(t.ID), after, 500)
		if err != nil {
			return protocol.UIMessage{}, apperr.Wrap(err, apperr.ServiceUnavailable, "event log unavailable")
		}
		for _, ev := range evs {
			if err := a.Add(ev.Data); err != nil {
				return protocol.UIMessage{}, fmt.Errorf("edge: turn %s: %w", t.ID, err)
			}
			if text, ok := errorText(ev.Data); ok {
				failure = text
			}
			after = ev.Seq
		}
		if len(evs) < 500 {
			break
		}
	}
	m := a.Message()
	if p, ok := failureNotice(t, failure); ok {
		m.Parts = append(m.Parts, p)
	}
	return m, nil
}

// issue 32: a failed turn after a reload.

// errorText is the errorText of an encoded error chunk.
func errorText(raw []byte) (string, bool) {
	if !bytes.Contains(raw, []byte(`"type":"error"`)) {
		return "", false
	}
	var c struct {
		Type      string `json:"type"`
		ErrorText string `json:"errorText"`
	}
	if json.Unmarshal(raw, &c) != nil || c.Type != "error" {
		return "", false
	}
	return c.ErrorText, true
}

// failureNotice is what a failed turn's message ends with in /messages: the
// stream's error chunk (or, without one, the stored error) as a data-notice
// part {code, message}, code being the turn's error code. The live stream
// ended with that error; a UIMessage has no error part, and an empty
// message would reload as a blank bubble (docs/protocol.md).
func failureNotice(t session.Turn, streamed string) (protocol.Part, bool) {
	msg := streamed
	if msg == "" && t.Status == session.TurnFailed {
		msg = t.Outcome.Error
	}
	if msg == "" {
		return protocol.Part{}, false
	}
	code := t.Outcome.ErrorCode
	if code == "" {
		code = string(apperr.AIError)
	}
	data, err := json.Marshal(protocol.Notice{Code: code, Message: msg})
	if err != nil {
		return protocol.Part{}, false
	}
	return protocol.Part{Type: "data-" + protocol.DataNotice, Data: data}, true
}
