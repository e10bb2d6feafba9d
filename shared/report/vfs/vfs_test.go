package vfs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/tools"
)

func newFS(t *testing.T, teacher, session string) *FS {
	t.Helper()
	store, err := blob.NewFS(blob.FSConfig{Dir: t.TempDir(), BaseURL: "http://127.0.0.1:1", Secret: []byte("0123456789abcdef0123")})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(store, teacher, session)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestClean(t *testing.T) {
	ok := map[string]string{
		"template/学期教学工作总结.md":   "template/学期教学工作总结.md",
		"datasets/class_1A.json": "datasets/class_1A.json",
		"datasets":               "datasets",
	}
	for in, want := range ok {
		if got, err := Clean(in); err != nil || got != want {
			t.Errorf("Clean(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "/etc/passwd", "../x", "datasets/../../x", "datasets/./a", `datasets\a`, "other/a.json", "datasets/a?b", strings.Repeat("a", 300)} {
		if _, err := Clean(in); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("Clean(%q) = %v, want ErrInvalidPath", in, err)
		}
	}
}

func TestPutReadList(t *testing.T) {
	ctx := context.Background()
	f := newFS(t, "t-001", "s-1")
	for p, body := range map[string]string{
		"template/a.md":          "# A\n",
		"template/a.html":        "<h1>A</h1>",
		"datasets/class_1A.json": `{"class":"1A"}`,
	} {
		if _, err := f.Put(ctx, p, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Put(ctx, "template/a.md", []byte("# A2\n")); err != nil {
		t.Fatal(err)
	}
	b, err := f.Read(ctx, "template/a.md")
	if err != nil || string(b) != "# A2\n" {
		t.Fatalf("read %q %v", b, err)
	}
	es, err := f.List(ctx, "template")
	if err != nil || len(es) != 2 || es[0].Path != "template/a.html" || es[1].Size != 5 {
		t.Fatalf("list %+v %v", es, err)
	}
	all, _ := f.List(ctx, "")
	if len(all) != 3 {
		t.Fatalf("all %+v", all)
	}
	if _, err := f.Read(ctx, "datasets/none.json"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
	// Another session of the same teacher sees nothing.
	other, _ := Open(f.store, "t-001", "s-2")
	if es, _ := other.List(ctx, ""); len(es) != 0 {
		t.Errorf("sessions share files: %+v", es)
	}
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	f := newFS(t, "t-001", "s-1")
	if _, err := f.Put(ctx, "datasets/big.json", make([]byte, MaxFileBytes+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big file: %v", err)
	}
	for i := range 8 {
		if _, err := f.Put(ctx, "datasets/f"+string(rune('a'+i))+".json", make([]byte, MaxFileBytes)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Put(ctx, "datasets/one-more.json", []byte("x")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("total: %v", err)
	}
	// Replacing a file counts its new size, not both.
	if _, err := f.Put(ctx, "datasets/fa.json", []byte("{}")); err != nil {
		t.Errorf("replace: %v", err)
	}
}

func TestTools(t *testing.T) {
	ctx := context.Background()
	f := newFS(t, "t-001", "s-1")
	f.Put(ctx, "template/r.md", []byte("---\ntitle: R\n---\n## A\n### A1\n## B\n"))
	f.Put(ctx, "template/r.html", []byte("<h2>A</h2>"))
	f.Put(ctx, "datasets/d.json", []byte(`{"x":1}`))
	byName := map[string]tools.Tool{}
	for _, tl := range f.Tools() {
		byName[tl.Name] = tl
	}
	run := func(name, args string) (string, error) {
		r, err := byName[name].Run(ctx, tools.Call{}, json.RawMessage(args))
		if err != nil {
			return "", err
		}
		b, _ := json.Marshal(r.Output)
		return string(b), nil
	}
	if got, err := run(ToolListTemplates, `{}`); err != nil || got != `["template/r.md"]` {
		t.Errorf("list_local_templates %s %v", got, err)
	}
	if got, err := run(ToolListDir, `{"path":"datasets"}`); err != nil || got != `[{"path":"datasets/d.json","size":7}]` {
		t.Errorf("list_local_dir %s %v", got, err)
	}
	if got, err := run(ToolReadFile, `{"path":"datasets/d.json"}`); err != nil || got != `"{\"x\":1}"` {
		t.Errorf("read_local_file %s %v", got, err)
	}
	if _, err := run(ToolReadFile, `{"path":"../secrets"}`); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("read outside: %v", err)
	}
	got, err := run(ToolSplitTree, `{"path":"template/r.md"}`)
	if err != nil || !strings.Contains(got, `"leaves":[{"id":1,"title":"A1"`) || !strings.Contains(got, `"title":"R"`) {
		t.Errorf("split_markdown_tree %s %v", got, err)
	}
	if _, err := run(ToolSplitTree, `{}`); err == nil {
		t.Error("split without input accepted")
	}
}
