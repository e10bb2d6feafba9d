package javaapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
)

func (c *Client) setToken(token string) {
	h := "Bearer " + token
	c.auth.Store(&h)
}

func (c *Client) authHeader() string { return *c.auth.Load() }

// refreshToken exchanges Config.RefreshToken for a new access token at
// Paths.Refresh, unless another request already replaced the header used
// (the token it was refused with). One refresh runs at a time.
func (c *Client) refreshToken(ctx context.Context, used string) error {
	c.refresh.Lock()
	defer c.refresh.Unlock()
	if c.authHeader() != used {
		return nil // refreshed meanwhile
	}
	body, _ := json.Marshal(map[string]string{"refresh_token": *c.rtoken.Load()})
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.base+c.cfg.Paths.Refresh, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if id := TraceID(ctx); id != "" {
		req.Header.Set("X-Trace-ID", id)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportErr(ctx, actx, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return c.transportErr(ctx, actx, err)
	}
	var res struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
		Data    struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		} `json:"data"`
	}
	switch {
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("token refresh: HTTP %d", resp.StatusCode)
	case json.Unmarshal(raw, &res) != nil || res.Code == nil:
		return errors.New("token refresh: malformed answer")
	case *res.Code != 200:
		return fmt.Errorf("token refresh: code %d: %s", *res.Code, res.Message)
	case strings.TrimSpace(res.Data.AccessToken) == "":
		return errors.New("token refresh: no access_token in the answer")
	}
	c.setToken(strings.TrimSpace(res.Data.AccessToken))
	if rt := strings.TrimSpace(res.Data.RefreshToken); rt != "" {
		c.rtoken.Store(&rt) // rotated
	}
	c.counters.tokenRefreshes.Add(1)
	c.log.LogAttrs(ctx, slog.LevelInfo, "data service token refreshed", slog.String("traceId", TraceID(ctx)))
	return nil
}

// alarmUnauthorized tells the operator that the service refused the token:
// an error log line with the EMF metric JavaClientAuthFailure, to alarm on.
func (c *Client) alarmUnauthorized(ctx context.Context, path string) {
	c.counters.authFailures.Add(1)
	hint := "set a valid JAVA_API_TOKEN (SPRING_BOOT_ACCESS_TOKEN)"
	if *c.rtoken.Load() != "" {
		hint = "the refresh token did not help; renew JAVA_API_TOKEN and JAVA_API_REFRESH_TOKEN"
	}
	c.log.LogAttrs(ctx, slog.LevelError, "data service rejected the service token (HTTP 401)",
		slog.String("path", path), slog.String("traceId", TraceID(ctx)), slog.String("action", hint),
		emfCount(c.now(), "JavaClientAuthFailure"), slog.Int("JavaClientAuthFailure", 1))
}
