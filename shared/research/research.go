// Package research is the research timeline flow of seed 001: a teacher's
// topic becomes a proposal (POST /api/research), and the first stream of the
// session (GET /api/research/{id}/stream) runs the Research workflow, in
// which one milestone agent run with a web-search tool drafts, verifies and
// finalises a skeleton of dated milestones, sent as the skeleton event.
//
// This file is the session and its lifecycle,
//
//	Created → ProposalReady → Executing → Completed
//	                                    → Failed
//
// kept in a Store whose only write is a compare-and-swap of the whole
// session (Update): every transition below is a function of the session
// read, applied by Update, and written only if nobody wrote in between. The
// single-stream rule of the seed (a second stream gets 409) is such a
// conditional write: a stream attaches by writing a lease (Attached,
// AttachedUntil) that it renews while it relays and clears when it ends, so
// a client that dropped can come back once its stream is gone, and a lease
// left by a crashed edge expires. The first attachment of a ProposalReady
// session also moves it to Executing: that write is what starts the
// workflow, once.
package research

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/records"
)

// Status is a session's place in its lifecycle (seed 001 §3).
type Status string

// Statuses, named as the seed names them.
const (
	Created       Status = "Created"
	ProposalReady Status = "ProposalReady"
	Executing     Status = "Executing"
	Completed     Status = "Completed"
	Failed        Status = "Failed"
)

// Ended reports whether s is final.
func (s Status) Ended() bool { return s == Completed || s == Failed }

// Errors of the Store contract and of the transitions: the records' own, so
// that errors.Is holds through the layers.
var (
	ErrNotFound = records.ErrNotFound
	ErrExists   = records.ErrExists
	// ErrConflict is a transition the session's state does not allow: a
	// second stream while one is attached, a proposal for a session that
	// has one, a session that has already ended; and an update that lost
	// to other writers too many times in a row.
	ErrConflict = records.ErrConflict
)

// Proposal is what the teacher confirms before the research runs: the topic
// as understood, the time range, the focus points, the expected number of
// milestones and the search plan, in the teacher's language.
type Proposal struct {
	Topic              string   `json:"topic"`
	TimeRange          string   `json:"time_range"`
	FocusPoints        []string `json:"focus_points"`
	ExpectedMilestones int      `json:"expected_milestones"`
	SearchPlan         []string `json:"search_plan"`
	Language           string   `json:"language"`
}

// SkeletonNode is one milestone of the skeleton (seed 001 §6).
type SkeletonNode = protocol.SkeletonNode

// Failure says why a session failed: a code of the error event and the
// teacher-facing message.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Session is one research session of one teacher.
type Session struct {
	ID        string    `json:"id"`
	TeacherID string    `json:"teacherId"`
	Topic     string    `json:"topic"`
	Language  string    `json:"language"`
	Status    Status    `json:"status"`
	Proposal  *Proposal `json:"proposal,omitempty"`
	// Skeleton is the accepted agent output, kept for the Finish step.
	Skeleton []SkeletonNode `json:"skeleton,omitempty"`
	Failure  *Failure       `json:"failure,omitempty"`
	// Attached holds the stream lease: who holds it, until when.
	Attached      string    `json:"attached,omitempty"`
	AttachedUntil time.Time `json:"attachedUntil,omitzero"`
	// Version counts writes; the store sets it.
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	StartedAt time.Time `json:"startedAt,omitzero"`
	EndedAt   time.Time `json:"endedAt,omitzero"`
	// ExpiresAt is the TTL: the store may delete the session after it.
	ExpiresAt time.Time `json:"expiresAt"`
}

// Store keeps research sessions.
type Store interface {
	// CreateResearch stores a new session; ErrExists if the id is taken.
	CreateResearch(ctx context.Context, s Session) error
	// GetResearch returns a session (strongly consistent) or ErrNotFound.
	GetResearch(ctx context.Context, id string) (Session, error)
	// UpdateResearch reads the session, lets fn change it and writes it back
	// with Version+1 only if nobody wrote it in between; when somebody did,
	// it reads again and calls fn again (a bounded number of times). An error
	// from fn is returned and nothing is written. ErrNotFound without the
	// session.
	UpdateResearch(ctx context.Context, id string, fn func(*Session) error) (Session, error)
}

// Lister is implemented by stores that can list sessions by status (the
// embedded store; a local restart fails the runs it interrupted).
type Lister interface {
	ListResearch(ctx context.Context, status Status) ([]Session, error)
}

// sessionKind is the research sessions' kind of record, named as the stores
// have kept them (the bbolt bucket; DynamoDB RESEARCH#<id> items, with
// status and teacherId copied out for an operator's queries).
var sessionKind = records.Kind[Session]{Name: "research",
	Expires: func(s Session) time.Time { return s.ExpiresAt },
	Attrs: func(s Session) map[string]string {
		return map[string]string{"status": string(s.Status), "teacherId": s.TeacherID}
	}}

// NewStore returns the Store of the research sessions in b; it is also a
// Lister when b's records can be listed.
func NewStore(b records.Backend) Store {
	s := store{sessions: records.Open(b, sessionKind)}
	if s.sessions.CanList() {
		return listingStore{s}
	}
	return s
}

// store is the Store on records: the version is counted here, the
// atomicity is the records'.
type store struct{ sessions *records.JSON[Session] }

func (s store) CreateResearch(ctx context.Context, r Session) error {
	r.Version = 1
	return s.sessions.Create(ctx, r.ID, r)
}

func (s store) GetResearch(ctx context.Context, id string) (Session, error) {
	return s.sessions.Get(ctx, id)
}

func (s store) UpdateResearch(ctx context.Context, id string, fn func(*Session) error) (Session, error) {
	return s.sessions.Update(ctx, id, func(r *Session) error {
		if err := fn(r); err != nil {
			return err
		}
		r.Version++
		return nil
	})
}

type listingStore struct{ store }

// ListResearch implements Lister, in id order.
func (s listingStore) ListResearch(ctx context.Context, status Status) ([]Session, error) {
	all, err := s.sessions.List(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(r Session) bool { return r.Status != status }), nil
}

// ReadyProposal records the proposal: Created → ProposalReady.
func ReadyProposal(ctx context.Context, st Store, id string, p Proposal, now time.Time) (Session, error) {
	return st.UpdateResearch(ctx, id, func(s *Session) error {
		if s.Status != Created {
			return fmt.Errorf("%w: %s already has a proposal (%s)", ErrConflict, id, s.Status)
		}
		s.Status, s.Proposal, s.UpdatedAt = ProposalReady, &p, now
		return nil
	})
}

// Attach takes the session's one stream for holder until until. It fails
// with ErrConflict while another holder's lease is live, and for a session
// without a proposal. started is true when this attachment moved the
// session from ProposalReady to Executing: the caller starts the run.
func Attach(ctx context.Context, st Store, id, holder string, now, until time.Time) (s Session, started bool, err error) {
	s, err = st.UpdateResearch(ctx, id, func(s *Session) error {
		started = false
		if s.Status == Created {
			return fmt.Errorf("%w: %s has no proposal yet", ErrConflict, id)
		}
		if s.Attached != "" && s.Attached != holder && s.AttachedUntil.After(now) {
			return fmt.Errorf("%w: %s is already being streamed", ErrConflict, id)
		}
		s.Attached, s.AttachedUntil, s.UpdatedAt = holder, until, now
		if s.Status == ProposalReady {
			s.Status, s.StartedAt, started = Executing, now, true
		}
		return nil
	})
	return s, started, err
}

// Renew extends holder's lease; ErrConflict when holder lost it.
func Renew(ctx context.Context, st Store, id, holder string, now, until time.Time) error {
	_, err := st.UpdateResearch(ctx, id, func(s *Session) error {
		if s.Attached != holder {
			return fmt.Errorf("%w: %s's stream is no longer %s's", ErrConflict, id, holder)
		}
		s.AttachedUntil, s.UpdatedAt = until, now
		return nil
	})
	return err
}

// Detach releases holder's lease; releasing a lease already gone is not an
// error.
func Detach(ctx context.Context, st Store, id, holder string, now time.Time) error {
	_, err := st.UpdateResearch(ctx, id, func(s *Session) error {
		if s.Attached != holder {
			return errNoChange
		}
		s.Attached, s.AttachedUntil, s.UpdatedAt = "", time.Time{}, now
		return nil
	})
	if errors.Is(err, errNoChange) {
		return nil
	}
	return err
}

var errNoChange = errors.New("research: nothing to change")

// SaveSkeleton keeps the accepted nodes of an Executing session.
func SaveSkeleton(ctx context.Context, st Store, id string, nodes []SkeletonNode, now time.Time) error {
	_, err := st.UpdateResearch(ctx, id, func(s *Session) error {
		if s.Status != Executing {
			return fmt.Errorf("%w: %s is %s, not Executing", ErrConflict, id, s.Status)
		}
		s.Skeleton, s.UpdatedAt = nodes, now
		return nil
	})
	return err
}

// End moves a session that has not ended to Completed or Failed (a failure
// needs f). ErrConflict when it has already ended: exactly one End wins.
func End(ctx context.Context, st Store, id string, to Status, f *Failure, now time.Time) (Session, error) {
	if !to.Ended() {
		return Session{}, fmt.Errorf("research: End to %s", to)
	}
	return st.UpdateResearch(ctx, id, func(s *Session) error {
		if s.Status.Ended() {
			return fmt.Errorf("%w: %s has already ended (%s)", ErrConflict, id, s.Status)
		}
		if to == Completed && s.Status != Executing {
			return fmt.Errorf("%w: %s cannot complete from %s", ErrConflict, id, s.Status)
		}
		s.Status, s.Failure, s.EndedAt, s.UpdatedAt = to, f, now, now
		return nil
	})
}

// Stream is the event-log stream of a research session.
func Stream(id string) string { return "research/" + id }
