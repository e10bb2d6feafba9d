package agent

import (
	"errors"
	"fmt"

	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// FinalResult statuses (seed 000 §7.2).
const (
	StatusAnswerReady   = "answer_ready"
	StatusArtifactReady = "artifact_ready"
	StatusClarifyNeeded = "clarify_needed"
)

// FinalResult is the agent's only exit: the arguments of its final_result call.
type FinalResult struct {
	Status    string            `json:"status" enum:"answer_ready,artifact_ready,clarify_needed" description:"answer_ready: a text answer; artifact_ready: a tool produced the artifact in this turn; clarify_needed: ask the teacher first"`
	Message   string            `json:"message" description:"what the teacher reads, in their language"`
	Artifacts []string          `json:"artifacts,omitempty" description:"the artifacts produced, e.g. quiz, file-ready:pptx"`
	Clarify   *workflow.Clarify `json:"clarify,omitempty" description:"required when status is clarify_needed"`
}

// Evidence is what an attempt really did: the chunk types it emitted (the
// truth) and whether it called a tool whose job is an artifact (a hint; see
// tools.Tool.Artifact).
type Evidence struct {
	Emitted            map[string]bool
	ArtifactToolCalled bool
}

// RetryNeeded is a hard rule violation; SoftRetryNeeded a soft one.
var (
	ErrRetryNeeded     = errors.New("retry needed")
	ErrSoftRetryNeeded = errors.New("soft retry needed")
)

// ValidateTerminalState is validate_terminal_state of seed 000 §7.3.1 over
// the evidence of the current attempt only. It returns nil, or an error
// wrapping ErrRetryNeeded or ErrSoftRetryNeeded with the reason.
func ValidateTerminalState(r FinalResult, ev Evidence, expectedMode string) error {
	hasEvent := intersects(ev.Emitted, protocol.ArtifactEventTypes)
	hasTool := ev.ArtifactToolCalled
	switch r.Status {
	case StatusArtifactReady:
		if !hasEvent && !hasTool {
			return fmt.Errorf("%w: artifact_ready without any artifact event or artifact tool call", ErrRetryNeeded)
		}
		if hasTool && !hasEvent {
			return fmt.Errorf("%w: an artifact tool was called but produced no artifact event (it probably failed)", ErrRetryNeeded)
		}
	case StatusClarifyNeeded:
		if r.Clarify == nil || r.Clarify.Question == "" {
			return fmt.Errorf("%w: clarify_needed without a clarify question", ErrRetryNeeded)
		}
	case StatusAnswerReady:
		if expectedMode == workflow.ExpectArtifact && !hasEvent && !hasTool {
			return fmt.Errorf("%w: the router expected an artifact but the agent answered without calling a tool", ErrSoftRetryNeeded)
		}
	default:
		return fmt.Errorf("%w: unknown final_result status %q", ErrRetryNeeded, r.Status)
	}
	return nil
}

// Decide turns a validation error into a verdict under the retry contract of
// seed 000 §7.3.2: one retry in total, shared by hard and soft rules; a
// second hard failure gives up, a second soft failure is accepted.
func Decide(err error, attempt int) workflow.ValidateOutput {
	switch {
	case err == nil:
		return workflow.ValidateOutput{Verdict: workflow.VerdictOK}
	case errors.Is(err, ErrSoftRetryNeeded):
		if attempt < 2 {
			return workflow.ValidateOutput{Verdict: workflow.VerdictRetry, Rule: "soft", Reason: err.Error()}
		}
		return workflow.ValidateOutput{Verdict: workflow.VerdictAccept, Rule: "soft", Reason: err.Error()}
	default:
		if attempt < 2 {
			return workflow.ValidateOutput{Verdict: workflow.VerdictRetry, Rule: "hard", Reason: err.Error()}
		}
		return workflow.ValidateOutput{Verdict: workflow.VerdictGiveUp, Rule: "hard", Reason: err.Error()}
	}
}

// accepted reports whether a verdict lets the FinalResult reach the teacher.
func accepted(v workflow.ValidateOutput) bool {
	return v.Verdict == workflow.VerdictOK || v.Verdict == workflow.VerdictAccept
}

func intersects(a, b map[string]bool) bool {
	for k, v := range a {
		if v && b[k] {
			return true
		}
	}
	return false
}
