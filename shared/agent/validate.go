package agent

import (
	"context"
	"fmt"

	"github.com/insightedge/insightedge/shared/workflow"
)

// Validate is the Validate step: validate_terminal_state over what this
// attempt really emitted and called, and the verdict of the retry contract.
func (a *Agent) Validate(ctx context.Context, in workflow.ValidateInput) (workflow.ValidateOutput, error) {
	t := in.Turn
	var rec finalRecord
	found, err := getJSON(ctx, a.Store, t.SessionID, finalKey(t.TurnID, in.Attempt), &rec)
	if err != nil {
		return workflow.ValidateOutput{}, err
	}
	recs, err := a.attemptTools(ctx, t.SessionID, t.TurnID, in.Attempt)
	if err != nil {
		return workflow.ValidateOutput{}, err
	}
	ev := a.evidence(recs)
	switch {
	case !found:
		err = fmt.Errorf("%w: the attempt ended without final_result", ErrRetryNeeded)
	case rec.Malformed != "":
		err = fmt.Errorf("%w: final_result arguments are not valid JSON: %s", ErrRetryNeeded, rec.Malformed)
	default:
		err = ValidateTerminalState(rec.Result, ev, in.Route.Result.ExpectedMode)
	}
	v := Decide(err, in.Attempt)
	dims := map[string]string{"verdict": v.Verdict, "rule": v.Rule}
	a.Metrics.Count("Validation", 1, dims)
	if v.Verdict != workflow.VerdictOK {
		a.Logger.WarnContext(ctx, "terminal state refused", "turn", t.TurnID, "attempt", in.Attempt,
			"verdict", v.Verdict, "rule", v.Rule, "reason", v.Reason)
	}
	if rec.Result.Status == StatusArtifactReady && v.Rule == "hard" {
		a.Metrics.Count("FalsePromise", 1, nil)
	}
	return v, nil
}
