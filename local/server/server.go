// Package server is the whole product on one machine, as `go run ./local`
// serves it: the HTTP edge, the workflows executed from their ASL files by an
// in-process interpreter, an embedded store, the mock Java data service, the
// local search service, the template backend and the offline stand-in model.
// No AWS, no network, no key.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/javamock"
	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/local/searchsvc"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/claimcheck"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/obs"
	"github.com/insightedge/insightedge/shared/office/pdf"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools/gentools"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Options configure a local server.
type Options struct {
	Addr    string
	DataDir string
	Getenv  func(string) string
	Logger  *slog.Logger
	// Metrics receives EMF lines (io.Discard when nil).
	Metrics io.Writer
	// TemplateWSAddr, when set, also serves the template socket there (the
	// seed's 127.0.0.1:8081).
	TemplateWSAddr string
	// LimitsNow is the fair-use limits' clock (nil: time.Now): the tests'
	// fake clock for the limits' windows (issue 26).
	LimitsNow func() time.Time
}

// Server is the whole product in one process.
type Server struct {
	URL     string
	Offline *offlinemodel.Server // nil when a real model is configured
	Java    *javamock.Server     // nil when a real data service is configured
	Data    *javaapi.Client
	Files   *blob.FS
	App     *wire.App
	Edge    *edge.Server
	metrics *obs.EMF
	Build   *BuildRuntime
	// Search is the local search service (nil with TAVILY_API_KEY).
	Search   *searchsvc.Server
	Research *ResearchRuntime
	// Template is the template report agent (seed 002).
	Template *wire.Template
	// TemplateBackendURL is the local template backend ("" when configured).
	TemplateBackendURL string
	// TemplateWSURL is the extra socket listener ("" without -template-ws-addr).
	TemplateWSURL  string
	templateRunner *runner
	// mockData is the data set of the mock Java service and the template
	// backend, made once, on the first request that needs it (both only
	// read it): a chat answer needs none, so start-up does not make it.
	mockData func() *mockdata.Dataset
	pdf      *pdf.Writer // nil without its fonts
	runner   *runner
	// DB is the embedded store (bbolt, in DataDir).
	DB      *boltstore.DB
	http    *http.Server
	ln      net.Listener
	closers []func(context.Context) error

	// quizExport serves /api/quiz/export (issue 31).
	quizExport *gentools.QuizExporter
}

// Start brings up the embedded store, the offline model (unless
// OPENAI_BASE_URL is set), the data service, the workflow interpreter and the
// HTTP edge on o.Addr.
func Start(ctx context.Context, o Options) (s *Server, err error) {
	s = &Server{mockData: sync.OnceValue(mockdata.Default)}
	defer func() {
		if err != nil {
			_ = s.Close(context.Background())
		}
	}()
	env := overlay(o.Getenv)
	if o.Getenv("OPENAI_BASE_URL") == "" {
		if err := s.startOfflineModel(ctx, o.Logger, env); err != nil {
			return s, err
		}
	}
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return s, fmt.Errorf("local: data dir: %w", err)
	}
	// EVENTLOG_GROUP_DELAY: how long an appended event may wait for the
	// group commit that writes it (docs/reliability.md, "Delivery").
	var groupDelay time.Duration
	if v := o.Getenv("EVENTLOG_GROUP_DELAY"); v != "" {
		if groupDelay, err = time.ParseDuration(v); err != nil || groupDelay <= 0 || groupDelay > time.Second {
			return s, fmt.Errorf("local: EVENTLOG_GROUP_DELAY=%q: want a duration from 1ns to 1s such as 2ms", v)
		}
	}
	s.DB, err = boltstore.Open(filepath.Join(o.DataDir, "insight.db"), boltstore.Options{NoSync: true, GroupDelay: groupDelay})
	if err != nil {
		return s, err
	}
	s.closers = append(s.closers, func(context.Context) error { return s.DB.Close() })
	if err := s.listen(o.Addr); err != nil {
		return s, err
	}
	data, err := s.startData(ctx, o, env)
	if err != nil {
		return s, err
	}
	files, err := s.startFiles(o, env)
	if err != nil {
		return s, err
	}
	if err := s.startSearch(ctx, env); err != nil {
		return s, err
	}
	if err := s.startTemplateBackend(o, env); err != nil {
		return s, err
	}
	cfg, err := wire.ConfigFromEnv(env.get)
	if err != nil {
		return s, err
	}
	metrics := o.Metrics
	if metrics == nil {
		metrics = io.Discard
	}
	// Large records in the file store, as the functions keep them in S3
	// (bbolt itself has no item limit; the same code path runs).
	store := claimcheck.Wrap(s.DB.Sessions(), s.Files, 0)
	s.metrics = obs.NewEMF(metrics, "InsightEdge")
	s.App, err = wire.New(cfg, wire.Backends{Store: store, Log: s.DB.Events(), Tools: append(data, files...),
		Research: research.NewStore(s.DB), Metrics: s.metrics, Logger: o.Logger, Files: s.Files,
		LimitRecords: s.DB, LimitCounters: s.DB.Counters(), LimitNow: o.LimitsNow, QuizExport: s.quizExport})
	if err != nil {
		return s, err
	}
	s.runner, err = s.startRunner(infra.ConversationASL, s.App.ConversationTasks(), s.closeFailed, o.Logger)
	if err != nil {
		return s, err
	}
	s.Edge = s.App.Edge(s.runner, s.checks())
	if s.Build, err = s.startBuild(ctx, o); err != nil {
		return s, err
	}
	if s.Research, err = s.startResearch(ctx, o); err != nil {
		return s, err
	}
	if err := s.startTemplate(o, env); err != nil {
		return s, err
	}
	if o.TemplateWSAddr != "" {
		if err := s.serveTemplateWS(o.TemplateWSAddr, o); err != nil {
			return s, err
		}
	}
	return s, s.serve(o)
}

// startRunner makes the interpreter of a workflow whose executions are
// bound by the turn timeout and stopped by Close; onFail closes the work of
// an execution that failed outside every Catch.
func (s *Server) startRunner(def []byte, tasks map[string]wire.Task, onFail func(context.Context, json.RawMessage, string, string),
	log *slog.Logger) (*runner, error) {
	r, err := newRunner(def, tasks, s.App.Config.TurnTimeout, log)
	if err != nil {
		return nil, err
	}
	r.onFail = onFail
	s.closers = append(s.closers, r.Shutdown)
	return r, nil
}

func (s *Server) startOfflineModel(ctx context.Context, log *slog.Logger, env *envOverlay) error {
	s.Offline = offlinemodel.New(offlinemodel.Options{Logger: log})
	url, stop, err := s.Offline.Start(ctx, "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("local: offline model: %w", err)
	}
	s.closers = append(s.closers, stop)
	env.set("OPENAI_BASE_URL", url)
	env.set("OPENAI_API_KEY", "offline")
	env.set("LLM_MODEL_FAST", "offline-fast")
	env.set("LLM_MODEL_STANDARD", "offline-standard")
	env.set("LLM_MODEL_STRONG", "offline-strong")
	return nil
}

// listen takes the address first: the file store's URLs need it.
func (s *Server) listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("local: listen on %s: %w", addr, err)
	}
	s.ln = ln
	s.URL = "http://" + ln.Addr().String()
	s.closers = append(s.closers, func(context.Context) error { _ = ln.Close(); return nil })
	return nil
}

// The local server's connection bounds (docs/reliability.md).
const (
	serverReadTimeout  = 30 * time.Second
	serverWriteTimeout = 60 * time.Second
	serverIdleTimeout  = 60 * time.Second
)

func (s *Server) serve(o Options) error {
	mux := http.NewServeMux()
	s.Edge.Mount(mux)
	s.Build.Mount(mux)
	s.Research.mount(mux)
	s.Template.Server.Mount(mux)
	mux.Handle("/files/", s.Files.Handler())
	mux.HandleFunc("GET /{$}", console(s.Offline != nil))
	mux.HandleFunc("GET /favicon.ico", favicon)
	handler := s.App.FairUse(mux, mux) // issue 26: fair use
	// The turn latencies, as in AWS (awswire.App.EdgeHandler). Bounds for every connection: a slow body, a stalled reader and an idle
	// keep-alive connection are let go. Streaming routes and the routes
	// that wait for a whole turn set their own deadlines (edge relay).
	origins, err := corsOrigins(o.Getenv)
	if err != nil {
		return err
	}
	s.http = &http.Server{Handler: withCORS(origins, edge.CleanPaths(o.Logger, edge.TurnLatency(handler, s.metrics, nil))), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: serverReadTimeout, WriteTimeout: serverWriteTimeout, IdleTimeout: serverIdleTimeout}
	for _, d := range []struct {
		env string
		to  *time.Duration
	}{{"HTTP_READ_TIMEOUT", &s.http.ReadTimeout}, {"HTTP_WRITE_TIMEOUT", &s.http.WriteTimeout}, {"HTTP_IDLE_TIMEOUT", &s.http.IdleTimeout}} {
		if v := o.Getenv(d.env); v != "" {
			t, err := time.ParseDuration(v)
			if err != nil || t <= 0 {
				return fmt.Errorf("local: %s=%q: want a positive duration such as 30s", d.env, v)
			}
			*d.to = t
		}
	}
	s.http.ReadHeaderTimeout = min(s.http.ReadHeaderTimeout, s.http.ReadTimeout)
	ln := s.ln
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.Logger.Error("http server stopped", "err", err)
		}
	}()
	s.Edge.SetReady(true)
	return nil
}

func (s *Server) checks() []edge.Check {
	cs := []edge.Check{{Name: "store", Check: func(ctx context.Context) error {
		_, err := s.DB.Sessions().GetSession(ctx, "health-probe")
		if err != nil && !errors.Is(err, session.ErrNotFound) {
			return err
		}
		return nil
	}}}
	if s.Offline != nil {
		cs = append(cs, edge.Check{Name: "model", Check: func(context.Context) error { return nil }})
	}
	return append(cs, wire.DataCheck(s.Data))
}

// closeFailed runs the Finish step for an execution that failed outside
// every Catch, so its stream still closes with an error and finish.
func (s *Server) closeFailed(ctx context.Context, input json.RawMessage, errName, cause string) {
	var st workflow.FinishInput
	if err := json.Unmarshal(input, &st); err != nil {
		return
	}
	st.Error = &workflow.ErrorInfo{Error: errName, Cause: cause}
	if _, err := s.App.Agent.Finish(ctx, st); err != nil {
		s.App.Logger.Error("could not close failed turn", "turnId", st.Turn.TurnID, "err", err)
	}
}

// AfterClose has Close run fns, newest first, after everything the server
// started has stopped (what a caller started for it, such as a model proxy).
func (s *Server) AfterClose(fns ...func(context.Context) error) {
	s.closers = slices.Concat(fns, s.closers)
}

// Close stops the server and everything it started, newest first.
func (s *Server) Close(ctx context.Context) error {
	var errs []error
	if s.http != nil {
		errs = append(errs, s.http.Shutdown(ctx))
	}
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i](ctx))
	}
	return errors.Join(errs...)
}

// envOverlay is the environment with the local defaults laid over it.
type envOverlay struct {
	base func(string) string
	over map[string]string
}

func overlay(base func(string) string) *envOverlay {
	return &envOverlay{base: base, over: map[string]string{}}
}

func (e *envOverlay) set(k, v string) { e.over[k] = v }

func (e *envOverlay) get(k string) string {
	if v, ok := e.over[k]; ok {
		return v
	}
	return e.base(k)
}
