// Package javamock runs the mock Java data service for local runs: the
// handler of shared/javaapi/mockserver (the seed's paths, the Result
// wrapper, teacher scoping, fault switches) on a real listener, plus a small
// admin API to flip the fault switches while the process runs:
//
//	GET    /__mock/fault     the fault in force ({} when none)
//	PUT    /__mock/fault     set a fault, e.g. {"status":503} or {"latency":"300ms"}
//	DELETE /__mock/fault     clear it
//	GET    /__mock/requests  the last requests received
//
// The handler itself lives in shared/ because the client's tests and its
// USE_MOCK_DATA fallback need it, and shared/ never imports local/.
package javamock

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/insightedge/insightedge/local/standin"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

// Options configure the mock; see mockserver.Options.
type Options = mockserver.Options

// Server is the mock service with its admin API; it is an http.Handler.
type Server struct {
	*mockserver.Server
	admin *http.ServeMux
}

// New returns the mock over the data set load makes (mockdata.Default for
// the standard set), called on the first request (mockserver.NewLazy).
func New(load func() *mockdata.Dataset, opts Options) *Server {
	s := &Server{Server: mockserver.NewLazy(load, opts), admin: http.NewServeMux()}
	s.admin.HandleFunc("GET /__mock/fault", s.getFault)
	s.admin.HandleFunc("PUT /__mock/fault", s.putFault)
	s.admin.HandleFunc("DELETE /__mock/fault", func(w http.ResponseWriter, _ *http.Request) {
		s.ClearFault()
		w.WriteHeader(http.StatusNoContent)
	})
	s.admin.HandleFunc("GET /__mock/requests", func(w http.ResponseWriter, _ *http.Request) {
		standin.WriteJSON(w, http.StatusOK, s.Requests())
	})
	return s
}

// ServeHTTP serves the admin API under /__mock/ and the mock service elsewhere.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/__mock/") {
		s.admin.ServeHTTP(w, r)
		return
	}
	s.Server.ServeHTTP(w, r)
}

// faultJSON is Fault with durations as strings ("300ms").
type faultJSON struct {
	Status    int    `json:"status,omitempty"`
	Code      int    `json:"code,omitempty"`
	Message   string `json:"message,omitempty"`
	Malformed bool   `json:"malformed,omitempty"`
	Body      string `json:"body,omitempty"`
	Latency   string `json:"latency,omitempty"`
	Jitter    string `json:"jitter,omitempty"`
	Hang      bool   `json:"hang,omitempty"`
	Times     int    `json:"times,omitempty"`
	Path      string `json:"path,omitempty"`
}

func (s *Server) getFault(w http.ResponseWriter, _ *http.Request) {
	f, on := s.Fault()
	if !on {
		standin.WriteJSON(w, http.StatusOK, struct{}{})
		return
	}
	out := faultJSON{Status: f.Status, Code: f.Code, Message: f.Message, Malformed: f.Malformed,
		Body: f.Body, Hang: f.Hang, Times: f.Times, Path: f.Path}
	if f.Latency > 0 {
		out.Latency = f.Latency.String()
	}
	if f.Jitter > 0 {
		out.Jitter = f.Jitter.String()
	}
	standin.WriteJSON(w, http.StatusOK, out)
}

func (s *Server) putFault(w http.ResponseWriter, r *http.Request) {
	var in faultJSON
	if !standin.ReadJSON(w, r, &in) {
		return
	}
	f := mockserver.Fault{Status: in.Status, Code: in.Code, Message: in.Message, Malformed: in.Malformed,
		Body: in.Body, Hang: in.Hang, Times: in.Times, Path: in.Path}
	for _, d := range []struct {
		name string
		in   string
		dst  *time.Duration
	}{{"latency", in.Latency, &f.Latency}, {"jitter", in.Jitter, &f.Jitter}} {
		if d.in == "" {
			continue
		}
		v, err := time.ParseDuration(d.in)
		if err != nil || v < 0 {
			standin.WriteError(w, http.StatusBadRequest, fmt.Errorf("%s %q: want a duration such as 300ms", d.name, d.in))
			return
		}
		*d.dst = v
	}
	s.SetFault(f)
	w.WriteHeader(http.StatusNoContent)
}

// Start serves s on addr ("127.0.0.1:0" picks a free port) until ctx ends,
// and returns the base URL to give the client as JAVA_API_BASE_URL. done
// is closed once the server has stopped.
func (s *Server) Start(ctx context.Context, addr string) (baseURL string, done <-chan struct{}, err error) {
	return standin.Serve(ctx, addr, s)
}
