package limits

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/insightedge/insightedge/shared/records"
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
