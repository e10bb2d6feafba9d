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
// is made once per process; a Writer from Open reads them on its first
// document, not at start-up. fpdf still parses the font for every document
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
	"sync"
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
	// fonts returns the faces, read and checked once: at New, or on the
	// first document of a Writer from Open.
	fonts func() (faces, error)
}

// faces are the TrueType files of the family.
type faces struct {
	regular []byte
	bold    []byte // nil: bold text is set in the regular face, in colour
}

// New returns a Writer for the TrueType fonts given as bytes; bold may be
// nil. It parses each font once to fail early on a file fpdf cannot use.
func New(regular, bold []byte) (*Writer, error) {
	fc := faces{regular: regular, bold: bold}
	if err := fc.check(); err != nil {
		return nil, err
	}
	return &Writer{fonts: func() (faces, error) { return fc, nil }}, nil
}

// check fails on a font fpdf cannot use.
func (fc faces) check() error {
	// fpdf prints a parse failure to stdout and carries on without the
	// font, so check the TrueType signature first.
	for _, f := range [][]byte{fc.regular, fc.bold} {
		if f != nil && !isTrueType(f) {
			return errors.New("pdf: the font is not a TrueType (.ttf) file")
		}
	}
	f := fc.newPDF()
	if err := f.Error(); err != nil {
		return fmt.Errorf("pdf: font: %w", err)
	}
	if _, ok := probe(f, ""); !ok {
		return errors.New("pdf: the regular font is not a TrueType font fpdf can read")
	}
	if fc.bold != nil {
		if _, ok := probe(f, "B"); !ok {
			return errors.New("pdf: the bold font is not a TrueType font fpdf can read")
		}
	}
	return nil
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

// Open finds the first existing file of paths (DefaultFontPaths when
// empty), and the "-Bold" file beside it if there is one, and returns a
// Writer that reads and checks them when it renders its first document
// (ErrFontMissing now when there is none). The fonts are 15 MB each: a
// process that never makes a PDF never reads them, and one that does reads
// them once.
func Open(paths ...string) (*Writer, error) {
	regular, bold, err := find(paths)
	if err != nil {
		return nil, err
	}
	return &Writer{fonts: sync.OnceValues(func() (faces, error) {
		var fc faces
		var err error
		if fc.regular, err = os.ReadFile(regular); err != nil {
			return faces{}, fmt.Errorf("pdf: read font %s: %w", regular, err)
		}
		if bold != "" {
			if fc.bold, err = os.ReadFile(bold); err != nil {
				return faces{}, fmt.Errorf("pdf: read font %s: %w", bold, err)
			}
		}
		if err := fc.check(); err != nil {
			return faces{}, err
		}
		return fc, nil
	})}, nil
}

// Load is Open, reading and checking the fonts now.
func Load(paths ...string) (*Writer, error) {
	w, err := Open(paths...)
	if err != nil {
		return nil, err
	}
	if _, err := w.fonts(); err != nil {
		return nil, err
	}
	return w, nil
}

// find returns the first existing regular font of paths and its bold
// face ("" when there is none).
func find(paths []string) (regular, bold string, err error) {
	if len(paths) == 0 {
		paths = DefaultFontPaths()
	}
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return "", "", fmt.Errorf("pdf: font %s: %w", p, err)
		}
		if bp := boldPath(p); bp != "" {
			if _, err := os.Stat(bp); err == nil {
				bold = bp
			} else if !errors.Is(err, fs.ErrNotExist) {
				return "", "", fmt.Errorf("pdf: font %s: %w", bp, err)
			}
		}
		return p, bold, nil
	}
	return "", "", fmt.Errorf("%w (looked in %s): install the Debian package %s or set the font path",
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

func (fc faces) newPDF() *fpdf.Fpdf {
	f := fpdf.New("P", "mm", "A4", "")
	f.AddUTF8FontFromBytes(family, "", fc.regular)
	if fc.bold != nil {
		f.AddUTF8FontFromBytes(family, "B", fc.bold)
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
	fc, err := w.fonts()
	if err != nil {
		return err
	}
	lang := office.Lang(doc.Lang, doc.Title, sampleText(doc))
	f := fc.newPDF()
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
	r := &renderer{f: f, hasBold: fc.bold != nil, lang: lang, title: doc.Title}
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
