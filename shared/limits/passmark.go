package limits

// issue 23: one pass mark per school. The pass mark (percent of full
// marks) is a setting of the school's override, beside its limits: an
// operator sets it with the same route and command (PassMark, "passMark"),
// without a deploy. A teacher's school is the JWT claim the limits use; the
// work that needs the mark (a page build's compute phase, the data tools,
// a template report) knows only the teacher, so the edge records each
// teacher's school as it sees them (Remember).

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/scores"
)

// PassMark names the school's pass mark in an override (a whole percent
// of full marks, 1 to 100); it is a setting, not a limit: nothing counts
// against it, and only a school's override may hold it.
const PassMark Limit = "passMark"

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
// request costs no write once its teacher is known here.
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
		_, err = p.schools.Update(ctx, who.Teacher, func(s *teacherSchool) error { *s = rec; return nil })
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
