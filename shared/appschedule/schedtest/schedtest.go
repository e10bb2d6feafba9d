// Package schedtest is EventBridge Scheduler at the edge of tests: an HTTP
// server on loopback speaking the service's REST-JSON protocol for
// CreateSchedule, UpdateSchedule, DeleteSchedule and GetSchedule. It keeps
// the schedules in memory (a create of an existing name is a
// ConflictException, an update or delete of a missing one a
// ResourceNotFoundException, as in AWS) and records every request.
package schedtest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
)

// Request is one request the server received.
type Request struct {
	// Op is CreateSchedule, UpdateSchedule, DeleteSchedule or GetSchedule.
	Op     string
	Method string
	// Name is the schedule's name from the path.
	Name  string
	Query url.Values
	// Body is the JSON body, decoded (nil without one).
	Body map[string]any
}

// Server is a running fake.
type Server struct {
	// URL is its base URL, for the client's BaseEndpoint
	// (AWS_ENDPOINT_URL_SCHEDULER).
	URL string

	mu        sync.Mutex
	schedules map[string]map[string]any // group/name → the last create or update body
	requests  []Request
	fail      map[string]string // op → error type to answer once
}

// Start starts a fake for the test and stops it at cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{schedules: map[string]map[string]any{}, fail: map[string]string{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Client returns a client of the fake: static credentials, one region, no
// retries (one request per call, so that requests can be counted).
func (s *Server) Client() *scheduler.Client {
	return scheduler.New(scheduler.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(s.URL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
		Retryer:     aws.NopRetryer{},
	})
}

// FailNext makes the next request of op answer with the error errType
// (e.g. "ThrottlingException", "ValidationException").
func (s *Server) FailNext(op, errType string) {
	s.mu.Lock()
	s.fail[op] = errType
	s.mu.Unlock()
}

// Requests returns the requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Schedule returns the body that created or last updated group/name.
func (s *Server) Schedule(group, name string) (map[string]any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.schedules[group+"/"+name]
	return maps.Clone(b), ok
}

// Names returns the names of the schedules of group, sorted.
func (s *Server) Names(group string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.schedules {
		if g, n, _ := strings.Cut(k, "/"); g == group {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

var ops = map[string]string{
	http.MethodPost: "CreateSchedule", http.MethodPut: "UpdateSchedule",
	http.MethodDelete: "DeleteSchedule", http.MethodGet: "GetSchedule",
}

var statuses = map[string]int{
	"ConflictException": http.StatusConflict, "ResourceNotFoundException": http.StatusNotFound,
	"ThrottlingException": http.StatusTooManyRequests, "ValidationException": http.StatusBadRequest,
	"AccessDeniedException": http.StatusForbidden,
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, "/schedules/")
	op := ops[r.Method]
	if !ok || name == "" || strings.Contains(name, "/") || op == "" {
		writeError(w, "ValidationException", fmt.Sprintf("no operation %s %s", r.Method, r.URL.Path))
		return
	}
	req := Request{Op: op, Method: r.Method, Name: name, Query: r.URL.Query()}
	raw, _ := io.ReadAll(r.Body)
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &req.Body); err != nil {
			writeError(w, "ValidationException", "the body is not JSON: "+err.Error())
			return
		}
	}
	group, _ := req.Body["GroupName"].(string)
	if q := req.Query.Get("groupName"); q != "" {
		group = q
	}
	if group == "" {
		group = "default"
	}
	k := group + "/" + name

	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if e := s.fail[op]; e != "" {
		delete(s.fail, op)
		writeError(w, e, "injected")
		return
	}
	_, exists := s.schedules[k]
	arn := "arn:aws:scheduler:us-east-1:123456789012:schedule/" + k
	switch {
	case op == "CreateSchedule" && exists:
		writeError(w, "ConflictException", "Schedule "+name+" already exists.")
	case op != "CreateSchedule" && !exists:
		writeError(w, "ResourceNotFoundException", "Schedule "+name+" does not exist.")
	case op == "CreateSchedule" || op == "UpdateSchedule":
		s.schedules[k] = req.Body
		writeJSON(w, http.StatusOK, map[string]any{"ScheduleArn": arn})
	case op == "DeleteSchedule":
		delete(s.schedules, k)
		writeJSON(w, http.StatusOK, map[string]any{})
	default:
		body := maps.Clone(s.schedules[k])
		body["Name"], body["Arn"] = name, arn
		writeJSON(w, http.StatusOK, body)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers as the service does: the error type in a header and
// the message in the body.
func writeError(w http.ResponseWriter, errType, msg string) {
	w.Header().Set("X-Amzn-Errortype", errType)
	status, ok := statuses[errType]
	if !ok {
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, map[string]string{"Message": msg})
}
