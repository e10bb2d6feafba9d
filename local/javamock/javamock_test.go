package javamock_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/javamock"
	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
)

func do(t *testing.T, method, url, body string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestStartAndAdminFaults(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mock := javamock.New(mockdata.Default, javamock.Options{Token: "local"})
	base, done, err := mock.Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := javaapi.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.Attempts, cfg.FallbackToMock = base, "local", 1, false
	client, err := javaapi.New(cfg, javaapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cs, err := client.Classes(ctx, "t-001"); err != nil || len(cs) != 3 {
		t.Fatalf("classes = %v, %v", cs, err)
	}

	if s := do(t, http.MethodPut, base+"/__mock/fault", `{"status":503,"latency":"1ms"}`); s != http.StatusNoContent {
		t.Fatalf("PUT fault → %d", s)
	}
	resp, err := http.Get(base + "/__mock/fault")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := strings.TrimSpace(string(body)); got != `{"status":503,"latency":"1ms"}` {
		t.Errorf("GET fault = %s", got)
	}
	if _, err := client.Rubrics(ctx, "t-001"); apperr.CodeOf(err) != apperr.DataError {
		t.Fatalf("with a 503 fault: %v", err)
	}
	if s := do(t, http.MethodPut, base+"/__mock/fault", `{"latency":"soon"}`); s != http.StatusBadRequest {
		t.Errorf("bad latency → %d", s)
	}
	if s := do(t, http.MethodDelete, base+"/__mock/fault", ""); s != http.StatusNoContent {
		t.Fatalf("DELETE fault → %d", s)
	}
	if _, err := client.Rubrics(ctx, "t-001"); err != nil {
		t.Fatalf("after clearing: %v", err)
	}
	if s := do(t, http.MethodGet, base+"/__mock/requests", ""); s != http.StatusOK {
		t.Errorf("GET requests → %d", s)
	}

	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop after ctx ended")
	}
}
