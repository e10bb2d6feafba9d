package report

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/insightedge/insightedge/shared/records"
)

// Session statuses.
const (
	StatusIdle        = "idle"        // created, or a run ended without a report
	StatusPlanning    = "planning"    // the planner runs
	StatusConfirming  = "confirming"  // waiting for user.response
	StatusSolving     = "solving"     // solvers run
	StatusAggregating = "aggregating" // the aggregator runs
	StatusCompleted   = "completed"   // a report was written
	StatusCancelled   = "cancelled"   // user.cancel or user.cancel_plan
	StatusFailed      = "failed"      // a run failed
	StatusClosed      = "closed"      // its socket closed (seed: closing ends its sessions)
)

// Task states.
const (
	TaskPending   = "pending"
	TaskRunning   = "running"
	TaskCompleted = "completed"
	TaskFailed    = "failed"
	TaskCancelled = "cancelled"
)

// Session is one template-report session.
type Session struct {
	ID        string `json:"id"`
	TeacherID string `json:"teacher_id"`
	// ConnectionID is the socket that owns the session ("" for SSE sessions).
	ConnectionID string `json:"connection_id,omitempty"`
	Status       string `json:"status"`
	// Run numbers the session's pipeline runs; a step of an older run finds a
	// newer number and stops (a cancelled run's late producers are turned away).
	Run int `json:"run"`
	// Execution is the running workflow execution's name.
	Execution string `json:"execution,omitempty"`
	// StepID is the pending confirmation's step_id (the task token).
	StepID   string  `json:"step_id,omitempty"`
	Message  Message `json:"message"`
	Language string  `json:"language,omitempty"`
	// TemplatePath is the template's Markdown in the VFS ("" until loaded).
	TemplatePath string        `json:"template_path,omitempty"`
	PlanSummary  string        `json:"plan_summary,omitempty"`
	Tasks        []SectionTask `json:"tasks,omitempty"`
	// Submitted are user.solve_tasks' tasks, filled from the template by the
	// run's first round.
	Submitted []UserTask `json:"submitted,omitempty"`
	// TaskState is each task's state by id.
	TaskState map[int]string `json:"task_state,omitempty"`
	// Restarts counts user.restart_task per task id; a running solver whose
	// count changes starts over.
	Restarts map[int]int `json:"restarts,omitempty"`
	// Relayed is the seq of the last event posted to ConnectionID by the
	// AWS socket's relay, which posts the log in seq order from there
	// (apigw.Handler).
	Relayed   int64     `json:"relayed,omitempty"`
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// ExpiresAt is when the store may forget the session (DynamoDB TTL).
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// Running reports whether a run is in progress.
func (s Session) Running() bool {
	switch s.Status {
	case StatusPlanning, StatusConfirming, StatusSolving, StatusAggregating:
		return true
	}
	return false
}

// Task returns the task with id.
func (s Session) Task(id int) (SectionTask, bool) {
	for _, t := range s.Tasks {
		if t.ID == id {
			return t, true
		}
	}
	return SectionTask{}, false
}

// Connection is an open WebSocket.
type Connection struct {
	ID        string `json:"id"`
	TeacherID string `json:"teacher_id"`
	// School and Language are the socket's caller's (issue 26: its
	// admissions).
	School    string    `json:"school,omitempty"`
	Language  string    `json:"language,omitempty"`
	Sessions  []string  `json:"sessions,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// Store errors: the records' own, so that errors.Is holds through the layers.
var (
	ErrNotFound = records.ErrNotFound
	ErrExists   = records.ErrExists
)

// Store keeps sessions and connections. NewStore builds it on a
// records.Backend (shared/boltstore locally, shared/dynamostore in AWS).
type Store interface {
	// CreateSession stores a new session; ErrExists if its id is taken.
	CreateSession(ctx context.Context, s Session) error
	// GetSession returns a session or ErrNotFound.
	GetSession(ctx context.Context, id string) (Session, error)
	// UpdateSession applies fn to the stored session and stores the result
	// with Version+1, atomically: no concurrent update is lost. fn may be
	// called more than once; an error from fn aborts the update.
	UpdateSession(ctx context.Context, id string, fn func(*Session) error) (Session, error)
	// PutConnection stores a connection.
	PutConnection(ctx context.Context, c Connection) error
	// GetConnection returns a connection or ErrNotFound.
	GetConnection(ctx context.Context, id string) (Connection, error)
	// AddSession appends a session id to a connection's list, atomically.
	AddSession(ctx context.Context, connID, sessionID string) error
	// DeleteConnection removes a connection; removing a missing one is not an error.
	DeleteConnection(ctx context.Context, id string) error
}

// The kinds of the report records, named as the stores have kept them
// (bbolt buckets; DynamoDB TSESSION#<id> and TCONN#<id> items).
var (
	sessionKind = records.Kind[Session]{Name: "report-sessions",
		Expires: func(s Session) time.Time { return s.ExpiresAt }}
	connectionKind = records.Kind[Connection]{Name: "report-connections",
		Expires: func(c Connection) time.Time { return c.ExpiresAt }}
)

// NewStore returns the Store of the report records in b.
func NewStore(b records.Backend) Store {
	return &store{sessions: records.Open(b, sessionKind), conns: records.Open(b, connectionKind)}
}

// store is the Store on records: the session's version and times are set
// here, the atomicity is the records'.
type store struct {
	sessions records.Store[Session]
	conns    records.Store[Connection]
}

func (s *store) CreateSession(ctx context.Context, sess Session) error {
	now := time.Now().UTC()
	sess.Version, sess.CreatedAt, sess.UpdatedAt = 1, now, now
	return s.sessions.Create(ctx, sess.ID, sess)
}

func (s *store) GetSession(ctx context.Context, id string) (Session, error) {
	return s.sessions.Get(ctx, id)
}

func (s *store) UpdateSession(ctx context.Context, id string, fn func(*Session) error) (Session, error) {
	return s.sessions.Update(ctx, id, func(sess *Session) error {
		if err := fn(sess); err != nil {
			return err
		}
		sess.ID, sess.UpdatedAt = id, time.Now().UTC()
		sess.Version++
		return nil
	})
}

// PutConnection creates the connection, or replaces the one of its id.
func (s *store) PutConnection(ctx context.Context, c Connection) error {
	err := s.conns.Create(ctx, c.ID, c)
	if errors.Is(err, ErrExists) {
		_, err = s.conns.Update(ctx, c.ID, func(old *Connection) error { *old = c; return nil })
	}
	return err
}

func (s *store) GetConnection(ctx context.Context, id string) (Connection, error) {
	return s.conns.Get(ctx, id)
}

func (s *store) AddSession(ctx context.Context, connID, sessionID string) error {
	if sessionID == "" {
		return fmt.Errorf("report: add a session to %s: empty session id", connID)
	}
	_, err := s.conns.Update(ctx, connID, func(c *Connection) error {
		if !slices.Contains(c.Sessions, sessionID) {
			c.Sessions = append(c.Sessions, sessionID)
		}
		return nil
	})
	return err
}

func (s *store) DeleteConnection(ctx context.Context, id string) error {
	return s.conns.Delete(ctx, id)
}

// StreamName is the event-log stream of a session.
func StreamName(sessionID string) string { return "template:" + sessionID }
