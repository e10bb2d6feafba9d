package javaapi

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
)

// Health is what Check found out about the data service.
type Health struct {
	// Status is "ok", "mock" (USE_MOCK_DATA: no service is called),
	// "unauthorized" (the service answers but refuses the token), "down"
	// (no answer, a 5xx, a broken answer) or "error" (any other refusal).
	Status string `json:"status"`
	// Breaker is the circuit breaker's state.
	Breaker string `json:"breaker"`
	// LatencyMs is the probe's duration.
	LatencyMs int64 `json:"latencyMs"`
	// Detail says what went wrong, without addresses or secrets.
	Detail string `json:"detail,omitempty"`
	// Checked is when the probe ran (probes are reused for healthTTL).
	Checked time.Time `json:"checked"`
}

// OK reports whether the service can serve teachers.
func (h Health) OK() bool { return h.Status == "ok" || h.Status == "mock" }

// healthTTL is how long one probe's outcome is reused: health checks come
// from load balancers and monitors, and must not load the service.
const healthTTL = 10 * time.Second

type healthCache struct {
	mu   sync.Mutex
	last Health
}

// Check proves that the service answers and accepts the token: it asks for
// the class list of Config.HealthTeacherID once, without retries, the
// breaker or the fallback. Any Result (even 403 or 404 for a teacher that
// does not exist) proves both; 401 proves the service up and the token
// refused. The outcome is reused for 10 s.
func (c *Client) Check(ctx context.Context) Health {
	c.health.mu.Lock()
	defer c.health.mu.Unlock()
	now := c.now()
	if age := now.Sub(c.health.last.Checked); !c.health.last.Checked.IsZero() && age >= 0 && age < healthTTL {
		h := c.health.last
		h.Breaker = c.BreakerState()
		return h
	}
	h := Health{Breaker: c.BreakerState(), Checked: now, Status: "ok"}
	if c.cfg.UseMock {
		h.Status = "mock"
		c.health.last = h
		return h
	}
	start := time.Now()
	path := fill(c.cfg.Paths.Classes, c.cfg.HealthTeacherID, nil)
	var discard []classDTO
	probe := func() error {
		return c.attempt(ctx, c.http, c.base+path, "class list", func(body []byte) (*int, string, error) {
			return decodeResult(body, &discard)
		})
	}
	used := c.authHeader()
	err := probe()
	if errors.Is(err, errUnauthorized) && *c.rtoken.Load() != "" && c.refreshToken(ctx, used) == nil {
		err = probe() // an expired token that the refresh token renews is healthy
	}
	h.LatencyMs = time.Since(start).Milliseconds()
	switch {
	case err == nil:
	case errors.Is(err, errUnauthorized):
		h.Status, h.Detail = "unauthorized", "the data service refused the service token (401)"
	case serviceDown(err):
		h.Status, h.Detail = "down", apperr.As(err).Message
	case errors.Is(err, errCanceled):
		h.Status, h.Detail = "down", "the health probe was canceled"
	case apperr.CodeOf(err) == apperr.AuthError || apperr.CodeOf(err) == apperr.EntityNotFound:
		// 403 / 404 for the probe teacher: the service answered and took the token.
	default:
		h.Status, h.Detail = "error", apperr.As(err).Message
	}
	c.health.last = h
	return h
}
