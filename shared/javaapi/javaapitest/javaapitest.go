// Package javaapitest is the contract suite of the Java data service as
// the product uses it: any implementation (the Java team's, the project's
// mock, a stand-in) is run through the product's own client
// (javaapi.Client) and must give the product everything it needs, with no
// contract violation, consistent answers across endpoints, and the seed's
// status codes (seed 004 §2, §3.2, §5.2).
//
//	javaapitest.Run(t, func(t *testing.T) javaapitest.Target { ... })
//
// The suite reads; it changes nothing.
package javaapitest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/javaapi"
)

// Target is a service under test.
type Target struct {
	// BaseURL, Prefix and Token configure the client (Prefix "" is /api).
	BaseURL, Prefix, Token string
	// Teacher has at least one class with students and graded work.
	Teacher string
	// OtherClass is a class of another teacher: Teacher must get 403.
	OtherClass string
	// Paths overrides the endpoint templates (zero: the seed's).
	Paths javaapi.Paths
	// HealthPath answers without a teacher (JAVA_API_HEALTH_PATH); ""
	// when the service has none.
	HealthPath string
	// Requests, if set, returns the paths the service has received: the
	// suite then holds every request to the target's teacher (issue 28:
	// no probe or check asks as a made-up teacher).
	Requests func() []string
}

// maxChecked bounds the classes and assignments walked through.
const maxChecked = 3

// Reporter is the part of *testing.T the checks use.
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
}

// check is one contract check; client makes the product's client over the
// target (token "" for the target's).
type check struct {
	name string
	run  func(r Reporter, tg Target, client func(token string) *javaapi.Client)
}

var checks = []check{
	{"classes are complete and the teacher's", func(r Reporter, tg Target, client func(string) *javaapi.Client) {
		c := client("")
		cs, err := c.Classes(context.Background(), tg.Teacher)
		if err != nil {
			r.Fatalf("class list: %v", err)
		}
		if len(cs) == 0 {
			r.Fatalf("teacher %s has no classes", tg.Teacher)
		}
		seen := map[string]bool{}
		for _, cl := range cs {
			if seen[cl.ClassID] {
				r.Errorf("class %s listed twice", cl.ClassID)
			}
			seen[cl.ClassID] = true
			if cl.TeacherID != tg.Teacher || cl.StudentCount == nil || cl.Grade == "" || cl.Subject == "" || len(cl.Incomplete) > 0 {
				r.Errorf("class %+v is incomplete or not the teacher's", cl)
			}
		}
		noViolations(r, c)
	}},
	{"classes, rosters, assignments and submissions agree", func(r Reporter, tg Target, client func(string) *javaapi.Client) {
		c := client("")
		cs, err := c.Classes(context.Background(), tg.Teacher)
		if err != nil {
			r.Fatalf("class list: %v", err)
		}
		for _, cl := range cs[:min(len(cs), maxChecked)] {
			checkClass(r, c, tg.Teacher, cl)
		}
		noViolations(r, c)
	}},
	{"another teacher's class is forbidden", func(r Reporter, tg Target, client func(string) *javaapi.Client) {
		if tg.OtherClass == "" {
			r.Skip("no OtherClass given")
		}
		_, err := client("").ClassDetail(context.Background(), tg.Teacher, tg.OtherClass)
		wantCode(r, err, apperr.AuthError, "seed 004 §5.2: 403 for another teacher's class")
		// issue 28: the teacher hears that the data is not theirs to see,
		// not an outage and not "not found".
		for _, tag := range []string{"zh", "en"} {
			l := i18n.Of(tag, "")
			if got := l.ToolDataFailure(apperr.CodeOf(err)); got != l.Text(i18n.ToolDataForbidden) {
				r.Errorf("%s: a 403 tells the teacher %q, want the permission wording %q", tag, got, l.Text(i18n.ToolDataForbidden))
			}
		}
	}},
	{"an unknown class is not found", func(r Reporter, tg Target, client func(string) *javaapi.Client) {
		_, err := client("").ClassDetail(context.Background(), tg.Teacher, "no-such-class-z9")
		wantCode(r, err, apperr.EntityNotFound, "404 for an unknown class")
	}},
	{"a wrong token is refused with 401", func(r Reporter, tg Target, client func(string) *javaapi.Client) {
		c := client("not-the-token")
		_, err := c.Classes(context.Background(), tg.Teacher)
		wantCode(r, err, apperr.ServiceUnavailable, "401 for a wrong service token")
		if c.Stats().AuthFailures == 0 {
			r.Errorf("the service did not answer 401 to a wrong token (err %v)", err)
		}
	}},
	{"health probe", func(r Reporter, tg Target, client func(string) *javaapi.Client) {
		bare := tg
		bare.HealthPath = ""
		before := 0
		if tg.Requests != nil {
			before = len(tg.Requests())
		}
		if h := newClient(r, bare, "").Check(context.Background()); h.Status != "configured" || !h.OK() {
			r.Errorf("health without a health path = %+v, want configured", h)
		}
		if tg.Requests != nil && len(tg.Requests()) != before {
			r.Errorf("the health probe without a health path called the service: %v", tg.Requests()[before:])
		}
		if tg.HealthPath == "" {
			return
		}
		if h := client("").Check(context.Background()); h.Status != "ok" {
			r.Errorf("health = %+v, want ok", h)
		}
		if h := client("not-the-token").Check(context.Background()); h.Status != "unauthorized" {
			r.Errorf("health with a wrong token = %+v, want unauthorized", h)
		}
	}},
}

// onlyTheTeacher fails when a request since the first skip paths named a
// teacher other than the target's (a path "…/teacher/{id}/…").
func onlyTheTeacher(r Reporter, tg Target, skip int) {
	r.Helper()
	paths := tg.Requests()
	for _, p := range paths[min(skip, len(paths)):] {
		_, rest, ok := strings.Cut(p, "/teacher/")
		if id, _, _ := strings.Cut(rest, "/"); ok && id != tg.Teacher {
			r.Errorf("a request asked as teacher %q, not the target's %q: %s", id, tg.Teacher, p)
		}
	}
}

// Run runs the suite against the target newTarget returns (called once per
// check, as a subtest).
func Run(t *testing.T, newTarget func(t *testing.T) Target) {
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			tg := newTarget(t)
			before := 0
			if tg.Requests != nil {
				before = len(tg.Requests())
			}
			c.run(t, tg, func(token string) *javaapi.Client { return newClient(t, tg, token) })
			if tg.Requests != nil {
				onlyTheTeacher(t, tg, before)
			}
		})
	}
}

// Failures runs the suite against tg and returns what failed, by check:
// for tests of the suite itself (that it can fail).
func Failures(tg Target) map[string][]string {
	out := map[string][]string{}
	for _, c := range checks {
		rec := &recorder{}
		func() {
			defer func() {
				if v := recover(); v != nil && v != errStop {
					panic(v)
				}
			}()
			before := 0
			if tg.Requests != nil {
				before = len(tg.Requests())
			}
			c.run(rec, tg, func(token string) *javaapi.Client { return newClient(rec, tg, token) })
			if tg.Requests != nil {
				onlyTheTeacher(rec, tg, before)
			}
		}()
		if len(rec.msgs) > 0 {
			out[c.name] = rec.msgs
		}
	}
	return out
}

var errStop = errors.New("check stopped")

type recorder struct{ msgs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) { r.Errorf(format, a...); panic(errStop) }
func (r *recorder) Skip(...any)                    { panic(errStop) }

func checkClass(t Reporter, c *javaapi.Client, teacher string, cl javaapi.ClassInfo) {
	t.Helper()
	ctx := context.Background()
	d, err := c.ClassDetail(ctx, teacher, cl.ClassID)
	if err != nil {
		t.Fatalf("class %s: %v", cl.ClassID, err)
	}
	if d.Class.ClassID != cl.ClassID || d.Class.Name != cl.Name {
		t.Errorf("class %s: detail is of %s %q", cl.ClassID, d.Class.ClassID, d.Class.Name)
	}
	roster := map[string]bool{}
	for _, s := range d.Students {
		if s.StudentID == "" || s.Name == "" || roster[s.StudentID] {
			t.Errorf("class %s: student %+v is incomplete or listed twice", cl.ClassID, s)
		}
		roster[s.StudentID] = true
	}
	if cl.StudentCount != nil && *cl.StudentCount != len(d.Students) {
		t.Errorf("class %s: student_count %d, but %d students", cl.ClassID, *cl.StudentCount, len(d.Students))
	}
	as, err := c.ClassAssignments(ctx, teacher, cl.ClassID)
	if err != nil {
		t.Fatalf("class %s assignments: %v", cl.ClassID, err)
	}
	maxOf := map[string]float64{}
	for _, a := range as {
		if a.Title == "" || a.MaxScore == nil || *a.MaxScore <= 0 {
			t.Errorf("class %s: assignment %+v is incomplete", cl.ClassID, a)
			continue
		}
		maxOf[a.AssignmentID] = *a.MaxScore
	}
	byKey := map[[2]string]*float64{} // assignment, student → score
	for _, a := range as[:min(len(as), maxChecked)] {
		subs, err := c.AssignmentSubmissions(ctx, teacher, a.AssignmentID)
		if err != nil {
			t.Fatalf("assignment %s: %v", a.AssignmentID, err)
		}
		if subs.AssignmentID != a.AssignmentID {
			t.Errorf("assignment %s: submissions are of %s", a.AssignmentID, subs.AssignmentID)
		}
		for _, s := range subs.Submissions {
			if !roster[s.StudentID] {
				t.Errorf("assignment %s: submission of %s, who is not in class %s", a.AssignmentID, s.StudentID, cl.ClassID)
			}
			if s.MaxScore == nil || *s.MaxScore != maxOf[a.AssignmentID] {
				t.Errorf("assignment %s: %s's max_score %v, the assignment's %v", a.AssignmentID, s.StudentID, s.MaxScore, maxOf[a.AssignmentID])
			}
			if s.Score != nil && (*s.Score < 0 || s.MaxScore != nil && *s.Score > *s.MaxScore) {
				t.Errorf("assignment %s: %s's score %v is outside 0..%v", a.AssignmentID, s.StudentID, *s.Score, *s.MaxScore)
			}
			byKey[[2]string{a.AssignmentID, s.StudentID}] = s.Score
		}
	}
	if len(d.Students) == 0 {
		return
	}
	first := d.Students[0].StudentID
	g, err := c.StudentSubmissions(ctx, teacher, first)
	if err != nil {
		t.Fatalf("student %s: %v", first, err)
	}
	for _, s := range g.Submissions {
		if _, known := maxOf[s.AssignmentID]; !known {
			t.Errorf("student %s: submission of assignment %q, not one of class %s's", first, s.AssignmentID, cl.ClassID)
			continue
		}
		want, checked := byKey[[2]string{s.AssignmentID, first}]
		if checked && !sameScore(want, s.Score) {
			t.Errorf("student %s, assignment %s: score %v in the student's list, %v in the assignment's", first, s.AssignmentID, fmtScore(s.Score), fmtScore(want))
		}
	}
}

func sameScore(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func fmtScore(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func noViolations(t Reporter, c *javaapi.Client) {
	t.Helper()
	if v := c.Stats().Violations; len(v) > 0 {
		t.Errorf("contract violations by field: %v", v)
	}
}

func wantCode(t Reporter, err error, code apperr.Code, why string) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Errorf("%s: got %v, want %s", why, err, code)
	}
}

// newClient is the product's client over tg, with no retries, no
// fallback and no cache: every call reaches the service.
func newClient(r Reporter, tg Target, token string) *javaapi.Client {
	cfg := javaapi.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.HealthPath = tg.BaseURL, tg.Token, tg.HealthPath
	if token != "" {
		cfg.Token = token
	}
	if tg.Prefix != "" {
		cfg.Prefix = tg.Prefix
	}
	if tg.Paths != (javaapi.Paths{}) {
		cfg.Paths = tg.Paths
	}
	cfg.Attempts, cfg.FallbackToMock, cfg.ClassCacheTTL, cfg.Timeout = 1, false, 0, 10*time.Second
	c, err := javaapi.New(cfg, javaapi.Options{})
	if err != nil {
		r.Fatalf("client: %v", err)
	}
	return c
}
