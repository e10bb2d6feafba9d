package templatebackend

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/mdtree"
)

func serve(t *testing.T) (*backend.Client, *mockdata.Dataset, string) {
	t.Helper()
	d := mockdata.Default()
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := backend.NewResolver(backend.Options{Default: srv.URL}).For("")
	if err != nil {
		t.Fatal(err)
	}
	return c, d, srv.URL
}

func TestTemplatesThroughTheClient(t *testing.T) {
	ctx := context.Background()
	c, _, _ := serve(t)
	all, err := c.Templates(ctx, "")
	if err != nil || len(all) != 5 {
		t.Fatalf("templates %+v %v", all, err)
	}
	formats := map[string]int{}
	for _, info := range all {
		tpl, err := c.Template(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		formats[tpl.Format]++
		md := tpl.Content
		if tpl.Format == backend.FormatHTML {
			if md, err = mdtree.FromHTML(md); err != nil {
				t.Fatal(err)
			}
		}
		doc, err := mdtree.Parse(md)
		if err != nil || doc.Title != info.Name || len(doc.Leaves) < 3 {
			t.Errorf("%s: title %q, %d leaves, %v", info.Name, doc.Title, len(doc.Leaves), err)
		}
	}
	if formats[backend.FormatHTML] != 2 || formats[backend.FormatMarkdown] != 3 {
		t.Errorf("formats %v", formats)
	}
	byName, err := c.Templates(ctx, "学期教学工作总结")
	if err != nil || len(byName) != 1 || byName[0].Language != "zh" {
		t.Errorf("by name %+v %v", byName, err)
	}
	if _, err := c.Template(ctx, "tpl-999"); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("unknown template: %v", err)
	}
}

func TestKnowledgeBasesSpeakOfTheMockStudents(t *testing.T) {
	ctx := context.Background()
	c, d, _ := serve(t)
	kbs, err := c.KnowledgeBases(ctx, "Form 1A")
	if err != nil || len(kbs) != 1 {
		t.Fatalf("kbs %+v %v", kbs, err)
	}
	files, err := c.Files(ctx, kbs[0].ID)
	if err != nil || len(files) != 4 {
		t.Fatalf("files %+v %v", files, err)
	}
	raw, err := c.File(ctx, kbs[0].ID, "grades.json")
	if err != nil {
		t.Fatal(err)
	}
	first := d.StudentsOf("class-hk-f1a")[0].Name
	if !strings.Contains(string(raw), first) || !json.Valid(raw) {
		t.Errorf("grades.json does not name %s", first)
	}
	// The teaching log holds the class's subject's notes only.
	log, err := c.File(ctx, kbs[0].ID, "teaching_log.json")
	if err != nil || !strings.Contains(string(log), "Reading Comprehension: The Lost Kite") || strings.Contains(string(log), "Physics") {
		t.Errorf("Form 1A English's teaching log: %v\n%s", err, log)
	}
	self, err := c.KnowledgeBases(ctx, SelfCheckKB)
	if err != nil || len(self) != 1 {
		t.Errorf("self-check kb %+v %v", self, err)
	}
	if _, err := c.File(ctx, kbs[0].ID, "nope.json"); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("unknown file: %v", err)
	}
}

func TestAllowList(t *testing.T) {
	r := backend.NewResolver(backend.Options{Default: "http://127.0.0.1:8787", Allowed: []string{"https://tpl.school.example/"}})
	for _, ok := range []string{"", "http://127.0.0.1:8787/", "https://tpl.school.example"} {
		if _, err := r.For(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://169.254.169.254", "http://127.0.0.1:8788", "file:///etc"} {
		if _, err := r.For(bad); !errors.Is(err, backend.ErrNotAllowed) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := backend.NewResolver(backend.Options{}).For(""); !errors.Is(err, backend.ErrNotAllowed) {
		t.Errorf("no backend configured: %v", err)
	}
}
