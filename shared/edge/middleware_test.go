package edge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/auth"
)

// headerAuth records the Authorization header it was shown.
type headerAuth struct{ got *string }

func (a headerAuth) Authenticate(r *http.Request) (auth.Identity, error) {
	*a.got = r.Header.Get("Authorization")
	return auth.Identity{TeacherID: "t-001"}, nil
}

// TestQueryToken: the token comes from ?access_token= only when the request
// has no Authorization header, and the caller's request is left as it came.
func TestQueryToken(t *testing.T) {
	for name, tt := range map[string]struct{ url, header, want string }{
		"query token": {"/s?access_token=abc", "", "Bearer abc"},
		"header wins": {"/s?access_token=abc", "Bearer hdr", "Bearer hdr"},
		"neither":     {"/s", "", ""},
		"empty token": {"/s?access_token=", "", ""},
	} {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.url, nil)
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			var got string
			if _, err := (QueryToken{headerAuth{&got}}).Authenticate(r); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("the authenticator saw %q, want %q", got, tt.want)
			}
			if r.Header.Get("Authorization") != tt.header {
				t.Errorf("the caller's request now has Authorization %q", r.Header.Get("Authorization"))
			}
		})
	}
}

// TestOneRouteMiddleware: Handle is the only HTTP handler in shared/ that
// recovers panics. A handler that does is a route middleware of its own,
// with its own error bodies and no trace id: mount routes through Handle.
func TestOneRouteMiddleware(t *testing.T) {
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if typ, body := funcOf(n); typ != nil && isHandler(typ) && callsRecover(body) {
				found = append(found, filepath.ToSlash(path))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"../edge/edge.go"}; !slices.Equal(found, want) {
		t.Errorf("HTTP handlers that recover panics: %v, want only edge.Handle's (%v)", found, want)
	}
}

func funcOf(n ast.Node) (*ast.FuncType, *ast.BlockStmt) {
	switch f := n.(type) {
	case *ast.FuncDecl:
		return f.Type, f.Body
	case *ast.FuncLit:
		return f.Type, f.Body
	}
	return nil, nil
}

// isHandler reports whether typ is func(http.ResponseWriter, *http.Request) ….
func isHandler(typ *ast.FuncType) bool {
	var params []string
	for _, p := range typ.Params.List {
		for range max(len(p.Names), 1) {
			params = append(params, exprString(p.Type))
		}
	}
	return slices.Equal(params, []string{"http.ResponseWriter", "*http.Request"})
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

func callsRecover(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "recover" {
				found = true
			}
		}
		return !found
	})
	return found
}
