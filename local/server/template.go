package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/asl"
	"github.com/insightedge/insightedge/local/templatebackend"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/wire"
)

// startTemplateBackend serves the local template and knowledge-base backend
// on a loopback port unless one is configured.
func (s *Server) startTemplateBackend(o Options, env *envOverlay) error {
	for _, k := range []string{"TEMPLATE_API_BASE_URL", "TEMPLATE_BACKEND_URL", "BACKEND_BASE_URL"} {
		if env.get(k) != "" {
			return nil
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("local: template backend: %w", err)
	}
	// The backend (templates, and knowledge bases made from the data set)
	// is built on its first request, not at start-up: a chat answer never
	// needs it.
	backend := sync.OnceValues(func() (*templatebackend.Server, error) { return templatebackend.New(s.mockData()) })
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tb, err := backend()
		if err != nil {
			o.Logger.Error("template backend", "err", err)
			http.Error(w, `{"error":"the local template backend could not be built"}`, http.StatusInternalServerError)
			return
		}
		tb.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.Logger.Error("template backend stopped", "err", err)
		}
	}()
	s.closers = append(s.closers, srv.Shutdown)
	s.TemplateBackendURL = "http://" + ln.Addr().String()
	env.set("TEMPLATE_API_BASE_URL", s.TemplateBackendURL)
	return nil
}

// startTemplate wires the template report agent: its workflow run by the
// interpreter (with task tokens), the steps, the control service and the
// WebSocket and SSE transports.
func (s *Server) startTemplate(o Options, env *envOverlay) error {
	tc, err := wire.TemplateConfigFromEnv(env.get)
	if err != nil {
		return err
	}
	if tc.StateSecret == nil {
		fs, err := filesSecret(env.get("FILES_SECRET"), o.DataDir)
		if err != nil {
			return err
		}
		m := hmac.New(sha256.New, fs) // a key of its own, derived from the data dir's secret
		m.Write([]byte("template-state"))
		tc.StateSecret = m.Sum(nil)
	}
	tokens := asl.NewTokens()
	var r *runner
	store := report.NewStore(s.DB)
	s.Template, err = s.App.NewTemplate(tc, wire.TemplateBackends{Store: store, Blobs: s.Files,
		Start: rawStarter{func() *runner { return r }}, Tokens: tokenSender{tokens}, PDF: s.reportPDF()})
	if err != nil {
		return err
	}
	// A run waits for its confirmation, then writes every section.
	// Every step keeps its run's lease (issue 32): a run a killed process
	// left is closed at the next start (startBuild's recovery sweep).
	tasks := wire.TemplateTasks(s.Template.Pipeline)
	for k, t := range tasks {
		tasks[k] = wire.RunLeased(t, s.App.RunLeases(store, tc.Settings.ConfirmTimeout))
	}
	r, err = newRunner(infra.TemplateASL, tasks, tc.Settings.ConfirmTimeout+time.Hour, o.Logger)
	if err != nil {
		return err
	}
	r.tokens = tokens
	s.templateRunner = r
	s.closers = append(s.closers, r.Shutdown, s.Template.Server.Shutdown)
	return nil
}

// serveTemplateWS serves the template socket on its own address too (the
// seed's ws://127.0.0.1:8081), at every path.
func (s *Server) serveTemplateWS(addr string, o Options) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("local: -template-ws-addr %s: %w", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.Template.Server.ServeWS), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.Logger.Error("template socket listener stopped", "err", err)
		}
	}()
	s.TemplateWSURL = "ws://" + ln.Addr().String()
	s.closers = append(s.closers, srv.Shutdown)
	return nil
}

// rawStarter is the template workflow's control.Starter.
type rawStarter struct{ r func() *runner }

func (s rawStarter) Start(_ context.Context, name string, input json.RawMessage) error {
	return s.r().startRaw(name, input)
}

func (s rawStarter) Stop(ctx context.Context, name string) error { return s.r().Stop(ctx, name) }

// tokenSender is the local SendTaskSuccess.
type tokenSender struct{ t *asl.Tokens }

func (s tokenSender) SendTaskSuccess(_ context.Context, token string, out json.RawMessage) error {
	return s.t.SendTaskSuccess(token, out)
}

// reportPDF is the PDF writer for reports, nil without its fonts.
func (s *Server) reportPDF() pipeline.PDFRenderer {
	if s.pdf == nil {
		return nil
	}
	return s.pdf
}

// TemplateEnded returns a channel closed when the template workflow's
// execution of that name has ended (at once for one that is not running).
func (s *Server) TemplateEnded(execution string) <-chan struct{} {
	return s.templateRunner.ended(execution)
}
