package e2e

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/server"
)

// JAVA_API_PREFIX=/ (no prefix) starts and serves data; it used to panic
// in the mock fallback's set-up.
func TestPrefixSlashStarts(t *testing.T) {
	for _, env := range []map[string]string{{"JAVA_API_PREFIX": "/"}, {"SPRING_BOOT_API_PREFIX": "/data/"}} {
		s := NewLocal(t, env)
		st := postStream(t, s.URL, `{"message":"我有哪些班？"}`)
		if st.Status != http.StatusOK || !strings.Contains(st.text(t), "Form 1A") {
			t.Errorf("%v: %d %s", env, st.Status, st.text(t))
		}
		for _, r := range s.Java.Requests() {
			if strings.Contains(r.Path, "/api/") || strings.Contains(r.Path, "//") {
				t.Errorf("%v: request path %s", env, r.Path)
			}
		}
	}
}

// JAVA_API_PREFIX set to "" is refused at start with a message naming it,
// rather than silently becoming /api.
func TestEmptyPrefixRefused(t *testing.T) {
	t.Setenv("JAVA_API_PREFIX", "")
	_, err := server.Start(context.Background(), server.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir(),
		Getenv: func(string) string { return "" }, Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "JAVA_API_PREFIX") {
		t.Fatalf("start with JAVA_API_PREFIX=\"\": err = %v, want a refusal naming the variable", err)
	}
}
