package javaapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/javaapitest/seedjava"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/syncbuf"
)

// seedEnv is a client over the seed stand-in (seedjava), with the mock
// data as its fallback, as in production.
type seedEnv struct {
	client *javaapi.Client
	srv    *seedjava.Server
	hs     *httptest.Server
	logs   *syncbuf.Buffer
	clock  *clocktest.Fake
}

func newSeedEnv(t *testing.T, d seedjava.Defects, edit func(*javaapi.Config)) *seedEnv {
	t.Helper()
	e := &seedEnv{srv: seedjava.New(), logs: &syncbuf.Buffer{}, clock: clocktest.New(time.Date(2026, 2, 4, 10, 0, 0, 0, time.UTC))}
	e.srv.SetDefects(d)
	e.hs = httptest.NewServer(e.srv)
	t.Cleanup(e.hs.Close)
	cfg := javaapi.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.RetryBase = e.hs.URL, seedjava.Token, time.Millisecond
	if edit != nil {
		edit(&cfg)
	}
	c, err := javaapi.New(cfg, javaapi.Options{Logger: slog.New(slog.NewJSONHandler(e.logs, nil)),
		Fallback: mockserver.Fallback(cfg), Now: e.clock.Now,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	e.client = c
	return e
}

// Ungraded work (score: null) is kept as ungraded, never as 0; a missing
// max_score makes the record unusable, not a silent drop.
func TestUngradedAndUnusableSubmissions(t *testing.T) {
	e := newSeedEnv(t, seedjava.Defects{Ungraded: true, NoMaxScore: true}, nil)
	ctx, rep := javaapi.WithReport(context.Background())
	subs, err := e.client.AssignmentSubmissions(ctx, "t-100", "a-7001")
	if err != nil {
		t.Fatal(err)
	}
	if len(subs.Submissions) != 6 {
		t.Fatalf("%d submissions, want all 6", len(subs.Submissions))
	}
	ungraded, unusable := 0, 0
	for _, s := range subs.Submissions {
		switch {
		case !s.Graded():
			ungraded++
			if s.StudentID != "s-3b-04" && s.StudentID != "s-3b-06" {
				t.Errorf("%s is ungraded", s.StudentID)
			}
		case !s.Usable():
			unusable++
			if s.StudentID != "s-3b-05" || s.MaxScore != nil {
				t.Errorf("%s unusable with max %v", s.StudentID, s.MaxScore)
			}
		}
	}
	if ungraded != 2 || unusable != 1 {
		t.Errorf("ungraded %d, unusable %d; want 2 and 1", ungraded, unusable)
	}
	// score: null is data; a missing max_score is a contract violation.
	if v := rep.Summary().Violations; v["submission.max_score"] != 1 || v["submission.score"] != 0 {
		t.Errorf("violations %v", v)
	}
	if got := e.client.Stats().Violations["submission.max_score"]; got != 1 {
		t.Errorf("counter submission.max_score = %d", got)
	}
}

// Records missing what §2.4.1 requires are reported by field, and a class
// without a name is left out rather than shown as "「」".
func TestMissingClassFields(t *testing.T) {
	e := newSeedEnv(t, seedjava.Defects{ClassFieldsMissing: true}, nil)
	ctx, rep := javaapi.WithReport(context.Background())
	cs, err := e.client.Classes(ctx, "t-100")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("%d classes, want 3B and 3D (the nameless one left out): %+v", len(cs), cs)
	}
	b := cs[0]
	if b.Name != "3B" || b.StudentCount != nil || strings.Join(b.Incomplete, ",") != "grade,studentCount" {
		t.Errorf("3B = %+v, want student count unknown (null), not 0", b)
	}
	s := rep.Summary()
	if s.Violations["class.student_count"] != 1 || s.Violations["class.grade"] != 1 || s.Violations["class.name"] != 1 || s.Dropped["class"] != 1 {
		t.Errorf("report %+v", s)
	}
	if lines := logLines(t, e.logs, "data service contract violation"); len(lines) != 3 || lines[0]["field"] != "class.grade" || lines[0]["JavaContractViolation"] != 1.0 {
		t.Errorf("no contract violation log with its metric:\n%s", e.logs.String())
	}
}

// A malformed answer (broken JSON, code as a string) is a data error: not
// retried, a breaker failure, never mock data (seed §2.5).
func TestMalformedIsDataErrorNotMock(t *testing.T) {
	for name, d := range map[string]seedjava.Defects{"broken JSON": {Malformed: true}, `"code":"200"`: {CodeAsString: true}} {
		t.Run(name, func(t *testing.T) {
			e := newSeedEnv(t, d, nil)
			_, err := e.client.ClassDetail(context.Background(), "t-100", "class-4471")
			wantCode(t, err, apperr.DataError)
			st := e.client.Stats()
			if st.Fallbacks != 0 || st.MockResponses != 0 || st.Attempts != 1 {
				t.Errorf("stats %+v: want one attempt and no mock", st)
			}
		})
	}
}

// Down, with the fallback on: a teacher the sample data does not know gets
// an outage, not "no classes"; one it knows gets sample data, marked.
func TestOutageIsAnOutage(t *testing.T) {
	e := newSeedEnv(t, seedjava.Defects{Down: true}, nil)
	ctx, rep := javaapi.WithReport(context.Background())
	_, err := e.client.Classes(ctx, "t-100")
	wantCode(t, err, apperr.ServiceUnavailable)
	ctx, rep = javaapi.WithReport(context.Background())
	cs, err := e.client.Classes(ctx, "t-001")
	if err != nil || len(cs) == 0 {
		t.Fatalf("t-001 from the sample data: %v %v", cs, err)
	}
	if !rep.Summary().Mock {
		t.Error("sample data served without being marked")
	}
}

// A partial outage never blends mock rows into real data: once the service
// answered in a scope, a later failure is an error.
func TestPartialOutageDoesNotBlend(t *testing.T) {
	e := newSeedEnv(t, seedjava.Defects{DownPath: "/submissions/"}, nil)
	ctx, rep := javaapi.WithReport(context.Background())
	if _, err := e.client.ClassAssignments(ctx, "t-100", "class-4471"); err != nil {
		t.Fatal(err)
	}
	_, err := e.client.AssignmentSubmissions(ctx, "t-100", "a-7001")
	wantCode(t, err, apperr.DataError)
	if rep.Summary().Mock || e.client.Stats().MockResponses != 0 {
		t.Error("mock data blended into a scope the service answered")
	}
}

// A refused token is a service error with an operator alarm, and the
// refresh token, when configured, gets a new one.
func TestExpiredToken(t *testing.T) {
	t.Run("no refresh token", func(t *testing.T) {
		e := newSeedEnv(t, seedjava.Defects{ExpiredToken: true}, func(c *javaapi.Config) { c.HealthPath = seedjava.HealthPath })
		_, err := e.client.Classes(context.Background(), "t-100")
		wantCode(t, err, apperr.ServiceUnavailable)
		if e.client.Stats().AuthFailures != 1 || !strings.Contains(e.logs.String(), `"JavaClientAuthFailure":1`) {
			t.Errorf("no alarm: %+v", e.client.Stats())
		}
		if h := e.client.Check(context.Background()); h.Status != "unauthorized" || h.OK() {
			t.Errorf("health %+v", h)
		}
	})
	t.Run("refresh token", func(t *testing.T) {
		e := newSeedEnv(t, seedjava.Defects{ExpiredToken: true}, func(c *javaapi.Config) {
			c.RefreshToken, c.HealthPath = seedjava.RefreshToken, seedjava.HealthPath
		})
		cs, err := e.client.Classes(context.Background(), "t-100")
		if err != nil || len(cs) != 2 {
			t.Fatalf("after refresh: %v %v", cs, err)
		}
		if st := e.client.Stats(); st.TokenRefreshes != 1 || st.AuthFailures != 0 {
			t.Errorf("stats %+v", st)
		}
		if h := e.client.Check(context.Background()); h.Status != "ok" {
			t.Errorf("health after a refresh: %+v", h)
		}
		reqs := e.srv.Requests()
		if last := reqs[len(reqs)-1]; !strings.HasPrefix(last.Authorization, "Bearer seed-refreshed-") {
			t.Errorf("last request used %q", last.Authorization)
		}
	})
	t.Run("the health probe refreshes too", func(t *testing.T) {
		e := newSeedEnv(t, seedjava.Defects{ExpiredToken: true}, func(c *javaapi.Config) {
			c.RefreshToken, c.HealthPath = seedjava.RefreshToken, seedjava.HealthPath
		})
		if h := e.client.Check(context.Background()); h.Status != "ok" || e.client.Stats().TokenRefreshes != 1 {
			t.Errorf("health %+v, stats %+v", h, e.client.Stats())
		}
	})
	t.Run("concurrent requests refresh once", func(t *testing.T) {
		e := newSeedEnv(t, seedjava.Defects{ExpiredToken: true}, func(c *javaapi.Config) {
			c.RefreshToken, c.ClassCacheTTL = seedjava.RefreshToken, 0
		})
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() { _, errs[i] = e.client.Classes(context.Background(), "t-100") })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if n := e.client.Stats().TokenRefreshes; n != 1 {
			t.Errorf("%d refreshes, want 1", n)
		}
	})
}

// A class list past its TTL is served while the service is down, marked
// stale; a teacher's explicit request skips a fresh cache.
func TestStaleClassList(t *testing.T) {
	e := newSeedEnv(t, seedjava.Defects{}, nil)
	if _, err := e.client.Classes(context.Background(), "t-100"); err != nil {
		t.Fatal(err)
	}
	n := len(e.srv.Requests())
	if _, err := e.client.Classes(javaapi.WithFreshData(context.Background()), "t-100"); err != nil || len(e.srv.Requests()) != n+1 {
		t.Fatalf("a fresh request did not reach the service: %v", err)
	}
	e.srv.SetDefects(seedjava.Defects{Down: true})
	e.clock.Advance(20 * time.Minute)
	ctx, rep := javaapi.WithReport(context.Background())
	cs, err := e.client.Classes(ctx, "t-100")
	if err != nil || len(cs) != 2 {
		t.Fatalf("stale list: %v %v", cs, err)
	}
	if s := rep.Summary(); !s.Stale || s.Mock || s.StaleAge != 20*time.Minute {
		t.Errorf("report %+v, want stale 20m, not mock", s)
	}
	e.clock.Advance(25 * time.Hour)
	_, err = e.client.Classes(context.Background(), "t-100")
	wantCode(t, err, apperr.ServiceUnavailable) // too old, and t-100 is not in the sample data
}

// Tool error text never carries the service's internal address.
func TestErrorsCarryNoURL(t *testing.T) {
	e := newSeedEnv(t, seedjava.Defects{}, func(c *javaapi.Config) { c.FallbackToMock = false })
	host := strings.TrimPrefix(e.hs.URL, "http://")
	e.hs.Close()
	_, err := e.client.ClassDetail(context.Background(), "t-100", "class-4471")
	wantCode(t, err, apperr.DataError)
	if strings.Contains(err.Error(), host) || strings.Contains(err.Error(), "/dify/") {
		t.Errorf("error names the service: %v", err)
	}
}

func TestConfigPrefixAndAliases(t *testing.T) {
	lookup := func(env map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	}
	t.Run("prefix / means none, and nothing panics", func(t *testing.T) {
		// The stand-in serves /api/…; this server takes the paths without it.
		hs := httptest.NewServer(rewrite("/api", seedjava.New()))
		defer hs.Close()
		cfg, err := javaapi.ConfigFromLookup(lookup(map[string]string{"SPRING_BOOT_BASE_URL": hs.URL, "SPRING_BOOT_API_PREFIX": "/",
			"SPRING_BOOT_ACCESS_TOKEN": seedjava.Token, "SPRING_BOOT_TIMEOUT": "5"}))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Prefix != "" || cfg.Timeout != 5*time.Second || cfg.Token != seedjava.Token {
			t.Fatalf("cfg %+v", cfg)
		}
		c, err := javaapi.New(cfg, javaapi.Options{Fallback: mockserver.Fallback(cfg)})
		if err != nil {
			t.Fatal(err)
		}
		if cs, err := c.Classes(context.Background(), "t-100"); err != nil || len(cs) != 2 {
			t.Fatalf("classes at the root: %v %v", cs, err)
		}
	})
	for name, tt := range map[string]struct {
		env  map[string]string
		want string
	}{
		"empty prefix":    {map[string]string{"JAVA_API_BASE_URL": "http://x", "JAVA_API_TOKEN": "t", "JAVA_API_PREFIX": ""}, "JAVA_API_PREFIX is set but empty"},
		"prefix no slash": {map[string]string{"JAVA_API_BASE_URL": "http://x", "JAVA_API_TOKEN": "t", "JAVA_API_PREFIX": "api"}, "want a path starting with /"},
		"bad pattern":     {map[string]string{"JAVA_API_BASE_URL": "http://x", "JAVA_API_TOKEN": "t", "JAVA_API_PREFIX": "/a{"}, "JAVA_API_PREFIX"},
		"base with path":  {map[string]string{"JAVA_API_BASE_URL": "http://x/api", "JAVA_API_TOKEN": "t"}, "the path goes in JAVA_API_PREFIX"},
		"alias timeout":   {map[string]string{"SPRING_BOOT_BASE_URL": "http://x", "SPRING_BOOT_ACCESS_TOKEN": "t", "SPRING_BOOT_TIMEOUT": "soon"}, "SPRING_BOOT_TIMEOUT"},
		"every error":     {map[string]string{"JAVA_API_MAX_CONNS": "0", "JAVA_API_ATTEMPTS": "99"}, "JAVA_API_TOKEN"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := javaapi.ConfigFromLookup(lookup(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one naming %q", err, tt.want)
			}
			if name == "every error" && (!strings.Contains(err.Error(), "JAVA_API_MAX_CONNS") || !strings.Contains(err.Error(), "JAVA_API_ATTEMPTS")) {
				t.Errorf("not every wrong setting is named: %v", err)
			}
		})
	}
}

// rewrite serves h under prefix for requests made without it.
func rewrite(prefix string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path = prefix + r.URL.Path
		h.ServeHTTP(w, r)
	})
}
