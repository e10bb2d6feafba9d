package edge_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/edge"
)

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func do(t *testing.T, method, url, teacher string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, url, nil)
	if teacher != "" {
		req.Header.Set("X-Teacher-Id", teacher)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestFileLinksShortLivedAndRevocable: a download link is a capability
// that lives DefaultFileLinkTTL (15 min); past it the link is refused and
// the route signs a fresh one that works; the owner revokes every link by
// DELETE /api/files/{key}, which another teacher cannot do.
func TestFileLinksShortLivedAndRevocable(t *testing.T) {
	ctx := context.Background()
	clock := &testClock{now: time.Now().UTC().Truncate(time.Second)}
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "e.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	files, err := blob.NewFS(blob.FSConfig{Dir: t.TempDir(), BaseURL: hs.URL, Secret: []byte("sixteen-byte-key!"), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := files.Put(ctx, fileKey, "application/pdf", []byte("%PDF-1.4 quiz")); err != nil {
		t.Fatal(err)
	}
	srv := edge.New(db.Sessions(), db.Events(), nil, auth.NewDev("t-001", slog.New(slog.DiscardHandler)), edge.Options{Files: files, Now: clock.Now})
	srv.Mount(mux)
	mux.Handle("/files/", files.Handler())
	route := hs.URL + "/api/files/" + fileKey

	sign := func(what string) edge.FileLink {
		t.Helper()
		code, body := do(t, http.MethodGet, route, "")
		var fl edge.FileLink
		if err := json.Unmarshal([]byte(body), &fl); code != http.StatusOK || err != nil {
			t.Fatalf("%s: GET /api/files/…: %d %s", what, code, body)
		}
		if got := fl.ExpiresAt.Sub(clock.Now()); got != 15*time.Minute {
			t.Errorf("%s: the link lives %v, want 15m", what, got)
		}
		return fl
	}
	first := sign("first")
	if code, got := do(t, http.MethodGet, first.URL, ""); code != http.StatusOK || got != "%PDF-1.4 quiz" {
		t.Fatalf("a fresh link: %d %q", code, got)
	}

	clock.Add(edge.DefaultFileLinkTTL + time.Second)
	if code, body := do(t, http.MethodGet, first.URL, ""); code != http.StatusForbidden {
		t.Errorf("an expired link: %d %s, want 403", code, body)
	}
	again := sign("after expiry")
	if code, got := do(t, http.MethodGet, again.URL, ""); code != http.StatusOK || got != "%PDF-1.4 quiz" {
		t.Errorf("the link signed again: %d %q", code, got)
	}

	// Another teacher can neither revoke nor learn that the file exists.
	if code, body := do(t, http.MethodDelete, route, "t-002"); code != http.StatusNotFound {
		t.Errorf("another teacher's DELETE: %d %s, want 404", code, body)
	}
	if code, _ := do(t, http.MethodGet, again.URL, ""); code != http.StatusOK {
		t.Fatalf("after another teacher's DELETE the owner's link answers %d", code)
	}

	if code, body := do(t, http.MethodDelete, route, ""); code != http.StatusNoContent {
		t.Fatalf("the owner's DELETE: %d %s, want 204", code, body)
	}
	if code, body := do(t, http.MethodGet, again.URL, ""); code != http.StatusNotFound {
		t.Errorf("a revoked link: %d %s, want 404", code, body)
	}
	if code, body := do(t, http.MethodGet, route, ""); code != http.StatusNotFound {
		t.Errorf("signing a revoked file again: %d %s, want 404", code, body)
	}
	if code, body := do(t, http.MethodDelete, route, ""); code != http.StatusNotFound {
		t.Errorf("a second DELETE: %d %s, want 404", code, body)
	}
}
