package agent

import (
	"errors"
	"fmt"

	"github.com/insightedge/insightedge/shared/i18n"
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
// tools.Tool.Artifact); and, for the chat modes of seed 003, how many tool
// calls ended (its tool.end events) and the status of the last to end.
type Evidence struct {
	Emitted            map[string]bool
	ArtifactToolCalled bool
	ToolEnds           int
	// LastStatus is success, empty or error; "" when no tool ended.
	LastStatus string
}

// HasArtifact reports whether the attempt emitted a part that proves an
// artifact.
func (ev Evidence) HasArtifact() bool { return intersects(ev.Emitted, protocol.ArtifactEventTypes) }

// RetryNeeded is a hard rule violation; SoftRetryNeeded a soft one.
var (
	ErrRetryNeeded     = errors.New("retry needed")
	ErrSoftRetryNeeded = errors.New("soft retry needed")
	// ErrStrictNoTool is the StrictMode guard's refusal: a hard rule.
	ErrStrictNoTool = fmt.Errorf("%w: strict mode: the answer rests on no tool call of this attempt", ErrRetryNeeded)
)

// ValidateTerminalState is validate_terminal_state of seed 000 §7.3.1 over
// the evidence of the current attempt only. It returns nil, or an error
// wrapping ErrRetryNeeded or ErrSoftRetryNeeded with the reason.
func ValidateTerminalState(r FinalResult, ev Evidence, expectedMode string) error {
	hasEvent := ev.HasArtifact()
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

// StrictGuard is seed 003's StrictMode guard, a rule beside
// validate_terminal_state: in strict mode a text answer given without any tool
// call in the attempt is replaced by a controlled failure. It is a hard rule,
// so the one retry in total holds, and a second failure falls back to the
// strict reply (StrictFallback). A clarify question is not an answer and
// passes; a claimed artifact is validate_terminal_state's to judge.
func StrictGuard(mode workflow.ChatMode, r FinalResult, ev Evidence) error {
	if mode != workflow.ModeStrict || r.Status != StatusAnswerReady || ev.ToolEnds > 0 {
		return nil
	}
	return ErrStrictNoTool
}

// CheckAttempt is every rule a FinalResult must pass in a chat mode:
// validate_terminal_state, then the StrictMode guard. In free mode tools are
// never forced, so the soft rule (an answer where the router expected an
// artifact) does not apply; a claimed artifact must still exist.
func CheckAttempt(r FinalResult, ev Evidence, expectedMode string, mode workflow.ChatMode) error {
	if mode == workflow.ModeFree && expectedMode == workflow.ExpectArtifact {
		expectedMode = workflow.ExpectAnswer
	}
	if err := ValidateTerminalState(r, ev, expectedMode); err != nil {
		return err
	}
	return StrictGuard(mode, r, ev)
}

// Branches of StrictFallback, as recorded in the turn and the metrics.
const (
	FallbackNoToolEnd = "no_tool_end"
	FallbackEmpty     = "empty"
	FallbackError     = "error"
	FallbackSuccess   = "success"
)

// StrictFallback is seed 003 §4.3: the strict reply when the final content is
// empty and no artifact was produced (or validation gave up), chosen by the
// last tool.end status: none → the strict-mode notice, empty → the
// no-result guidance, error → the tool-error guidance. A last success that
// still left no answer gets the notice.
func StrictFallback(ev Evidence) (branch string, msg i18n.Msg) {
	switch {
	case ev.ToolEnds == 0:
		return FallbackNoToolEnd, i18n.StrictNotice
	case ev.LastStatus == string(protocol.ToolEmpty):
		return FallbackEmpty, i18n.StrictNoResult
	case ev.LastStatus == string(protocol.ToolError):
		return FallbackError, i18n.StrictToolError
	default:
		return FallbackSuccess, i18n.StrictNotice
	}
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
