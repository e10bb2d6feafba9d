package wire_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/wire"
)

// TestStepsNameTheirPayer (issue 26): every workflow step's model calls are
// metered against the teacher whose work it is, named in its context from
// the step's input (a conversation step's turn, a build phase's build, a
// research step's run, a template run's teacher_id), or, for a template
// step that names only its session, the session's teacher.
func TestStepsNameTheirPayer(t *testing.T) {
	store := report.NewStore(records.NewMemory())
	if err := store.CreateSession(context.Background(), report.Session{ID: "r-1", TeacherID: "t-report"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ input, want string }{
		{`{"turn":{"turnId":"u-1","teacherId":"t-turn"}}`, "t-turn"},
		{`{"phase":"compute","build":{"buildId":"b-1","teacherId":"t-build"}}`, "t-build"},
		{`{"step":"milestones","research":{"sessionId":"r","teacherId":"t-research"}}`, "t-research"},
		{`{"session_id":"r-1","teacher_id":"t-run","run":1}`, "t-run"},
		{`{"session_id":"r-1","run":1,"task_id":2}`, "t-report"},
		{`{"session_id":"r-unknown","run":1}`, ""},
		{`{"phase":"plan"}`, ""},
	}
	for _, tt := range tests {
		var got string
		step := wire.Typed(func(ctx context.Context, in json.RawMessage) (struct{}, error) {
			got = llm.Payer(ctx)
			return struct{}{}, nil
		})
		task := wire.RunLeased(step, report.RunLeases{Store: store})
		if _, err := task(context.Background(), json.RawMessage(tt.input)); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%s: payer %q, want %q", tt.input, got, tt.want)
		}
	}
}
