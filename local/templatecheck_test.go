package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/server"
)

func TestTemplateCheckCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"template-check"}, &out, &errOut, func(string) string { return "" })
	if err != nil {
		t.Fatalf("template-check: %v\n%s%s", err, out.String(), errOut.String())
	}
	got := out.String()
	for _, want := range []string{"template: 自检模板\n", "knowledge base: 自检知识库\n", "confirmed\n",
		"--- reports/generated_report.md", "## 班级概况", "### 需要关注的学生", "\nOK\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// The seed's own address: a client written against ws://127.0.0.1:8081
// passes the same check on -template-ws-addr, and -template / -kb pick an
// English HTML template and another class.
func TestTemplateCheckAgainstTheSeedListener(t *testing.T) {
	s, err := server.Start(context.Background(), server.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir(), TemplateWSAddr: "127.0.0.1:0",
		Getenv: func(string) string { return "" }, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	var out bytes.Buffer
	err = run(context.Background(), []string{"template-check", "-server", s.TemplateWSURL, "-template", "Class Mid-term Results Analysis", "-kb", "Form 3C"},
		&out, &bytes.Buffer{}, func(string) string { return "" })
	if err != nil {
		t.Fatalf("template-check: %v\n%s", err, out.String())
	}
	for _, want := range []string{"template: Class Mid-term Results Analysis\n", "knowledge base: Form 3C\n", "# Class Mid-term Results Analysis", "### Distribution", "物理科"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// A deviation (here: no such template) exits non-zero.
	out.Reset()
	err = run(context.Background(), []string{"template-check", "-server", s.URL, "-template", "不存在的模板"}, &out, &bytes.Buffer{}, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "不存在的模板") {
		t.Fatalf("missing template: %v\n%s", err, out.String())
	}
}
