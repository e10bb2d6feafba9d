package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSchemaIsGenerated fails when sdk/schema differs from what the Go
// types generate: run go generate ./sdk/... (then npm run generate in sdk/).
func TestSchemaIsGenerated(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(filepath.Join("..", "..", SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, have) {
		t.Fatalf("sdk/%s is not what the Go types generate: run go generate ./sdk/... then npm run generate in sdk/", SchemaFile)
	}
	if !json.Valid(got) {
		t.Fatal("the schema is not JSON")
	}
}

// TestDataPartsCoverProtocol: every data part name shared/protocol declares
// has its payload in DataParts, and DataParts names no other.
func TestDataPartsCoverProtocol(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "..", "shared", "protocol", "ui.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Data") {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s := strings.Trim(lit.Value, "\"`")
			declared = append(declared, s)
		}
		return true
	})
	slices.Sort(declared)
	if got := sortedKeys(DataParts); !slices.Equal(got, declared) {
		t.Fatalf("DataParts names %v; shared/protocol declares %v", got, declared)
	}
}

// npm returns the path of npm, and skips the test (fails it in CI) when
// node, npm or sdk/node_modules is missing.
func npm(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, tool+" is not on PATH")
		}
	}
	if _, err := os.Stat(filepath.Join("..", "..", "node_modules", "typescript")); err != nil {
		missing(t, "sdk/node_modules is missing: npm ci --prefix sdk")
	}
	p, _ := exec.LookPath("npm")
	return p
}

func missing(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (bash .ci/run --install-only installs it)", why)
	}
	t.Skipf("%s (install the test tools: bash .ci/run --install-only, as root)", why)
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// TestNPM runs the sdk's npm test: types.d.ts is what the schema generates,
// every captured request, answer and event type-checks, and the wrong
// shapes of test/wrong.ts do not.
func TestNPM(t *testing.T) {
	run(t, filepath.Join("..", ".."), npm(t), "test")
}

// TestPack: the package packs with its declarations and schema, and a
// project that installs the tarball type-checks against it.
func TestPack(t *testing.T) {
	bin := npm(t)
	sdk, _ := filepath.Abs(filepath.Join("..", ".."))
	dir := t.TempDir()
	out := run(t, sdk, bin, "pack", "--json", "--pack-destination", dir)
	var packed []struct {
		Filename string `json:"filename"`
		Files    []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &packed); err != nil || len(packed) != 1 {
		t.Fatalf("npm pack --json: %v\n%s", err, out)
	}
	var files []string
	for _, f := range packed[0].Files {
		files = append(files, f.Path)
	}
	for _, want := range []string{"index.d.ts", "types.d.ts", SchemaFile, "package.json"} {
		if !slices.Contains(files, want) {
			t.Errorf("the package lacks %s: %v", want, files)
		}
	}
	app := filepath.Join(dir, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(app, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"name":"app","private":true}`)
	run(t, app, bin, "install", "--prefer-offline", "--no-audit", "--no-fund", filepath.Join(dir, packed[0].Filename))
	write("app.ts", `import type { PageEvent, ConversationResponse } from '@insightedge/sdk';
export const e: PageEvent = { type: 'BLOCK_COMPLETE', blockId: 'kpis' };
export const kind = (r: ConversationResponse): string => r.chatMode;
// @ts-expect-error not a page event
export const bad: PageEvent = { type: 'BLOCK_COMPLETE' };
`)
	write("tsconfig.json", `{"compilerOptions":{"strict":true,"noEmit":true,"module":"ESNext","moduleResolution":"Bundler","skipLibCheck":true},"files":["app.ts"]}`)
	run(t, app, "node", filepath.Join(sdk, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json")
}
