package quiz_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

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
	path := filepath.Join("testdata", "schema.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("schema differs from %s (run go test -update if the change is intended):\n%s", path, got)
	}
	if tool.Name != "generate_quiz_questions" {
		t.Errorf("name = %q", tool.Name)
	}
}
