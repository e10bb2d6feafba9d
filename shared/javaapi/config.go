package javaapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
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
	// Refresh is POSTed {"refresh_token": …} to get a new access token
	// (data: {access_token, refresh_token?}); seed 004 names the refresh
	// token but not the endpoint, so this is the contract docs/javaapi.md
	// proposes.
	Refresh string
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
		Refresh:               "/auth/refresh",
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
		"refresh":               &p.Refresh,
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
	// RefreshToken, if set, is exchanged for a new Token when the service
	// answers 401 (seed 004 §2.1: SPRING_BOOT_REFRESH_TOKEN), at
	// Paths.Refresh.
	RefreshToken string
	// HealthPath, if set, is a path on the service's origin that answers
	// without a teacher (e.g. Spring Boot's /actuator/health): the health
	// check asks it with the service token. Empty: the check reports
	// "configured" and calls nothing (issue 28: a probe that pretends to
	// be a teacher is a forbidden request in the service's logs).
	HealthPath string
	// StaleFor is how long past its TTL a cached class list may still be
	// served, marked stale, while the service is down (0: never).
	StaleFor time.Duration
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
		StaleFor:        24 * time.Hour,
		FallbackToMock:  true,
		Paths:           DefaultPaths(),
	}
}

// aliases are the seed's own names for settings (seed 004 §2.1), accepted
// when the JAVA_API_ name is not set.
var aliases = map[string]string{
	"JAVA_API_BASE_URL":      "SPRING_BOOT_BASE_URL",
	"JAVA_API_PREFIX":        "SPRING_BOOT_API_PREFIX",
	"JAVA_API_TOKEN":         "SPRING_BOOT_ACCESS_TOKEN",
	"JAVA_API_REFRESH_TOKEN": "SPRING_BOOT_REFRESH_TOKEN",
	"JAVA_API_TIMEOUT":       "SPRING_BOOT_TIMEOUT",
}

// Alias returns the seed's name for a JAVA_API_ variable, or "".
func Alias(name string) string { return aliases[name] }

// ConfigFromEnv reads the configuration through getenv (os.Getenv in
// production); a variable set to "" counts as unset. ConfigFromLookup tells
// the two apart. Variables, all optional unless said otherwise (the seed's
// SPRING_BOOT_ names in brackets are accepted as aliases):
//
//	JAVA_API_BASE_URL          service origin; required unless USE_MOCK_DATA=true [SPRING_BOOT_BASE_URL]
//	JAVA_API_PREFIX            path prefix (default /api; "/" for none) [SPRING_BOOT_API_PREFIX]
//	JAVA_API_TOKEN             bearer token; required with JAVA_API_BASE_URL [SPRING_BOOT_ACCESS_TOKEN]
//	JAVA_API_REFRESH_TOKEN     refresh token, used after a 401 [SPRING_BOOT_REFRESH_TOKEN]
//	JAVA_API_TIMEOUT           per-attempt timeout, "15s" or seconds (default 15s) [SPRING_BOOT_TIMEOUT]
//	JAVA_API_MAX_CONNS         connection pool size (default 50)
//	JAVA_API_ATTEMPTS          tries per request (default 3)
//	JAVA_API_RETRY_BASE        first backoff (default 500ms; doubles)
//	JAVA_API_BREAKER_FAILURES  consecutive failures that open the breaker (default 5)
//	JAVA_API_BREAKER_RESET     open period before a probe (default 60s)
//	JAVA_API_CLASS_CACHE_TTL   class-list cache (default 5m; 0 disables)
//	JAVA_API_STALE_FOR         serve a class list this long past its TTL, marked stale, while the service is down (default 24h; 0 never)
//	JAVA_API_HEALTH_PATH       a path on the origin that answers without a teacher (e.g. /actuator/health); the health probe asks it (default: none, no call)
//	USE_MOCK_DATA              true: serve the mock data set, no service calls
//	JAVA_API_FALLBACK_TO_MOCK  false: never fall back to mock data (default true)
//	JAVA_API_PATHS             overrides, "name=template,..." with names
//	                           classes, class, classAssignments, assignmentSubmissions,
//	                           studentSubmissions, documents, rubrics, rubric, errorPatterns, refresh
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	return ConfigFromLookup(func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	})
}

// LookupWithProcess is a lookup for ConfigFromLookup over getenv (a
// configuration's own view of the environment) that tells a variable the
// process has set to "" from an unset one: JAVA_API_PREFIX="" is then
// refused, wherever the configuration is read.
func LookupWithProcess(getenv func(string) string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if v := getenv(k); v != "" {
			return v, true
		}
		return os.LookupEnv(k)
	}
}

// ConfigFromLookup is ConfigFromEnv with a lookup that tells a variable set
// to "" from an unset one (os.LookupEnv): JAVA_API_PREFIX="" is refused
// instead of becoming /api. Every setting is checked; the error names each
// variable that is wrong, and nothing panics.
func ConfigFromLookup(lookup func(string) (string, bool)) (Config, error) {
	c := DefaultConfig()
	var errs []error
	// get returns the variable or its seed alias, and the name it came from.
	get := func(name string) (v, from string, set bool) {
		if v, ok := lookup(name); ok {
			return strings.TrimSpace(v), name, true
		}
		if a := aliases[name]; a != "" {
			if v, ok := lookup(a); ok {
				return strings.TrimSpace(v), a, true
			}
		}
		return "", name, false
	}
	str := func(name string, dst *string) {
		if v, _, set := get(name); set && v != "" {
			*dst = v
		}
	}
	dur := func(name string, dst *time.Duration) {
		v, from, _ := get(name)
		if v == "" {
			return
		}
		d, err := parseDuration(v)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a duration such as 15s or a number of seconds", from, v))
			return
		}
		*dst = d
	}
	num := func(name string, dst *int) {
		v, from, _ := get(name)
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want an integer", from, v))
			return
		}
		*dst = n
	}
	flag := func(name string, dst *bool) {
		v, from, _ := get(name)
		if v == "" {
			return
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want true or false", from, v))
			return
		}
		*dst = b
	}
	str("JAVA_API_BASE_URL", &c.BaseURL)
	if v, from, set := get("JAVA_API_PREFIX"); set {
		if v == "" {
			errs = append(errs, fmt.Errorf(`%s is set but empty: unset it for the default /api, or set it to "/" for no prefix`, from))
		} else {
			c.Prefix = v
		}
	}
	str("JAVA_API_TOKEN", &c.Token)
	str("JAVA_API_REFRESH_TOKEN", &c.RefreshToken)
	str("JAVA_API_HEALTH_PATH", &c.HealthPath)
	dur("JAVA_API_TIMEOUT", &c.Timeout)
	num("JAVA_API_MAX_CONNS", &c.MaxConns)
	num("JAVA_API_ATTEMPTS", &c.Attempts)
	dur("JAVA_API_RETRY_BASE", &c.RetryBase)
	num("JAVA_API_BREAKER_FAILURES", &c.BreakerFailures)
	dur("JAVA_API_BREAKER_RESET", &c.BreakerReset)
	dur("JAVA_API_CLASS_CACHE_TTL", &c.ClassCacheTTL)
	dur("JAVA_API_STALE_FOR", &c.StaleFor)
	flag("USE_MOCK_DATA", &c.UseMock)
	flag("JAVA_API_FALLBACK_TO_MOCK", &c.FallbackToMock)
	if v, _, _ := get("JAVA_API_PATHS"); v != "" {
		if err := c.Paths.override(v); err != nil {
			errs = append(errs, fmt.Errorf("JAVA_API_PATHS: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	c.Prefix = NormalizePrefix(c.Prefix)
	return c, c.Validate()
}

// NormalizePrefix returns prefix without trailing slashes: "/" and "" mean
// no prefix (""), "/api/" is "/api".
func NormalizePrefix(prefix string) string {
	return strings.TrimRight(strings.TrimSpace(prefix), "/")
}

// Validate reports every setting that cannot work, naming its variable.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !c.UseMock {
		if c.BaseURL == "" {
			bad("JAVA_API_BASE_URL (or SPRING_BOOT_BASE_URL) is required unless USE_MOCK_DATA=true")
		} else if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			bad("JAVA_API_BASE_URL=%q: want an http(s) origin such as https://api.example.com (the path goes in JAVA_API_PREFIX)", redactURL(c.BaseURL))
		}
		if c.Token == "" {
			bad("JAVA_API_TOKEN (or SPRING_BOOT_ACCESS_TOKEN) is required with JAVA_API_BASE_URL")
		}
	}
	p := NormalizePrefix(c.Prefix)
	switch {
	case p != "" && !strings.HasPrefix(p, "/"):
		bad("JAVA_API_PREFIX=%q: want a path starting with /", c.Prefix)
	case strings.ContainsAny(p, "{}?# \t") || strings.Contains(p, "//"):
		bad("JAVA_API_PREFIX=%q: want a plain path such as /api", c.Prefix)
	}
	if c.Timeout <= 0 {
		bad("JAVA_API_TIMEOUT must be positive")
	}
	if c.MaxConns < 1 {
		bad("JAVA_API_MAX_CONNS must be at least 1")
	}
	if c.Attempts < 1 || c.Attempts > 10 {
		bad("JAVA_API_ATTEMPTS must be between 1 and 10")
	}
	if c.RetryBase <= 0 {
		bad("JAVA_API_RETRY_BASE must be positive")
	}
	if c.BreakerFailures < 1 {
		bad("JAVA_API_BREAKER_FAILURES must be at least 1")
	}
	if c.BreakerReset <= 0 {
		bad("JAVA_API_BREAKER_RESET must be positive")
	}
	if c.ClassCacheTTL < 0 || c.StaleFor < 0 {
		bad("JAVA_API_CLASS_CACHE_TTL and JAVA_API_STALE_FOR must not be negative")
	}
	if u, err := url.Parse(c.HealthPath); c.HealthPath != "" && (err != nil || !strings.HasPrefix(c.HealthPath, "/") || u.Host != "" || u.Scheme != "") {
		bad("JAVA_API_HEALTH_PATH=%q: want a path on the service's origin, like /actuator/health", c.HealthPath)
	}
	names := make([]string, 0, 10)
	fields := c.Paths.fields()
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		tmpl := *fields[name]
		if !strings.HasPrefix(tmpl, "/") || strings.Contains(tmpl, "//") {
			bad("JAVA_API_PATHS: path %s=%q must start with / and have no empty segment", name, tmpl)
		}
		if !pattern(p + tmpl) {
			bad("JAVA_API_PATHS: path %s=%q is not a valid route", name, tmpl)
		}
	}
	return errors.Join(errs...)
}

// pattern reports whether path works as a net/http route pattern (the mock
// server routes by the same templates): tried in a throw-away mux, whose
// panic on a bad pattern is turned into false.
func pattern(path string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	http.NewServeMux().Handle("GET "+path, http.NotFoundHandler())
	return true
}

// redactURL drops a user:password part from a URL for messages.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		u.User = url.User("redacted")
		return u.String()
	}
	return raw
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
