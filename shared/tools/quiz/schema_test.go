package quiz_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/shared/tools/quiz"
	"github.com/insightedge/insightedge/shared/tools/toolstest"
)

// TestSchemaGolden pins the parameters schema the model sees for
// generate_quiz_questions: a change to Args shows up as a diff here.
func TestSchemaGolden(t *testing.T) {
	tool := quiz.New(&scriptedModel{})
	got, err := json.MarshalIndent(tool.Schema, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	toolstest.Golden(t, filepath.Join("testdata", "schema.golden.json"), append(got, '\n'))
	if tool.Name != "generate_quiz_questions" {
		t.Errorf("name = %q", tool.Name)
	}
}
