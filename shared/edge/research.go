package edge

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The research flow's routes (seed 001 §3, PROTOCOL.md §3):
//
//	POST /api/research               {topic, language?} → {session_id, proposal}; starts no work
//	GET  /api/research/{id}/stream   the run's named SSE events; the first stream starts the run
//
// A stream attaches to its session with a lease (a conditional write in
// the session store): a second stream while one is attached is 409, another
// teacher's session or an unknown id is 404. Every event has its id line; a
// client that dropped comes back with Last-Event-ID (or ?after=) and gets
// the rest of the same run; a finished session's stream replays its events
// and ends.

// ResearchFlow is what the edge needs of the research flow (wire adapts
// research.Flow to it; the edge does not import the flow). Errors are
// *apperr.Error with the status to answer.
type ResearchFlow interface {
	// Propose creates a session and its proposal (encoded as it is).
	Propose(ctx context.Context, teacherID, topic, language string) (id string, proposal any, err error)
	// Attach takes the session's one stream for holder for lease:
	// ENTITY_NOT_FOUND for an unknown session or another teacher's,
	// CONFLICT while another stream holds it or before its proposal.
	// started is true when this attachment started the run.
	Attach(ctx context.Context, teacherID, id, holder string, lease time.Duration) (started bool, err error)
	// Renew extends holder's lease; an error when holder lost it.
	Renew(ctx context.Context, id, holder string, lease time.Duration) error
	// Detach releases holder's lease.
	Detach(ctx context.Context, id, holder string) error
	// Abandon fails a run that has not ended and closes its stream with an
	// error event (a timeout's when timedOut).
	Abandon(ctx context.Context, id string, timedOut bool, why string)
	// Stream is the session's event-log stream.
	Stream(id string) string
}

// ResearchStarter starts Research workflow executions.
type ResearchStarter interface {
	Start(ctx context.Context, name string, input workflow.ResearchState) error
}

// ResearchOptions configure Research.
type ResearchOptions struct {
	// Lease is how long an attached stream holds its session without
	// renewing (3 heartbeats); the relay renews it every heartbeat.
	Lease time.Duration
	// MaxWait bounds the wait for a run's next event; past it the run is
	// abandoned (5 min: an Express workflow's limit).
	MaxWait time.Duration
	Now     func() time.Time
}

// Research serves the research flow's routes.
type Research struct {
	flow    ResearchFlow
	rl      *Relay
	starter ResearchStarter
	auth    Authenticator
	o       ResearchOptions
}

// NewResearch returns the research flow's handler, whose streams go
// through rl.
func NewResearch(flow ResearchFlow, rl *Relay, st ResearchStarter, au Authenticator, o ResearchOptions) *Research {
	if o.Lease <= 0 {
		o.Lease = 3 * rl.Heartbeat
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 5 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Research{flow: flow, rl: rl, starter: st, auth: au, o: o}
}

// Mount registers the routes on mux.
func (h *Research) Mount(mux *http.ServeMux) {
	Mount(mux, h.rl.Logger, map[string]HandlerFunc{
		"POST /api/research":            h.handlePropose,
		"GET /api/research/{id}/stream": h.handleStream,
	})
}

// ResearchRequest is the body of POST /api/research.
type ResearchRequest struct {
	Topic     string `json:"topic"`
	Language  string `json:"language"`
	TeacherID string `json:"teacherId"`
}

// ResearchResponse is the answer of POST /api/research (seed 001 §3).
type ResearchResponse struct {
	SessionID string `json:"session_id"`
	Proposal  any    `json:"proposal"`
}

func (h *Research) handlePropose(w http.ResponseWriter, r *http.Request) error {
	var body ResearchRequest
	id, err := decodeCaller(w, r, h.auth, maxResearchBody, &body, &body.TeacherID)
	if err != nil {
		return err
	}
	if !i18n.ValidTag(body.Language) {
		return badLanguage()
	}
	sid, proposal, err := h.flow.Propose(r.Context(), id.TeacherID, body.Topic, body.Language)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ResearchResponse{SessionID: sid, Proposal: proposal})
	return nil
}

func (h *Research) handleStream(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id, err := h.auth.Authenticate(r)
	if err != nil {
		return err
	}
	sid := r.PathValue("id")
	if !validID(sid) {
		return apperr.New(apperr.EntityNotFound, "research session %q not found", sid)
	}
	after, err := resumePoint(r)
	if err != nil {
		return err
	}
	holder := uuid.NewString()
	started, err := h.flow.Attach(ctx, id.TeacherID, sid, holder, h.o.Lease)
	if err != nil {
		return err
	}
	defer func() {
		if err := h.flow.Detach(context.WithoutCancel(ctx), sid, holder); err != nil {
			h.rl.Logger.WarnContext(ctx, "could not release a research stream", "sessionId", sid, "err", err)
		}
	}()
	if started {
		in := workflow.NewResearchState(workflow.Research{SessionID: sid, TeacherID: id.TeacherID, TraceID: TraceID(ctx)})
		if err := h.starter.Start(context.WithoutCancel(ctx), sid, in); err != nil {
			h.rl.Logger.ErrorContext(ctx, "research workflow did not start", "sessionId", sid, "err", err)
			h.flow.Abandon(ctx, sid, false, "the workflow could not start: "+err.Error())
		} else {
			h.rl.Logger.InfoContext(ctx, "research started", "sessionId", sid, "teacherId", id.TeacherID)
		}
	}
	return h.relay(w, r, sid, holder, after)
}

// relay writes the run's events after seq until the closing one, through
// the edge's one relay, renewing the stream's lease as it writes (events
// and heartbeats alike). A client that goes away only ends the relay; the
// run goes on.
func (h *Research) relay(w http.ResponseWriter, r *http.Request, sid, holder string, after int64) error {
	lw := &leaseWriter{ResponseWriter: w, renewed: h.o.Now(), renew: func() error {
		return h.flow.Renew(r.Context(), sid, holder, h.o.Lease)
	}, every: h.rl.Heartbeat, now: h.o.Now}
	return h.rl.relay(r.Context(), lw, stream{header: func(hd http.Header) { hd.Set("X-Research-Session", sid) },
		key: h.flow.Stream(sid), kind: "research", id: sid, maxWait: h.o.MaxWait,
		abandon: func(ctx context.Context) { h.flow.Abandon(ctx, sid, true, "no event within the wait bound") }}, after)
}

// leaseWriter renews a stream's lease at most every heartbeat as the relay
// writes; a lost lease (another stream took the session after this one was
// presumed dead) ends the relay.
type leaseWriter struct {
	http.ResponseWriter
	renew   func() error
	renewed time.Time
	every   time.Duration
	now     func() time.Time
}

func (w *leaseWriter) Write(b []byte) (int, error) {
	if now := w.now(); now.Sub(w.renewed) >= w.every {
		if err := w.renew(); err != nil {
			return 0, err
		}
		w.renewed = now
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer's Flush.
func (w *leaseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
