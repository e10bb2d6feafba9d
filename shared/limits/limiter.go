package limits

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/insightedge/insightedge/shared/records"
)

// Counters keeps the token counts: an atomic add (no read, no race: a
// DynamoDB ADD, a bbolt transaction) and a read of several counts at once.
// A missing count is 0. shared/boltstore and shared/dynamostore implement
// it; limitstest is its contract.
type Counters interface {
	// Add adds n to the count of key; the backend may forget it after
	// expires.
	Add(ctx context.Context, key string, n int64, expires time.Time) error
	// Counts returns the counts of keys, in their order (strongly consistent).
	Counts(ctx context.Context, keys []string) ([]int64, error)
}

// Metrics receives the limiter's figures (obs.EMF).
type Metrics interface {
	Count(name string, value float64, dims map[string]string)
}

// The limiter writes two metrics (named where written, for test/aws's
// check of the dashboard): LimitRefused, the refusals by limit, and
// TokensMetered, the model tokens by school (the teacher is in the "tokens
// metered" log line, for Logs Insights: a dimension per teacher would be a
// metric per teacher).

// Options configure New. Zero values take the defaults in brackets.
type Options struct {
	// Now is the clock [time.Now].
	Now func() time.Time
	// Shards is how many counters a school's day of tokens is spread over,
	// by teacher [8].
	Shards int
	// OverrideTTL is how long an override read is trusted before it is
	// read again [30 s]: how long an operator's change takes to apply on
	// another instance.
	OverrideTTL time.Duration
	// ConcurrentRetry is the Retry-After of a refusal for too many running
	// turns: a running turn usually ends within seconds [5 s].
	ConcurrentRetry time.Duration
	Logger          *slog.Logger
	Metrics         Metrics
}

// Limiter decides admissions and meters tokens. Its methods are safe for
// concurrent use.
type Limiter struct {
	c         Config
	o         Options
	state     records.Store[state]
	overrides *Overrides
	counters  Counters

	mu      sync.Mutex
	schools map[string]string // teacher → school, as last admitted here
}

// stateKind is the teachers' admission records.
var stateKind = records.Kind[state]{Name: "limit-state", Expires: func(s state) time.Time { return s.Expires }}

// state is one teacher's admissions: the current window of each counted
// limit and the slots of the turns running.
type state struct {
	School  string                `json:"school,omitempty"`
	Windows map[Limit]windowCount `json:"windows,omitempty"`
	Slots   map[string]time.Time  `json:"slots,omitempty"` // holder → lease end
	// Expires lets the store forget a teacher gone quiet (a day after the
	// last window ends).
	Expires time.Time `json:"expires"`
}

type windowCount struct {
	Start time.Time `json:"start"`
	N     int64     `json:"n"`
}

// New returns the limiter of c over the records b (admissions, overrides)
// and counters.
func New(c Config, b records.Backend, counters Counters, o Options) *Limiter {
	if c.Zone == nil {
		c.Zone = time.UTC
	}
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Shards <= 0 {
		o.Shards = 8
	}
	if o.OverrideTTL <= 0 {
		o.OverrideTTL = 30 * time.Second
	}
	if o.ConcurrentRetry <= 0 {
		o.ConcurrentRetry = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Limiter{c: c, o: o, state: records.Open(b, stateKind), overrides: NewOverrides(b, o.Now),
		counters: counters, schools: map[string]string{}}
}

// Config is the limiter's configuration.
func (l *Limiter) Config() Config { return l.c }

// Overrides is the operator's overrides the limiter reads.
func (l *Limiter) Overrides() *Overrides { return l.overrides }

// errNoChange ends an update that has nothing to write.
var errNoChange = errors.New("limits: nothing to change")

// Admit admits the start of action for who, or refuses it with an
// *Exceeded. A Turn takes a slot named holder (the turn's id) until End.
// It reads the token counts and, when a window or slot limit applies,
// makes one conditional write.
func (l *Limiter) Admit(ctx context.Context, who Who, action Action, holder string) error {
	lim, err := l.Effective(ctx, who)
	if err != nil {
		return err
	}
	now := l.o.Now()
	if err := l.checkTokens(ctx, who, lim, now); err != nil {
		return l.refused(ctx, who, err)
	}
	counted := lim[windowOf[action]] > 0 || (action == Turn && lim[ConcurrentTurns] > 0)
	l.mu.Lock()
	known := l.schools[who.Teacher] == who.school()
	l.mu.Unlock()
	if !counted && known {
		return nil
	}
	err = l.update(ctx, who.Teacher, func(st *state) error {
		return st.admit(who, action, holder, lim, now, l.c, l.o.ConcurrentRetry)
	})
	if errors.Is(err, errNoChange) {
		err = nil
	}
	if err == nil {
		l.remember(who)
	}
	return l.refused(ctx, who, err)
}

// refused counts a refusal and returns err.
func (l *Limiter) refused(ctx context.Context, who Who, err error) error {
	var ex *Exceeded
	if errors.As(err, &ex) {
		l.o.Logger.InfoContext(ctx, "limit reached", "limit", ex.Limit, "max", ex.Max, "teacherId", who.Teacher, "school", who.School)
		if l.o.Metrics != nil {
			l.o.Metrics.Count("LimitRefused", 1, map[string]string{"limit": string(ex.Limit)})
		}
	}
	return err
}

// admit applies one admission to st, or refuses it.
func (st *state) admit(who Who, action Action, holder string, lim Values, now time.Time, c Config, concRetry time.Duration) error {
	changed := st.School != who.school()
	st.School = who.school()
	for h, until := range st.Slots {
		if !until.After(now) {
			delete(st.Slots, h) // a turn whose end was never reported
			changed = true
		}
	}
	if max := lim[ConcurrentTurns]; action == Turn && max > 0 && int64(len(st.Slots)) >= max {
		return &Exceeded{Limit: ConcurrentTurns, Max: max, RetryAfter: concRetry}
	}
	wl := windowOf[action]
	if max := lim[wl]; max > 0 {
		start, end := window(wl, now, c.Zone)
		w := st.Windows[wl]
		if !w.Start.Equal(start) {
			w = windowCount{Start: start}
		}
		if w.N >= max {
			return &Exceeded{Limit: wl, Max: max, RetryAfter: end.Sub(now)}
		}
		w.N++
		if st.Windows == nil {
			st.Windows = map[Limit]windowCount{}
		}
		st.Windows[wl] = w
		st.Expires = later(st.Expires, end.Add(24*time.Hour))
		changed = true
	}
	if action == Turn && lim[ConcurrentTurns] > 0 {
		if st.Slots == nil {
			st.Slots = map[string]time.Time{}
		}
		st.Slots[holder] = now.Add(c.Lease)
		st.Expires = later(st.Expires, now.Add(c.Lease+24*time.Hour))
		changed = true
	}
	if !changed {
		return errNoChange
	}
	st.Expires = later(st.Expires, now.Add(24*time.Hour))
	return nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// update applies fn to the teacher's state, creating it on first use.
func (l *Limiter) update(ctx context.Context, teacher string, fn func(*state) error) error {
	for range 3 { // a create lost to another creator is an update next time
		_, err := l.state.Update(ctx, teacher, fn)
		if !errors.Is(err, records.ErrNotFound) {
			return err
		}
		var st state
		if err := fn(&st); err != nil {
			return err
		}
		err = l.state.Create(ctx, teacher, st)
		if !errors.Is(err, records.ErrExists) {
			return err
		}
	}
	return fmt.Errorf("limits: state of %s: %w", teacher, records.ErrConflict)
}

// End frees the slot of holder, the turn that ended. A slot already gone
// (its lease ran out, or no limit took one) is not an error.
func (l *Limiter) End(ctx context.Context, teacher, holder string) error {
	_, err := l.state.Update(ctx, teacher, func(st *state) error {
		if _, ok := st.Slots[holder]; !ok {
			return errNoChange
		}
		delete(st.Slots, holder)
		return nil
	})
	if errors.Is(err, errNoChange) || errors.Is(err, records.ErrNotFound) {
		return nil
	}
	return err
}

func (l *Limiter) remember(who Who) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.schools) > 10000 { // a bound, not a policy: start again
		clear(l.schools)
	}
	l.schools[who.Teacher] = who.school()
}

// schoolOf is the school the teacher was last admitted with.
func (l *Limiter) schoolOf(ctx context.Context, teacher string) string {
	l.mu.Lock()
	s, ok := l.schools[teacher]
	l.mu.Unlock()
	if ok {
		return s
	}
	st, err := l.state.Get(ctx, teacher)
	if err != nil || st.School == "" {
		return Who{Teacher: teacher}.school()
	}
	return st.School
}

// Meter counts tokens the teacher's model call used, when the call ended:
// the teacher's day and their school's. A turn that crosses a budget
// finishes; the next Admit is refused.
func (l *Limiter) Meter(ctx context.Context, teacher string, tokens int64) error {
	if tokens <= 0 || teacher == "" {
		return nil
	}
	now := l.o.Now()
	school := l.schoolOf(ctx, teacher)
	_, end := window(TokensPerDay, now, l.c.Zone)
	keep := end.Add(48 * time.Hour)
	if err := l.counters.Add(ctx, l.teacherKey(teacher, now), tokens, keep); err != nil {
		return fmt.Errorf("limits: meter %s: %w", teacher, err)
	}
	if err := l.counters.Add(ctx, l.shardKey(school, teacher, now), tokens, keep); err != nil {
		return fmt.Errorf("limits: meter school %s: %w", school, err)
	}
	l.o.Logger.InfoContext(ctx, "tokens metered", "teacherId", teacher, "school", school, "tokens", tokens)
	if l.o.Metrics != nil {
		l.o.Metrics.Count("TokensMetered", float64(tokens), map[string]string{"school": school})
	}
	return nil
}

func (l *Limiter) teacherKey(teacher string, now time.Time) string {
	return "tokens:teacher:" + teacher + ":" + day(now, l.c.Zone)
}

func (l *Limiter) shardKey(school, teacher string, now time.Time) string {
	h := fnv.New32a()
	h.Write([]byte(teacher))
	return l.shardKeyN(school, now, int(h.Sum32()%uint32(l.o.Shards)))
}

func (l *Limiter) shardKeyN(school string, now time.Time, n int) string {
	return "tokens:school:" + school + ":" + day(now, l.c.Zone) + ":" + strconv.Itoa(n)
}

// tokens reads the teacher's and the school's tokens of today.
func (l *Limiter) tokens(ctx context.Context, who Who, now time.Time) (teacher, school int64, err error) {
	keys := []string{l.teacherKey(who.Teacher, now)}
	for n := range l.o.Shards {
		keys = append(keys, l.shardKeyN(who.school(), now, n))
	}
	counts, err := l.counters.Counts(ctx, keys)
	if err != nil {
		return 0, 0, fmt.Errorf("limits: tokens of %s: %w", who.Teacher, err)
	}
	for _, c := range counts[1:] {
		school += c
	}
	return counts[0], school, nil
}

// checkTokens refuses when today's tokens reached a budget.
func (l *Limiter) checkTokens(ctx context.Context, who Who, lim Values, now time.Time) error {
	if lim[TokensPerDay] <= 0 && lim[SchoolTokensPerDay] <= 0 {
		return nil
	}
	teacher, school, err := l.tokens(ctx, who, now)
	if err != nil {
		return err
	}
	_, end := window(TokensPerDay, now, l.c.Zone)
	if max := lim[TokensPerDay]; max > 0 && teacher >= max {
		return &Exceeded{Limit: TokensPerDay, Max: max, RetryAfter: end.Sub(now)}
	}
	if max := lim[SchoolTokensPerDay]; max > 0 && school >= max {
		return &Exceeded{Limit: SchoolTokensPerDay, Max: max, RetryAfter: end.Sub(now)}
	}
	return nil
}

// Effective is who's limits: the stage's, then the school's override, then
// the teacher's (a school's token budget is the school's override only).
func (l *Limiter) Effective(ctx context.Context, who Who) (Values, error) {
	lim := maps.Clone(l.c.Values)
	if lim == nil {
		lim = Values{}
	}
	school, err := l.overrides.cached(ctx, ScopeSchool, who.school(), l.o.OverrideTTL)
	if err != nil {
		return nil, err
	}
	teacher, err := l.overrides.cached(ctx, ScopeTeacher, who.Teacher, l.o.OverrideTTL)
	if err != nil {
		return nil, err
	}
	school.apply(lim, true)
	teacher.apply(lim, false)
	return lim, nil
}

// Use is one limit's use today (or in its current window).
type Use struct {
	Limit Limit `json:"limit"`
	Used  int64 `json:"used"`
	// Max is the limit; 0 when none applies.
	Max int64 `json:"max"`
	// ResetsAt is when the window ends (none for running turns).
	ResetsAt *time.Time `json:"resetsAt,omitempty"`
}

// Usage is who's use against their limits, every limit in All's order.
func (l *Limiter) Usage(ctx context.Context, who Who) ([]Use, error) {
	lim, err := l.Effective(ctx, who)
	if err != nil {
		return nil, err
	}
	now := l.o.Now()
	st, err := l.state.Get(ctx, who.Teacher)
	if err != nil && !errors.Is(err, records.ErrNotFound) {
		return nil, fmt.Errorf("limits: usage of %s: %w", who.Teacher, err)
	}
	teacher, school, err := l.tokens(ctx, who, now)
	if err != nil {
		return nil, err
	}
	out := make([]Use, 0, len(All))
	for _, e := range All {
		u := Use{Limit: e.Limit, Max: lim[e.Limit]}
		if e.Limit != ConcurrentTurns {
			_, end := window(e.Limit, now, l.c.Zone)
			u.ResetsAt = &end
		}
		switch e.Limit {
		case ConcurrentTurns:
			for _, until := range st.Slots {
				if until.After(now) {
					u.Used++
				}
			}
		case TokensPerDay:
			u.Used = teacher
		case SchoolTokensPerDay:
			u.Used = school
		default:
			if w := st.Windows[e.Limit]; w.Start.Equal(windowStart(e.Limit, now, l.c.Zone)) {
				u.Used = w.N
			}
		}
		out = append(out, u)
	}
	return out, nil
}

// windowStart is the start of limit lim's window around now.
func windowStart(lim Limit, now time.Time, zone *time.Location) time.Time {
	start, _ := window(lim, now, zone)
	return start
}
