// Package offlinemodel is the offline stand-in model: an HTTP server that
// speaks the OpenAI chat-completions wire protocol (streaming, tools,
// tool_choice, JSON mode) and plays deterministic, plausible scenarios in
// Chinese and English, so that the whole product runs and is tested with no
// network and no key. The product talks to it with go-openai over real HTTP,
// exactly as it talks to a real model.
//
// It recognises the kind of call by the header line that starts the first
// system prompt (package prompts), one file per kind: router.go, agent.go,
// chat.go, quiz.go. The agent's content requests (decks, documents, PDFs,
// interactive pages) are in agent_content.go, with the teaching material they
// are written from in lessons.go; a follow-up reuses what an earlier turn
// made from the "Produced:" notes of the history summary. The tools it calls
// are the request's: a scenario names a tool as the product's package names
// it (tools.go), calls it only when the request offers it (answering in text
// otherwise), and writes its arguments from the schema the request gives
// (schema.go), scripting only what matters to the teacher. It reads the
// user's words with keyword heuristics; that is
// allowed here only, because this is a stand-in: the product itself never
// routes by keywords.
//
// Tests select misbehaviours (false promises, failing tools, throttling, cut
// streams, slow streams) with markers in the last user message; see
// misbehave.go.
//
// Same request, same response bytes: ids and tool-call ids are hashes of the
// request, fragment sizes are fixed, and nothing reads the clock.
package offlinemodel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Model names listed by GET /v1/models. Any model name is accepted.
const (
	ModelFast     = "offline-fast"
	ModelStandard = "offline-standard"
	ModelStrong   = "offline-strong"
)

// Kind is the kind of call, recognised by the first line of the first system
// message.
type Kind string

// Kinds of call.
const (
	KindRouter  Kind = "router"
	KindAgent   Kind = "agent"
	KindChat    Kind = "chat"
	KindQuiz    Kind = "quiz"
	KindUnknown Kind = "unknown"
)

const (
	maxBodyBytes  = 8 << 20
	maxRecords    = 10_000
	maxRemembered = 10_000 // request hashes remembered by the once-only misbehaviours
	// created is the fixed "created" time of every response, so that the same
	// request gives the same bytes (2026-01-01T00:00:00Z).
	created = 1767225600
)

// Options configures a Server.
type Options struct {
	// Logger receives one line per request; nil discards.
	Logger *slog.Logger
	// Delay is waited before each chunk of every stream (0: none). The
	// [[offline:slow]] marker raises it to 25ms for one request.
	Delay time.Duration
}

// Message is one message of a recorded request.
type Message struct {
	Role       string
	Content    string
	Name       string
	ToolCallID string
	ToolCalls  []ToolCall
	// Reasoning is a reasoning_content the client sent back (it should not).
	Reasoning string
}

// ToolCall is a tool call of a recorded request or reply.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Recorded is what the server saw of one chat-completions request and how it
// answered.
type Recorded struct {
	Kind       Kind
	Model      string
	Stream     bool
	JSONMode   bool
	Messages   []Message
	Tools      []string
	ToolChoice string // "auto", "required", "none" or "function:<name>"
	Markers    []Marker
	// Status is the HTTP status written.
	Status int
	// Content and ToolCalls are the reply (empty for an error status);
	// Reasoning its reasoning_content.
	Content   string
	Reasoning string
	ToolCalls []ToolCall
	// Cut is true when the server closed the stream on purpose
	// ([[offline:cut-stream]]).
	Cut bool
	// Cancelled is true when the request's context ended before the
	// response was complete (the client went away or stopped the turn).
	Cancelled bool
	// TraceID is the request's X-Trace-Id (llm.TraceHeader): the turn's
	// trace id, which a real provider ignores (issue 28).
	TraceID string
	// Speculative is true for a call started before its turn's route was
	// decided (llm.SpeculativeHeader), which the product may discard.
	Speculative bool
}

// Server is the stand-in model; it is an http.Handler.
type Server struct {
	log   *slog.Logger
	delay time.Duration
	mux   *http.ServeMux

	mu        sync.Mutex
	records   []*Recorded
	cancelled int
	throttled *onceSet
	cut       *onceSet
	failed    *onceSet // [[offline:solver-fails-once]]
	// hold is closed by Release ([[offline:hold]]).
	hold     chan struct{}
	holdOnce sync.Once
	// holding and released signal [[offline:hold-editor]]'s held requests.
	holding, released chan struct{}
}

// Release lets every stream held by [[offline:hold]] go on, now and
// later.
func (s *Server) Release() { s.holdOnce.Do(func() { close(s.hold) }) }

// New returns a Server.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		log:       log,
		delay:     opts.Delay,
		mux:       http.NewServeMux(),
		throttled: newOnceSet(maxRemembered),
		cut:       newOnceSet(maxRemembered),
		failed:    newOnceSet(maxRemembered),
		hold:      make(chan struct{}),
		holding:   make(chan struct{}, 16),
		released:  make(chan struct{}, 16),
	}
	// Clients are configured with a base URL ending in /v1; the bare paths
	// are accepted as well for clients configured without it.
	for _, prefix := range []string{"/v1", ""} {
		s.mux.HandleFunc("POST "+prefix+"/chat/completions", s.handleChat)
		s.mux.HandleFunc("GET "+prefix+"/models", s.handleModels)
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", fmt.Sprintf("unknown endpoint %s %s", r.Method, r.URL.Path))
	})
	return s
}

// ServeHTTP serves the OpenAI endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Start serves s on addr, a loopback address ("127.0.0.1:0" picks a port),
// until shutdown is called or ctx ends. baseURL ends in /v1, ready for an
// OpenAI client's base URL.
func (s *Server) Start(ctx context.Context, addr string) (baseURL string, shutdown func(context.Context) error, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, fmt.Errorf("offlinemodel: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", nil, fmt.Errorf("offlinemodel: address %q is not a loopback address", addr)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("offlinemodel: listen: %w", err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("offline model server stopped", "err", err)
		}
	}()
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	shutdown = func(sctx context.Context) error {
		stop()
		return srv.Shutdown(sctx)
	}
	return "http://" + ln.Addr().String() + "/v1", shutdown, nil
}

// Requests returns the chat-completions requests seen since the start or the
// last Reset, oldest first (the most recent 10,000).
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Recorded, len(s.records))
	for i, r := range s.records {
		out[i] = *r
	}
	return out
}

// Cancelled returns the number of requests whose context ended before their
// response was complete.
func (s *Server) Cancelled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

// Reset forgets the recorded requests, the cancellation count and the
// requests already throttled or cut.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = nil
	s.cancelled = 0
	s.throttled.reset()
	s.cut.reset()
	s.failed.reset()
}

// record keeps rec and returns it for settle. It is called before the
// response's last bytes are written, so that a client that has its answer
// finds the request recorded.
func (s *Server) record(rec Recorded) *Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.records) >= maxRecords {
		s.records = append(s.records[:0], s.records[1:]...)
	}
	p := &rec
	s.records = append(s.records, p)
	return p
}

// settle notes how a recorded response ended.
func (s *Server) settle(rec *Recorded, cut, cancelled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Cut, rec.Cancelled = cut, cancelled
	if cancelled {
		s.cancelled++
	}
}

// holdBound bounds a held answer ([[offline:hold-editor]]).
const holdBound = 2 * time.Minute

// holdEditor keeps a request until its client gives up (or holdBound), and
// signals both ends on Holding and Released (never blocking: a signal no
// test reads is dropped).
func (s *Server) holdEditor(ctx context.Context) {
	signal(s.holding)
	t := time.NewTimer(holdBound)
	defer t.Stop()
	select {
	case <-ctx.Done():
		signal(s.released)
	case <-t.C:
	}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Holding receives once for each request [[offline:hold-editor]] starts to
// hold.
func (s *Server) Holding() <-chan struct{} { return s.holding }

// Released receives once for each held request whose client went away
// (the run that made it was stopped).
func (s *Server) Released() <-chan struct{} { return s.released }

// firstTime reports whether set has not seen h yet, and remembers it.
func (s *Server) firstTime(set *onceSet, h [32]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return set.first(h)
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	list := modelList{Object: "list"}
	for _, id := range []string{ModelFast, ModelStandard, ModelStrong} {
		list.Data = append(list.Data, modelInfo{ID: id, Object: "model", Created: created, OwnedBy: "offline-stand-in"})
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "could not read the request body: "+err.Error())
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "the request body is not valid JSON: "+err.Error())
		return
	}
	if len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "'messages' must be a non-empty array")
		return
	}
	choice, err := parseToolChoice(req.ToolChoice, req.Tools)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	c := newCall(&req, choice)
	rec := Recorded{
		Kind: c.kind, Model: req.Model, Stream: req.Stream, JSONMode: c.jsonMode,
		Messages: recordMessages(req.Messages), Tools: c.toolNames(), ToolChoice: choice.String(),
		Markers: c.markerList(), TraceID: r.Header.Get("X-Trace-Id"), Speculative: r.Header.Get("X-Speculative") != "",
	}
	var cut, cancelled bool
	defer func() {
		s.log.Info("offline model request", "kind", rec.Kind, "model", rec.Model, "stream", rec.Stream,
			"status", rec.Status, "toolCalls", len(rec.ToolCalls), "cut", cut, "cancelled", cancelled,
			"ms", time.Since(start).Milliseconds(), "traceId", rec.TraceID)
	}()

	bodyHash := sha256.Sum256(body)
	if c.has(MarkerThrottle) && s.firstTime(s.throttled, bodyHash) {
		rec.Status = http.StatusTooManyRequests
		s.record(rec)
		w.Header().Set("Retry-After", "0")
		writeError(w, http.StatusTooManyRequests, "rate_limit_error",
			"Rate limit reached for the offline stand-in model; retry the same request.")
		return
	}

	if c.kind == KindReportSolver && strings.Contains(firstUserRaw(c), string(MarkerSolverFailsOnce)) {
		c.firstAttempt = s.firstTime(s.failed, bodyHash)
	}
	rep := respond(c)
	meta := responseMeta{
		id:      "chatcmpl-" + hex.EncodeToString(bodyHash[:12]),
		model:   req.Model,
		usage:   countUsage(req.Messages, rep),
		callIDs: rep.callIDs(c.conversationHash()),
	}
	rec.Content, rec.Reasoning = rep.content, rep.reasoning
	for i, tc := range rep.toolCalls {
		rec.ToolCalls = append(rec.ToolCalls, ToolCall{ID: meta.callIDs[i], Name: tc.name, Arguments: tc.args})
	}
	rec.Status = http.StatusOK
	recorded := s.record(rec)
	if c.kind == KindReportEditor && c.has(MarkerHoldEditor) {
		s.holdEditor(r.Context())
	}
	if !req.Stream {
		if c.has(MarkerSlow) {
			select {
			case <-time.After(slowAnswer):
			case <-r.Context().Done():
			}
		}
		cancelled = r.Context().Err() != nil
		s.settle(recorded, false, cancelled)
		writeJSON(w, http.StatusOK, meta.completion(rep))
		return
	}

	opts := streamOptions{
		includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
		delay:        s.delay,
	}
	if c.has(MarkerSlow) {
		opts.delay = slowDelay
	}
	if c.has(MarkerHold) && (c.kind == KindAgent || c.kind == KindChat) {
		opts.hold = s.hold
	}
	opts.cut = c.kind == KindAgent && c.has(MarkerCutStream) && rep.calls(finalResultTool) &&
		s.firstTime(s.cut, bodyHash)
	outcome := writeStream(r.Context(), w, meta, rep, opts)
	cut, cancelled = outcome == streamCut, outcome == streamCancelled
	s.settle(recorded, cut, cancelled)
	if cut {
		// Close the connection without the terminating chunk: the client
		// sees an unexpected EOF, as when a real provider drops a stream.
		panic(http.ErrAbortHandler)
	}
}

func recordMessages(ms []wireMessage) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = Message{Role: m.Role, Content: string(m.Content), Name: m.Name, ToolCallID: m.ToolCallID, Reasoning: m.ReasoningContent}
		for _, tc := range m.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // only our own response structs get here
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, apiError{Error: apiErrorBody{Message: msg, Type: typ}})
}

// onceSet remembers up to limit hashes, forgetting the oldest first.
type onceSet struct {
	limit int
	seen  map[[32]byte]struct{}
	order [][32]byte
}

func newOnceSet(limit int) *onceSet {
	return &onceSet{limit: limit, seen: map[[32]byte]struct{}{}}
}

func (o *onceSet) reset() {
	clear(o.seen)
	o.order = nil
}

// first reports whether h is new, and remembers it.
func (o *onceSet) first(h [32]byte) bool {
	if _, ok := o.seen[h]; ok {
		return false
	}
	if len(o.order) >= o.limit {
		delete(o.seen, o.order[0])
		o.order = o.order[1:]
	}
	o.seen[h] = struct{}{}
	o.order = append(o.order, h)
	return true
}
