package javaapi_test

import (
	"context"
	"io"
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

// BenchmarkClientOverhead compares, at 50 concurrent requests against the
// mock with an injected server latency, the client's full path (breaker,
// retry loop, headers, Result unwrapping, DTO decoding and mapping) with a
// bare net/http GET that only reads the body. The difference at each
// percentile is the client's own overhead.
func BenchmarkClientOverhead(b *testing.B) {
	for _, bc := range []struct {
		name    string
		path    string
		call    func(c *javaapi.Client) error
		latency time.Duration
	}{
		{"assignments", "/api/dify/teacher/t-001/classes/class-hk-f1a/assignments",
			func(c *javaapi.Client) error {
				_, err := c.ClassAssignments(context.Background(), "t-001", "class-hk-f1a")
				return err
			}, 20 * time.Millisecond},
		{"submissions", "/api/dify/teacher/t-001/submissions/assignments/a-f1a-01",
			func(c *javaapi.Client) error {
				_, err := c.AssignmentSubmissions(context.Background(), "t-001", "a-f1a-01")
				return err
			}, 20 * time.Millisecond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := mockserver.New(mockdata.Default(), mockserver.Options{Token: token})
			srv.SetFault(mockserver.Fault{Latency: bc.latency})
			hs := httptest.NewServer(srv)
			defer hs.Close()
			cfg := javaapi.DefaultConfig()
			cfg.BaseURL, cfg.Token, cfg.FallbackToMock = hs.URL, token, false
			client, err := javaapi.New(cfg, javaapi.Options{})
			if err != nil {
				b.Fatal(err)
			}
			raw := &http.Client{Transport: &http.Transport{MaxConnsPerHost: concurrency, MaxIdleConnsPerHost: concurrency}}
			rawGet := func() error {
				req, _ := http.NewRequest(http.MethodGet, hs.URL+bc.path, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := raw.Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				_, err = io.ReadAll(resp.Body)
				return err
			}
			// Warm both connection pools.
			measure(b, concurrency, rawGet)
			measure(b, concurrency, func() error { return bc.call(client) })
			n := max(b.N, concurrency)
			b.ResetTimer()
			// Interleave the two in rounds so that both see the same machine load.
			var rawLat, cliLat []time.Duration
			for round := range 4 {
				m := n / 4
				if round == 3 {
					m = n - 3*(n/4)
				}
				rawLat = append(rawLat, measure(b, m, rawGet)...)
				cliLat = append(cliLat, measure(b, m, func() error { return bc.call(client) })...)
			}
			b.StopTimer()
			slices.Sort(rawLat)
			slices.Sort(cliLat)
			for _, p := range []struct {
				name string
				q    float64
			}{{"p50", .50}, {"p90", .90}, {"p99", .99}} {
				r, c := percentile(rawLat, p.q), percentile(cliLat, p.q)
				b.ReportMetric(float64(c.Microseconds()), "client-"+p.name+"-µs")
				b.ReportMetric(float64(r.Microseconds()), "raw-"+p.name+"-µs")
				b.ReportMetric(float64((c - r).Microseconds()), "overhead-"+p.name+"-µs")
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
