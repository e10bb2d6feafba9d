package transport_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/control"
	"github.com/insightedge/insightedge/shared/report/transport"
)

// TestRoutesThroughTheEdgeMiddleware: every template route, the socket's
// included, answers through edge.Handle: the client's sane X-Trace-ID is
// echoed, and a refusal is a JSON error body with its seed 004 code.
func TestRoutesThroughTheEdgeMiddleware(t *testing.T) {
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "t.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	// No run starts here: the service needs no workflow.
	svc, err := control.New(report.NewStore(db), db.Events(), nil, nil, nil, control.Options{Secret: []byte("0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	srv := transport.New(svc, edge.NewRelay(db.Events(), edge.RelayOptions{}), auth.Dev{Default: "t-001"}, transport.Options{})
	mux := http.NewServeMux()
	srv.Mount(mux)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)

	tests := []struct {
		name, method, path, body, teacher string
		status                            int
		code                              string // the error's; "" for a success
	}{
		{"create", "POST", "/api/template/sessions", "", "", 201, ""},
		{"bad identity", "POST", "/api/template/sessions", "", "bad id!", 401, "AUTH_ERROR"},
		{"bad envelope", "POST", "/api/template/sessions/s-1/events", "{oops", "", 400, "VALIDATION_ERROR"},
		{"unknown session", "POST", "/api/template/sessions/s-404/events", `{"event":"user.cancel"}`, "", 404, "ENTITY_NOT_FOUND"},
		{"unknown stream", "GET", "/api/template/sessions/s-404/stream", "", "", 404, "ENTITY_NOT_FOUND"},
		{"socket, bad identity", "GET", "/ws/template", "", "bad id!", 401, "AUTH_ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, hs.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("X-Trace-ID", "trace-template-1")
			if tt.teacher != "" {
				req.Header.Set("X-Teacher-Id", tt.teacher)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				SessionID string `json:"session_id"`
				Error     struct{ Code, Message string }
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("%d: not JSON: %v", resp.StatusCode, err)
			}
			if resp.StatusCode != tt.status || body.Error.Code != tt.code || (tt.code == "") != (body.SessionID != "") {
				t.Errorf("%d %+v, want %d %q", resp.StatusCode, body, tt.status, tt.code)
			}
			if got := resp.Header.Get("X-Trace-ID"); got != "trace-template-1" {
				t.Errorf("X-Trace-ID %q, want the client's", got)
			}
		})
	}
}
