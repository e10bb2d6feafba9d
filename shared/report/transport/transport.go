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
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/control"
)

// Authenticator identifies the caller of a request.
type Authenticator interface {
	Authenticate(r *http.Request) (auth.Identity, error)
}

// Options configure a Server.
type Options struct {
	// Heartbeat is the period of system.heartbeat on a socket and of
	// ": ping" on an SSE stream (default 15s).
	Heartbeat time.Duration
	// MaxIdle ends a relay after this long without an event (default 24h).
	MaxIdle time.Duration
	// SendBuffer is how many frames a socket may fall behind before it is
	// closed as too slow (default 1024).
	SendBuffer int
	// MaxSessions bounds the sessions of one socket (default 32).
	MaxSessions int
	Logger      *slog.Logger
}

// Server serves both transports.
type Server struct {
	svc    *control.Service
	log    eventlog.Reader
	auth   Authenticator
	o      Options
	active atomic.Int64 // open sockets' sessions, for the heartbeat

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

// New returns a server.
func New(svc *control.Service, log eventlog.Reader, a Authenticator, o Options) *Server {
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.MaxIdle <= 0 {
		o.MaxIdle = 24 * time.Hour
	}
	if o.SendBuffer <= 0 {
		o.SendBuffer = 1024
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 32
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{svc: svc, log: log, auth: a, o: o, conns: map[*wsConn]context.CancelFunc{}}
}

// Mount registers the routes.
func (s *Server) Mount(mux *http.ServeMux) {
	mux.Handle("GET /ws/template", http.HandlerFunc(s.ServeWS))
	mux.Handle("POST /api/template/sessions", s.recover(s.createSession))
	mux.Handle("GET /api/template/sessions/{id}/stream", edge.NewTemplateStream(s.log, s.auth, owner{s.svc},
		edge.TemplateStreamOptions{Logger: s.o.Logger, Heartbeat: s.o.Heartbeat, MaxIdle: s.o.MaxIdle, Stream: report.StreamName}))
	mux.Handle("POST /api/template/sessions/{id}/events", s.recover(s.postEvent))
}

// Handler is the SSE + POST routes alone (no socket): what the AWS stream
// function serves.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /api/template/sessions", s.recover(s.createSession))
	mux.Handle("GET /api/template/sessions/{id}/stream", edge.NewTemplateStream(s.log, s.auth, owner{s.svc},
		edge.TemplateStreamOptions{Logger: s.o.Logger, Heartbeat: s.o.Heartbeat, MaxIdle: s.o.MaxIdle, Stream: report.StreamName}))
	mux.Handle("POST /api/template/sessions/{id}/events", s.recover(s.postEvent))
	return mux
}

// identity authenticates r; a browser's WebSocket cannot set headers, so a
// token may also come as ?access_token=.
func (s *Server) identity(r *http.Request) (auth.Identity, error) {
	if tok := r.URL.Query().Get("access_token"); tok != "" && r.Header.Get("Authorization") == "" {
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return s.auth.Authenticate(r)
}

// ErrorEvent turns an error into agent.error (both transports answer the
// caller's errors with it).
func ErrorEvent(err error) report.Error {
	e := apperr.As(err)
	return report.Error{Message: e.Message, Code: string(e.Code)}
}

func (s *Server) recover(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &startedWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.o.Logger.Error("template handler panicked", "panic", v, "path", r.URL.Path)
				if !sw.started {
					writeError(sw, apperr.New(apperr.Internal, "internal error"))
				}
			}
		}()
		if err := h(sw, r); err != nil {
			if !sw.started {
				e := apperr.As(err)
				if e.Code == apperr.Internal {
					s.o.Logger.Error("template request failed", "err", err, "path", r.URL.Path)
				}
				writeError(sw, e)
				return
			}
			if !errors.Is(err, context.Canceled) {
				s.o.Logger.Warn("template stream ended", "err", err, "path", r.URL.Path)
			}
		}
	})
}

type startedWriter struct {
	http.ResponseWriter
	started bool
}

func (w *startedWriter) WriteHeader(code int) { w.started = true; w.ResponseWriter.WriteHeader(code) }
func (w *startedWriter) Write(b []byte) (int, error) {
	w.started = true
	return w.ResponseWriter.Write(b)
}
func (w *startedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func writeError(w http.ResponseWriter, e *apperr.Error) {
	writeJSON(w, e.HTTPStatus(), e.ToBody())
}

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
