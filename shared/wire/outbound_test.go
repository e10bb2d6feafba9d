package wire

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestOutboundIdleConnections (issue 32): after a burst of 200 concurrent
// requests to one upstream, the client keeps at most 64 connections open
// (docs/reliability.md), and closes those it keeps once idle for
// outboundIdleTimeout, under a minute.
func TestOutboundIdleConnections(t *testing.T) {
	const burst, keptAtMost = 200, 64
	var open atomic.Int64
	var arrived atomic.Int64
	all := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == burst {
			close(all)
		}
		select { // every request holds its connection until all are open
		case <-all:
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)

	c := Outbound()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range burst {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			resp, err := c.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	if n := arrived.Load(); n != burst { // each held its connection until all had come
		t.Fatalf("%d requests reached the server, want %d", n, burst)
	}
	// The connections past the pool's bound are closed by the client as
	// their responses end; the server sees each close a moment later.
	for open.Load() > keptAtMost {
		if ctx.Err() != nil {
			t.Fatalf("%d connections still open after the burst, want at most %d", open.Load(), keptAtMost)
		}
		time.Sleep(10 * time.Millisecond)
	}
	tr := c.Transport.(*http.Transport)
	if tr.IdleConnTimeout != outboundIdleTimeout || outboundIdleTimeout <= 0 || outboundIdleTimeout > time.Minute {
		t.Errorf("IdleConnTimeout %v: the kept connections must close within a minute of idling", tr.IdleConnTimeout)
	}
}
