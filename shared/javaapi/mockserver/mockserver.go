// Package mockserver answers like the Java data service, from a
// mockdata.Dataset: the seed's paths (plus the extension paths), the
// Result<T> wrapper, teacher scoping (403 for another teacher's class), and
// fault switches for tests (5xx, latency, hangs, malformed bodies, business
// codes != 200).
//
// It lives under shared/ (not local/) because two things in shared/ need it:
// the client's tests, which run against it over real HTTP, and the client's
// USE_MOCK_DATA fallback, which calls Routes in process. local/javamock
// starts it as a server for local runs.
package mockserver

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/insightedge/insightedge/shared/clock"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
)

// Options configure a Server.
type Options struct {
	// Prefix and Paths are the routes (javaapi's defaults if empty: "/api"
	// and javaapi.DefaultPaths).
	Prefix string
	Paths  javaapi.Paths
	// Token, when set, must arrive as "Authorization: Bearer <Token>";
	// other requests get 401.
	Token string
	// RefreshToken, when set, is accepted at the refresh path (POST
	// {"refresh_token"}) for a new access token, which replaces Token.
	RefreshToken string
	// Logger receives one line per request; nil discards.
	Logger *slog.Logger
	// MaxHang bounds Fault.Hang (default 30 s), so no request waits forever.
	MaxHang time.Duration
}

// Fault changes the answers of the server until cleared. Latency applies
// first; then the first of Hang, Status, Body, Malformed, Code that is set.
type Fault struct {
	// Status answers with this HTTP status and an error Result (500, 503 ...).
	Status int
	// Code answers HTTP 200 with this Result code (!= 200) and Message.
	Code    int
	Message string
	// Malformed answers HTTP 200 with a body that is not JSON.
	Malformed bool
	// Body answers HTTP 200 with exactly these bytes.
	Body string
	// Latency delays every answer (bounded by the request's context);
	// Jitter adds a uniformly random extra delay in [0, Jitter).
	Latency time.Duration
	Jitter  time.Duration
	// Hang never answers: the request waits until the client gives up
	// (bounded by Options.MaxHang).
	Hang bool
	// Times applies the fault to the next Times requests only (0: until
	// cleared).
	Times int
	// Path limits the fault to request paths containing it (empty: all).
	Path string
}

// Request is what the server recorded of one request.
type Request struct {
	Method        string
	Path          string
	Query         string
	TraceID       string
	Authorization string
}

// maxRecorded bounds the request log.
const maxRecorded = 256

// Server is the mock service; it is an http.Handler. Its methods are safe
// for concurrent use.
type Server struct {
	routes  func() http.Handler // made on the first request (NewLazy)
	refresh string              // the refresh route, prefix + Paths.Refresh
	rtoken  string
	token   string
	log     *slog.Logger
	maxHang time.Duration

	mu          sync.Mutex
	fault       *Fault
	remaining   int
	recorded    []Request
	count       int
	refreshes   int
	inFlight    int
	maxInFlight int
}

// New returns a server over data.
func New(data *mockdata.Dataset, opts Options) *Server {
	return NewLazy(func() *mockdata.Dataset { return data }, opts)
}

// NewLazy returns a server over the data set load makes, which it calls
// once, on the first request: making the data set is most of the work of
// the local run's start-up, and its first answer needs no data.
func NewLazy(load func() *mockdata.Dataset, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Prefix == "" {
		opts.Prefix = javaapi.DefaultConfig().Prefix
	}
	if opts.MaxHang <= 0 {
		opts.MaxHang = 30 * time.Second
	}
	if opts.Paths == (javaapi.Paths{}) {
		opts.Paths = javaapi.DefaultPaths()
	}
	return &Server{
		refresh: javaapi.NormalizePrefix(opts.Prefix) + opts.Paths.Refresh,
		rtoken:  opts.RefreshToken,
		routes:  sync.OnceValue(func() http.Handler { return Routes(load(), opts.Prefix, opts.Paths) }),
		token:   opts.Token,
		log:     opts.Logger.With(slog.String("component", "javamock")),
		maxHang: opts.MaxHang,
	}
}

// Fallback returns the in-process handler the client falls back to (and
// serves USE_MOCK_DATA from), over the default data set and cfg's routes.
// The data set is made on the handler's first request: most processes never
// fall back, and a cold start should not pay for it.
func Fallback(cfg javaapi.Config) http.Handler {
	routes := sync.OnceValue(func() http.Handler { return Routes(mockdata.Default(), cfg.Prefix, cfg.Paths) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { routes().ServeHTTP(w, r) })
}

// SetFault makes every following answer faulty as f says.
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault, s.remaining = &f, f.Times
}

// ClearFault restores normal answers.
func (s *Server) ClearFault() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = nil
}

// Fault returns the fault in force, if any.
func (s *Server) Fault() (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fault == nil {
		return Fault{}, false
	}
	return *s.fault, true
}

// HealthPath answers {"status":"UP"} with no teacher in it, as Spring
// Boot's actuator does: the path to set as JAVA_API_HEALTH_PATH (issue 28).
const HealthPath = "/actuator/health"

// Requests returns the last requests received (at most 256), oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.recorded...)
}

// RequestCount returns how many requests the server has received.
func (s *Server) RequestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// MaxInFlight returns the most requests the server has served at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// begin records r and returns the fault that applies to it.
func (s *Server) begin(r *http.Request) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	if len(s.recorded) == maxRecorded {
		s.recorded = append(s.recorded[:0], s.recorded[1:]...)
	}
	s.recorded = append(s.recorded, Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		TraceID: r.Header.Get("X-Trace-ID"), Authorization: r.Header.Get("Authorization"),
	})
	f := s.fault
	if f == nil || (f.Path != "" && !strings.Contains(r.URL.Path, f.Path)) {
		return Fault{}, false
	}
	if f.Times > 0 {
		s.remaining--
		if s.remaining <= 0 {
			s.fault = nil
		}
	}
	return *f, true
}

func (s *Server) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, faulty := s.begin(r)
	defer s.end()
	start := time.Now()
	defer func() {
		s.log.LogAttrs(r.Context(), slog.LevelDebug, "mock request", slog.String("path", r.URL.Path),
			slog.String("traceId", r.Header.Get("X-Trace-ID")), slog.Int64("durationMs", time.Since(start).Milliseconds()))
	}()
	if faulty && (f.Latency > 0 || f.Jitter > 0) {
		d := f.Latency
		if f.Jitter > 0 {
			d += rand.N(f.Jitter)
		}
		if clock.Sleep(r.Context(), d) != nil {
			return
		}
	}
	if faulty {
		switch {
		case f.Hang:
			clock.Sleep(r.Context(), s.maxHang)
			return
		case f.Status != 0:
			writeResult(w, f.Status, f.Status, cmpOr(f.Message, http.StatusText(f.Status)), nil)
			return
		case f.Body != "":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(f.Body))
			return
		case f.Malformed:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"code":200,"message":"success","data":[{"uid":`))
			return
		case f.Code != 0:
			writeResult(w, http.StatusOK, f.Code, cmpOr(f.Message, "business error"), nil)
			return
		}
	}
	if r.Method == http.MethodPost && r.URL.Path == s.refresh {
		s.refreshToken(w, r)
		return
	}
	if tok := s.Token(); tok != "" && r.Header.Get("Authorization") != "Bearer "+tok {
		writeResult(w, http.StatusUnauthorized, http.StatusUnauthorized, "Unauthorized: invalid bearer token", nil)
		return
	}
	s.routes().ServeHTTP(w, r)
}

// SetToken replaces the access token the server accepts (an expired or
// rotated token, for tests).
func (s *Server) SetToken(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = tok
}

// Token returns the access token the server accepts.
func (s *Server) Token() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token
}

// refreshToken answers the refresh route: a new access token for the
// configured refresh token, 401 for any other.
func (s *Server) refreshToken(w http.ResponseWriter, r *http.Request) {
	var in struct {
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&in); err != nil || s.rtoken == "" || in.RefreshToken != s.rtoken {
		writeResult(w, http.StatusUnauthorized, http.StatusUnauthorized, "Unauthorized: invalid refresh token", nil)
		return
	}
	s.mu.Lock()
	s.refreshes++
	tok := fmt.Sprintf("refreshed-%d", s.refreshes)
	s.token = tok
	s.mu.Unlock()
	writeResult(w, http.StatusOK, 200, "success", map[string]string{"access_token": tok})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Routes returns the plain mock service (no faults, no token check) over
// data at prefix and paths.
func Routes(data *mockdata.Dataset, prefix string, paths javaapi.Paths) http.Handler {
	if paths == (javaapi.Paths{}) {
		paths = javaapi.DefaultPaths()
	}
	prefix = javaapi.NormalizePrefix(prefix)
	rt := &router{d: data}
	mux := http.NewServeMux()
	handle := func(tmpl string, h http.HandlerFunc) { mux.Handle("GET "+prefix+tmpl, h) }
	handle(paths.Classes, rt.classes)
	handle(paths.Class, rt.class)
	handle(paths.ClassAssignments, rt.classAssignments)
	handle(paths.AssignmentSubmissions, rt.assignmentSubmissions)
	handle(paths.StudentSubmissions, rt.studentSubmissions)
	handle(paths.Documents, rt.documents)
	handle(paths.Rubrics, rt.rubrics)
	handle(paths.Rubric, rt.rubric)
	handle(paths.ErrorPatterns, rt.errorPatterns)
	mux.HandleFunc("GET "+HealthPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"UP"}`))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeResult(w, http.StatusNotFound, http.StatusNotFound, "No endpoint "+r.URL.Path, nil)
	})
	return mux
}

type router struct{ d *mockdata.Dataset }

// errAnswer is an error the service answers with a status.
type errAnswer struct {
	status int
	msg    string
}

func (e *errAnswer) Error() string { return e.msg }

func (rt *router) ownClass(teacherID, classID string) (mockdata.Class, error) {
	c, ok := rt.d.Class(classID)
	switch {
	case !ok:
		return c, &errAnswer{http.StatusNotFound, "Class not found: " + classID}
	case c.TeacherID != teacherID:
		return c, &errAnswer{http.StatusForbidden, fmt.Sprintf("Forbidden: class %s does not belong to teacher %s", classID, teacherID)}
	}
	return c, nil
}

func (rt *router) ownStudent(teacherID, studentID string) (mockdata.Student, error) {
	st, ok := rt.d.Student(studentID)
	if !ok {
		return st, &errAnswer{http.StatusNotFound, "Student not found: " + studentID}
	}
	if _, err := rt.ownClass(teacherID, st.ClassID); err != nil {
		return st, &errAnswer{http.StatusForbidden, fmt.Sprintf("Forbidden: student %s is not in a class of teacher %s", studentID, teacherID)}
	}
	return st, nil
}

func (rt *router) classes(w http.ResponseWriter, r *http.Request) {
	ok(w, rt.d.ClassesOf(r.PathValue("teacherId")))
}

func (rt *router) class(w http.ResponseWriter, r *http.Request) {
	c, err := rt.ownClass(r.PathValue("teacherId"), r.PathValue("classId"))
	if err != nil {
		fail(w, err)
		return
	}
	ok(w, struct {
		mockdata.Class
		Students []mockdata.Student `json:"students"`
	}{c, rt.d.StudentsOf(c.UID)})
}

func (rt *router) classAssignments(w http.ResponseWriter, r *http.Request) {
	c, err := rt.ownClass(r.PathValue("teacherId"), r.PathValue("classId"))
	if err != nil {
		fail(w, err)
		return
	}
	ok(w, rt.d.AssignmentsOf(c.UID))
}

func (rt *router) assignmentSubmissions(w http.ResponseWriter, r *http.Request) {
	a, found := rt.d.Assignment(r.PathValue("assignmentId"))
	if !found {
		fail(w, &errAnswer{http.StatusNotFound, "Assignment not found: " + r.PathValue("assignmentId")})
		return
	}
	if _, err := rt.ownClass(r.PathValue("teacherId"), a.ClassID); err != nil {
		fail(w, &errAnswer{http.StatusForbidden, "Forbidden: assignment " + a.UID + " is not in a class of this teacher"})
		return
	}
	ok(w, struct {
		UID         string                `json:"uid"`
		Title       string                `json:"title"`
		MaxScore    float64               `json:"max_score"`
		ClassID     string                `json:"class_id"`
		Submissions []mockdata.Submission `json:"submissions"`
	}{a.UID, a.Title, a.MaxScore, a.ClassID, rt.d.SubmissionsOf(a.UID)})
}

func (rt *router) studentSubmissions(w http.ResponseWriter, r *http.Request) {
	st, err := rt.ownStudent(r.PathValue("teacherId"), r.PathValue("studentId"))
	if err != nil {
		fail(w, err)
		return
	}
	ok(w, struct {
		StudentID   string                `json:"student_id"`
		StudentName string                `json:"student_name"`
		Submissions []mockdata.Submission `json:"submissions"`
	}{st.UID, st.Name, rt.d.SubmissionsBy(st.UID)})
}

func (rt *router) documents(w http.ResponseWriter, r *http.Request) {
	ok(w, rt.d.SearchDocuments(r.PathValue("teacherId"), r.URL.Query().Get("q")))
}

func (rt *router) rubrics(w http.ResponseWriter, r *http.Request) {
	type summary struct {
		UID     string `json:"uid"`
		Title   string `json:"title"`
		Subject string `json:"subject"`
	}
	out := []summary{}
	for _, rb := range rt.d.Rubrics {
		out = append(out, summary{rb.UID, rb.Title, rb.Subject})
	}
	ok(w, out)
}

func (rt *router) rubric(w http.ResponseWriter, r *http.Request) {
	rb, found := rt.d.Rubric(r.PathValue("rubricId"))
	if !found {
		fail(w, &errAnswer{http.StatusNotFound, "Rubric not found: " + r.PathValue("rubricId")})
		return
	}
	ok(w, rb)
}

func (rt *router) errorPatterns(w http.ResponseWriter, r *http.Request) {
	st, err := rt.ownStudent(r.PathValue("teacherId"), r.PathValue("studentId"))
	if err != nil {
		fail(w, err)
		return
	}
	ok(w, rt.d.ErrorPatternsOf(st.UID))
}

func ok(w http.ResponseWriter, data any) { writeResult(w, http.StatusOK, 200, "success", data) }

func fail(w http.ResponseWriter, err error) {
	e, isAnswer := err.(*errAnswer)
	if !isAnswer {
		e = &errAnswer{http.StatusInternalServerError, err.Error()}
	}
	writeResult(w, e.status, e.status, e.msg, nil)
}

// writeResult writes Result<T> (seed 004 §2.3).
func writeResult(w http.ResponseWriter, status, code int, msg string, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Code      int    `json:"code"`
		Message   string `json:"message"`
		Data      any    `json:"data"`
		Timestamp string `json:"timestamp"`
	}{code, msg, data, time.Now().Format("2006-01-02T15:04:05")})
}
