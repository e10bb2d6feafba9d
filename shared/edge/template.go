package edge

import (
	"context"
	"net/http"
	"time"
)

// TemplateOwner checks that a template-report session (seed 002) is the
// teacher's; it answers an *apperr.Error (ENTITY_NOT_FOUND) when it is not.
type TemplateOwner interface {
	Owns(ctx context.Context, teacherID, sessionID string) error
}

// TemplateStreamOptions configure NewTemplateStream.
type TemplateStreamOptions struct {
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
	rl     *Relay
	auth   Authenticator
	owner  TemplateOwner
	o      TemplateStreamOptions
	handle http.Handler
}

// NewTemplateStream returns the handler. An EventSource cannot set headers:
// its token comes as ?access_token= (QueryToken).
func NewTemplateStream(rl *Relay, a Authenticator, owner TemplateOwner, o TemplateStreamOptions) *TemplateStream {
	if o.MaxIdle <= 0 {
		o.MaxIdle = 24 * time.Hour
	}
	t := &TemplateStream{rl: rl, auth: QueryToken{a}, owner: owner, o: o}
	t.handle = Handle(rl.Logger, t.serve)
	return t
}

// ServeHTTP implements http.Handler.
func (t *TemplateStream) ServeHTTP(w http.ResponseWriter, r *http.Request) { t.handle.ServeHTTP(w, r) }

func (t *TemplateStream) serve(w http.ResponseWriter, r *http.Request) error {
	sid, after, err := ownedStream(r, t.auth, t.owner.Owns)
	if err != nil {
		return err
	}
	return t.rl.relay(r.Context(), w, stream{key: t.o.Stream(sid), kind: "template", id: sid, maxWait: t.o.MaxIdle}, after)
}
