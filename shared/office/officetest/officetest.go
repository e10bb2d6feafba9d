// Package officetest runs readers that are not ours over the files the
// office writers produce, for tests anywhere in the module: LibreOffice
// (soffice) converts .pptx and .docx to PDF, poppler (pdftotext, pdffonts,
// pdfinfo, pdftoppm) reads and renders PDFs, and officeparser (npm,
// testdata/officeparser) parses .pptx and .docx. A test that needs a
// missing reader is skipped, except under CI=true, where it fails: CI must
// have every reader installed.
package officetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/pdf"
)

// commandTimeout bounds every external command.
const commandTimeout = 2 * time.Minute

// RequireTool returns the path of the named program. When it is missing
// the test fails if the environment variable CI is "true", and is skipped
// otherwise.
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, fmt.Sprintf("%s is not installed (%v)", name, err))
	}
	return p
}

// PDFWriter returns the PDF writer with the system font, which the
// writer needs and the machine may lack (a missing tool, as above).
func PDFWriter(t testing.TB) *pdf.Writer {
	t.Helper()
	w, err := pdf.Load()
	if err != nil {
		missing(t, err.Error())
	}
	return w
}

// Missing fails the test when the environment variable CI is "true"
// (CI must install every reader) and skips it otherwise: for a reader a
// test finds its own way (an npm package in its own folder).
func Missing(t testing.TB, why string) {
	t.Helper()
	missing(t, why)
}

// Run runs an external command in dir, bounded in time, and returns its
// standard output; a failure fails the test with its standard error.
func Run(t testing.TB, dir string, name string, args ...string) []byte {
	t.Helper()
	return run(t, dir, name, args...)
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI must install it (see .ci/run)", why)
	}
	t.Skip(why + " (install the test tools: bash .ci/run --install-only, as root)")
}

func run(t testing.TB, dir string, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// Soffice converts files (.pptx, .docx) to PDF in outDir with one
// LibreOffice run, and returns the PDF paths in the order of files. Base
// names must differ: outputs are named after them.
func Soffice(t testing.TB, outDir string, files ...string) []string {
	t.Helper()
	bin := RequireTool(t, "soffice")
	seen := map[string]bool{}
	var pdfs []string
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if seen[base] {
			t.Fatalf("Soffice: two inputs named %s would overwrite each other's PDF", base)
		}
		seen[base] = true
		pdfs = append(pdfs, filepath.Join(outDir, base+".pdf"))
	}
	// A private profile: a shared one is locked by a concurrent soffice.
	profile := "file://" + filepath.ToSlash(t.TempDir())
	args := append([]string{"--headless", "--norestore", "-env:UserInstallation=" + profile,
		"--convert-to", "pdf", "--outdir", outDir}, files...)
	run(t, outDir, bin, args...)
	for _, p := range pdfs {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("soffice did not write %s: %v", p, err)
		}
	}
	return pdfs
}

// PDFText returns the text of a PDF as pdftotext reads it.
func PDFText(t testing.TB, file string) string {
	t.Helper()
	return string(run(t, "", RequireTool(t, "pdftotext"), "-enc", "UTF-8", file, "-"))
}

// PDFPages returns the page count pdfinfo reports.
func PDFPages(t testing.TB, file string) int {
	t.Helper()
	out := run(t, "", RequireTool(t, "pdfinfo"), file)
	for line := range strings.SplitSeq(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Pages:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("pdfinfo pages %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatalf("pdfinfo printed no page count:\n%s", out)
	return 0
}

// Font is one row of pdffonts.
type Font struct {
	Name, Type string
	Embedded   bool
	Unicode    bool
}

// PDFFonts returns the fonts pdffonts lists.
func PDFFonts(t testing.TB, file string) []Font {
	t.Helper()
	out := run(t, "", RequireTool(t, "pdffonts"), file)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var fonts []Font
	for _, l := range lines[min(2, len(lines)):] { // a header and a rule come first
		f := strings.Fields(l)
		if len(f) < 7 {
			continue
		}
		// name type... encoding emb sub uni objectID gen: the type may be
		// two words ("CID TrueType"), so count from the end.
		n := len(f)
		fonts = append(fonts, Font{
			Name: f[0], Type: strings.Join(f[1:n-6], " "),
			Embedded: f[n-5] == "yes", Unicode: f[n-3] == "yes",
		})
	}
	return fonts
}

// RenderPage renders one page (1-based) of a PDF at dpi with pdftoppm.
func RenderPage(t testing.TB, file string, page, dpi int) image.Image {
	t.Helper()
	bin := RequireTool(t, "pdftoppm")
	dir := t.TempDir()
	prefix := filepath.Join(dir, "page")
	p := strconv.Itoa(page)
	run(t, dir, bin, "-png", "-r", strconv.Itoa(dpi), "-f", p, "-l", p, "-singlefile", file, prefix)
	f, err := os.Open(prefix + ".png")
	if err != nil {
		t.Fatalf("pdftoppm output: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s.png: %v", prefix, err)
	}
	return img
}

// Ink returns the share of pixels that are not near-white, and the number
// of distinct colours (quantised) on the image: a blank page has no ink, a
// designed slide has several colours.
func Ink(img image.Image) (share float64, colours int) {
	b := img.Bounds()
	seen := map[uint32]bool{}
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xF000 || g < 0xF000 || bl < 0xF000 {
				ink++
			}
			seen[(r>>12)<<8|(g>>12)<<4|bl>>12] = true
		}
	}
	return float64(ink) / float64(b.Dx()*b.Dy()), len(seen)
}

// Parsed is what officeparser found in a file.
type Parsed struct {
	File     string `json:"file"`
	Text     string `json:"text"`
	Slides   int    `json:"slides"`
	Headings []struct {
		Text  string `json:"text"`
		Level int    `json:"level"`
	} `json:"headings"`
	Notes []string `json:"notes"`
}

// OfficeParser parses files with the npm package officeparser installed in
// testdata/officeparser (npm ci there).
func OfficeParser(t testing.TB, files ...string) []Parsed {
	t.Helper()
	node := RequireTool(t, "node")
	dir, err := repoDir("testdata/officeparser")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "officeparser")); err != nil {
		missing(t, "officeparser is not installed: run npm ci in "+dir)
	}
	out := run(t, dir, node, append([]string{"read.mjs"}, files...)...)
	var parsed []Parsed
	if err := json.Unmarshal(out, &parsed); err != nil {
		t.Fatalf("officeparser output: %v\n%s", err, out)
	}
	if len(parsed) != len(files) {
		t.Fatalf("officeparser read %d files of %d", len(parsed), len(files))
	}
	return parsed
}

// repoDir returns rel under the module root (the directory of go.mod above
// the working directory).
func repoDir(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for range 20 { // bounded walk up
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, rel), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("officetest: no go.mod above the working directory")
}

// Squash removes all white space, so that text a reader breaks into lines
// (or spaces out, as it does Chinese) compares with the text we wrote.
func Squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// RequireText reports each of wants (Markdown, compared as its plain text)
// that text does not hold, white space aside.
func RequireText(t testing.TB, what, text string, wants ...string) {
	t.Helper()
	sq := Squash(text)
	for _, w := range wants {
		if !strings.Contains(sq, Squash(office.PlainText(w))) {
			t.Errorf("%s: %q is missing from the text:\n%s", what, w, text)
		}
	}
}
