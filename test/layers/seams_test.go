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
	// call reports whether the call is one of the seam's.
	call func(*ast.CallExpr) bool
	// owners are the packages (and the packages below them) that may make
	// the call.
	owners []string
	// debts are today's other places, "package/file.go", each with why: a
	// fix removes its line, and a line that no longer calls fails the test.
	debts map[string]string
}

var seams = []seam{
	{
		what:   "recover() (the route middleware answers a panic)",
		call:   func(c *ast.CallExpr) bool { return isIdent(c.Fun, "recover") },
		owners: []string{"shared/edge"},
		debts: map[string]string{
			// Not middleware: a bad route pattern panics in a throw-away mux.
			"shared/javaapi/config.go": "pattern's probe of net/http",
			// Not middleware: the test double's own stop signal.
			"shared/javaapi/javaapitest/javaapitest.go": "the double's stop",
			"shared/report/transport/transport.go":      "issue 22, item 1: the report routes' own middleware",
		},
	},
	{
		what: "Append (a step appends through eventlog.Emitter)",
		call: func(c *ast.CallExpr) bool {
			return isIdent(c.Fun, "Append") || isSelector(c.Fun, "Append")
		},
		// The event log itself and the stores that implement it.
		owners: []string{"shared/eventlog", "shared/boltstore", "shared/dynamostore"},
		debts: map[string]string{
			"shared/edge/conversation.go":         "the turn's start event, before its execution starts",
			"shared/report/pipeline/pipeline.go":  "issue 22, item 1: pipeline.Append",
			"shared/report/pipeline/aggregate.go": "issue 22, item 1: pipeline.Append",
			"shared/report/control/control.go":    "issue 22, item 1: pipeline.Append",
		},
	},
	{
		what:   "report.DecodeClient (the one socket dispatcher reads a client's frame)",
		call:   func(c *ast.CallExpr) bool { return isSelector(c.Fun, "DecodeClient") },
		owners: []string{"shared/report/transport/ws.go"},
		debts: map[string]string{
			"shared/report/transport/apigw/apigw.go": "issue 22, item 1: the API Gateway socket's own dispatcher",
			"shared/report/transport/sse.go":         "issue 22, item 1: the SSE transport's POST of a client event",
		},
	},
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isSelector(e ast.Expr, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name
}

// TestOnePlaceSeams parses every non-test file of shared/ and fails on a
// seam's call outside its owners and debts.
func TestOnePlaceSeams(t *testing.T) {
	found := map[string][]string{} // seam → files outside its owners that call it
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
				if !owns(s.owners, file) && calls(f, s.call) {
					found[s.what] = append(found[s.what], file)
				}
			}
		}
	}
	for _, s := range seams {
		for _, file := range found[s.what] {
			if s.debts[file] == "" {
				t.Errorf("%s calls %s: only %s may", file, s.what, strings.Join(s.owners, ", "))
			}
		}
		for file := range s.debts {
			if !slices.Contains(found[s.what], file) {
				t.Errorf("%s no longer calls %s: remove it from the seam's debts", file, s.what)
			}
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

func calls(f *ast.File, match func(*ast.CallExpr) bool) bool {
	hit := false
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && match(c) {
			hit = true
		}
		return !hit
	})
	return hit
}
