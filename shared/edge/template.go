package edge

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// TemplateOwner checks that a template-report session (seed 002) is the
// teacher's; it answers an *apperr.Error (ENTITY_NOT_FOUND) when it is not.
type TemplateOwner interface {
	Owns(ctx context.Context, teacherID, sessionID string) error
}

// TemplateStreamOptions configure NewTemplateStream.
type TemplateStreamOptions struct {
	Logger           *slog.Logger
	Heartbeat        time.Duration
	PollMin, PollMax time.Duration
	// MaxIdle ends the stream after this long without an event (default 24h).
	MaxIdle time.Duration
	// Stream is a session's stream name in the event log.
	Stream func(sessionID string) string
}

// TemplateStream serves GET /api/template/sessions/{id}/stream (PROTOCOL.md
// §4): the session's envelopes as SSE through the one relay, each with its
// seq as id, resumable with Last-Event-ID or ?after=. A session is long-lived
// (one run after another), so its stream has no closing event: it ends when
// the client leaves or after MaxIdle without an event.
type TemplateStream struct {
	relay  relayer
	auth   Authenticator
	owner  TemplateOwner
	o      TemplateStreamOptions
	handle http.Handler
}

// NewTemplateStream returns the handler.
func NewTemplateStream(log eventlog.Reader, a Authenticator, owner TemplateOwner, o TemplateStreamOptions) *TemplateStream {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.MaxIdle <= 0 {
		o.MaxIdle = 24 * time.Hour
	}
	t := &TemplateStream{relay: relayer{log: log, logger: o.Logger, heartbeat: o.Heartbeat, pollMin: o.PollMin, pollMax: o.PollMax},
		auth: a, owner: owner, o: o}
	t.handle = handle(o.Logger, t.serve)
	return t
}

// ServeHTTP implements http.Handler.
func (t *TemplateStream) ServeHTTP(w http.ResponseWriter, r *http.Request) { t.handle.ServeHTTP(w, r) }

func (t *TemplateStream) serve(w http.ResponseWriter, r *http.Request) error {
	if tok := r.URL.Query().Get("access_token"); tok != "" && r.Header.Get("Authorization") == "" {
		r.Header.Set("Authorization", "Bearer "+tok) // EventSource cannot set headers
	}
	id, err := t.auth.Authenticate(r)
	if err != nil {
		return err
	}
	sid := r.PathValue("id")
	if err := t.owner.Owns(r.Context(), id.TeacherID, sid); err != nil {
		return err
	}
	after, err := resumePoint(r)
	if err != nil {
		return err
	}
	return t.relay.relay(r.Context(), w, stream{key: t.o.Stream(sid), kind: "template", id: sid, maxWait: t.o.MaxIdle}, after)
}
