package workflow_test

import (
	"testing"

	"github.com/insightedge/insightedge/shared/workflow"
)

// TestErrorInfoMessage: the message a teacher may read of a caught error,
// whichever interpreter caught it, never the Lambda error JSON or a code.
func TestErrorInfoMessage(t *testing.T) {
	for _, tc := range []struct{ name, cause, want string }{
		{"Step Functions (Lambda error JSON)", `{"errorMessage":"ENTITY_NOT_FOUND: no template is named \"x\"","errorType":"ENTITY_NOT_FOUND","stackTrace":[]}`, `no template is named "x"`},
		{"local interpreter / emulator", `ENTITY_NOT_FOUND: no template is named "x"`, `no template is named "x"`},
		{"no code", "took too long", "took too long"},
		{"not a code before the colon", "read: connection reset", "read: connection reset"},
		{"JSON that is not a Lambda error", `{"a":1}`, `{"a":1}`},
	} {
		if got := (workflow.ErrorInfo{Error: "X", Cause: tc.cause}).Message(); got != tc.want {
			t.Errorf("%s: Message() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
