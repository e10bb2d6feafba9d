package images_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/infra/images"
	"github.com/insightedge/insightedge/shared/golden"
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
	// template-image.yaml is generated from the current template.yaml:
	// go test ./infra/images -update writes it.
	golden.Check(t, filepath.Join(root, "template-image.yaml"), got, *update)
}
