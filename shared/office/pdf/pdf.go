// Package pdf renders an office.Document as an A4 PDF with go-pdf/fpdf and
// an embedded TrueType font that covers Chinese and Latin (LXGW WenKai,
// Debian package fonts-lxgw-wenkai). fpdf embeds only the glyphs used, so a
// lesson plan is tens of kilobytes, not the font's 15 MB.
//
// Lines are broken here, not by fpdf: MultiCell and SplitText drop one CJK
// character at every automatic break. The breaker measures with
// GetStringWidth, breaks between any two Han characters and at spaces
// between Latin words, and keeps closing punctuation (，。）》 …) off the
// start of a line and opening punctuation (（《“ …) off its end.
//
// Reading the font file costs a 15 MB read, so a Writer holds the bytes and
// is made once per process; fpdf still parses the font for every document
// (about 15 ms), which the benchmarks measure.
package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/insightedge/insightedge/shared/office"
)

// ContentType is the media type of a PDF.
const ContentType = "application/pdf"

// FontPackage is the Debian package that provides the default font.
const FontPackage = "fonts-lxgw-wenkai"

// ErrFontMissing is returned when no font file is found.
var ErrFontMissing = errors.New("pdf: no font file found")

// DefaultFontPaths are the places Load looks for the regular font, in order.
func DefaultFontPaths() []string {
	return []string{
		"/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Regular.ttf",
		"/usr/local/share/fonts/LXGWWenKai-Regular.ttf",
		"/opt/fonts/LXGWWenKai-Regular.ttf", // a Lambda layer is mounted at /opt
	}
}

// Writer renders documents with one font family.
type Writer struct {
	regular []byte
	bold    []byte // nil: bold text is set in the regular face, in colour
}

// New returns a Writer for the TrueType fonts given as bytes; bold may be
// nil. It parses each font once to fail early on a file fpdf cannot use.
func New(regular, bold []byte) (*Writer, error) {
	// fpdf prints a parse failure to stdout and carries on without the
	// font, so check the TrueType signature first.
	for _, f := range [][]byte{regular, bold} {
		if f != nil && !isTrueType(f) {
			return nil, errors.New("pdf: the font is not a TrueType (.ttf) file")
		}
	}
	w := &Writer{regular: regular, bold: bold}
	f := w.newPDF()
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("pdf: font: %w", err)
	}
	if _, ok := probe(f, ""); !ok {
		return nil, errors.New("pdf: the regular font is not a TrueType font fpdf can read")
	}
	if bold != nil {
		if _, ok := probe(f, "B"); !ok {
			return nil, errors.New("pdf: the bold font is not a TrueType font fpdf can read")
		}
	}
	return w, nil
}

func isTrueType(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0, 1, 0, 0}) || bytes.HasPrefix(b, []byte("true"))
}

// probe reports whether the family's style was registered (fpdf prints, and
// does not return, a parse error).
func probe(f *fpdf.Fpdf, style string) (float64, bool) {
	f.SetFont(family, style, 12)
	if f.Err() {
		return 0, false
	}
	return f.GetStringWidth("中A"), true
}

// Load reads the first existing file of paths (DefaultFontPaths when
// empty), and the "-Bold" file beside it if there is one.
func Load(paths ...string) (*Writer, error) {
	if len(paths) == 0 {
		paths = DefaultFontPaths()
	}
	for _, p := range paths {
		regular, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("pdf: read font %s: %w", p, err)
		}
		var bold []byte
		if bp := boldPath(p); bp != "" {
			bold, err = os.ReadFile(bp)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("pdf: read font %s: %w", bp, err)
			}
		}
		return New(regular, bold)
	}
	return nil, fmt.Errorf("%w (looked in %s): install the Debian package %s or set the font path",
		ErrFontMissing, strings.Join(paths, ", "), FontPackage)
}

func boldPath(p string) string {
	dir, file := filepath.Split(p)
	if !strings.Contains(file, "-Regular.") {
		return ""
	}
	return filepath.Join(dir, strings.Replace(file, "-Regular.", "-Bold.", 1))
}

const family = "body"

func (w *Writer) newPDF() *fpdf.Fpdf {
	f := fpdf.New("P", "mm", "A4", "")
	f.AddUTF8FontFromBytes(family, "", w.regular)
	if w.bold != nil {
		f.AddUTF8FontFromBytes(family, "B", w.bold)
	}
	return f
}

// Write renders doc as a PDF to out; created stamps the document
// information (zero: the current time, fpdf's default).
func (w *Writer) Write(out io.Writer, doc office.Document, created time.Time) error {
	doc = doc.Normalized()
	if doc.Title == "" {
		return errors.New("pdf: the document has no title")
	}
	lang := office.Lang(doc.Lang, doc.Title, sampleText(doc))
	f := w.newPDF()
	f.SetCatalogSort(true)
	f.SetCompression(true)
	f.SetTitle(doc.Title, true)
	if doc.Author != "" {
		f.SetAuthor(doc.Author, true)
	}
	f.SetCreator("InsightEdge", true)
	f.SetLang(lang)
	if !created.IsZero() {
		f.SetCreationDate(created)
		f.SetModificationDate(created)
	}
	r := &renderer{f: f, hasBold: w.bold != nil, lang: lang, title: doc.Title}
	r.setup()
	r.document(doc)
	if err := f.Output(out); err != nil {
		return fmt.Errorf("pdf: render: %w", err)
	}
	return nil
}

// Bytes renders doc as a PDF.
func (w *Writer) Bytes(doc office.Document, created time.Time) ([]byte, error) {
	var buf bytes.Buffer
	if err := w.Write(&buf, doc, created); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func sampleText(doc office.Document) string {
	var b strings.Builder
	for _, s := range doc.Sections {
		b.WriteString(s.Heading)
	}
	return b.String()
}
