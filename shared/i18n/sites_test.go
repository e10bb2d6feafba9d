package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// notProduct are the folders whose texts are not the product's words to a
// teacher: the offline stand-in for the model and its research fixtures
// speak as the model does, the evaluation reads answers, and the office
// samples are documents for the office tests.
var notProduct = []string{"local/offlinemodel", "local/researchdata", "local/eval", "shared/office/internal/samples"}

// TestNoTextsOutsideCatalogue holds every package to the catalogue: no
// package outside shared/i18n picks a text by language in place, by calling
// a Pick with literal texts, writing an i18n.Pair literal, or branching on
// the language to a Chinese literal.
func TestNoTextsOutsideCatalogue(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" ||
				rel == "shared/i18n" || hasPrefixIn(rel, notProduct)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, p := range inPlaceTexts(f) {
			pos := fset.Position(p)
			t.Errorf("%s:%d: a text picked by language in place; put it in shared/i18n's catalogue", rel, pos.Line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hasPrefixIn(rel string, prefixes []string) bool {
	for _, p := range prefixes {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// moduleRoot is the folder of the module's go.mod.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// inPlaceTexts finds the places in f that pick a text by language.
func inPlaceTexts(f *ast.File) []token.Pos {
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if name := calledName(n.Fun); (name == "Pick" || name == "pick") && hasString(n.Args...) {
				out = append(out, n.Pos())
			}
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok && isIdent(sel.X, "i18n") && sel.Sel.Name == "Pair" || isTranslation(n) {
				out = append(out, n.Pos())
			}
		case *ast.IfStmt:
			if decidesLanguage(n.Cond) && hasChinese(n.Body) {
				out = append(out, n.Pos())
			}
		}
		return true
	})
	return out
}

func calledName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// hasString reports whether a string literal is among nodes.
func hasString(nodes ...ast.Expr) bool {
	found := false
	for _, n := range nodes {
		ast.Inspect(n, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				found = true
			}
			return !found
		})
	}
	return found
}

// hasChinese reports whether n holds a string literal with Chinese in it.
func hasChinese(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			found = found || err == nil && HasHan(s)
		}
		return !found
	})
	return found
}

// decidesLanguage reports whether cond asks which language a text is in:
// it names i18n's languages or tag rules, a helper of its own (zh, isZH),
// or compares with a "zh" tag.
func decidesLanguage(cond ast.Expr) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			found = found || isIdent(n.X, "i18n") && strings.Contains("Chinese English IsChineseTag HasHan", n.Sel.Name)
		case *ast.Ident: // zh, isZH(l), chinese: a language helper of its own
			name := strings.ToLower(n.Name)
			found = found || name == "zh" || name == "iszh" || name == "chinese"
		case *ast.BasicLit:
			s, _ := strconv.Unquote(n.Value)
			found = found || n.Kind == token.STRING && IsChineseTag(s)
		}
		return !found
	})
	return found
}

// isTranslation reports whether lit holds texts keyed by their language
// ({ZH: "出题", EN: "Writing questions"}) or by whether it is Chinese
// (map[bool]string{true: "平均分", false: "Mean score"}).
func isTranslation(lit *ast.CompositeLit) bool {
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if key, ok := kv.Key.(*ast.Ident); ok && strings.Contains(" zh en true false ", " "+strings.ToLower(key.Name)+" ") && hasChinese(lit) {
			return true
		}
	}
	return false
}
