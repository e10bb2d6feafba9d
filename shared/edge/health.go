package edge

import (
	"cmp"
	"context"
	"net/http"
	"sync"
	"time"
)

// handleHealth is GET /api/health: 200 once ready with every dependency's
// state; 503 before ready or when a dependency fails.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	deps := make(map[string]map[string]string, len(s.o.Checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	healthy := true
	for _, c := range s.o.Checks {
		wg.Go(func() {
			slot := new(string)
			err := c.Check(context.WithValue(ctx, statusKey{}, slot))
			st := map[string]string{"status": cmp.Or(*slot, "ok")}
			if err != nil {
				st = map[string]string{"status": "error", "detail": err.Error()}
			}
			mu.Lock()
			defer mu.Unlock()
			deps[c.Name] = st
			healthy = healthy && err == nil
		})
	}
	wg.Wait()
	status, code := "ok", http.StatusOK
	switch {
	case !s.ready.Load():
		status, code = "starting", http.StatusServiceUnavailable
	case !healthy:
		status, code = "degraded", http.StatusServiceUnavailable
	}
	writeJSON(w, code, map[string]any{"status": status, "ready": s.ready.Load(), "dependencies": deps})
	return nil
}

type statusKey struct{}

// ReportStatus lets a passing check say more than "ok" in /api/health:
// "configured" for a dependency it did not call (issue 28: the data
// service without JAVA_API_HEALTH_PATH), "mock" for sample data. A failing
// check's status is "error" whatever it reported.
func ReportStatus(ctx context.Context, status string) {
	if slot, ok := ctx.Value(statusKey{}).(*string); ok {
		*slot = status
	}
}
