// Package readers is the former home of the external readers used by the
// office packages' tests; they now live in shared/office/officetest, which
// tests outside shared/office can import too. The names below forward to it
// so that existing tests keep compiling; new tests should use officetest.
package readers

import (
	"image"
	"testing"

	"github.com/insightedge/insightedge/shared/office/officetest"
)

// Font is one row of pdffonts.
type Font = officetest.Font

// Parsed is what officeparser found in a file.
type Parsed = officetest.Parsed

// RequireTool is officetest.RequireTool.
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	return officetest.RequireTool(t, name)
}

// Soffice is officetest.Soffice.
func Soffice(t testing.TB, outDir string, files ...string) []string {
	t.Helper()
	return officetest.Soffice(t, outDir, files...)
}

// PDFText is officetest.PDFText.
func PDFText(t testing.TB, file string) string { t.Helper(); return officetest.PDFText(t, file) }

// PDFPages is officetest.PDFPages.
func PDFPages(t testing.TB, file string) int { t.Helper(); return officetest.PDFPages(t, file) }

// PDFFonts is officetest.PDFFonts.
func PDFFonts(t testing.TB, file string) []Font { t.Helper(); return officetest.PDFFonts(t, file) }

// RenderPage is officetest.RenderPage.
func RenderPage(t testing.TB, file string, page, dpi int) image.Image {
	t.Helper()
	return officetest.RenderPage(t, file, page, dpi)
}

// Ink is officetest.Ink.
func Ink(img image.Image) (share float64, colours int) { return officetest.Ink(img) }

// OfficeParser is officetest.OfficeParser.
func OfficeParser(t testing.TB, files ...string) []Parsed {
	t.Helper()
	return officetest.OfficeParser(t, files...)
}
