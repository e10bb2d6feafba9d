package edge

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
)

// TestHandle checks the one middleware of every route: returned errors
// become JSON error bodies, and a panic becomes a JSON 500 without the panic
// value, unless the response had started.
func TestHandle(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	tests := []struct {
		name     string
		h        func(http.ResponseWriter, *http.Request) error
		wantCode int
		wantBody string
	}{
		{"error", func(http.ResponseWriter, *http.Request) error {
			return apperr.New(apperr.EntityNotFound, "no such thing")
		}, http.StatusNotFound, `{"error":{"code":"ENTITY_NOT_FOUND","message":"no such thing"}}`},
		{"panic before writing", func(http.ResponseWriter, *http.Request) error {
			panic("boom")
		}, http.StatusInternalServerError, `{"error":{"code":"INTERNAL_ERROR","message":"internal error"}}`},
		{"panic after writing", func(w http.ResponseWriter, _ *http.Request) error {
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte("partial"))
			panic("boom")
		}, http.StatusAccepted, "partial"},
		{"error after writing", func(w http.ResponseWriter, _ *http.Request) error {
			_, _ = w.Write([]byte("streamed"))
			return apperr.New(apperr.AIError, "late")
		}, http.StatusOK, "streamed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			Handle(log, tt.h).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x", nil))
			if w.Code != tt.wantCode || strings.TrimSpace(w.Body.String()) != tt.wantBody {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body, tt.wantCode, tt.wantBody)
			}
			if w.Header().Get("X-Trace-ID") == "" {
				t.Error("no X-Trace-ID header")
			}
		})
	}
}
