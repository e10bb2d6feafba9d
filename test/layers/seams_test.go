package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A seam is a call that only its own place in shared/ makes, so that a
// second route middleware, event appender or socket dispatcher is not
// written beside the one (docs/architecture.md, "The seams every flow
// shares").
type seam struct {
	what string
	// name is the function or method called: f(…), or x.f(…) when f is
	// exported (x.recover(…) is some method, not the builtin).
	name string
	// owners are the packages (and the packages below them), or files, that
	// may make the call.
	owners []string
}

var seams = []seam{
	{"recover() (the route middleware answers a panic)", "recover", []string{"shared/edge"}},
	// The event log itself and the stores that implement it.
	{"Append (a step appends through eventlog.Emitter)", "Append", []string{"shared/eventlog", "shared/boltstore", "shared/dynamostore"}},
	// The one socket dispatcher reads a socket's frames; the SSE transport's
	// POST reads one client event and answers it in its HTTP response.
	{"report.DecodeClient (the one socket dispatcher reads a client's frame)", "DecodeClient",
		[]string{"shared/report/transport/dispatch.go", "shared/report/transport/sse.go"}},
}

// seamDebts are today's other places that make a seam's call, "name file",
// each with why. A fix removes its line, and a line whose file no longer
// makes the call fails the test.
var seamDebts = map[string]string{
	// Not middleware: a bad route pattern panics in a throw-away mux.
	"recover shared/javaapi/config.go": "pattern's probe of net/http",
	// Not middleware: the test double's own stop signal.
	"recover shared/javaapi/javaapitest/javaapitest.go": "the double's stop",

	"Append shared/edge/conversation.go": "the turn's start event, before its execution starts",
}

// TestOnePlaceSeams parses every non-test file of shared/ and fails on a
// seam's call outside its owners and debts.
func TestOnePlaceSeams(t *testing.T) {
	found := map[string]bool{} // "name file" of each call outside the seam's owners
	fset := token.NewFileSet()
	for _, p := range packages(t) {
		if !strings.HasPrefix(p.rel(), "shared/") {
			continue
		}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			file := p.rel() + "/" + name
			for _, s := range seams {
				if owns(s.owners, file) || !calls(f, s.name) {
					continue
				}
				found[s.name+" "+file] = true
				if seamDebts[s.name+" "+file] == "" {
					t.Errorf("%s calls %s: only %s may", file, s.what, strings.Join(s.owners, ", "))
				}
			}
		}
	}
	for debt := range seamDebts {
		if !found[debt] {
			t.Errorf("%s: the file no longer makes the call; remove it from seamDebts", debt)
		}
	}
}

// owns reports whether file is in one of the owners (a package, the
// packages below it, or a file).
func owns(owners []string, file string) bool {
	dir := filepath.ToSlash(filepath.Dir(file))
	return slices.ContainsFunc(owners, func(o string) bool {
		return file == o || dir == o || strings.HasPrefix(dir, o+"/")
	})
}

// calls reports whether f calls the function or method name (seam.name).
func calls(f *ast.File, name string) bool {
	hit := false
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			switch fn := c.Fun.(type) {
			case *ast.Ident:
				hit = fn.Name == name
			case *ast.SelectorExpr:
				hit = fn.Sel.Name == name && ast.IsExported(name)
			}
		}
		return !hit
	})
	return hit
}
