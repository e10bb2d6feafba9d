// Package session holds conversation sessions, their turns, and the per-turn
// records the workflow steps keep out of the state machine's payload (the
// claim-check pattern: the state carries ids, the store carries the history).
//
// Store is shaped for a DynamoDB single table: each method is one item write
// or a query of one partition, and every status change is a conditional write.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Errors of the Store contract.
var (
	ErrNotFound = errors.New("session: not found")
	ErrExists   = errors.New("session: already exists")
	// ErrConflict is a lost conditional write: another writer changed the
	// status first (a second active turn, a turn already ended).
	ErrConflict = errors.New("session: conflicting status change")
)

// Session is one conversation of one teacher.
type Session struct {
	ID        string `json:"id"`
	TeacherID string `json:"teacherId"`
	Kind      string `json:"kind"`
	Title     string `json:"title,omitempty"`
	// ActiveTurn is the running turn's id, or "".
	ActiveTurn string    `json:"activeTurn,omitempty"`
	Turns      int       `json:"turns"`
	Version    int64     `json:"version"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	// ExpiresAt is the TTL: the store may delete the session after it.
	ExpiresAt time.Time `json:"expiresAt"`
}

// TurnStatus is the lifecycle of a turn.
type TurnStatus string

// Turn statuses. Running is the only status a turn leaves.
const (
	TurnRunning   TurnStatus = "running"
	TurnCompleted TurnStatus = "completed"
	TurnFailed    TurnStatus = "failed"
	TurnStopped   TurnStatus = "stopped"
)

// Turn is one user message and the assistant's answer to it.
type Turn struct {
	SessionID string `json:"sessionId"`
	ID        string `json:"id"`
	// Index is the turn's position in the session, from 1.
	Index int `json:"index"`
	// Message is the user's message; MessageID the assistant message's id.
	Message   string `json:"message"`
	MessageID string `json:"messageId"`
	// Language is the turn's language tag: the request's, or the one the
	// edge decided from the message and the conversation (i18n.ForTurn).
	Language string `json:"language,omitempty"`
	// Replaces, when set, is the index of the first turn this one replaces
	// (a regenerated answer): the turns from that index up to this one are
	// no longer part of the conversation (Visible).
	Replaces int        `json:"replaces,omitempty"`
	Status   TurnStatus `json:"status"`
	// Outcome is filled when the turn ends.
	Outcome   Outcome   `json:"outcome"`
	StartedAt time.Time `json:"startedAt"`
	EndedAt   time.Time `json:"endedAt,omitzero"`
}

// Visible returns the turns that make up the conversation, in order: a
// turn that replaces earlier ones (Replaces) hides them, and the turns
// after them that it also replaces.
func Visible(turns []Turn) []Turn {
	out := make([]Turn, 0, len(turns))
	for _, t := range turns {
		if t.Replaces > 0 {
			keep := 0
			for keep < len(out) && out[keep].Index < t.Replaces {
				keep++
			}
			out = out[:keep]
		}
		out = append(out, t)
	}
	return out
}

// Action is ConversationResponse.action (seed 004 §1.3.1).
type Action string

// The actions of a turn.
const (
	ActionChat    Action = "chat"
	ActionBuild   Action = "build"
	ActionClarify Action = "clarify"
	// ActionRefine changes a built page: the PatchPlan goes to
	// /api/page/patch with the page's blueprint.
	ActionRefine Action = "refine"
	// ActionRebuild replaces a built page's blueprint: the new one goes to
	// /api/page/generate once the teacher confirms.
	ActionRebuild Action = "rebuild"
)

// Outcome is what a turn produced, kept for history summaries and the JSON API.
type Outcome struct {
	// Action is what the frontend does with the turn (ConversationResponse.action).
	Action Action `json:"action,omitempty"`
	// Intent is the router's intent (legacyAction is derived from it).
	Intent workflow.Intent `json:"intent,omitempty"`
	// Text is the assistant's final message.
	Text string `json:"text,omitempty"`
	// Artifacts names what the turn produced ("quiz:5", "file-ready:pptx").
	Artifacts []string `json:"artifacts,omitempty"`
	// Clarify is the question asked back, if any.
	Clarify *Clarify `json:"clarify,omitempty"`
	// Error is the user-facing error of a failed turn.
	Error     string   `json:"error,omitempty"`
	ErrorCode string   `json:"errorCode,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	// Fallback names strict mode's reply when the turn ended with it (seed
	// 003 §4.3: no_tool_end, empty, error, success), "" otherwise.
	Fallback string `json:"fallback,omitempty"`
	// Memory is what the turn's tools asked later turns to know (outlines,
	// document contents), given to the model in the history summary.
	Memory []string `json:"memory,omitempty"`
	// Blueprint and ResolvedEntities are a build turn's plan (the JSON
	// API's blueprint and resolvedEntities), as the planner encoded them.
	Blueprint        json.RawMessage `json:"blueprint,omitempty"`
	ResolvedEntities json.RawMessage `json:"resolvedEntities,omitempty"`
	// PatchPlan is a refine turn's change to the page (the JSON API's
	// patchPlan).
	PatchPlan json.RawMessage `json:"patchPlan,omitempty"`
}

// Clarify is a question the assistant asked back.
type Clarify struct {
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
	Hint     string   `json:"hint,omitempty"`
	// Choices pair each option with the value sent back (issue 30).
	Choices []protocol.Choice `json:"choices,omitempty"`
}

// Store keeps sessions, turns and turn records.
type Store interface {
	// CreateSession stores a new session; ErrExists if the id is taken.
	CreateSession(ctx context.Context, s Session) error
	// GetSession returns a session or ErrNotFound.
	GetSession(ctx context.Context, id string) (Session, error)
	// BeginTurn makes t the session's running turn, assigning t.Index. It
	// fails with ErrConflict while another turn runs, ErrNotFound without the session.
	BeginTurn(ctx context.Context, t Turn) (Turn, error)
	// EndTurn moves a running turn to status with its outcome and clears the
	// session's active turn. ErrConflict if the turn is no longer running.
	EndTurn(ctx context.Context, sessionID, turnID string, status TurnStatus, out Outcome) error
	// GetTurn returns one turn or ErrNotFound.
	GetTurn(ctx context.Context, sessionID, turnID string) (Turn, error)
	// ListTurns returns the session's turns in order.
	ListTurns(ctx context.Context, sessionID string) ([]Turn, error)
	// PageTurns returns, in order, the latest limit (> 0) turns whose Index
	// is below before (no bound when before <= 0), and whether earlier
	// turns remain. It reads that page, not the whole session (the
	// /messages route of a long conversation).
	PageTurns(ctx context.Context, sessionID string, before, limit int) (turns []Turn, more bool, err error)
	Records
}

// Records is a small key-value space per session for the workflow's claim
// checks (message history, tool results). Keys sort lexically.
type Records interface {
	ClaimChecks
	// ListRecords returns the records whose key starts with prefix, by key.
	ListRecords(ctx context.Context, sessionID, prefix string) ([]Record, error)
}

// ClaimChecks is the part of Records that puts and gets one record: what a
// step that keeps its claim checks by key needs.
type ClaimChecks interface {
	PutRecord(ctx context.Context, sessionID, key string, value []byte) error
	// GetRecord returns ErrNotFound for a missing key.
	GetRecord(ctx context.Context, sessionID, key string) ([]byte, error)
}

// Record is one key-value pair of Records.
type Record struct {
	Key   string
	Value []byte
}
