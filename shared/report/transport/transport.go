// Package transport carries seed 002's envelopes: over a WebSocket
// (ws://…/ws/template, and the seed's own listener) and, for clients that
// cannot hold a socket, over SSE with client events sent by POST
// (PROTOCOL.md §4). Either way, session events reach the client from the
// session's event log; the transport only relays, answers the caller's own
// errors, and sends heartbeats.
package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/control"
)

// Options configure a Server.
type Options struct {
	// MaxIdle ends a relay after this long without an event (default 24h).
	MaxIdle time.Duration
	// SendBuffer is how many frames a socket may fall behind before it is
	// closed as too slow (default 1024).
	SendBuffer int
	// MaxSessions bounds the sessions of one socket (default 32).
	MaxSessions int
	// Catalog serves GET /api/template/catalog (nil: 503).
	Catalog Catalog
}

// Server serves both transports. Its routes go through the edge's one
// route middleware (edge.Handle) and its streams through the edge's one
// relay; a socket's frames go through the Dispatcher that the AWS socket
// (package apigw) uses too. The relay's heartbeat is the period of
// system.heartbeat on a socket and of ": ping" on an SSE stream.
type Server struct {
	svc  *control.Service
	rl   *edge.Relay
	auth edge.Authenticator
	o    Options
	disp *Dispatcher

	mu     sync.Mutex
	conns  map[*wsConn]context.CancelFunc
	closed bool
	wg     sync.WaitGroup
}

// Shutdown closes every open socket (their sessions end as on a client's
// close) and waits for them, within ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	for _, cancel := range s.conns {
		cancel()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// track registers a socket; false once the server is shutting down.
func (s *Server) track(c *wsConn, cancel context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = cancel
	s.wg.Add(1)
	return true
}

func (s *Server) untrack(c *wsConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.wg.Done()
}

// New returns a server whose streams go through rl. Its routes take the
// token as ?access_token= too (edge.QueryToken): a browser's WebSocket and
// EventSource cannot set headers.
func New(svc *control.Service, rl *edge.Relay, a edge.Authenticator, o Options) *Server {
	if o.MaxIdle <= 0 {
		o.MaxIdle = 24 * time.Hour
	}
	if o.SendBuffer <= 0 {
		o.SendBuffer = 1024
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 32
	}
	return &Server{svc: svc, rl: rl, auth: edge.QueryToken{Authenticator: a}, o: o,
		disp: NewDispatcher(svc, rl.Logger), conns: map[*wsConn]context.CancelFunc{}}
}

// Mount registers the routes: the socket (GET /ws/template) and Handler's.
func (s *Server) Mount(mux *http.ServeMux) {
	mux.Handle("GET /ws/template", http.HandlerFunc(s.ServeWS))
	s.mountHTTP(mux)
}

// Handler is the SSE + POST routes alone (no socket): what the AWS stream
// function serves.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.mountHTTP(mux)
	return mux
}

func (s *Server) mountHTTP(mux *http.ServeMux) {
	edge.Mount(mux, s.rl.Logger, map[string]edge.HandlerFunc{
		"POST /api/template/sessions":             s.createSession,
		"POST /api/template/sessions/{id}/events": s.postEvent,
		"GET /api/template/catalog":               s.catalog,
	})
	mux.Handle("GET /api/template/sessions/{id}/stream", edge.NewTemplateStream(s.rl, s.auth, owner{s.svc},
		edge.TemplateStreamOptions{MaxIdle: s.o.MaxIdle, Stream: report.StreamName}))
}

// writeJSON writes a route's answer. Unlike the edge's error bodies it
// leaves <, > and & as they are: the answers carry the session's envelopes,
// byte for byte as the socket sends them.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// owner is the SSE stream's ownership check.
type owner struct{ svc *control.Service }

func (o owner) Owns(ctx context.Context, teacherID, sessionID string) error {
	_, err := o.svc.Session(ctx, control.Caller{TeacherID: teacherID}, sessionID)
	return err
}
