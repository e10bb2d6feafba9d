package mockserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

type result struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func get(t *testing.T, url, token string) (int, result) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("X-Trace-ID", "tr-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r result
	_ = json.Unmarshal(body, &r)
	return resp.StatusCode, r
}

func TestRoutesAndScope(t *testing.T) {
	srv := mockserver.New(mockdata.Default(), mockserver.Options{Token: "tok"})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	base := hs.URL + "/api/dify/teacher/"
	tests := []struct {
		path   string
		status int
	}{
		{"t-001/classes/me", 200},
		{"t-404/classes/me", 200}, // an unknown teacher has no classes
		{"t-001/classes/class-hk-f1a", 200},
		{"t-001/classes/class-hk-f2a", 403},
		{"t-001/classes/class-none", 404},
		{"t-001/classes/class-hk-f1a/assignments", 200},
		{"t-002/classes/class-hk-f1a/assignments", 403},
		{"t-001/submissions/assignments/a-f1a-01", 200},
		{"t-002/submissions/assignments/a-f1a-01", 403},
		{"t-001/submissions/assignments/a-none", 404},
		{"t-001/submissions/students/s-f1a-01", 200},
		{"t-003/submissions/students/s-f1a-01", 403},
		{"t-001/documents?q=kite", 200},
		{"t-001/rubrics", 200},
		{"t-001/rubrics/r-eng-writing", 200},
		{"t-001/rubrics/r-none", 404},
		{"t-001/students/s-f1a-01/error-patterns", 200},
		{"t-002/students/s-f1a-01/error-patterns", 403},
		{"t-001/grades", 404},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, r := get(t, base+tt.path, "tok")
			if status != tt.status || r.Code != tt.status || r.Message == "" {
				t.Fatalf("HTTP %d, Result %+v; want %d", status, r, tt.status)
			}
			if status == 200 && (len(r.Data) == 0 || string(r.Data) == "null") {
				t.Errorf("no data")
			}
		})
	}
	if status, _ := get(t, base+"t-001/classes/me", "wrong"); status != 401 {
		t.Errorf("wrong token → %d, want 401", status)
	}
	reqs := srv.Requests()
	if len(reqs) != len(tests)+1 || reqs[0].TraceID != "tr-1" || reqs[0].Authorization != "Bearer tok" {
		t.Errorf("recorded %d requests, first %+v", len(reqs), reqs[0])
	}
}

func TestFaults(t *testing.T) {
	srv := mockserver.New(mockdata.Default(), mockserver.Options{MaxHang: 50 * time.Millisecond})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	url := hs.URL + "/api/dify/teacher/t-001/rubrics"

	srv.SetFault(mockserver.Fault{Status: 503, Times: 2})
	for range 2 {
		if status, r := get(t, url, ""); status != 503 || r.Code != 503 {
			t.Fatalf("fault: HTTP %d %+v", status, r)
		}
	}
	if status, _ := get(t, url, ""); status != 200 {
		t.Fatalf("after Times ran out: HTTP %d", status)
	}
	if _, on := srv.Fault(); on {
		t.Error("fault still set after Times ran out")
	}

	srv.SetFault(mockserver.Fault{Code: 500, Message: "db down"})
	if status, r := get(t, url, ""); status != 200 || r.Code != 500 || r.Message != "db down" {
		t.Fatalf("business fault: HTTP %d %+v", status, r)
	}

	srv.SetFault(mockserver.Fault{Status: 500, Path: "/classes/"})
	if status, _ := get(t, url, ""); status != 200 {
		t.Fatalf("a fault for another path applied: %d", status)
	}

	srv.SetFault(mockserver.Fault{Malformed: true})
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if json.Valid(body) {
		t.Errorf("malformed body is valid JSON: %s", body)
	}

	// Hang ends at MaxHang even if the client waits longer.
	srv.SetFault(mockserver.Fault{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	if ctx.Err() != nil {
		t.Error("hang was not bounded by MaxHang")
	}
	srv.ClearFault()
	if status, _ := get(t, url, ""); status != 200 {
		t.Errorf("after ClearFault: HTTP %d", status)
	}
}
