package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/clock"
)

// DefaultBaseURL is Tavily's API.
const DefaultBaseURL = "https://api.tavily.com"

// TavilyConfig configures a Tavily client. Zero values take the defaults in
// brackets.
type TavilyConfig struct {
	// BaseURL is the service's root [DefaultBaseURL]; POST {BaseURL}/search.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>" (required).
	APIKey string
	// Timeout bounds each attempt [15s].
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt, on 429,
	// 5xx and transport errors [2].
	MaxRetries int
	// Backoff is the first retry's wait, doubled each time, with jitter
	// [300ms]; a Retry-After is honoured up to MaxBackoff [5s].
	Backoff, MaxBackoff time.Duration
	// HTTPClient makes the requests [a client of its own].
	HTTPClient *http.Client
}

// Tavily is the Tavily search client.
type Tavily struct{ c TavilyConfig }

var _ Searcher = (*Tavily)(nil)

// NewTavily validates c and returns a client.
func NewTavily(c TavilyConfig) (*Tavily, error) {
	if strings.TrimSpace(c.APIKey) == "" {
		return nil, errors.New("search: the Tavily API key is required")
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Timeout <= 0 {
		c.Timeout = 15 * time.Second
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	} else if c.MaxRetries == 0 {
		c.MaxRetries = 2
	}
	if c.Backoff <= 0 {
		c.Backoff = 300 * time.Millisecond
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 5 * time.Second
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return &Tavily{c: c}, nil
}

// maxResponse bounds a response body read.
const maxResponse = 4 << 20

// Search implements Searcher.
func (t *Tavily) Search(ctx context.Context, req Request) (Response, error) {
	if strings.TrimSpace(req.Query) == "" {
		return Response{}, fmt.Errorf("%w: the query is empty", ErrRejected)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, fmt.Errorf("search: encode the request: %w", err)
	}
	var last error
	for attempt := 0; attempt <= t.c.MaxRetries; attempt++ {
		resp, wait, err := t.once(ctx, body)
		if err == nil {
			return resp, nil
		}
		last = err
		if errors.Is(err, ErrRejected) || ctx.Err() != nil || attempt == t.c.MaxRetries {
			break
		}
		if wait <= 0 {
			wait = t.c.Backoff << attempt
			wait = wait/2 + rand.N(wait/2+1)
		}
		if err := clock.Sleep(ctx, min(wait, t.c.MaxBackoff)); err != nil {
			return Response{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
	}
	if ctx.Err() != nil {
		return Response{}, fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
	}
	return Response{}, last
}

// once makes one attempt; wait is the server's Retry-After, if any.
func (t *Tavily) once(ctx context.Context, body []byte) (Response, time.Duration, error) {
	actx, cancel := context.WithTimeout(ctx, t.c.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, t.c.BaseURL+"/search", bytes.NewReader(body))
	if err != nil {
		return Response{}, 0, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Authorization", "Bearer "+t.c.APIKey)
	hres, err := t.c.HTTPClient.Do(hreq)
	if err != nil {
		return Response{}, 0, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer hres.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(hres.Body, maxResponse))
	if err != nil {
		return Response{}, 0, fmt.Errorf("%w: read the response: %w", ErrUnavailable, err)
	}
	switch s := hres.StatusCode; {
	case s == http.StatusTooManyRequests || s >= 500:
		return Response{}, retryAfter(hres.Header.Get("Retry-After")), fmt.Errorf("%w: HTTP %d: %s", ErrUnavailable, s, snippet(raw))
	case s != http.StatusOK:
		return Response{}, 0, fmt.Errorf("%w: HTTP %d: %s", ErrRejected, s, snippet(raw))
	}
	var out Response
	if err := json.Unmarshal(raw, &out); err != nil {
		return Response{}, 0, fmt.Errorf("%w: the response is not JSON: %w", ErrUnavailable, err)
	}
	return out, 0, nil
}

func retryAfter(v string) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	return 0
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
