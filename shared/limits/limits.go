// Package limits is fair use per teacher and per school (issue 26): how many
// conversation turns a teacher runs at once and starts a minute, how many
// page builds an hour, research runs and template reports a day, and how
// many model tokens a teacher and a school spend a day. Each limit comes
// from the stage's environment (off when unset) and an operator may raise
// or lift it for one teacher or school with an override, an item in the
// table (Overrides), without a deploy.
//
// # Where the counts live
//
// A teacher's admissions (the turn and start windows and the running
// turns' slots) are one record of the records.Backend (kind "limit-state",
// key the teacher id), updated with the backend's compare-and-swap: an
// admission is one read and one conditional write, a refusal writes
// nothing, and concurrent requests cannot both take the last place (the
// contract suite, limitstest, runs 100 at once on each store). Token use is
// counted with Counters, an atomic add that needs no read: the teacher's
// day and the school's day, the school's spread over Shards items (by
// teacher) so that a big school is not one hot partition.
//
// A running turn holds a slot, a lease that ends when its turn ends (End)
// or, if its process died, when the lease runs out (Config.Lease).
package limits

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // LIMIT_TIME_ZONE must load where the system has no zoneinfo (Lambda)
)

// Limit names one limit; the name is the wire's details.limit and the
// override's key.
type Limit string

// The limits.
const (
	ConcurrentTurns    Limit = "concurrentTurns"
	TurnsPerMinute     Limit = "turnsPerMinute"
	BuildsPerHour      Limit = "buildsPerHour"
	ResearchPerDay     Limit = "researchPerDay"
	ReportsPerDay      Limit = "reportsPerDay"
	TokensPerDay       Limit = "tokensPerDay"
	SchoolTokensPerDay Limit = "schoolTokensPerDay"
)

// All lists every limit with its environment variable, in display order.
var All = []struct {
	Limit Limit
	Env   string
}{
	{ConcurrentTurns, "LIMIT_CONCURRENT_TURNS"},
	{TurnsPerMinute, "LIMIT_TURNS_PER_MINUTE"},
	{BuildsPerHour, "LIMIT_BUILDS_PER_HOUR"},
	{ResearchPerDay, "LIMIT_RESEARCH_PER_DAY"},
	{ReportsPerDay, "LIMIT_REPORTS_PER_DAY"},
	{TokensPerDay, "LIMIT_TOKENS_PER_DAY"},
	{SchoolTokensPerDay, "LIMIT_SCHOOL_TOKENS_PER_DAY"},
}

// Parse returns the Limit named s.
func Parse(s string) (Limit, bool) {
	for _, l := range All {
		if string(l.Limit) == s {
			return l.Limit, true
		}
	}
	return "", false
}

// Values are limits by name; a limit that is missing (or 0) is off.
type Values map[Limit]int64

// Config is a stage's limits.
type Config struct {
	Values Values
	// Zone is the time zone of a day's limits [Asia/Hong_Kong].
	Zone *time.Location
	// SchoolClaim is the JWT claim that names a teacher's school [school].
	SchoolClaim string
	// Lease bounds how long a running turn holds its slot when its end is
	// never reported (its process died) [10 minutes, the edge's turn bound].
	Lease time.Duration
}

// DefaultZone and DefaultSchoolClaim are Config's defaults.
const (
	DefaultZone        = "Asia/Hong_Kong"
	DefaultSchoolClaim = "school"
	DefaultLease       = 10 * time.Minute
)

// On reports whether any limit is configured. With none the product runs
// without a limiter and no limit costs a read.
func (c Config) On() bool {
	for _, v := range c.Values {
		if v > 0 {
			return true
		}
	}
	return false
}

// ErrConfig is a limit variable that does not parse.
var ErrConfig = errors.New("limits: bad configuration")

// FromEnv reads the LIMIT_* variables through getenv: each limit a positive
// whole number ("", "0" and "off" are off), LIMIT_TIME_ZONE an IANA zone,
// LIMIT_SCHOOL_CLAIM a claim name.
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{Values: Values{}, SchoolClaim: DefaultSchoolClaim, Lease: DefaultLease}
	for _, l := range All {
		raw := strings.TrimSpace(getenv(l.Env))
		if raw == "" || raw == "off" {
			continue
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 {
			return c, fmt.Errorf("%w: %s=%q is not a whole number ≥ 0 (or off)", ErrConfig, l.Env, raw)
		}
		if n > 0 {
			c.Values[l.Limit] = n
		}
	}
	zone := cmp.Or(strings.TrimSpace(getenv("LIMIT_TIME_ZONE")), DefaultZone)
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return c, fmt.Errorf("%w: LIMIT_TIME_ZONE=%q: %w", ErrConfig, zone, err)
	}
	c.Zone = loc
	if claim := strings.TrimSpace(getenv("LIMIT_SCHOOL_CLAIM")); claim != "" {
		c.SchoolClaim = claim
	}
	return c, nil
}

// Who is the caller a limit counts: a teacher and their school (a teacher
// without one is their own school).
type Who struct {
	Teacher string
	School  string
}

// school is the school whose budget w spends.
func (w Who) school() string {
	if w.School == "" {
		return "teacher:" + w.Teacher
	}
	return w.School
}

// Exceeded is a refusal: Limit is reached until RetryAfter has passed.
type Exceeded struct {
	Limit      Limit
	Max        int64
	RetryAfter time.Duration
}

func (e *Exceeded) Error() string {
	return fmt.Sprintf("limits: %s (%d) reached, retry after %v", e.Limit, e.Max, e.RetryAfter)
}

// RetrySeconds is RetryAfter in whole seconds, rounded up, at least 1: the
// Retry-After header's value.
func (e *Exceeded) RetrySeconds() int64 {
	s := int64((e.RetryAfter + time.Second - 1) / time.Second)
	return max(s, 1)
}
