// Package apps keeps saved apps — a blueprint with its build context and an
// optional schedule — and the page snapshots their runs produce, and
// replays them: a scheduled run builds the page again with no client
// attached and stores what it got, succeeded or failed.
//
// In AWS, EventBridge Scheduler invokes the replay function with
// {"appId": …} on each app's rate (Schedule.RateExpression); locally a
// Scheduler polls the store for due apps (NextRunAt) and `go run ./local
// replay` runs them once.
package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned for a missing app or snapshot.
var ErrNotFound = errors.New("apps: not found")

// App is a saved blueprint.
type App struct {
	ID        string `json:"id"`
	TeacherID string `json:"teacherId"`
	Name      string `json:"name"`
	// Blueprint is the blueprint as saved (validated when saved, again
	// before each run).
	Blueprint json.RawMessage `json:"blueprint"`
	// Context is the build context of every run ({"classId": …}).
	Context  map[string]any `json:"context,omitempty"`
	Schedule *Schedule      `json:"schedule,omitempty"`
	// NextRunAt is when the schedule runs the app next; zero without one.
	NextRunAt time.Time `json:"nextRunAt,omitzero"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Schedule is how often an app runs.
type Schedule struct {
	// Every is a duration in whole minutes, at least a minute: "30m", "24h".
	Every string `json:"every"`
}

// MinInterval is the shortest schedule.
const MinInterval = time.Minute

// Interval parses Every.
func (s Schedule) Interval() (time.Duration, error) {
	d, err := time.ParseDuration(s.Every)
	switch {
	case err != nil:
		return 0, fmt.Errorf("schedule every %q: want a duration such as 30m or 24h", s.Every)
	case d < MinInterval || d%time.Minute != 0:
		return 0, fmt.Errorf("schedule every %q: want whole minutes, at least one", s.Every)
	}
	return d, nil
}

// RateExpression is the schedule as EventBridge Scheduler's rate(): in
// days, hours or minutes, whichever is whole.
func (s Schedule) RateExpression() (string, error) {
	d, err := s.Interval()
	if err != nil {
		return "", err
	}
	unit := func(n int64, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("rate(1 %s)", one)
		}
		return fmt.Sprintf("rate(%d %s)", n, many)
	}
	switch {
	case d%(24*time.Hour) == 0:
		return unit(int64(d/(24*time.Hour)), "day", "days"), nil
	case d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour", "hours"), nil
	}
	return unit(int64(d/time.Minute), "minute", "minutes"), nil
}

// Next returns the first run time after now, counting from prev by the
// interval: missed runs are skipped, not caught up.
func Next(prev, now time.Time, every time.Duration) time.Time {
	if prev.After(now) {
		return prev
	}
	k := now.Sub(prev)/every + 1
	return prev.Add(k * every)
}

// Snapshot statuses.
const (
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
)

// Triggers of a run.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

// Snapshot is one run of an app: the page it built, or why it failed.
type Snapshot struct {
	AppID     string          `json:"appId"`
	RunID     string          `json:"runId"`
	Status    string          `json:"status"`
	Trigger   string          `json:"trigger"`
	BuildID   string          `json:"buildId,omitempty"`
	StartedAt time.Time       `json:"startedAt"`
	EndedAt   time.Time       `json:"endedAt,omitzero"`
	Page      json.RawMessage `json:"page,omitempty"`
	ErrorCode string          `json:"errorCode,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// Store keeps apps and their snapshots.
type Store interface {
	// PutApp creates or replaces an app.
	PutApp(ctx context.Context, a App) error
	// GetApp returns an app or ErrNotFound.
	GetApp(ctx context.Context, id string) (App, error)
	// ListApps returns the teacher's apps, newest first.
	ListApps(ctx context.Context, teacherID string) ([]App, error)
	// DeleteApp removes an app and its snapshots; ErrNotFound if missing.
	DeleteApp(ctx context.Context, id string) error
	// PutSnapshot creates or replaces the snapshot (AppID, RunID).
	PutSnapshot(ctx context.Context, s Snapshot) error
	// GetSnapshot returns one snapshot or ErrNotFound.
	GetSnapshot(ctx context.Context, appID, runID string) (Snapshot, error)
	// ListSnapshots returns an app's snapshots, oldest first.
	ListSnapshots(ctx context.Context, appID string) ([]Snapshot, error)
}

// DueLister finds the apps whose schedule is due: the local scheduler's
// query (EventBridge Scheduler does this in AWS).
type DueLister interface {
	// DueApps returns up to limit apps with a NextRunAt at or before now,
	// earliest first.
	DueApps(ctx context.Context, now time.Time, limit int) ([]App, error)
}
