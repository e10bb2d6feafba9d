// Package edge is the HTTP face of the product: the SSE relay that tails the
// event log, and the JSON routes. The same handler runs under net/http
// locally and under the Lambda Function URL (lambdaurl) in AWS; it needs no
// http.Flusher.
//
// The routes come in groups (Server: the conversation; Pages and Apps: the
// Build runtime; Research; TemplateStream and the template report's routes
// in report/transport). Every group takes the one Relay (its streams, and
// the logger and heartbeat they share) and mounts its routes through
// Handle, the one route middleware (trace id, JSON errors, panics).
package edge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Authenticator turns a request into a teacher identity.
type Authenticator interface {
	Authenticate(r *http.Request) (auth.Identity, error)
}

// QueryToken is an Authenticator that also takes the bearer token from
// ?access_token= when the request has no Authorization header: a browser's
// EventSource and WebSocket cannot set headers. Only the routes such clients
// call use it.
type QueryToken struct{ Authenticator }

// Authenticate implements Authenticator.
func (q QueryToken) Authenticate(r *http.Request) (auth.Identity, error) {
	if tok := r.URL.Query().Get("access_token"); tok != "" && r.Header.Get("Authorization") == "" {
		r = r.Clone(r.Context()) // the caller's request stays as it came
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return q.Authenticator.Authenticate(r)
}

// Starter starts and stops conversation workflow executions: the in-process
// interpreter locally, Step Functions in AWS.
type Starter interface {
	Start(ctx context.Context, name string, input workflow.ConversationState) error
	Stop(ctx context.Context, name string) error
}

// Recoverer closes the work of an expired lease (recovery.Recoverer).
type Recoverer interface {
	IfDead(ctx context.Context, kind session.LeaseKind, id string) (bool, error)
}

// Check is a named dependency check for /api/health.
type Check struct {
	Name  string
	Check func(ctx context.Context) error
}

// Options configure a Server.
type Options struct {
	// Relay relays the turns' streams and holds the logger and heartbeat
	// every route group shares (nil: NewRelay(log, RelayOptions{})).
	Relay *Relay
	// TurnTimeout bounds the wait for a turn's next event; past it the edge
	// closes the turn with an error (10 min).
	TurnTimeout time.Duration
	// ReplayWindow is how long after a turn ended a resume without a
	// cursor still replays it (60 s): the reload rule of docs/reliability.md.
	ReplayWindow time.Duration
	// SessionTTL sets Session.ExpiresAt (30 days).
	SessionTTL time.Duration
	// ChatMode is the mode of a request that names none (natural).
	ChatMode workflow.ChatMode
	// Tools are the data tools a follow-up's blueprint may call (nil: not
	// checked), as for /api/page/generate.
	Tools  []string
	Checks []Check
	// Files signs the generated files' links again (/messages and
	// /api/files/) and revokes them; nil leaves links as they were stored.
	Files FileSigner
	// FileLinkTTL is the life of a link signed again (DefaultFileLinkTTL).
	FileLinkTTL time.Duration
	// Leases, when set, gets a lease for every turn begun (its steps renew
	// it); Recover then closes a turn whose lease ran out when a client
	// meets it, so that a crash never blocks a conversation.
	Leases  session.Leases
	Recover Recoverer
	// Limits admits each turn (issue 26: fair use; nil: no limits).
	Limits Limiter
	Now    func() time.Time
	NewID  func(prefix string) string

	// QuizExport serves POST /api/quiz/export (issue 31); nil answers 503.
	QuizExport QuizExporter
}

// DefaultReplayWindow is Options.ReplayWindow's default: far longer than
// the moment between a reloaded page's GET /messages and its resume.
const DefaultReplayWindow = time.Minute

// Server serves the conversation API.
type Server struct {
	store   session.Store
	log     eventlog.Log
	starter Starter
	auth    Authenticator
	rl      *Relay
	o       Options
	ready   atomic.Bool
}

// New returns a Server; it answers /api/health with 503 until SetReady.
func New(store session.Store, log eventlog.Log, st Starter, au Authenticator, o Options) *Server {
	rl := o.Relay
	if rl == nil {
		rl = NewRelay(log, RelayOptions{})
	}
	if o.TurnTimeout <= 0 {
		o.TurnTimeout = 10 * time.Minute
	}
	if o.ReplayWindow <= 0 {
		o.ReplayWindow = DefaultReplayWindow
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = 30 * 24 * time.Hour
	}
	if o.FileLinkTTL <= 0 {
		o.FileLinkTTL = DefaultFileLinkTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.ChatMode = o.ChatMode.Or(workflow.ModeNatural)
	if o.NewID == nil {
		o.NewID = func(p string) string { return p + "-" + uuid.Must(uuid.NewV7()).String() }
	}
	return &Server{store: store, log: log, starter: st, auth: au, rl: rl, o: o}
}

// SetReady marks the server ready for /api/health.
func (s *Server) SetReady(v bool) { s.ready.Store(v) }

// Mount registers the routes on mux.
func (s *Server) Mount(mux *http.ServeMux) {
	Mount(mux, s.rl.Logger, map[string]HandlerFunc{
		"POST /api/conversation/stream":       s.handleStream,
		"POST /api/conversation":              s.handleJSON,
		"GET /api/conversation/{id}/stream":   s.handleResume,
		"POST /api/conversation/{id}/stop":    s.handleStop,
		"GET /api/conversation/{id}/messages": s.handleMessages,
		"GET /api/health":                     s.handleHealth,
		"GET /api/files/{key...}":             s.handleFileLink,
		"DELETE /api/files/{key...}":          s.handleFileRevoke,
		"POST /api/quiz/export":               s.handleQuizExport,
		"/api/":                               noRoute,
	})
}

// noRoute answers a path below /api/ that no route serves.
func noRoute(w http.ResponseWriter, r *http.Request) error {
	return apperr.New(apperr.EntityNotFound, "no route %s %s", r.Method, r.URL.Path)
}

// Handler returns a handler with every route.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.Mount(mux)
	return mux
}

type traceKey struct{}

// TraceID returns the request's trace id.
func TraceID(ctx context.Context) string {
	s, _ := ctx.Value(traceKey{}).(string)
	return s
}

// HandlerFunc is a route's handler. The error it returns is answered by
// Handle.
type HandlerFunc func(http.ResponseWriter, *http.Request) error

// Mount registers a route group's routes on mux, each through Handle.
func Mount(mux *http.ServeMux, log *slog.Logger, routes map[string]HandlerFunc) {
	for pattern, h := range routes {
		mux.Handle(pattern, Handle(log, h))
	}
}

// Handle is the one middleware of every route of every group (the edge's
// and the template report's): a trace id (X-Trace-ID, kept when the client's
// is sane), a JSON error body with its seed-004 code for a returned error,
// and a panic answered with a JSON 500 without a stack trace; once the
// response has started, an error or a panic is only logged. Every panic
// stops here, http.ErrAbortHandler's too: under lambdaurl a handler runs in
// a goroutine of its own, where a panic would end the process.
func Handle(log *slog.Logger, h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		trace := r.Header.Get("X-Trace-ID")
		if !validTraceID(trace) {
			trace = uuid.NewString() // never echo what the client wrote unchecked
		}
		w.Header().Set("X-Trace-ID", trace)
		ctx := context.WithValue(r.Context(), traceKey{}, trace)
		r = r.WithContext(ctx)
		rw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				log.ErrorContext(ctx, "panic in handler", "panic", fmt.Sprint(v), "path", r.URL.Path, "traceId", trace)
				if !rw.wrote {
					writeError(rw, apperr.New(apperr.Internal, "internal error"))
				}
			}
		}()
		if err := h(rw, r); err != nil {
			e := apperr.As(err)
			lvl := slog.LevelInfo
			if e.HTTPStatus() >= 500 {
				lvl = slog.LevelError
			}
			log.Log(ctx, lvl, "request failed", "path", r.URL.Path, "code", e.Code, "err", err, "traceId", trace)
			if !rw.wrote {
				writeError(rw, e)
			}
		}
	})
}

// validTraceID accepts 1–128 characters of letters, digits and "-_.:=;",
// which covers UUIDs, W3C trace ids and X-Ray ids.
func validTraceID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:=;", c)) {
			return false
		}
	}
	return true
}

// CleanPaths answers a request whose path is not clean ("..", ".", "//")
// with a JSON 400 before it reaches the mux, whose path cleaning would
// answer a text/html redirect. The same rule holds for every route,
// /files/ included.
func CleanPaths(log *slog.Logger, next http.Handler) http.Handler {
	bad := Handle(log, func(w http.ResponseWriter, r *http.Request) error {
		return apperr.New(apperr.ValidationError, "the path must not hold empty, '.' or '..' segments")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if r.URL.RawPath != "" {
			p = r.URL.RawPath // %2e%2e is a ".." too, once decoded by a proxy
		}
		if !cleanPath(r.URL.Path) || !cleanPath(p) {
			bad.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return p == "" || p == "*"
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	if c != p {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if low := strings.ToLower(seg); low == "%2e%2e" || low == "%2e" || low == ".%2e" || low == "%2e." {
			return false
		}
	}
	return true
}

func writeError(w http.ResponseWriter, e *apperr.Error) {
	setRetryAfter(w.Header(), e) // issue 26: a RATE_LIMITED answer
	writeJSON(w, e.HTTPStatus(), e.ToBody())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// statusWriter remembers whether the response has started.
type statusWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer's Flush.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// idleSession authenticates the caller and returns the conversation named
// by the path's {id}, if it is theirs. It serves the routes a page calls on
// any chat id it holds (resume, messages, stop): an id nobody owns yet, or another
// teacher's, is a conversation with nothing in it (ok false), answered as
// an idle one, so that a page opened on a new id starts clean and ids
// cannot be probed. An id that could never be a conversation's is a 400.
func (s *Server) idleSession(r *http.Request) (sess session.Session, ok bool, err error) {
	id, err := s.auth.Authenticate(r)
	if err != nil {
		return sess, false, err
	}
	sessionID := r.PathValue("id")
	if !validID(sessionID) {
		return sess, false, apperr.New(apperr.ValidationError, "a conversation id is 1–100 letters, digits, '-' or '_'")
	}
	sess, err = s.ownedSession(r.Context(), id, sessionID)
	if apperr.CodeOf(err) == apperr.EntityNotFound {
		return session.Session{ID: sessionID}, false, nil
	}
	return sess, err == nil, err
}

// ownedSession returns the session if it belongs to the caller. Another
// teacher's session is reported as not found, so ids cannot be probed.
func (s *Server) ownedSession(ctx context.Context, id auth.Identity, sessionID string) (session.Session, error) {
	sess, err := s.store.GetSession(ctx, sessionID)
	// A build is a session too (of another kind): its id is not a
	// conversation's, so the id spaces stay apart.
	if errors.Is(err, session.ErrNotFound) || (err == nil && (sess.TeacherID != id.TeacherID || !conversationKind(sess.Kind))) {
		return session.Session{}, apperr.New(apperr.EntityNotFound, "conversation %q not found", sessionID)
	}
	if err != nil {
		return session.Session{}, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	return sess, nil
}

// conversationKind reports whether a session of kind is a conversation
// (sessions stored before kinds were set have none).
func conversationKind(kind string) bool { return kind == "" || kind == conversationSessionKind }

// conversationSessionKind is the kind of a conversation's session.
const conversationSessionKind = "conversation"
