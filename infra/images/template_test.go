package images_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/infra/images"
)

var update = flag.Bool("update", false, "rewrite template-image.yaml from template.yaml")

// TestImageTemplate keeps template-image.yaml (the PackageType: Image
// option) generated from template.yaml; TestTemplateImage in test/aws
// checks what it deploys, and TestCfnLint lints it.
func TestImageTemplate(t *testing.T) {
	root := filepath.Join("..", "..")
	src, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := images.ImageTemplate(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "template-image.yaml")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./infra/images -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Error("template-image.yaml is not generated from the current template.yaml: go test ./infra/images -update")
	}
}
