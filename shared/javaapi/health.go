package javaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
)

// Health is what Check found out about the data service.
type Health struct {
	// Status is "ok" (Config.HealthPath answered), "configured" (no
	// HealthPath: nothing is called), "mock" (USE_MOCK_DATA: no service
	// is called), "unauthorized" (the service answers but refuses the
	// token), "down" (no answer, a 5xx) or "error" (any other answer).
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
func (h Health) OK() bool { return h.Status == "ok" || h.Status == "configured" || h.Status == "mock" }

// healthTTL is how long one probe's outcome is reused: health checks come
// from load balancers and monitors, and must not load the service.
const healthTTL = 10 * time.Second

type healthCache struct {
	mu   sync.Mutex
	last Health
}

// Check asks Config.HealthPath, once, without retries, the breaker or
// the fallback, with the service token and no teacher: a 2xx proves that
// the service answers (and, where the path wants the token, takes it); 401
// is "unauthorized" (after one refresh, where a refresh token is set). It
// never asks as a teacher: without a HealthPath it reports "configured"
// and calls nothing. The outcome is reused for 10 s.
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
	switch {
	case c.cfg.UseMock:
		h.Status = "mock"
	case c.cfg.HealthPath == "":
		h.Status = "configured"
	default:
		start := time.Now()
		used := c.authHeader()
		err := c.probe(ctx)
		if errors.Is(err, errUnauthorized) && *c.rtoken.Load() != "" && c.refreshToken(ctx, used) == nil {
			err = c.probe(ctx) // an expired token that the refresh token renews is healthy
		}
		h.LatencyMs = time.Since(start).Milliseconds()
		switch {
		case err == nil:
		case errors.Is(err, errUnauthorized):
			h.Status, h.Detail = "unauthorized", "the data service refused the service token (401)"
		case errors.Is(err, errCanceled):
			h.Status, h.Detail = "down", "the health probe was canceled"
		case serviceDown(err):
			h.Status, h.Detail = "down", apperr.As(err).Message
		default:
			h.Status, h.Detail = "error", apperr.As(err).Message
		}
	}
	c.health.last = h
	return h
}

// probe asks HealthPath on the service's origin. Any 2xx body will do
// (Spring Boot's {"status":"UP"}, a Result, plain text).
func (c *Client) probe(ctx context.Context) error {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, strings.TrimRight(c.cfg.BaseURL, "/")+c.cfg.HealthPath, nil)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "cannot build the health probe")
	}
	req.Header.Set("Authorization", c.authHeader())
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportErr(ctx, actx, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusUnauthorized:
		return rejected(code, "the health path refused the token", fmt.Errorf("HTTP %d", code))
	case code >= 500:
		return apperr.Wrap(fmt.Errorf("%w: HTTP %d", errTransient, code), apperr.DataError, "the data service failed (HTTP %d)", code)
	default:
		return apperr.New(apperr.DataError, "the health path answered HTTP %d", code)
	}
}
