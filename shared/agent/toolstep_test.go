package agent

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/tools"
)

// The model reads a data error's code and message, never its causes, which
// name internal addresses and ids.
func TestModelToolErrorHidesCauses(t *testing.T) {
	cause := errors.New(`Get "http://10.0.3.7:8080/api/dify/teacher/t-001/submissions/students/Wong%20Ka%20Ho": dial tcp 10.0.3.7:8080: connection refused`)
	err := fmt.Errorf("tool: %w", apperr.Wrap(cause, apperr.DataError, "the data service is unreachable"))
	got := modelToolError(err)
	if got["error"] != "the data service is unreachable" || got["code"] != "DATA_ERROR" {
		t.Errorf("model reads %v", got)
	}
	if msg := userToolError(err, i18n.Chinese); strings.Contains(msg, "10.0.3.7") || strings.Contains(msg, "Wong") {
		t.Errorf("teacher reads %q", msg)
	}
	// An argument error stays whole: the model must fix its call.
	ae := &tools.ArgumentError{Tool: "get_class_detail", Err: errors.New("classId is required")}
	if got := modelToolError(ae); !strings.Contains(got["error"], "classId is required") {
		t.Errorf("argument error %v", got)
	}
}
