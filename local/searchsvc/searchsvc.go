// Package searchsvc is the local search service: a stand-in for Tavily that
// `go run ./local` starts when TAVILY_API_KEY is not set. It answers
// Tavily's POST /search over real HTTP (bearer key, query, search_depth,
// max_results, include_answer) with deterministic results from the
// history-of-science corpus of local/researchdata, in Chinese and English,
// and an honest empty result for a query it knows nothing about.
//
// Tests flip fault switches while it runs, like the Java mock's:
//
//	GET    /__search/fault     the fault in force ({} when none)
//	PUT    /__search/fault     {"status":429,"times":2} or {"status":503} or {"latency":"2s"}
//	DELETE /__search/fault     clear it
//	GET    /__search/requests  the queries received, oldest first
package searchsvc

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/insightedge/insightedge/local/researchdata"
	"github.com/insightedge/insightedge/local/standin"
	"github.com/insightedge/insightedge/shared/search"
)

// Fault is what the service does instead of answering.
type Fault struct {
	// Status, when set, is answered instead of results (429 with
	// Retry-After: 0, or a 5xx).
	Status int `json:"status,omitempty"`
	// Latency is waited before answering (bounded by the request's context).
	Latency string `json:"latency,omitempty"`
	// Times limits the fault to the next n requests (0: until cleared).
	Times int `json:"times,omitempty"`
}

// Server is the service; it is an http.Handler.
type Server struct {
	key string
	mux *http.ServeMux

	mu       sync.Mutex
	fault    *Fault
	latency  time.Duration
	requests []Request
}

// Request is one search the service received: the request the search
// client sends (its wire is held by shared/search's own tests).
type Request = search.Request

// Response is Tavily's response shape: what the search client reads, and
// the time Tavily reports taking.
type Response struct {
	search.Response
	ResponseTime float64 `json:"response_time"`
}

const maxRequests = 1000

// New returns a service that accepts the bearer key (any key when "").
func New(key string) *Server {
	s := &Server{key: key, mux: http.NewServeMux()}
	s.mux.HandleFunc("POST /search", s.handleSearch)
	s.mux.HandleFunc("GET /__search/fault", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.fault == nil {
			standin.WriteJSON(w, http.StatusOK, struct{}{})
			return
		}
		standin.WriteJSON(w, http.StatusOK, s.fault)
	})
	s.mux.HandleFunc("PUT /__search/fault", s.putFault)
	s.mux.HandleFunc("DELETE /__search/fault", func(w http.ResponseWriter, _ *http.Request) {
		s.SetFault(nil)
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("GET /__search/requests", func(w http.ResponseWriter, _ *http.Request) {
		standin.WriteJSON(w, http.StatusOK, s.Requests())
	})
	return s
}

// ServeHTTP serves the search API and the admin API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// SetFault sets (or, with nil, clears) the fault.
func (s *Server) SetFault(f *Fault) error {
	var d time.Duration
	if f != nil && f.Latency != "" {
		var err error
		if d, err = time.ParseDuration(f.Latency); err != nil || d < 0 {
			return fmt.Errorf("latency %q: want a duration such as 2s", f.Latency)
		}
	}
	if f != nil && f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		return fmt.Errorf("status %d: want a 4xx or 5xx", f.Status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault, s.latency = f, d
	return nil
}

// Requests returns the searches received, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) putFault(w http.ResponseWriter, r *http.Request) {
	var f Fault
	if !standin.ReadJSON(w, r, &f) {
		return
	}
	if err := s.SetFault(&f); err != nil {
		standin.WriteError(w, http.StatusBadRequest, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// take returns the fault for this request, counting it down.
func (s *Server) take() (status int, latency time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fault == nil {
		return 0, 0
	}
	status, latency = s.fault.Status, s.latency
	if s.fault.Times > 0 {
		s.fault.Times--
		if s.fault.Times == 0 {
			s.fault, s.latency = nil, 0
		}
	}
	return status, latency
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if s.key != "" && r.Header.Get("Authorization") != "Bearer "+s.key {
		standin.WriteJSON(w, http.StatusUnauthorized, map[string]any{"detail": map[string]string{"error": "Unauthorized: missing or invalid API key."}})
		return
	}
	var req Request
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&req); err != nil || strings.TrimSpace(req.Query) == "" {
		standin.WriteJSON(w, http.StatusBadRequest, map[string]any{"detail": map[string]string{"error": "query is required"}})
		return
	}
	s.mu.Lock()
	if len(s.requests) >= maxRequests {
		s.requests = s.requests[1:]
	}
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	status, latency := s.take()
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
	}
	if status != 0 {
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "0")
		}
		standin.WriteJSON(w, status, map[string]any{"detail": map[string]string{"error": http.StatusText(status)}})
		return
	}
	resp := Search(req)
	resp.ResponseTime = float64(time.Since(start).Milliseconds()) / 1000
	standin.WriteJSON(w, http.StatusOK, resp)
}

// Search answers one request from the corpus.
func Search(req Request) Response {
	out := Response{Response: search.Response{Query: req.Query, Results: []search.Result{}}}
	t, ok := researchdata.Find(req.Query)
	if !ok {
		return out
	}
	n := req.MaxResults
	if n <= 0 {
		n = 5
	}
	n = min(n, 20)
	zh := hasHan(req.Query)
	low := strings.ToLower(req.Query)
	type scored struct {
		p researchdata.Page
		s float64
	}
	var all []scored
	ov, ovOther := t.Overview, t.OverviewZh
	if zh {
		ov, ovOther = t.OverviewZh, t.Overview
	}
	all = append(all, scored{ov, 0.62}, scored{ovOther, 0.55})
	for _, m := range t.Milestones {
		s := 0.2
		for _, w := range m.Words {
			if strings.Contains(low, w) {
				s += 0.12 * float64(min(len([]rune(w)), 6))
			}
		}
		all = append(all, scored{m.Source, min(s, 0.99)})
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
	for _, x := range all[:min(n, len(all))] {
		out.Results = append(out.Results, search.Result{Title: x.p.Title, URL: x.p.URL, Content: x.p.Content, Score: float64(int(x.s*1000)) / 1000})
	}
	if req.IncludeAnswer {
		out.Answer = t.AnswerEn
		if zh {
			out.Answer = t.AnswerZh
		}
	}
	return out
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// Start serves s on addr ("127.0.0.1:0" picks a port) until ctx ends and
// returns its base URL; done is closed once it has stopped.
func (s *Server) Start(ctx context.Context, addr string) (baseURL string, done <-chan struct{}, err error) {
	return standin.Serve(ctx, addr, s)
}
