package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/office/officetest"
	"github.com/insightedge/insightedge/shared/report"
)

// The report downloads as .docx and PDF through signed links, and other
// readers (officeparser, poppler) find its headings and figures.
func TestTemplateReportDownloads(t *testing.T) {
	s := NewLocal(t, templateEnv("TEMPLATE_WS_REQUIRE_CONFIRM", "false"))
	c := dialTemplate(t, wsURL(s), nil)
	sid := c.create()
	c.send(zhMessage(sid, "请生成报告"))
	fs := c.until("agent.final_answer", 60*time.Second)
	for _, f := range fs {
		if f.Event == "agent.user_confirm" {
			t.Fatal("asked to confirm with TEMPLATE_WS_REQUIRE_CONFIRM=false")
		}
	}
	var agg report.AggregateCompleted
	fs[len(fs)-3].into(t, &agg)
	files := agg.Output.Report.Files
	if files["docx"] == "" || files["pdf"] == "" {
		t.Fatalf("report files %v", files)
	}
	dir := t.TempDir()
	save := func(format string) string {
		status, h, body := download(t, s.URL, files[format])
		if status != http.StatusOK || len(body) == 0 {
			t.Fatalf("GET %s: %d", format, status)
		}
		if !strings.Contains(h.Get("Content-Disposition"), "generated_report."+format) {
			t.Errorf("%s: Content-Disposition %q", format, h.Get("Content-Disposition"))
		}
		p := filepath.Join(dir, "report."+format)
		if err := os.WriteFile(p, body, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	docxPath, pdfPath := save("docx"), save("pdf")
	// Another teacher cannot use the link's path without its signature.
	if status, _, _ := download(t, s.URL, strings.Split(files["docx"], "?")[0]); status == http.StatusOK {
		t.Error("the report downloads without its signature")
	}
	headings := []string{"一、班级基本情况", "1.1 学生人数与构成", "2.2 需要关注的学生", "四、总结"}
	t.Run("officeparser", func(t *testing.T) {
		parsed := officetest.OfficeParser(t, docxPath)[0]
		var got []string
		for _, h := range parsed.Headings {
			got = append(got, officetest.Squash(h.Text))
		}
		for _, h := range headings {
			if !slices.Contains(got, officetest.Squash(h)) {
				t.Errorf("heading %q missing from %q", h, got)
			}
		}
		officetest.RequireText(t, "docx", parsed.Text, "学期教学工作总结", "Form 1A", "Tang Hoi Kit")
	})
	t.Run("poppler", func(t *testing.T) {
		officetest.RequireText(t, "pdf", officetest.PDFText(t, pdfPath), append(headings, "学期教学工作总结", "Tang Hoi Kit")...)
	})
}
