package javaapi

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Paths are the endpoint templates of the data service, relative to the
// prefix. A template names its parameters in braces; the client fills them in
// (path-escaped) and the mock server uses the same templates as its routes.
type Paths struct {
	Classes               string // GET the teacher's classes (seed 004 §2.2)
	Class                 string // GET one class, with its students
	ClassAssignments      string // GET a class's assignments
	AssignmentSubmissions string // GET the submissions of one assignment
	StudentSubmissions    string // GET one student's submissions
	// The four below have no endpoint in seed 004; docs/javaapi.md describes
	// the contract the mock implements and the Java team is asked to serve.
	Documents     string // GET the teacher's documents matching ?q=
	Rubrics       string // GET the rubrics the teacher may use
	Rubric        string // GET one rubric with its criteria
	ErrorPatterns string // GET a student's recurring error patterns
}

// DefaultPaths returns the paths of seed 004 §2.2 and the extension paths.
func DefaultPaths() Paths {
	return Paths{
		Classes:               "/dify/teacher/{teacherId}/classes/me",
		Class:                 "/dify/teacher/{teacherId}/classes/{classId}",
		ClassAssignments:      "/dify/teacher/{teacherId}/classes/{classId}/assignments",
		AssignmentSubmissions: "/dify/teacher/{teacherId}/submissions/assignments/{assignmentId}",
		StudentSubmissions:    "/dify/teacher/{teacherId}/submissions/students/{studentId}",
		Documents:             "/dify/teacher/{teacherId}/documents",
		Rubrics:               "/dify/teacher/{teacherId}/rubrics",
		Rubric:                "/dify/teacher/{teacherId}/rubrics/{rubricId}",
		ErrorPatterns:         "/dify/teacher/{teacherId}/students/{studentId}/error-patterns",
	}
}

// fields lists the paths by the names JAVA_API_PATHS uses.
func (p *Paths) fields() map[string]*string {
	return map[string]*string{
		"classes":               &p.Classes,
		"class":                 &p.Class,
		"classAssignments":      &p.ClassAssignments,
		"assignmentSubmissions": &p.AssignmentSubmissions,
		"studentSubmissions":    &p.StudentSubmissions,
		"documents":             &p.Documents,
		"rubrics":               &p.Rubrics,
		"rubric":                &p.Rubric,
		"errorPatterns":         &p.ErrorPatterns,
	}
}

// Config is the client's configuration (seed 004 §2.1, §2.5, §2.6).
type Config struct {
	// BaseURL is the service's origin, e.g. https://api.insightai.hk.
	BaseURL string
	// Prefix is prepended to every path ("/api").
	Prefix string
	// Token is the service's bearer token (a secret).
	Token string
	// Timeout bounds one HTTP attempt.
	Timeout time.Duration
	// MaxConns bounds the connections to the service.
	MaxConns int
	// Attempts is the number of tries of a request (1 = no retry).
	Attempts int
	// RetryBase is the wait before the second attempt; it doubles after each.
	RetryBase time.Duration
	// BreakerFailures is the number of consecutive failed requests that
	// opens the circuit breaker.
	BreakerFailures int
	// BreakerReset is how long the breaker stays open before a probe.
	BreakerReset time.Duration
	// ClassCacheTTL is how long a teacher's class list is reused.
	ClassCacheTTL time.Duration
	// UseMock serves every request from the mock data (USE_MOCK_DATA).
	UseMock bool
	// FallbackToMock serves mock data when the service is down (retries
	// exhausted, malformed answers) or the breaker is open (seed 004 §2.5.3).
	FallbackToMock bool
	// Paths are the endpoint templates.
	Paths Paths
}

// DefaultConfig returns the values of seed 004 with no service configured.
func DefaultConfig() Config {
	return Config{
		Prefix:          "/api",
		Timeout:         15 * time.Second,
		MaxConns:        50,
		Attempts:        3,
		RetryBase:       500 * time.Millisecond,
		BreakerFailures: 5,
		BreakerReset:    60 * time.Second,
		ClassCacheTTL:   5 * time.Minute,
		FallbackToMock:  true,
		Paths:           DefaultPaths(),
	}
}

// ConfigFromEnv reads the configuration through getenv (os.Getenv in
// production). Variables, all optional unless said otherwise:
//
//	JAVA_API_BASE_URL          service origin; required unless USE_MOCK_DATA=true
//	JAVA_API_PREFIX            path prefix (default /api)
//	JAVA_API_TOKEN             bearer token; required with JAVA_API_BASE_URL
//	JAVA_API_TIMEOUT           per-attempt timeout, "15s" or seconds (default 15s)
//	JAVA_API_MAX_CONNS         connection pool size (default 50)
//	JAVA_API_ATTEMPTS          tries per request (default 3)
//	JAVA_API_RETRY_BASE        first backoff (default 500ms; doubles)
//	JAVA_API_BREAKER_FAILURES  consecutive failures that open the breaker (default 5)
//	JAVA_API_BREAKER_RESET     open period before a probe (default 60s)
//	JAVA_API_CLASS_CACHE_TTL   class-list cache (default 5m; 0 disables)
//	USE_MOCK_DATA              true: serve the mock data set, no service calls
//	JAVA_API_FALLBACK_TO_MOCK  false: never fall back to mock data (default true)
//	JAVA_API_PATHS             overrides, "name=template,..." with names
//	                           classes, class, classAssignments, assignmentSubmissions,
//	                           studentSubmissions, documents, rubrics, rubric, errorPatterns
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	var errs []error
	str := func(name string, dst *string) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			*dst = v
		}
	}
	dur := func(name string, dst *time.Duration) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		d, err := parseDuration(v)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a duration such as 15s or a number of seconds", name, v))
			return
		}
		*dst = d
	}
	num := func(name string, dst *int) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want an integer", name, v))
			return
		}
		*dst = n
	}
	flag := func(name string, dst *bool) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want true or false", name, v))
			return
		}
		*dst = b
	}
	str("JAVA_API_BASE_URL", &c.BaseURL)
	str("JAVA_API_PREFIX", &c.Prefix)
	str("JAVA_API_TOKEN", &c.Token)
	dur("JAVA_API_TIMEOUT", &c.Timeout)
	num("JAVA_API_MAX_CONNS", &c.MaxConns)
	num("JAVA_API_ATTEMPTS", &c.Attempts)
	dur("JAVA_API_RETRY_BASE", &c.RetryBase)
	num("JAVA_API_BREAKER_FAILURES", &c.BreakerFailures)
	dur("JAVA_API_BREAKER_RESET", &c.BreakerReset)
	dur("JAVA_API_CLASS_CACHE_TTL", &c.ClassCacheTTL)
	flag("USE_MOCK_DATA", &c.UseMock)
	flag("JAVA_API_FALLBACK_TO_MOCK", &c.FallbackToMock)
	if v := strings.TrimSpace(getenv("JAVA_API_PATHS")); v != "" {
		if err := c.Paths.override(v); err != nil {
			errs = append(errs, fmt.Errorf("JAVA_API_PATHS: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, c.Validate()
}

// Validate reports the first setting that cannot work, naming its variable.
func (c Config) Validate() error {
	if !c.UseMock {
		if c.BaseURL == "" {
			return errors.New("JAVA_API_BASE_URL is required unless USE_MOCK_DATA=true")
		}
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("JAVA_API_BASE_URL=%q: want an http(s) origin", c.BaseURL)
		}
		if c.Token == "" {
			return errors.New("JAVA_API_TOKEN is required with JAVA_API_BASE_URL")
		}
	}
	if c.Prefix != "" && !strings.HasPrefix(c.Prefix, "/") {
		return fmt.Errorf("JAVA_API_PREFIX=%q: want a path starting with /", c.Prefix)
	}
	switch {
	case c.Timeout <= 0:
		return errors.New("JAVA_API_TIMEOUT must be positive")
	case c.MaxConns < 1:
		return errors.New("JAVA_API_MAX_CONNS must be at least 1")
	case c.Attempts < 1 || c.Attempts > 10:
		return errors.New("JAVA_API_ATTEMPTS must be between 1 and 10")
	case c.RetryBase <= 0:
		return errors.New("JAVA_API_RETRY_BASE must be positive")
	case c.BreakerFailures < 1:
		return errors.New("JAVA_API_BREAKER_FAILURES must be at least 1")
	case c.BreakerReset <= 0:
		return errors.New("JAVA_API_BREAKER_RESET must be positive")
	}
	for name, p := range c.Paths.fields() {
		if !strings.HasPrefix(*p, "/") {
			return fmt.Errorf("JAVA_API_PATHS: path %s=%q must start with /", name, *p)
		}
	}
	return nil
}

func (p *Paths) override(spec string) error {
	fields := p.fields()
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, tmpl, ok := strings.Cut(item, "=")
		if !ok {
			return fmt.Errorf("%q: want name=template", item)
		}
		dst, known := fields[strings.TrimSpace(name)]
		if !known {
			return fmt.Errorf("unknown path name %q", name)
		}
		*dst = strings.TrimSpace(tmpl)
	}
	return nil
}

func parseDuration(v string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(secs * float64(time.Second)), nil
	}
	return time.ParseDuration(v)
}
