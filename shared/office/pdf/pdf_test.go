package pdf_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/internal/samples"
	"github.com/insightedge/insightedge/shared/office/pdf"
)

var created = time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)

// requireFont loads the system font: a missing font skips the test, and
// fails it under CI=true.
func requireFont(t testing.TB) *pdf.Writer {
	t.Helper()
	w, err := pdf.Load()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v", err)
		}
		t.Skip(err)
	}
	return w
}

func TestLoadMissingFont(t *testing.T) {
	_, err := pdf.Load(filepath.Join(t.TempDir(), "none.ttf"))
	if !errors.Is(err, pdf.ErrFontMissing) {
		t.Fatalf("Load = %v, want ErrFontMissing", err)
	}
	if !strings.Contains(err.Error(), pdf.FontPackage) {
		t.Errorf("the error %q does not name the package to install", err)
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
	w := requireFont(t)
	for _, zh := range []bool{true, false} {
		b, err := w.Bytes(samples.Document(20, zh), created)
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
	w := requireFont(t)
	d := samples.Document(2, true)
	a, err := w.Bytes(d, created)
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Bytes(d, created)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the same document gave different bytes")
	}
}

func TestErrors(t *testing.T) {
	w := requireFont(t)
	if _, err := w.Bytes(office.Document{Title: "  "}, created); err == nil {
		t.Error("a document without a title was rendered")
	}
}

// BenchmarkPDF5Pages renders a five-page Chinese lesson plan, font parse
// included (fpdf parses the font for every document).
func BenchmarkPDF5Pages(b *testing.B) {
	w := requireFont(b)
	d := samples.Document(20, true)
	b.ReportAllocs()
	var n, size int
	for b.Loop() {
		out, err := w.Bytes(d, created)
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
	requireFont(b)
	for b.Loop() {
		if _, err := pdf.Load(); err != nil {
			b.Fatal(err)
		}
	}
}
