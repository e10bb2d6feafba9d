package pipeline

import "github.com/insightedge/insightedge/shared/workflow"

// Run modes.
const (
	ModePlan  = "plan"  // plan, confirm, solve, aggregate
	ModeSolve = "solve" // the session's pending tasks: solve, aggregate
)

// RunInput is the workflow's input.
type RunInput struct {
	SessionID string `json:"session_id"`
	TeacherID string `json:"teacher_id"`
	Run       int    `json:"run"`
	Mode      string `json:"mode"`
	// ConfirmTimeout is TimeoutSecondsPath of the confirmation, in seconds.
	ConfirmTimeout int `json:"confirm_timeout"`
	// Concurrency is MaxConcurrencyPath of the solvers' Map.
	Concurrency int `json:"concurrency"`
}

// StepInput names a session's run.
type StepInput struct {
	SessionID string `json:"session_id"`
	Run       int    `json:"run"`
}

// PlanOutput is Plan's result.
type PlanOutput struct {
	Status  string `json:"status"` // "planned" or "stale"
	Confirm bool   `json:"confirm"`
	Tasks   int    `json:"tasks"`
}

// ConfirmInput is the confirmation's input: Token is $$.Task.Token.
type ConfirmInput struct {
	SessionID string `json:"session_id"`
	Run       int    `json:"run"`
	Token     string `json:"token"`
}

// ConfirmResult is what user.response sends back through the task token.
type ConfirmResult struct {
	Confirmed bool `json:"confirmed"`
}

// RoundInput asks for the next solve round.
type RoundInput struct {
	SessionID string `json:"session_id"`
	Run       int    `json:"run"`
	Round     int    `json:"round"`
}

// RoundOutput lists the tasks of the next round.
type RoundOutput struct {
	Round   int   `json:"round"`
	More    bool  `json:"more"`
	TaskIDs []int `json:"task_ids"`
}

// SolveInput is one Map iteration.
type SolveInput struct {
	SessionID string `json:"session_id"`
	Run       int    `json:"run"`
	TaskID    int    `json:"task_id"`
}

// SolveOutput is a section's outcome.
type SolveOutput struct {
	TaskID int    `json:"task_id"`
	Status string `json:"status"`
}

// AggregateOutput is the report's place.
type AggregateOutput struct {
	Status string `json:"status"`
	Path   string `json:"path,omitempty"`
}

// Finish reasons.
const (
	ReasonDeclined = "declined"
	ReasonTimeout  = "timeout"
	ReasonFailed   = "failed"
)

// ErrorInfo is what a Catch puts in the state ($.error).
type ErrorInfo = workflow.ErrorInfo

// FinishInput ends a run that wrote no report.
type FinishInput struct {
	SessionID string     `json:"session_id"`
	Run       int        `json:"run"`
	Reason    string     `json:"reason"`
	Error     *ErrorInfo `json:"error,omitempty"`
}
