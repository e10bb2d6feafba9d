// Package javaapi is the client of the Java data service (seed 004 §2): bearer
// token, Result<T> unwrapping, DTO → model mapping, retries with exponential
// backoff (none on 4xx), a circuit breaker, fallback to mock data, a short
// cache of class lists, X-Trace-ID propagation, and the error codes of seed
// 004 §3.2. It also resolves a teacher's mention of a class ("1A", "中一甲")
// to its id.
//
// The mock data is not built in: the caller passes an http.Handler that
// answers like the service (mockserver.Fallback), and the client reaches it
// through an in-process transport. Real and mock answers therefore take the
// same decoding and mapping path, byte for byte.
package javaapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/clock"
	"github.com/insightedge/insightedge/shared/obs"
)

// maxBody bounds the bytes read from one answer.
const maxBody = 8 << 20

// maxPooledBuffer bounds the body buffers kept for reuse: a rare large
// answer does not pin its buffer.
const maxPooledBuffer = 1 << 20

// mockOrigin is the origin of requests to the in-process fallback handler;
// they never reach a network (.invalid is reserved, RFC 2606).
const mockOrigin = "http://mock.invalid"

// The classes of failure that drive retries, the breaker and the fallback.
// They sit in the chain of the *apperr.Error the client returns.
var (
	// errTransient: the service could not answer (transport, timeout, 5xx).
	// Retried; counts against the breaker; may fall back to mock.
	errTransient = errors.New("data service unavailable")
	// errMalformed: the service answered with something that is not a
	// Result. Not retried; counts against the breaker; may fall back.
	errMalformed = errors.New("malformed answer")
	// errCanceled: the caller gave up. Neither success nor failure.
	errCanceled = errors.New("request canceled by caller")
	// errUnauthorized: the service refused this product's token (401). An
	// operator's problem: refreshed once where a refresh token is set, then
	// a service error to the teacher and an alarm; not a breaker failure.
	errUnauthorized = errors.New("service token rejected")
)

// Options are the client's dependencies beyond its configuration.
type Options struct {
	// Logger receives JSON logs; nil discards them.
	Logger *slog.Logger
	// Fallback answers like the data service from mock data. It is required
	// with Config.UseMock, and used after failures when
	// Config.FallbackToMock is set.
	Fallback http.Handler
	// Now is the clock of the class-list cache (time.Now if nil).
	Now func() time.Time
	// Sleep waits between retries (a timer honouring ctx if nil).
	Sleep func(ctx context.Context, d time.Duration) error
	// WrapTransport, if set, wraps the HTTP transport to the service, e.g.
	// with X-Ray's xray.RoundTripper or a timing probe.
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// Client calls the data service. It is safe for concurrent use.
type Client struct {
	cfg      Config
	base     string
	log      *slog.Logger
	http     *http.Client
	mock     *http.Client // nil without a fallback handler
	breaker  *gobreaker.CircuitBreaker[struct{}]
	classes  *classCache
	now      func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error
	auth     atomic.Pointer[string] // the Authorization header
	rtoken   atomic.Pointer[string] // the refresh token (rotated by refreshes)
	refresh  sync.Mutex             // one token refresh at a time
	bufs     sync.Pool              // *bytes.Buffer for reading answers
	counters counters
	health   healthCache
}

// New returns a client for cfg.
func New(cfg Config, opts Options) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.UseMock && opts.Fallback == nil {
		return nil, errors.New("javaapi: USE_MOCK_DATA=true needs a fallback handler (mockserver.Fallback)")
	}
	cfg.Prefix = NormalizePrefix(cfg.Prefix)
	c := &Client{
		cfg:   cfg,
		base:  strings.TrimRight(cfg.BaseURL, "/") + cfg.Prefix,
		log:   opts.Logger,
		now:   opts.Now,
		sleep: opts.Sleep,
	}
	c.setToken(cfg.Token)
	rt := cfg.RefreshToken
	c.rtoken.Store(&rt)
	c.counters.violations = map[string]int64{}
	c.bufs.New = func() any { return new(bytes.Buffer) }
	var transport http.RoundTripper = &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		MaxConnsPerHost:     cfg.MaxConns, // the bounded pool of seed 004 §2.6
		MaxIdleConns:        cfg.MaxConns,
		MaxIdleConnsPerHost: cfg.MaxConns,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	if opts.WrapTransport != nil {
		transport = opts.WrapTransport(transport)
	}
	c.http = &http.Client{Transport: transport}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.log = c.log.With(slog.String("component", "javaapi"))
	if c.now == nil {
		c.now = time.Now
	}
	if c.sleep == nil {
		c.sleep = clock.Sleep
	}
	if opts.Fallback != nil {
		c.mock = &http.Client{Transport: handlerTransport{opts.Fallback}}
	}
	if cfg.UseMock {
		c.log.Info("USE_MOCK_DATA=true: every request is served from mock data, falling back to mock without calling the service")
	}
	c.classes = newClassCache(cfg.ClassCacheTTL, cfg.StaleFor, 1024)
	c.breaker = gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        "javaapi",
		MaxRequests: 1, // one probe in half-open
		Timeout:     cfg.BreakerReset,
		ReadyToTrip: func(n gobreaker.Counts) bool {
			return n.ConsecutiveFailures >= uint32(cfg.BreakerFailures)
		},
		// A 4xx or a business error means the service is up and answering.
		IsSuccessful:  func(err error) bool { return !serviceDown(err) },
		IsExcluded:    func(err error) bool { return errors.Is(err, errCanceled) },
		OnStateChange: func(_ string, from, to gobreaker.State) { c.breakerChanged(from, to) },
	})
	return c, nil
}

// BreakerState returns "closed", "open" or "half-open".
func (c *Client) BreakerState() string { return c.breaker.State().String() }

// Classes returns the teacher's classes. A list from the service is reused
// for Config.ClassCacheTTL (seed 004 FAQ: five minutes) unless ctx asks for
// fresh data (WithFreshData); while the service is down, a list up to
// Config.StaleFor older is served, marked stale in ctx's Report, before any
// mock data. Mock data is not cached, so that recovery is seen at once.
func (c *Client) Classes(ctx context.Context, teacherID string) ([]ClassInfo, error) {
	path, err := c.path(c.cfg.Paths.Classes, teacherID)
	if err != nil {
		return nil, err
	}
	cached, fresh, age, found := c.classes.get(teacherID, c.now())
	if found && fresh && !wantsFresh(ctx) {
		// Not a service answer in this scope: a scope that then falls back
		// may still serve all its data from the sample set.
		c.counters.cacheHits.Add(1)
		return cached, nil
	}
	c.counters.cacheMisses.Add(1)
	fctx := ctx
	if found {
		fctx = context.WithValue(ctx, noFallbackKey{}, true) // the cached list beats mock data
	}
	dtos, mocked, err := fetch[[]classDTO](fctx, c, path, "class list")
	if found && serviceUnusable(err) {
		c.counters.staleServed.Add(1)
		c.log.LogAttrs(ctx, slog.LevelWarn, "serving a stale class list", slog.String("traceId", TraceID(ctx)),
			slog.Duration("age", age), slog.String("code", string(apperr.CodeOf(err))),
			emfCount(c.now(), "JavaClientStaleServed"), slog.Int("JavaClientStaleServed", 1))
		ReportFrom(ctx).staleAnswer(age)
		return cached, nil
	}
	if err != nil {
		return nil, err
	}
	is := newIssues()
	cs := mapValid(dtos, func(d classDTO, is *issues) (ClassInfo, bool) { return d.model(teacherID, is) }, is)
	c.record(ctx, path, is)
	if mocked && !c.cfg.UseMock && len(dtos) == 0 {
		// The sample data has nothing for this teacher: saying "you have no
		// classes" would turn an outage into empty data.
		return nil, apperr.New(apperr.ServiceUnavailable, "the data service is unavailable")
	}
	if !mocked {
		c.classes.put(teacherID, cs, c.now())
	}
	return cs, nil
}

// ClassDetail returns a class and its students.
func (c *Client) ClassDetail(ctx context.Context, teacherID, classID string) (ClassDetail, error) {
	path, err := c.path(c.cfg.Paths.Class, teacherID, "classId", classID)
	if err != nil {
		return ClassDetail{}, err
	}
	dto, _, err := fetch[classDTO](ctx, c, path, "class")
	if err != nil {
		return ClassDetail{}, err
	}
	is := newIssues()
	if dto.UID == "" && dto.ClassID == "" && dto.ID == "" {
		dto.UID = flexID(classID) // the class asked for; its identifier is known
	}
	info, ok := dto.model(teacherID, is)
	students := mapValid(dto.Students, studentDTO.model, is)
	c.record(ctx, path, is)
	if !ok {
		return ClassDetail{}, apperr.New(apperr.DataError, "the data service sent class %s without the fields the product needs (%s)",
			classID, strings.Join(slices.Sorted(maps.Keys(is.fields)), ", "))
	}
	return ClassDetail{Class: info, Students: students}, nil
}

// ClassAssignments returns the assignments of a class.
func (c *Client) ClassAssignments(ctx context.Context, teacherID, classID string) ([]Assignment, error) {
	path, err := c.path(c.cfg.Paths.ClassAssignments, teacherID, "classId", classID)
	if err != nil {
		return nil, err
	}
	dtos, _, err := fetch[[]assignmentDTO](ctx, c, path, "assignment list")
	if err != nil {
		return nil, err
	}
	is := newIssues()
	out := mapValid(dtos, assignmentDTO.model, is)
	c.record(ctx, path, is)
	return out, nil
}

// AssignmentSubmissions returns the submissions of an assignment.
func (c *Client) AssignmentSubmissions(ctx context.Context, teacherID, assignmentID string) (AssignmentSubmissions, error) {
	path, err := c.path(c.cfg.Paths.AssignmentSubmissions, teacherID, "assignmentId", assignmentID)
	if err != nil {
		return AssignmentSubmissions{}, err
	}
	dto, list, _, err := fetchObjectOrArray[assignmentSubmissionsDTO, []submissionDTO](ctx, c, path, "submission list")
	if err != nil {
		return AssignmentSubmissions{}, err
	}
	if list != nil {
		dto.Submissions = list
	}
	id, err := pickID("assignment", dto.Title, dto.UID, dto.AssignmentID, dto.ID, flexID(assignmentID))
	if err != nil {
		return AssignmentSubmissions{}, err
	}
	is := newIssues()
	subs := mapValid(dto.Submissions, func(d submissionDTO, is *issues) (SubmissionRecord, bool) { return d.model(false, is) }, is)
	c.record(ctx, path, is)
	return AssignmentSubmissions{AssignmentID: id, Title: dto.Title, Submissions: subs}, nil
}

// StudentSubmissions returns a student's submissions (their grades).
func (c *Client) StudentSubmissions(ctx context.Context, teacherID, studentID string) (StudentGrades, error) {
	path, err := c.path(c.cfg.Paths.StudentSubmissions, teacherID, "studentId", studentID)
	if err != nil {
		return StudentGrades{}, err
	}
	dto, list, _, err := fetchObjectOrArray[studentSubmissionsDTO, []submissionDTO](ctx, c, path, "student submissions")
	if err != nil {
		return StudentGrades{}, err
	}
	if list != nil {
		dto.Submissions = list
	}
	is := newIssues()
	subs := mapValid(dto.Submissions, func(d submissionDTO, is *issues) (SubmissionRecord, bool) { return d.model(true, is) }, is)
	c.record(ctx, path, is)
	g := StudentGrades{StudentID: string(dto.StudentID), StudentName: dto.StudentName, Submissions: subs}
	if g.StudentID == "" {
		g.StudentID = studentID
	}
	if g.StudentName == "" && len(subs) > 0 {
		g.StudentName = subs[0].StudentName
	}
	return g, nil
}

// record reports the contract violations of one answer: to ctx's Report,
// the counters by field, a log line and an EMF metric.
func (c *Client) record(ctx context.Context, path string, is *issues) {
	if is.empty() {
		return
	}
	ReportFrom(ctx).add(is)
	c.counters.mu.Lock()
	for f, n := range is.fields {
		c.counters.violations[f] += int64(n)
	}
	c.counters.mu.Unlock()
	// One line per field, the field a dimension of the metric: the
	// operator's graph shows which part of the contract broke.
	for _, f := range slices.Sorted(maps.Keys(is.fields)) {
		c.log.LogAttrs(ctx, slog.LevelWarn, "data service contract violation",
			slog.String("path", path), slog.String("traceId", TraceID(ctx)),
			slog.String("field", f), slog.Any("dropped", is.dropped),
			emfCount(c.now(), "JavaContractViolation", "field"), slog.Int("JavaContractViolation", is.fields[f]))
	}
}

// SearchDocuments returns the teacher's documents that match query.
func (c *Client) SearchDocuments(ctx context.Context, teacherID, query string) ([]Document, error) {
	path, err := c.path(c.cfg.Paths.Documents, teacherID)
	if err != nil {
		return nil, err
	}
	dtos, _, err := fetch[[]documentDTO](ctx, c, path+"?"+url.Values{"q": {query}}.Encode(), "document list")
	if err != nil {
		return nil, err
	}
	return mapAll(dtos, documentDTO.model)
}

// Rubrics lists the rubrics the teacher may use.
func (c *Client) Rubrics(ctx context.Context, teacherID string) ([]RubricSummary, error) {
	path, err := c.path(c.cfg.Paths.Rubrics, teacherID)
	if err != nil {
		return nil, err
	}
	dtos, _, err := fetch[[]rubricDTO](ctx, c, path, "rubric list")
	if err != nil {
		return nil, err
	}
	return mapAll(dtos, rubricDTO.summary)
}

// Rubric returns one rubric with its criteria.
func (c *Client) Rubric(ctx context.Context, teacherID, rubricID string) (Rubric, error) {
	path, err := c.path(c.cfg.Paths.Rubric, teacherID, "rubricId", rubricID)
	if err != nil {
		return Rubric{}, err
	}
	dto, _, err := fetch[rubricDTO](ctx, c, path, "rubric")
	if err != nil {
		return Rubric{}, err
	}
	return dto.model()
}

// ErrorPatterns returns a student's recurring mistakes, most frequent first.
func (c *Client) ErrorPatterns(ctx context.Context, teacherID, studentID string) ([]ErrorPattern, error) {
	path, err := c.path(c.cfg.Paths.ErrorPatterns, teacherID, "studentId", studentID)
	if err != nil {
		return nil, err
	}
	dtos, _, err := fetch[[]errorPatternDTO](ctx, c, path, "error patterns")
	if err != nil {
		return nil, err
	}
	return mapAll(dtos, func(d errorPatternDTO) (ErrorPattern, error) {
		return ErrorPattern(d), nil
	})
}

// path fills tmpl with the teacher id and the named parameters (pairs of
// name, value), path-escaped. An id that could change the path's meaning
// is refused before any request.
func (c *Client) path(tmpl, teacherID string, params ...string) (string, error) {
	if strings.TrimSpace(teacherID) == "" {
		return "", apperr.New(apperr.AuthError, "no teacher identity for the data service request").WithStatus(http.StatusUnauthorized)
	}
	if err := checkID("teacherId", teacherID); err != nil {
		return "", err
	}
	for i := 0; i+1 < len(params); i += 2 {
		if err := checkID(params[i], params[i+1]); err != nil {
			return "", err
		}
	}
	return fill(tmpl, teacherID, params), nil
}

// fill replaces, left to right, each {teacherId} in tmpl by teacherID and
// each {name} by its value in params (pairs of name, value), path-escaped;
// other braces stay as they are. It does what a strings.Replacer of those
// placeholders does, without building one per request.
func fill(tmpl, teacherID string, params []string) string {
	var b strings.Builder
	b.Grow(len(tmpl) + 32)
	// Every turn moves i forward, so the template's length bounds the loop.
	for i := 0; i < len(tmpl); {
		j := strings.IndexByte(tmpl[i:], '{')
		if j < 0 {
			b.WriteString(tmpl[i:])
			break
		}
		b.WriteString(tmpl[i : i+j])
		i += j
		name, value, ok := placeholder(tmpl[i:], teacherID, params)
		if !ok {
			b.WriteByte('{')
			i++
			continue
		}
		b.WriteString(url.PathEscape(value))
		i += len(name) + 2
	}
	return b.String()
}

// placeholder returns the placeholder at the start of s ("{name}...") that
// fill knows, and its value.
func placeholder(s, teacherID string, params []string) (name, value string, ok bool) {
	if isPlaceholder(s, "teacherId") {
		return "teacherId", teacherID, true
	}
	for i := 0; i+1 < len(params); i += 2 {
		if isPlaceholder(s, params[i]) {
			return params[i], params[i+1], true
		}
	}
	return "", "", false
}

func isPlaceholder(s, name string) bool {
	return len(s) >= len(name)+2 && s[0] == '{' && s[1:1+len(name)] == name && s[1+len(name)] == '}'
}

func checkID(name, v string) error {
	switch {
	case strings.TrimSpace(v) == "":
		return apperr.New(apperr.ValidationError, "%s is required", name)
	case len(v) > 128, v == ".", v == "..", strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return apperr.New(apperr.ValidationError, "%s %q is not a valid identifier", name, v)
	}
	return nil
}

type noFallbackKey struct{}

// get runs one logical request: through the breaker and the retries to the
// service, or to the mock data (USE_MOCK_DATA, or as the fallback). mocked
// tells which answered; ctx's Report hears it too.
func (c *Client) get(ctx context.Context, path, what string, dec decoder) (mocked bool, err error) {
	c.counters.requests.Add(1)
	rep := ReportFrom(ctx)
	real, mock := rep.source()
	if c.cfg.UseMock || (mock && !real && c.mock != nil) {
		// All mock data, or a scope that already fell back: stay with mock
		// data so that one answer never blends the two.
		c.counters.mockResponses.Add(1)
		if err := c.attempt(ctx, c.mock, mockOrigin+c.cfg.Prefix+path, what, dec); err != nil {
			return true, err
		}
		rep.answered(true)
		if c.cfg.UseMock {
			rep.mockConfigured()
		}
		return true, nil
	}
	start := time.Now()
	_, err = c.breaker.Execute(func() (struct{}, error) { return struct{}{}, c.withRetries(ctx, path, what, dec) })
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		c.counters.breakerRejections.Add(1)
		err = apperr.Wrap(err, apperr.ServiceUnavailable, "the data service is temporarily unavailable (circuit breaker open)")
	}
	took := time.Since(start)
	if err == nil {
		c.log.LogAttrs(ctx, slog.LevelInfo, "JavaClient GET", slices.Concat([]slog.Attr{slog.String("path", path),
			slog.String("traceId", TraceID(ctx)), slog.Int64("durationMs", took.Milliseconds())}, c.callMetric(took, err))...)
		rep.answered(false)
		return false, nil
	}
	c.counters.failures.Add(1)
	c.log.LogAttrs(ctx, slog.LevelWarn, "JavaClient GET failed", slices.Concat([]slog.Attr{slog.String("path", path),
		slog.String("traceId", TraceID(ctx)), slog.String("code", string(apperr.CodeOf(err))),
		slog.Int64("durationMs", took.Milliseconds()), slog.String("error", err.Error())}, c.callMetric(took, err))...)
	noFallback, _ := ctx.Value(noFallbackKey{}).(bool)
	if c.cfg.FallbackToMock && c.mock != nil && fallbackWorthy(err) && !real && !noFallback {
		if ferr := c.fallBack(ctx, path, what, dec, err); ferr != nil {
			return false, err // the sample data has no answer either: the outage is the news
		}
		rep.answered(true)
		return true, nil
	}
	return false, err
}

// The metrics of the data service (seed 004 §4.2), EMF in namespace
// obs.Namespace: the template's dashboard and alarms read them.
const (
	// MetricJavaCall counts logical requests (after retries, before any
	// fallback), dimension status: "success" when the service answered,
	// its refusals (403, 404, 400) included; "failure" when it could not
	// serve (down, broken answer, breaker open, token refused).
	MetricJavaCall = "JavaCall"
	// MetricJavaLatency is a logical request's duration in milliseconds.
	MetricJavaLatency = "JavaLatency"
	// MetricBreakerState is the circuit breaker's state on each change:
	// 0 closed, 1 half-open, 2 open.
	MetricBreakerState = "JavaBreakerState"
	// MetricBreakerOpen counts the breaker's openings (seed 004 §4.2:
	// alarm on every one).
	MetricBreakerOpen = "JavaBreakerOpen"
)

// callMetric is the EMF part of a logical request's log line.
func (c *Client) callMetric(took time.Duration, err error) []slog.Attr {
	status := "success"
	if serviceUnusable(err) || errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		status = "failure"
	}
	return obs.Metric(c.now(), map[string]string{"status": status},
		obs.Point{Name: MetricJavaCall, Unit: obs.UnitCount, Value: 1},
		obs.Point{Name: MetricJavaLatency, Unit: obs.UnitMilliseconds, Value: obs.Millis(took)})
}

// breakerChanged logs the breaker's new state with its metrics.
func (c *Client) breakerChanged(from, to gobreaker.State) {
	level, msg, value := slog.LevelInfo, "Circuit breaker: CLOSED (recovered)", 0.0
	points := []obs.Point{}
	switch to {
	case gobreaker.StateOpen:
		c.counters.breakerOpens.Add(1)
		level, msg, value = slog.LevelError, "Circuit breaker: OPEN", 2
		points = append(points, obs.Point{Name: MetricBreakerOpen, Unit: obs.UnitCount, Value: 1})
	case gobreaker.StateHalfOpen:
		msg, value = "Circuit breaker: HALF_OPEN (probing)", 1
	}
	points = append(points, obs.Point{Name: MetricBreakerState, Unit: obs.UnitNone, Value: value})
	c.log.LogAttrs(context.Background(), level, msg, slices.Concat([]slog.Attr{slog.String("from", from.String()),
		slog.Int("consecutiveFailures", c.cfg.BreakerFailures)}, obs.Metric(c.now(), nil, points...))...)
}

// fallBack serves path from the mock data after the service failed with
// cause (seed 004 §2.5.3). The log line carries an EMF metric.
func (c *Client) fallBack(ctx context.Context, path, what string, dec decoder, cause error) error {
	c.counters.fallbacks.Add(1)
	c.log.LogAttrs(ctx, slog.LevelWarn, "falling back to mock",
		slog.String("path", path),
		slog.String("traceId", TraceID(ctx)),
		slog.String("code", string(apperr.CodeOf(cause))),
		slog.String("reason", cause.Error()),
		emfCount(c.now(), "JavaClientFallback"),
		slog.Int("JavaClientFallback", 1),
	)
	c.counters.mockResponses.Add(1)
	return c.attempt(ctx, c.mock, mockOrigin+c.cfg.Prefix+path, what, dec)
}

// withRetries makes up to Config.Attempts attempts, waiting RetryBase × 2^n
// between them; only transient failures are retried (no retry on 4xx).
func (c *Client) withRetries(ctx context.Context, path, what string, dec decoder) error {
	var err error
	refreshed := false
	for attempt := range c.cfg.Attempts {
		used := c.authHeader()
		err = c.attempt(ctx, c.http, c.base+path, what, dec)
		if errors.Is(err, errUnauthorized) && !refreshed && *c.rtoken.Load() != "" {
			// One refresh per request, then the same attempt again.
			refreshed = true
			if rerr := c.refreshToken(ctx, used); rerr == nil {
				err = c.attempt(ctx, c.http, c.base+path, what, dec)
			} else {
				c.log.LogAttrs(ctx, slog.LevelError, "data service token refresh failed",
					slog.String("traceId", TraceID(ctx)), slog.String("error", rerr.Error()))
			}
		}
		if errors.Is(err, errUnauthorized) {
			c.alarmUnauthorized(ctx, path)
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, errTransient) || attempt == c.cfg.Attempts-1 {
			return err
		}
		delay := c.cfg.RetryBase << attempt
		c.counters.retries.Add(1)
		c.log.LogAttrs(ctx, slog.LevelWarn, "JavaClient retry",
			slog.Int("attempt", attempt+1), slog.Int("attempts", c.cfg.Attempts),
			slog.Duration("delay", delay), slog.String("path", path),
			slog.String("traceId", TraceID(ctx)), slog.String("error", err.Error()))
		if serr := c.sleep(ctx, delay); serr != nil {
			return apperr.Wrap(fmt.Errorf("%w: %w", errCanceled, serr), apperr.DataError, "the data request was canceled")
		}
	}
	return err
}

// attempt makes one HTTP request and decodes its Result with dec.
func (c *Client) attempt(ctx context.Context, hc *http.Client, rawURL, what string, dec decoder) error {
	c.counters.attempts.Add(1)
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, rawURL, nil)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "cannot build the data service request")
	}
	req.Header.Set("Authorization", c.authHeader())
	req.Header.Set("Accept", "application/json")
	if id := TraceID(ctx); id != "" {
		req.Header.Set("X-Trace-ID", id)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return c.transportErr(ctx, actx, err)
	}
	defer resp.Body.Close()
	buf := c.bufs.Get().(*bytes.Buffer)
	defer c.putBuffer(buf)
	if err := readBody(resp, buf); err != nil {
		return c.transportErr(ctx, actx, err)
	}
	if buf.Len() > maxBody {
		return apperr.Wrap(fmt.Errorf("%w: body over %d bytes", errMalformed, maxBody), apperr.DataError,
			"the data service answer is too large")
	}
	// The body is decoded in place: the decoders copy what they keep
	// (go-json decodes from its own copy, encoding/json copies each
	// string), so the buffer can go back to the pool afterwards.
	return interpret(resp.StatusCode, buf.Bytes(), what, dec)
}

// readBody reads up to maxBody+1 bytes of the answer into buf, a pooled
// buffer that grows once to the answer's size and is then reused.
func readBody(resp *http.Response, buf *bytes.Buffer) error {
	buf.Reset()
	if n := resp.ContentLength; n > 0 && n <= maxBody {
		buf.Grow(int(n) + bytes.MinRead) // ReadFrom wants MinRead spare bytes
	}
	_, err := buf.ReadFrom(io.LimitReader(resp.Body, maxBody+1))
	return err
}

// putBuffer returns buf to the pool unless it grew too large to keep.
func (c *Client) putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuffer {
		c.bufs.Put(buf)
	}
}

func (c *Client) transportErr(ctx, actx context.Context, err error) error {
	// A transport error names the service's internal address (and a
	// *url.Error the whole URL, with a teacher's ids): the operator's log
	// gets it in full, the error chain only what kind of failure it was.
	c.log.LogAttrs(ctx, slog.LevelWarn, "JavaClient transport error", slog.String("traceId", TraceID(ctx)),
		slog.String("error", err.Error()))
	err = redacted{err}
	switch {
	case ctx.Err() != nil:
		return apperr.Wrap(fmt.Errorf("%w: %w", errCanceled, err), apperr.DataError, "the data request was canceled")
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return apperr.Wrap(fmt.Errorf("%w: %w", errTransient, err), apperr.DataError,
			"the data service did not answer within %s", c.cfg.Timeout)
	default:
		return apperr.Wrap(fmt.Errorf("%w: %w", errTransient, err), apperr.DataError, "the data service is unreachable")
	}
}

// redacted is a transport error whose text says only what kind of failure
// it was; errors.Is and errors.As still see the original.
type redacted struct{ err error }

func (r redacted) Unwrap() error { return r.err }

func (r redacted) Error() string {
	var ne net.Error
	var dns *net.DNSError
	switch {
	case errors.Is(r.err, context.DeadlineExceeded), errors.As(r.err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(r.err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(r.err, syscall.ECONNRESET), errors.Is(r.err, io.ErrUnexpectedEOF), errors.Is(r.err, io.EOF):
		return "connection reset"
	case errors.As(r.err, &dns):
		return "name resolution failed"
	}
	return "transport error"
}

// envelope is Result<T> with its data left undecoded: for error answers,
// whose data is of no known type.
type envelope struct {
	Code    *int            `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// interpret maps an HTTP answer to a seed 004 §3.2 code, or decodes it.
func interpret(status int, body []byte, what string, dec decoder) error {
	if status < 200 || status >= 300 {
		var env envelope
		msg := http.StatusText(status)
		if json.Unmarshal(body, &env) == nil && env.Message != "" {
			msg = env.Message
		}
		switch {
		case status >= 500:
			return apperr.Wrap(fmt.Errorf("%w: HTTP %d", errTransient, status), apperr.DataError,
				"the data service failed (HTTP %d): %s", status, msg)
		case status >= 400:
			return rejected(status, msg, fmt.Errorf("HTTP %d", status))
		default:
			return apperr.Wrap(fmt.Errorf("%w: HTTP %d", errMalformed, status), apperr.DataError,
				"the data service answered with HTTP %d", status)
		}
	}
	code, msg, err := dec(body)
	if err != nil {
		// The data did not fit. Tell a broken answer from an error Result
		// (whose data may be anything) and from data of an unexpected shape.
		var env envelope
		switch {
		case json.Unmarshal(body, &env) != nil || env.Code == nil:
			return apperr.Wrap(fmt.Errorf("%w: %w", errMalformed, err), apperr.DataError,
				"the data service returned a malformed answer")
		case *env.Code != 200:
			return rejected(*env.Code, cmp.Or(env.Message, "no message"), fmt.Errorf("Result code %d", *env.Code))
		default:
			return apperr.Wrap(err, apperr.DataError, "the data service returned unexpected %s data", what)
		}
	}
	switch {
	case code == nil:
		return apperr.Wrap(fmt.Errorf(`%w: no "code" field`, errMalformed), apperr.DataError,
			"the data service returned a malformed answer")
	case *code != 200:
		return rejected(*code, cmp.Or(msg, "no message"), fmt.Errorf("Result code %d", *code))
	}
	return nil
}

// rejected maps a status or Result code for which the service did answer.
func rejected(code int, msg string, cause error) error {
	switch code {
	case http.StatusUnauthorized:
		// The service refused this product's token, not the teacher: a
		// service error for the teacher (never AUTH_ERROR, which sends the
		// teacher to the login page) and an alarm for the operator.
		// The operator's alarm names the cause; the teacher needs only this.
		return apperr.Wrap(fmt.Errorf("%w: %w: %s", errUnauthorized, cause, msg), apperr.ServiceUnavailable,
			"the data service is temporarily unavailable")
	case http.StatusForbidden:
		return apperr.Wrap(cause, apperr.AuthError,
			"permission denied by the data service (a teacher may only see their own classes): %s", msg).WithStatus(http.StatusForbidden)
	case http.StatusNotFound:
		return apperr.Wrap(cause, apperr.EntityNotFound, "not found in the data service: %s", msg)
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return apperr.Wrap(cause, apperr.ValidationError, "the data service refused the request: %s", msg)
	default:
		return apperr.Wrap(cause, apperr.DataError, "Java API error (code %d): %s", code, msg)
	}
}

// serviceDown reports whether err means the service could not serve.
func serviceDown(err error) bool {
	return errors.Is(err, errTransient) || errors.Is(err, errMalformed)
}

// fallbackWorthy: the seed falls back when retries fail or the breaker is
// open. A malformed answer is not one: the service is up and sent something
// wrong, which the teacher must hear as a data error (seed 004 §2.5: not
// retried, a breaker failure). Nor is a refused token (an operator's matter).
func fallbackWorthy(err error) bool {
	if errors.Is(err, errUnauthorized) {
		return false
	}
	return errors.Is(err, errTransient) || errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests)
}

// serviceUnusable: the service could not give an answer at all (down,
// broken answer, breaker open, token refused), as opposed to answering
// "not found" or "forbidden".
func serviceUnusable(err error) bool {
	return serviceDown(err) || errors.Is(err, errUnauthorized) || apperr.CodeOf(err) == apperr.ServiceUnavailable
}

// handlerTransport serves requests from an http.Handler in process.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	t.h.ServeHTTP(rec, r)
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", rec.status, http.StatusText(rec.status)),
		StatusCode:    rec.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rec.header,
		Body:          io.NopCloser(strings.NewReader(rec.body.String())),
		ContentLength: int64(rec.body.Len()),
		Request:       r,
	}, nil
}

type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   strings.Builder
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}

type traceKey struct{}

// WithTraceID returns ctx carrying the trace id sent as X-Trace-ID.
func WithTraceID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, traceKey{}, id)
}

// TraceID returns the trace id carried by ctx (WithTraceID), or else the
// one of ctx's log attributes (obs.TraceID), or "".
func TraceID(ctx context.Context) string {
	if id, _ := ctx.Value(traceKey{}).(string); id != "" {
		return id
	}
	return obs.TraceID(ctx)
}

// Stats are the client's counters since it was made.
type Stats struct {
	Requests          int64 `json:"requests"`
	Attempts          int64 `json:"attempts"`
	Retries           int64 `json:"retries"`
	Failures          int64 `json:"failures"`
	Fallbacks         int64 `json:"fallbacks"`
	MockResponses     int64 `json:"mockResponses"`
	BreakerRejections int64 `json:"breakerRejections"`
	BreakerOpens      int64 `json:"breakerOpens"`
	CacheHits         int64 `json:"cacheHits"`
	CacheMisses       int64 `json:"cacheMisses"`
	// StaleServed counts class lists served past their TTL while the service was down.
	StaleServed int64 `json:"staleServed"`
	// AuthFailures counts answers that refused the service token (401).
	AuthFailures int64 `json:"authFailures"`
	// TokenRefreshes counts new access tokens got with the refresh token.
	TokenRefreshes int64 `json:"tokenRefreshes"`
	// Violations counts records by the field they lacked ("class.student_count").
	Violations map[string]int64 `json:"violations,omitempty"`
}

type counters struct {
	requests, attempts, retries, failures, fallbacks, mockResponses,
	breakerRejections, breakerOpens, cacheHits, cacheMisses,
	staleServed, authFailures, tokenRefreshes atomic.Int64
	mu         sync.Mutex
	violations map[string]int64
}

// Stats returns a snapshot of the counters.
func (c *Client) Stats() Stats {
	n := &c.counters
	out := Stats{
		Requests: n.requests.Load(), Attempts: n.attempts.Load(), Retries: n.retries.Load(),
		Failures: n.failures.Load(), Fallbacks: n.fallbacks.Load(), MockResponses: n.mockResponses.Load(),
		BreakerRejections: n.breakerRejections.Load(), BreakerOpens: n.breakerOpens.Load(),
		CacheHits: n.cacheHits.Load(), CacheMisses: n.cacheMisses.Load(),
		StaleServed: n.staleServed.Load(), AuthFailures: n.authFailures.Load(), TokenRefreshes: n.tokenRefreshes.Load(),
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.violations) > 0 {
		out.Violations = maps.Clone(n.violations)
	}
	return out
}

// emfCount is the _aws member of a CloudWatch Embedded Metric Format line
// that counts metric once; the line must also carry metric: 1.
func emfCount(now time.Time, metric string, dims ...string) slog.Attr {
	type metricDef struct {
		Name string `json:"Name"`
		Unit string `json:"Unit"`
	}
	type directive struct {
		Namespace  string      `json:"Namespace"`
		Dimensions [][]string  `json:"Dimensions"`
		Metrics    []metricDef `json:"Metrics"`
	}
	return slog.Group("_aws",
		slog.Int64("Timestamp", now.UnixMilli()),
		slog.Any("CloudWatchMetrics", []directive{{
			Namespace:  "InsightEdge",
			Dimensions: [][]string{append([]string{"component"}, dims...)},
			Metrics:    []metricDef{{Name: metric, Unit: "Count"}},
		}}),
	)
}
