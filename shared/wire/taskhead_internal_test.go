package wire

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/boltstore/bolttest"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/workflow"
)

// TestTaskHeadDecodedOnce (issue 29 item 3): renewing's one decode of a
// task's input (taskHead) gives the lease the decode into workflow.Turn
// and workflow.Build gave, and the step the payer a decode of its own
// gives, for inputs well and badly formed.
func TestTaskHeadDecodedOnce(t *testing.T) {
	inputs := []string{
		`{"turn":{"sessionId":"s-1","turnId":"u-1","teacherId":"t-turn","leaseUntil":"2026-11-29T05:00:00Z","message":"hi"},"route":{"path":"chat"}}`,
		`{"phase":"finish","build":{"buildId":"b-1","teacherId":"t-build","leaseUntil":"2026-11-29T05:00:00.5Z"}}`,
		`{"step":"milestones","research":{"sessionId":"r","teacherId":"t-research"}}`,
		`{"session_id":"r-1","teacher_id":"t-run","run":1}`,
		`{"turn":{"turnId":"u-1","message":5,"teacherId":"t-typed"}}`, // a type error elsewhere in the turn
		`{"turn":{"turnId":"u-1","teacherId":7}}`,
		`{"turn":"u-1"}`,
		`{"turn":{"turnId":"u-1","leaseUntil":"soon","teacherId":"t-x"}}`,
		`{"phase":"plan"}`,
		`not json`,
	}
	app := &App{Store: bolttest.Open(t).Sessions()}
	for _, raw := range inputs {
		t.Run(raw, func(t *testing.T) {
			var old struct {
				Turn  workflow.Turn  `json:"turn"`
				Build workflow.Build `json:"build"`
				Phase string         `json:"phase"`
			}
			_ = json.Unmarshal([]byte(raw), &old)
			var head taskHead
			_ = json.Unmarshal([]byte(raw), &head)
			type leaseFields struct {
				session, turn, build, phase string
				turnUntil, buildUntil       time.Time
			}
			got := leaseFields{head.Turn.SessionID, head.Turn.TurnID, head.Build.BuildID, head.Phase, head.Turn.LeaseUntil, head.Build.LeaseUntil}
			want := leaseFields{old.Turn.SessionID, old.Turn.TurnID, old.Build.BuildID, old.Phase, old.Turn.LeaseUntil, old.Build.LeaseUntil}
			if got != want {
				t.Errorf("lease fields %+v, want %+v", got, want)
			}

			wantPayer := llm.Payer(withPayer(context.Background(), json.RawMessage(raw)))
			gotPayer := "(step not run)"
			task := app.renewing(func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
				gotPayer = llm.Payer(withPayer(ctx, in))
				return nil, nil
			})
			if _, err := task(context.Background(), json.RawMessage(raw)); err != nil {
				t.Fatal(err)
			}
			if gotPayer != wantPayer {
				t.Errorf("payer %q under renewing, want %q", gotPayer, wantPayer)
			}
		})
	}
}

// BenchmarkRenewingTask is the plumbing of one conversation task: a Route
// step's input (a turn with its message, about 1 KB) through renewing and
// Typed to a step that does nothing, and its output back.
func BenchmarkRenewingTask(b *testing.B) {
	app := &App{Store: bolttest.Open(b).Sessions()}
	in := workflow.RouteInput{Turn: workflow.Turn{SessionID: "s-1", TurnID: "u-1", TeacherID: "t-1", MessageID: "m-1",
		Message: strings.Repeat("帮我出5道分数加法题。", 30), LeaseUntil: time.Now().Add(time.Hour)}}
	raw, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	task := app.renewing(Typed(func(ctx context.Context, in workflow.RouteInput) (workflow.RouteOutput, error) {
		return workflow.RouteOutput{Path: workflow.PathChat}, nil
	}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := task(ctx, raw); err != nil {
			b.Fatal(err)
		}
	}
}
