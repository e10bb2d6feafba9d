package e2e

import (
	"fmt"
	"slices"
	"testing"

	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
)

// Issue 30: the stream details a frontend renders.

// TestDataToolProgressCountsAndPreviews: a data question's tool progress
// ends with how many items the tool found and a few of their labels, and
// the AI SDK's own client accepts the parts.
func TestDataToolProgressCountsAndPreviews(t *testing.T) {
	s := NewLocal(t, nil)
	st := postStream(t, s.URL, `{"message":"我有哪些班？"}`)
	var names []string
	for _, c := range mockdata.Default().ClassesOf("t-001") {
		names = append(names, c.Name)
	}
	var end map[string]any
	for _, p := range st.data(t, "data-tool-progress") {
		if p["tool"] == "get_teacher_classes" && p["status"] == "success" {
			end = p
		}
	}
	if end == nil {
		t.Fatalf("no successful get_teacher_classes progress in %v", st.data(t, "data-tool-progress"))
	}
	if end["count"] != float64(len(names)) {
		t.Errorf("count %v, want %d", end["count"], len(names))
	}
	preview, _ := end["preview"].([]any)
	if len(preview) == 0 || len(preview) > 3 {
		t.Fatalf("preview %v", end["preview"])
	}
	for _, p := range preview {
		if !slices.Contains(names, fmt.Sprint(p)) {
			t.Errorf("preview label %v is not one of the classes %v", p, names)
		}
	}
	aiSDK(t, st.Raw)
}
