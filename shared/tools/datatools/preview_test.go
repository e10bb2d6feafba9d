package datatools_test

import (
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/protocol"
)

// TestCountAndPreview (issue 30): a list tool's result says how many items
// it found and labels a few of them for the teacher's data-tool-progress;
// a result whose items are pupils' scores has a count and no preview.
func TestCountAndPreview(t *testing.T) {
	reg, _ := newRegistry(t)
	pupils := map[string]bool{}
	for _, s := range mockdata.Default().Students {
		pupils[s.Name] = true
	}
	tests := []struct {
		tool, args  string
		minCount    int
		preview     bool // labels expected
		namesPupils bool // the labels may be names (a roster), never with scores
	}{
		{"get_teacher_classes", `{}`, 2, true, false},
		{"get_class_detail", `{"classId":"1A"}`, 30, true, true},
		{"get_student_grades", `{"studentId":"s-f1a-01"}`, 1, true, false},
		{"get_assignment_submissions", `{"assignmentId":"a-f1a-01"}`, 30, false, false},
		{"analyze_student_weakness", `{"classId":"1A","skill":"grammar"}`, 30, false, false},
		{"get_student_error_patterns", `{"studentId":"s-f1a-01"}`, 1, true, false},
		{"search_teacher_documents", `{"query":"subject-verb agreement"}`, 1, true, false},
		{"list_available_rubrics", `{}`, 1, true, false},
		{"get_rubric", `{"rubricId":"r-eng-writing"}`, 2, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, err := run(t, reg, "t-001", tt.tool, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if res.Count < tt.minCount {
				t.Errorf("count %d, want at least %d", res.Count, tt.minCount)
			}
			if got := len(res.Preview) > 0; got != tt.preview {
				t.Fatalf("preview %q, want labels: %v", res.Preview, tt.preview)
			}
			if len(res.Preview) > protocol.MaxPreview {
				t.Errorf("preview of %d labels, more than %d", len(res.Preview), protocol.MaxPreview)
			}
			for _, l := range res.Preview {
				if strings.TrimSpace(l) == "" || (tt.namesPupils && strings.ContainsAny(l, "0123456789%")) {
					t.Errorf("label %q: blank, or a pupil's name with a number", l)
				}
				if pupils[l] && !tt.namesPupils {
					t.Errorf("label %q names a pupil", l)
				}
			}
		})
	}
	res, err := run(t, reg, "t-404", "get_teacher_classes", `{}`)
	if err != nil || res.Status != protocol.ToolEmpty || res.Count != 0 || res.Preview != nil {
		t.Fatalf("nothing found: %+v %v", res, err)
	}
}
