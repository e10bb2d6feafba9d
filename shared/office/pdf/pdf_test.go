package pdf_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/internal/samples"
	"github.com/insightedge/insightedge/shared/office/officetest"
	"github.com/insightedge/insightedge/shared/office/pdf"
)

func TestLoadMissingFont(t *testing.T) {
	_, err := pdf.Load(filepath.Join(t.TempDir(), "none.ttf"))
	if !errors.Is(err, pdf.ErrFontMissing) {
		t.Fatalf("Load = %v, want ErrFontMissing", err)
	}
	if !strings.Contains(err.Error(), pdf.FontPackage) {
		t.Errorf("the error %q does not name the package to install", err)
	}
}

// TestOpenReadsOnFirstUse: Open only finds the files; what they hold is
// read, checked and reported on the first document.
func TestOpenReadsOnFirstUse(t *testing.T) {
	if _, err := pdf.Open(filepath.Join(t.TempDir(), "none.ttf")); !errors.Is(err, pdf.ErrFontMissing) {
		t.Fatalf("Open of a missing font = %v, want ErrFontMissing", err)
	}
	path := filepath.Join(t.TempDir(), "Fake-Regular.ttf")
	if err := os.WriteFile(path, []byte("not a font"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := pdf.Open(path)
	if err != nil {
		t.Fatalf("Open read the file: %v", err)
	}
	doc := office.Document{Title: "T", Sections: []office.Section{{Heading: "H"}}}
	if _, err := w.Bytes(doc, samples.Created); err == nil || !strings.Contains(err.Error(), "TrueType") {
		t.Errorf("the first document = %v, want the font's error", err)
	}
	if _, err := pdf.Load(path); err == nil {
		t.Error("Load accepted a file that is not a font")
	}
}

// TestOpenRendersAsLoad: a Writer from Open renders what one from Load
// renders.
func TestOpenRendersAsLoad(t *testing.T) {
	eager := officetest.PDFWriter(t)
	lazy, err := pdf.Open()
	if err != nil {
		t.Fatal(err)
	}
	doc := office.Document{Title: "光合作用", Sections: []office.Section{{Heading: "定义", Blocks: []office.Block{office.Paragraph{Text: "植物把光能转化为化学能。"}}}}}
	a, err := eager.Bytes(doc, samples.Created)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lazy.Bytes(doc, samples.Created)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("Open's PDF (%d bytes) differs from Load's (%d bytes)", len(b), len(a))
	}
}

func TestNewRejectsNonFonts(t *testing.T) {
	if _, err := pdf.New([]byte("not a font"), nil); err == nil {
		t.Error("New accepted bytes that are not a font")
	}
}

// pages counts the page objects fpdf wrote.
func pages(b []byte) int { return bytes.Count(b, []byte("<</Type /Page\n")) }

func TestRender(t *testing.T) {
	w := officetest.PDFWriter(t)
	for _, zh := range []bool{true, false} {
		b, err := w.Bytes(samples.Document(20, zh), samples.Created)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("%PDF-")) {
			t.Fatalf("not a PDF: %.20q", b)
		}
		if n := pages(b); n < 4 || n > 6 {
			t.Errorf("zh=%v: %d pages, want about 5", zh, n)
		}
		// Subset embedding: the file is far smaller than the 15 MB font.
		if len(b) > 400<<10 {
			t.Errorf("zh=%v: %d bytes: the font is not subset", zh, len(b))
		}
	}
}

func TestDeterministic(t *testing.T) {
	w := officetest.PDFWriter(t)
	d := samples.Document(2, true)
	a, err := w.Bytes(d, samples.Created)
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Bytes(d, samples.Created)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the same document gave different bytes")
	}
}

func TestErrors(t *testing.T) {
	w := officetest.PDFWriter(t)
	if _, err := w.Bytes(office.Document{Title: "  "}, samples.Created); err == nil {
		t.Error("a document without a title was rendered")
	}
}

// BenchmarkPDF5Pages renders a five-page Chinese lesson plan, font parse
// included (fpdf parses the font for every document).
func BenchmarkPDF5Pages(b *testing.B) {
	w := officetest.PDFWriter(b)
	d := samples.Document(20, true)
	b.ReportAllocs()
	var n, size int
	for b.Loop() {
		out, err := w.Bytes(d, samples.Created)
		if err != nil {
			b.Fatal(err)
		}
		n, size = pages(out), len(out)
	}
	b.ReportMetric(float64(n), "pages")
	b.ReportMetric(float64(size), "bytes/pdf")
}

// BenchmarkLoad is the once-per-process cost: read both font files and
// check that fpdf can parse them.
func BenchmarkLoad(b *testing.B) {
	officetest.PDFWriter(b)
	for b.Loop() {
		if _, err := pdf.Load(); err != nil {
			b.Fatal(err)
		}
	}
}
