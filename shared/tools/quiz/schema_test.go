package quiz_test

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/shared/golden"
	"github.com/insightedge/insightedge/shared/tools/quiz"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestSchemaGolden pins the parameters schema the model sees for
// generate_quiz_questions: a change to Args shows up as a diff here.
func TestSchemaGolden(t *testing.T) {
	tool := quiz.New(&scriptedModel{})
	got, err := json.MarshalIndent(tool.Schema, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden.Check(t, filepath.Join("testdata", "schema.golden.json"), got, *update)
	if tool.Name != "generate_quiz_questions" {
		t.Errorf("name = %q", tool.Name)
	}
}
