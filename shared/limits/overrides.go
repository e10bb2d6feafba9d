package limits

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/scores"
)

// Scope is what an override is for.
type Scope string

// The scopes of an override.
const (
	ScopeTeacher Scope = "teacher"
	ScopeSchool  Scope = "school"
)

// Unlimited is an override's value for a lifted limit.
const Unlimited int64 = -1

// Override is an operator's change to the stage's limits for one teacher
// or school: a value replaces the stage's, Unlimited lifts the limit, a
// limit not named keeps the stage's.
type Override struct {
	Values    Values    `json:"values"`
	UpdatedAt time.Time `json:"updatedAt"`
	By        string    `json:"by,omitempty"`
}

// apply writes o over lim; a teacher's override leaves the school's budget.
func (o Override) apply(lim Values, school bool) {
	for l, v := range o.Values {
		if l == SchoolTokensPerDay && !school || l == PassMark {
			continue
		}
		lim[l] = max(v, 0) // Unlimited: off
	}
}

var overrideKind = records.Kind[Override]{Name: "limit-overrides",
	Expires: func(Override) time.Time { return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC) }}

// Overrides is the operator's overrides, kept as records (kind
// "limit-overrides", key "<scope>:<id>").
type Overrides struct {
	s   records.Store[Override]
	now func() time.Time

	mu    sync.Mutex
	cache map[string]cachedOverride
}

type cachedOverride struct {
	o    Override
	read time.Time
}

// NewOverrides returns the overrides kept in b.
func NewOverrides(b records.Backend, now func() time.Time) *Overrides {
	if now == nil {
		now = time.Now
	}
	return &Overrides{s: records.Open(b, overrideKind), now: now, cache: map[string]cachedOverride{}}
}

// ErrBadOverride is an override that names no limit or a negative value.
var ErrBadOverride = errors.New("limits: bad override")

func overrideKey(scope Scope, id string) (string, error) {
	if (scope != ScopeTeacher && scope != ScopeSchool) || id == "" {
		return "", fmt.Errorf("%w: scope %q id %q", ErrBadOverride, scope, id)
	}
	return string(scope) + ":" + id, nil
}

// Get returns the override of scope and id (empty when there is none).
func (o *Overrides) Get(ctx context.Context, scope Scope, id string) (Override, error) {
	key, err := overrideKey(scope, id)
	if err != nil {
		return Override{}, err
	}
	ov, err := o.s.Get(ctx, key)
	if errors.Is(err, records.ErrNotFound) {
		return Override{}, nil
	}
	if err != nil {
		return Override{}, fmt.Errorf("limits: override %s: %w", key, err)
	}
	return ov, nil
}

// Set sets limit l to v (a positive value, or Unlimited) for scope and id.
func (o *Overrides) Set(ctx context.Context, scope Scope, id string, l Limit, v int64, by string) (Override, error) {
	key, err := overrideKey(scope, id)
	if err != nil {
		return Override{}, err
	}
	if l == PassMark {
		if scope != ScopeSchool || v < 1 || v > 100 {
			return Override{}, fmt.Errorf("%w: %s=%d (a school's pass mark is a whole percent from 1 to 100)", ErrBadOverride, l, v)
		}
	} else if _, ok := Parse(string(l)); !ok || (v <= 0 && v != Unlimited) {
		return Override{}, fmt.Errorf("%w: %s=%d (a limit of %v, or %s; a value > 0 or lifted)", ErrBadOverride, l, v, names(), PassMark)
	}
	return o.change(ctx, key, func(ov *Override) { ov.Values[l] = v; ov.By = by })
}

// Reset removes l from the override of scope and id (every limit when l is
// ""): the stage's value applies again.
func (o *Overrides) Reset(ctx context.Context, scope Scope, id string, l Limit, by string) (Override, error) {
	key, err := overrideKey(scope, id)
	if err != nil {
		return Override{}, err
	}
	return o.change(ctx, key, func(ov *Override) {
		if l == "" {
			clear(ov.Values)
		}
		delete(ov.Values, l)
		ov.By = by
	})
}

func (o *Overrides) change(ctx context.Context, key string, fn func(*Override)) (Override, error) {
	apply := func(ov *Override) error {
		if ov.Values == nil {
			ov.Values = Values{}
		}
		fn(ov)
		ov.UpdatedAt = o.now()
		return nil
	}
	for range 3 {
		ov, err := o.s.Update(ctx, key, apply)
		if errors.Is(err, records.ErrNotFound) {
			_ = apply(&ov)
			if err = o.s.Create(ctx, key, ov); errors.Is(err, records.ErrExists) {
				continue
			}
		}
		if err != nil {
			return Override{}, fmt.Errorf("limits: override %s: %w", key, err)
		}
		o.mu.Lock()
		delete(o.cache, key)
		o.mu.Unlock()
		return ov, nil
	}
	return Override{}, fmt.Errorf("limits: override %s: %w", key, records.ErrConflict)
}

// cached is Get, read again once older than ttl.
func (o *Overrides) cached(ctx context.Context, scope Scope, id string, ttl time.Duration) (Override, error) {
	key, _ := overrideKey(scope, id)
	now := o.now()
	o.mu.Lock()
	c, ok := o.cache[key]
	o.mu.Unlock()
	if ok && now.Sub(c.read) < ttl {
		return c.o, nil
	}
	ov, err := o.Get(ctx, scope, id)
	if err != nil {
		return Override{}, err
	}
	o.mu.Lock()
	if len(o.cache) > 10000 { // a bound, not a policy
		clear(o.cache)
	}
	o.cache[key] = cachedOverride{o: ov, read: now}
	o.mu.Unlock()
	return ov, nil
}

func names() []Limit {
	out := make([]Limit, len(All))
	for i, l := range All {
		out[i] = l.Limit
	}
	return out
}

// issue 23: one pass mark per school. The pass mark (percent of full
// marks) is a setting of the school's override, beside its limits: an
// operator sets it with the same route and command (PassMark, "passMark"),
// without a deploy. A teacher's school is the JWT claim the limits use; the
// work that needs the mark (a page build's compute phase, a template
// report's data) knows only the teacher, so the edge records each
// teacher's school as it sees them (Remember).

// PassMark names the school's pass mark in an override (a whole percent
// of full marks, 1 to 100); it is a setting, not a limit: nothing counts
// against it, and only a school's override may hold it.
const PassMark Limit = "passMark"

// schoolRefresh is how often a teacher's unchanged school is written again,
// so that the record (kept 400 days from Seen) outlives an active teacher.
const schoolRefresh = 30 * 24 * time.Hour

// schoolKind is the teachers' schools as the edge last saw them.
var schoolKind = records.Kind[teacherSchool]{Name: "teacher-school",
	Expires: func(s teacherSchool) time.Time { return s.Seen.Add(400 * 24 * time.Hour) }}

type teacherSchool struct {
	School string    `json:"school"`
	Seen   time.Time `json:"seen"`
}

// PassMarks finds a teacher's pass mark: their school's setting, else
// scores.DefaultPassMark. Its methods are safe for concurrent use.
type PassMarks struct {
	ov      *Overrides
	schools records.Store[teacherSchool]
	now     func() time.Time
	ttl     time.Duration

	mu    sync.Mutex
	known map[string]cachedSchool // teacher → school
}

type cachedSchool struct {
	school string
	read   time.Time
}

// NewPassMarks returns the pass marks kept in b, read through ov (nil: its
// own; give the limiter's, so that an operator's change applies to both at
// once); a setting or a school read is trusted for ttl [30 s] (how long an
// operator's change takes to apply on another instance).
func NewPassMarks(b records.Backend, ov *Overrides, now func() time.Time, ttl time.Duration) *PassMarks {
	if now == nil {
		now = time.Now
	}
	if ttl <= 0 {
		ttl = 30 * time.Second
	}
	if ov == nil {
		ov = NewOverrides(b, now)
	}
	return &PassMarks{ov: ov, schools: records.Open(b, schoolKind), now: now, ttl: ttl,
		known: map[string]cachedSchool{}}
}

// Overrides is the overrides the pass marks are read from.
func (p *PassMarks) Overrides() *Overrides { return p.ov }

// Remember records who's school, once per process unless it changes: a
// request costs no write once its teacher is known here, and none where
// the record already holds the school, seen within schoolRefresh (issue
// 25: in AWS a teacher's requests land on many instances; the update reads
// the record anyway).
func (p *PassMarks) Remember(ctx context.Context, who Who) error {
	school := who.school()
	p.mu.Lock()
	c, ok := p.known[who.Teacher]
	p.mu.Unlock()
	if ok && c.school == school {
		return nil
	}
	rec := teacherSchool{School: school, Seen: p.now()}
	var err error
	for range 3 { // a create lost to another creator is an update next time
		_, err = p.schools.Update(ctx, who.Teacher, func(s *teacherSchool) error {
			if s.School == school && rec.Seen.Sub(s.Seen) < schoolRefresh {
				return errNoChange
			}
			*s = rec
			return nil
		})
		if errors.Is(err, errNoChange) {
			err = nil
		}
		if errors.Is(err, records.ErrNotFound) {
			if err = p.schools.Create(ctx, who.Teacher, rec); errors.Is(err, records.ErrExists) {
				continue
			}
		}
		break
	}
	if err != nil {
		return fmt.Errorf("limits: school of %s: %w", who.Teacher, err)
	}
	p.cache(who.Teacher, school)
	return nil
}

func (p *PassMarks) cache(teacher, school string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.known) > 10000 { // a bound, not a policy
		clear(p.known)
	}
	p.known[teacher] = cachedSchool{school: school, read: p.now()}
}

// School is the teacher's school as last recorded (the teacher themself
// when none was).
func (p *PassMarks) School(ctx context.Context, teacher string) (string, error) {
	p.mu.Lock()
	c, ok := p.known[teacher]
	p.mu.Unlock()
	if ok && p.now().Sub(c.read) < p.ttl {
		return c.school, nil
	}
	s, err := p.schools.Get(ctx, teacher)
	if errors.Is(err, records.ErrNotFound) {
		s.School = Who{Teacher: teacher}.school()
	} else if err != nil {
		return "", fmt.Errorf("limits: school of %s: %w", teacher, err)
	}
	p.cache(teacher, s.School)
	return s.School, nil
}

// Of is the teacher's pass mark, in percent of full marks: their school's
// setting, else scores.DefaultPassMark. A store that cannot be read gives
// the default, with the error (the caller logs it; a page still builds).
func (p *PassMarks) Of(ctx context.Context, teacher string) (float64, error) {
	school, err := p.School(ctx, teacher)
	if err != nil {
		return scores.DefaultPassMark, err
	}
	ov, err := p.ov.cached(ctx, ScopeSchool, school, p.ttl)
	if err != nil {
		return scores.DefaultPassMark, err
	}
	if v := ov.Values[PassMark]; v > 0 {
		return float64(v), nil
	}
	return scores.DefaultPassMark, nil
}
