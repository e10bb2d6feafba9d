package blob_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/blob/blobtest"
)

var testSecret = []byte("0123456789abcdef-test-secret")

// newFS returns a store served by a loopback server, with a clock the test
// can move.
func newFS(t *testing.T, now *time.Time) (*blob.FS, *httptest.Server) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	clock := time.Now
	if now != nil {
		clock = func() time.Time { return *now }
	}
	s, err := blob.NewFS(blob.FSConfig{Dir: t.TempDir(), BaseURL: srv.URL, Secret: testSecret, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	mux.Handle("/files/", s.Handler())
	return s, srv
}

func TestFSContract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store {
		s, _ := newFS(t, nil)
		return s
	})
}

func TestNewFSConfig(t *testing.T) {
	for name, cfg := range map[string]blob.FSConfig{
		"no dir":       {Secret: testSecret},
		"short secret": {Dir: t.TempDir(), Secret: []byte("short")},
		"bad prefix":   {Dir: t.TempDir(), Secret: testSecret, Prefix: "files"},
	} {
		if _, err := blob.NewFS(cfg); err == nil {
			t.Errorf("%s: NewFS succeeded", name)
		}
	}
}

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestFSHandler(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	s, srv := newFS(t, &now)
	ctx := context.Background()
	const deck = "teachers/t-1/sessions/s-1/files/call_1/勾股定理.pptx"
	const page = "teachers/t-1/sessions/s-1/files/call_2/flashcards.html"
	if _, err := s.Put(ctx, deck, "application/vnd.openxmlformats-officedocument.presentationml.presentation", []byte("deck")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, page, "text/html; charset=utf-8", []byte("<!DOCTYPE html><p>hi</p>")); err != nil {
		t.Fatal(err)
	}
	sign := func(key string) string {
		u, err := s.URL(ctx, key, 10*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	deckURL, pageURL := sign(deck), sign(page)
	tamper := func(u, param, value string) string {
		p, _ := url.Parse(u)
		q := p.Query()
		q.Set(param, value)
		p.RawQuery = q.Encode()
		return p.String()
	}
	other := strings.Replace(deckURL, "call_1", "call_9", 1) // the signature of another key

	tests := []struct {
		name    string
		method  string
		url     string
		teacher string
		advance time.Duration
		status  int
		code    string
	}{
		{name: "ok", url: deckURL, status: 200},
		{name: "head", method: http.MethodHead, url: deckURL, status: 200},
		{name: "own teacher", url: deckURL, teacher: "t-1", status: 200},
		{name: "other teacher", url: deckURL, teacher: "t-2", status: 403, code: "AUTH_ERROR"},
		{name: "expired", url: deckURL, advance: 11 * time.Minute, status: 403, code: "AUTH_ERROR"},
		{name: "expiry moved", url: tamper(deckURL, "exp", "9999999999"), status: 403, code: "AUTH_ERROR"},
		{name: "signature changed", url: tamper(deckURL, "sig", strings.Repeat("ab", 32)), status: 403, code: "AUTH_ERROR"},
		{name: "signature not hex", url: tamper(deckURL, "sig", "zz"), status: 403, code: "AUTH_ERROR"},
		{name: "unsigned", url: strings.Split(deckURL, "?")[0], status: 403, code: "AUTH_ERROR"},
		{name: "key swapped", url: other, status: 403, code: "AUTH_ERROR"},
		{name: "traversal", url: srv.URL + "/files/teachers/t-1/..%2f..%2f..%2fetc/passwd?exp=1&sig=00", status: 404, code: "ENTITY_NOT_FOUND"},
		{name: "post", method: http.MethodPost, url: deckURL, status: 405, code: "VALIDATION_ERROR"},
		{name: "page", url: pageURL, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := now
			now = now.Add(tt.advance)
			defer func() { now = saved }()
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			req, _ := http.NewRequest(method, tt.url, nil)
			if tt.teacher != "" {
				req.Header.Set(blob.TeacherHeader, tt.teacher)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d (%s)", resp.StatusCode, tt.status, data)
			}
			if tt.code != "" {
				var e errorBody
				if err := json.Unmarshal(data, &e); err != nil {
					t.Fatalf("error body %q: %v", data, err)
				}
				if e.Error.Code != tt.code || e.Error.Message == "" {
					t.Errorf("error = %+v, want code %s", e.Error, tt.code)
				}
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("error Content-Type = %q", ct)
				}
				return
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("no nosniff header")
			}
			if resp.Header.Get("Content-Length") == "" {
				t.Errorf("no Content-Length")
			}
		})
	}

	t.Run("html headers", func(t *testing.T) {
		resp, err := http.Get(pageURL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'unsafe-inline'", "style-src 'unsafe-inline'", "img-src data:", "sandbox allow-scripts"} {
			if !strings.Contains(csp, want) {
				t.Errorf("CSP %q lacks %q", csp, want)
			}
		}
		if got := resp.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
			t.Errorf("Content-Type = %q", got)
		}
		if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "inline;") {
			t.Errorf("Content-Disposition = %q, want inline", cd)
		}
	})

	t.Run("download headers", func(t *testing.T) {
		resp, err := http.Get(deckURL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Header.Get("Content-Security-Policy") != "" {
			t.Errorf("a deck got a CSP header")
		}
		want := `attachment; filename="file.pptx"; filename*=UTF-8''%E5%8B%BE%E8%82%A1%E5%AE%9A%E7%90%86.pptx`
		if got := resp.Header.Get("Content-Disposition"); got != want {
			t.Errorf("Content-Disposition = %q, want %q", got, want)
		}
		if resp.ContentLength != 4 {
			t.Errorf("Content-Length = %d, want 4", resp.ContentLength)
		}
	})
}

// TestFSStaysInsideDir plants a symlink inside the store that points
// outside it: the os.Root refuses to follow it.
func TestFSStaysInsideDir(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := blob.NewFS(blob.FSConfig{Dir: dir, Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := os.MkdirAll(filepath.Join(dir, "objects", "teachers"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "objects", "teachers", "t-1")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(context.Background(), "teachers/t-1/secret.txt"); err == nil {
		t.Fatal("Get followed a symlink out of the store")
	}
	if _, err := s.Put(context.Background(), "teachers/t-1/new.txt", "text/plain", []byte("x")); err == nil {
		t.Fatal("Put wrote through a symlink out of the store")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("a file appeared outside the store")
	}
}
