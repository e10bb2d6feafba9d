package javaapi_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

// concurrency is the number of requests in flight (seed 004 §2.6: 50 connections).
const concurrency = 50

type benchEndpoint struct {
	name string
	path string
	call func(ctx context.Context, c *javaapi.Client) error
}

func benchEndpoints() []benchEndpoint {
	return []benchEndpoint{
		{"assignments", "/api/dify/teacher/t-001/classes/class-hk-f1a/assignments", func(ctx context.Context, c *javaapi.Client) error {
			_, err := c.ClassAssignments(ctx, "t-001", "class-hk-f1a")
			return err
		}},
		{"submissions", "/api/dify/teacher/t-001/submissions/assignments/a-f1a-01", func(ctx context.Context, c *javaapi.Client) error {
			_, err := c.AssignmentSubmissions(ctx, "t-001", "a-f1a-01")
			return err
		}},
	}
}

// benchSetup starts the mock with fault f and returns the client (its
// transport wrapped by probe, if any) and a bare GET of path (same pool
// size, same headers, body read and dropped).
func benchSetup(b *testing.B, f mockserver.Fault, path string, probe *wireTimer) (*javaapi.Client, func() error) {
	b.Helper()
	srv := mockserver.New(mockdata.Default(), mockserver.Options{Token: token})
	hs := httptest.NewServer(replay(b, srv, f))
	b.Cleanup(hs.Close)
	cfg := javaapi.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.FallbackToMock = hs.URL, token, false
	opts := javaapi.Options{}
	if probe != nil {
		opts.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return wireTimer{next: rt} }
	}
	client, err := javaapi.New(cfg, opts)
	if err != nil {
		b.Fatal(err)
	}
	raw := &http.Client{Transport: &http.Transport{MaxConnsPerHost: concurrency, MaxIdleConnsPerHost: concurrency}}
	return client, func() error {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := raw.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		return err
	}
}

// measure runs n calls of fn from concurrency goroutines and returns each
// call's latency.
func measure(b *testing.B, n int, fn func() error) []time.Duration {
	b.Helper()
	lat := make([]time.Duration, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	var once sync.Once
	for range concurrency {
		wg.Go(func() {
			for i := range next {
				start := time.Now()
				if err := fn(); err != nil {
					once.Do(func() { b.Error(err) })
				}
				lat[i] = time.Since(start)
			}
		})
	}
	wg.Wait()
	return lat
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p*float64(len(sorted)-1))]
}

// wireKey carries, in a request's context, where to record its wire time.
type wireKey struct{}

// wireTimer is a transport probe: it records, per request, the time from
// handing the request to the transport until the body is read to its end
// (the network and the server). The rest of a call is the client's own.
type wireTimer struct{ next http.RoundTripper }

func (w wireTimer) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := w.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	rec, _ := r.Context().Value(wireKey{}).(*time.Duration)
	resp.Body = &timedBody{ReadCloser: resp.Body, start: start, rec: rec}
	return resp, nil
}

type timedBody struct {
	io.ReadCloser
	start time.Time
	rec   *time.Duration
}

func (t *timedBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if err == io.EOF && t.rec != nil && *t.rec == 0 {
		*t.rec = time.Since(t.start)
	}
	return n, err
}

// BenchmarkClientOverhead runs 50 concurrent requests against the mock with
// an injected server latency and measures, per request, the client's own
// time: the whole call minus its wire time (transport to end of body). That
// covers the breaker, the retry loop, building the request, Result
// unwrapping, DTO decoding and mapping, and any wait for a CPU among 50
// goroutines on this machine.
//
// "fixed" answers every request after exactly 20 ms, so the answers of a
// wave arrive together and their decoding queues for the CPU (the worst
// case); "jittered" spreads them over 20–40 ms, as real traffic is.
func BenchmarkClientOverhead(b *testing.B) {
	for _, lat := range []struct {
		name  string
		fault mockserver.Fault
	}{
		{"fixed", mockserver.Fault{Latency: 20 * time.Millisecond}},
		{"jittered", mockserver.Fault{Latency: 20 * time.Millisecond, Jitter: 20 * time.Millisecond}},
	} {
		for _, ep := range benchEndpoints() {
			b.Run(ep.name+"/"+lat.name, func(b *testing.B) {
				client, _ := benchSetup(b, lat.fault, ep.path, &wireTimer{})
				var mu sync.Mutex
				var own, total []time.Duration
				call := func() error {
					var wire time.Duration
					ctx := context.WithValue(context.Background(), wireKey{}, &wire)
					start := time.Now()
					err := ep.call(ctx, client)
					all := time.Since(start)
					mu.Lock()
					own, total = append(own, all-wire), append(total, all)
					mu.Unlock()
					return err
				}
				measure(b, concurrency, call) // warm the pool
				own, total = own[:0], total[:0]
				b.ResetTimer()
				measure(b, max(b.N, 4*concurrency), call)
				b.StopTimer()
				slices.Sort(own)
				slices.Sort(total)
				for _, p := range []struct {
					name string
					q    float64
				}{{"p50", .50}, {"p90", .90}, {"p99", .99}} {
					b.ReportMetric(float64(percentile(own, p.q).Microseconds()), "own-"+p.name+"-µs")
					b.ReportMetric(float64(percentile(total, p.q).Microseconds()), "total-"+p.name+"-µs")
				}
			})
		}
	}
}

// BenchmarkClientCPU is one request at a time with no injected latency: the
// difference between client and raw ns/op is the client's own work per call.
func BenchmarkClientCPU(b *testing.B) {
	for _, ep := range benchEndpoints() {
		client, rawGet := benchSetup(b, mockserver.Fault{}, ep.path, nil)
		b.Run(ep.name+"/raw", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := rawGet(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(ep.name+"/client", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := ep.call(context.Background(), client); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBreakerOpen measures a call refused by the open breaker: the
// fast failure, and the same call served from the mock fallback.
func BenchmarkBreakerOpen(b *testing.B) {
	for _, fallback := range []bool{false, true} {
		name := "fast-fail"
		if fallback {
			name = "fallback-to-mock"
		}
		b.Run(name, func(b *testing.B) {
			srv := mockserver.New(mockdata.Default(), mockserver.Options{Token: token})
			srv.SetFault(mockserver.Fault{Status: 503})
			hs := httptest.NewServer(srv)
			defer hs.Close()
			cfg := javaapi.DefaultConfig()
			cfg.BaseURL, cfg.Token = hs.URL, token
			cfg.Attempts, cfg.BreakerFailures, cfg.BreakerReset = 1, 1, time.Hour
			cfg.FallbackToMock = fallback
			opts := javaapi.Options{}
			if fallback {
				opts.Fallback = mockserver.Fallback(cfg)
			}
			client, err := javaapi.New(cfg, opts)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			_, _ = client.ClassAssignments(ctx, "t-001", "class-hk-f1a") // opens the breaker
			if client.BreakerState() != "open" {
				b.Fatal("breaker not open")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_, err := client.ClassAssignments(ctx, "t-001", "class-hk-f1a")
				if (err == nil) != fallback {
					b.Fatalf("err = %v", err)
				}
			}
			b.StopTimer()
			if srv.RequestCount() != 1 {
				b.Fatalf("requests = %d: the open breaker let calls through", srv.RequestCount())
			}
		})
	}
}

// replay serves the mock's answers encoded once, after the fault's latency:
// the data service runs on other machines, so encoding its answers must not
// take CPU from the client under measurement on this 2-core machine.
func replay(b *testing.B, next http.Handler, f mockserver.Fault) http.Handler {
	b.Helper()
	type answer struct {
		status int
		header http.Header
		body   []byte
	}
	var mu sync.Mutex
	cache := map[string]answer{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := f.Latency
		if f.Jitter > 0 {
			d += time.Duration(rand.Int64N(int64(f.Jitter)))
		}
		if d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		mu.Lock()
		a, ok := cache[r.URL.String()]
		mu.Unlock()
		if !ok {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			a = answer{rec.Code, rec.Header().Clone(), rec.Body.Bytes()}
			mu.Lock()
			cache[r.URL.String()] = a
			mu.Unlock()
		}
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	})
}
