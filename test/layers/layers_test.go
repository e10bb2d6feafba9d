package layers

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// root is the module's directory, from this package's.
const root = "../.."

// pkg is what `go list -json` says of one package of the module.
type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// rel is the package's path relative to Module.
func (p pkg) rel() string { return strings.TrimPrefix(p.ImportPath, Module+"/") }

// goCmd runs the go tool in the module's root.
func goCmd(args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...)
	cmd.Dir = root
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = errors.Join(err, errors.New(string(ee.Stderr)))
	}
	return out, err
}

// modulePackages lists every package of the module once per test binary.
var modulePackages = sync.OnceValues(func() ([]pkg, error) {
	out, err := goCmd("list", "-json=ImportPath,Dir,GoFiles,Imports,TestImports,XTestImports", "./...")
	if err != nil {
		return nil, err
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
})

func packages(t *testing.T) []pkg {
	t.Helper()
	pkgs, err := modulePackages()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return pkgs
}

// upward are today's imports that point up, each "importer → imported"
// (paths relative to Module). They are the known debts of issue 22; a fix
// removes its line, and a line whose import is gone fails the test.
var upward = map[string]string{
	// The stores keep the saved apps (apps.App, apps.Store) and know their
	// type; apps has no compare-and-swap record shape for shared/records.
	"shared/boltstore → shared/apps":   "the saved apps' record type",
	"shared/dynamostore → shared/apps": "the saved apps' record type",
	// The edge serves the saved apps' routes over apps.Store and the
	// replayer.
	"shared/edge → shared/apps": "the saved-app routes",
	// The report wing's transports carry client events to its control
	// service (control.Caller, control.Result), which starts the pipeline.
	"shared/report/transport → shared/report/control":       "the control service's types",
	"shared/report/transport/apigw → shared/report/control": "the control service's types",
}

// TestImportsPointDown fails when a package imports one of a layer above
// its own (Layers), naming both and their layers.
func TestImportsPointDown(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range packages(t) {
		from, _ := Of(p.rel())
		for _, imp := range p.Imports {
			rel, ok := strings.CutPrefix(imp, Module+"/")
			if !ok {
				continue
			}
			to, _ := Of(rel)
			if from < 0 || to < 0 || to >= from {
				continue
			}
			edge := p.rel() + " → " + rel
			seen[edge] = true
			if upward[edge] == "" {
				t.Errorf("%s (%s) imports %s (%s), a layer above: imports point down only (test/layers, docs/architecture.md)",
					p.rel(), Layers[from].Name, rel, Layers[to].Name)
			}
		}
	}
	for edge := range upward {
		if !seen[edge] {
			t.Errorf("%s no longer points up: remove it from upward", edge)
		}
	}
}

// TestEveryPackageHasALayer: a new package is placed in Layers (the docs
// follow) before it is imported anywhere.
func TestEveryPackageHasALayer(t *testing.T) {
	for _, p := range packages(t) {
		if l, _ := Of(p.rel()); l < 0 {
			t.Errorf("%s is in no layer: add it to Layers in test/layers/layers.go and to docs/architecture.md", p.rel())
		}
	}
}

// TestGoOpenAIOnlyInLLM: the model client is shared/llm; the offline model
// plays the server's side of the same API (its tests included).
func TestGoOpenAIOnlyInLLM(t *testing.T) {
	const openai = "github.com/sashabaranov/go-openai"
	allowed := []string{"shared/llm", "local/offlinemodel"}
	for _, p := range packages(t) {
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if (imp == openai || strings.HasPrefix(imp, openai+"/")) && !slices.Contains(allowed, p.rel()) {
				t.Errorf("%s imports %s: only %s may", p.rel(), imp, strings.Join(allowed, " and "))
			}
		}
	}
}
