package office_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/docx"
	"github.com/insightedge/insightedge/shared/office/internal/samples"
	"github.com/insightedge/insightedge/shared/office/officetest"
	"github.com/insightedge/insightedge/shared/office/pptx"
)

func deckTexts(d office.Deck) []string {
	out := []string{d.Title, d.Subtitle}
	for _, s := range d.Slides {
		out = append(out, s.Title)
		out = append(out, s.Bullets...)
	}
	return out
}

func docTexts(d office.Document) []string {
	out := []string{d.Title, d.Subtitle}
	for _, s := range d.Sections {
		out = append(out, s.Heading)
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case office.Paragraph:
				out = append(out, b.Text)
			case office.List:
				out = append(out, b.Items...)
			case office.Table:
				out = append(out, b.Headers...)
				for _, r := range b.Rows {
					out = append(out, r...)
				}
			}
		}
	}
	return out
}

// TestOfficeFilesInOtherReaders writes decks and documents in Chinese and
// English and opens them with LibreOffice, poppler and officeparser.
func TestOfficeFilesInOtherReaders(t *testing.T) {
	dir := t.TempDir()
	decks := map[string]office.Deck{"deck-zh": samples.Deck(4, true), "deck-en": samples.Deck(3, false)}
	docs := map[string]office.Document{"doc-zh": samples.Document(3, true), "doc-en": samples.Document(3, false)}
	var files []string
	for name, d := range decks {
		b, err := pptxBytes(d)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, write(t, dir, name+".pptx", b))
	}
	for name, d := range docs {
		b, err := docxBytes(d)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, write(t, dir, name+".docx", b))
	}

	t.Run("officeparser", func(t *testing.T) {
		for _, p := range officetest.OfficeParser(t, files...) {
			name := strings.TrimSuffix(filepath.Base(p.File), filepath.Ext(p.File))
			if d, ok := decks[name]; ok {
				if p.Slides != len(d.Slides)+1 {
					t.Errorf("%s: officeparser sees %d slides, want %d", name, p.Slides, len(d.Slides)+1)
				}
				officetest.RequireText(t, name, p.Text, deckTexts(d)...)
				notes := strings.Join(p.Notes, "\n")
				officetest.RequireText(t, name+" notes", notes, strings.Split(d.Slides[0].Notes, "\n")...)
				continue
			}
			d := docs[name]
			officetest.RequireText(t, name, p.Text, docTexts(d)...)
			var headings []string
			for _, h := range p.Headings {
				headings = append(headings, h.Text)
			}
			for _, s := range d.Sections {
				if !strings.Contains(strings.Join(headings, "\n"), s.Heading) {
					t.Errorf("%s: heading %q is not a heading to officeparser (%q)", name, s.Heading, headings)
				}
			}
		}
	})

	t.Run("libreoffice", func(t *testing.T) {
		pdfs := officetest.Soffice(t, dir, files...)
		for i, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
			text := officetest.PDFText(t, pdfs[i])
			if d, ok := decks[name]; ok {
				if n := officetest.PDFPages(t, pdfs[i]); n != len(d.Slides)+1 {
					t.Errorf("%s: LibreOffice made %d pages, want %d slides", name, n, len(d.Slides)+1)
				}
				officetest.RequireText(t, name, text, deckTexts(d)...)
				continue
			}
			officetest.RequireText(t, name, text, docTexts(docs[name])...)
		}
		// A slide as a picture: the title slide is a dark background, a
		// content slide is mostly white with coloured title, bars and text.
		zh := pdfs[indexOf(files, "deck-zh.pptx")]
		if ink, colours := officetest.Ink(officetest.RenderPage(t, zh, 1, 30)); ink < 0.5 || colours < 3 {
			t.Errorf("title slide: ink %.2f, %d colours: not the designed title slide", ink, colours)
		}
		if ink, colours := officetest.Ink(officetest.RenderPage(t, zh, 2, 30)); ink < 0.01 || ink > 0.5 || colours < 3 {
			t.Errorf("content slide: ink %.3f, %d colours: blank or not designed", ink, colours)
		}
	})
}

// TestPDFInPoppler renders our own PDFs and reads them with poppler: the
// font is embedded, the Chinese title comes back as text, no character is
// lost at a line break, and the page is not blank.
func TestPDFInPoppler(t *testing.T) {
	w := officetest.PDFWriter(t)
	dir := t.TempDir()
	for _, zh := range []bool{true, false} {
		d := samples.Document(12, zh)
		b, err := w.Bytes(d, samples.Created)
		if err != nil {
			t.Fatal(err)
		}
		name := map[bool]string{true: "zh.pdf", false: "en.pdf"}[zh]
		f := write(t, dir, name, b)
		fonts := officetest.PDFFonts(t, f)
		if len(fonts) == 0 {
			t.Fatalf("%s: pdffonts lists no font", name)
		}
		for _, ft := range fonts {
			if !ft.Embedded || !ft.Unicode || !strings.Contains(ft.Type, "TrueType") {
				t.Errorf("%s: font %+v is not an embedded TrueType font with a Unicode map", name, ft)
			}
		}
		text := officetest.PDFText(t, f)
		if !strings.HasPrefix(strings.TrimSpace(text), d.Title) {
			t.Errorf("%s: the text does not start with the title %q:\n%.200s", name, d.Title, text)
		}
		// Every character of every paragraph, in order: fpdf's own line
		// breaking would drop one at each break.
		officetest.RequireText(t, name, text, docTexts(d)...)
		if n := officetest.PDFPages(t, f); n < 2 {
			t.Errorf("%s: %d pages, want the 12 steps to run over", name, n)
		}
		footer := map[bool]string{true: "第 2 页", false: "Page 2"}[zh]
		if !strings.Contains(officetest.Squash(text), officetest.Squash(footer)) {
			t.Errorf("%s: no page number %q", name, footer)
		}
		if ink, _ := officetest.Ink(officetest.RenderPage(t, f, 1, 30)); ink < 0.01 {
			t.Errorf("%s: page 1 looks blank (ink %.4f)", name, ink)
		}
	}
}

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func indexOf(files []string, base string) int {
	for i, f := range files {
		if filepath.Base(f) == base {
			return i
		}
	}
	return -1
}

func docxBytes(doc office.Document) ([]byte, error) {
	var buf bytes.Buffer
	err := docx.Write(&buf, doc, samples.Created)
	return buf.Bytes(), err
}

func pptxBytes(d office.Deck) ([]byte, error) {
	var buf bytes.Buffer
	err := pptx.Write(&buf, d, samples.Created)
	return buf.Bytes(), err
}
