package eval

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// FileCheck is the independent check of one produced file.
type FileCheck struct {
	Type     string `json:"type"`
	Size     int    `json:"size"`
	Opens    bool   `json:"opens"`
	Mentions bool   `json:"mentions"`
	Note     string `json:"note,omitempty"`
}

// maxFileBytes bounds a downloaded file.
const maxFileBytes = 64 << 20

// checkFile downloads an announced file and checks, without the product's
// code, that it opens as its type and that its text mentions one of mention.
func checkFile(ctx context.Context, client *http.Client, base string, f announced, headers map[string]string, mention []string) FileCheck {
	fc := FileCheck{Type: f.Type}
	b, err := fetch(ctx, client, base, f.URL, headers)
	if err != nil {
		fc.Note = err.Error()
		return fc
	}
	fc.Size = len(b)
	text, err := fileText(ctx, f.Type, b)
	if err != nil {
		fc.Note = err.Error()
		return fc
	}
	fc.Opens = true
	if len(mention) == 0 {
		fc.Mentions = true
		return fc
	}
	if text == "" {
		fc.Note = "text not readable here (pdftotext missing); mention not checked"
		fc.Mentions = true
		return fc
	}
	low := strings.ToLower(text)
	fc.Mentions = slices.ContainsFunc(mention, func(m string) bool { return strings.Contains(low, strings.ToLower(m)) })
	if !fc.Mentions {
		fc.Note = fmt.Sprintf("the file mentions none of %q", mention)
	}
	return fc
}

func fetch(ctx context.Context, client *http.Client, base, ref string, headers map[string]string) ([]byte, error) {
	u, err := url.Parse(ref)
	if err != nil || ref == "" {
		return nil, fmt.Errorf("bad file URL %q", ref)
	}
	if !u.IsAbs() {
		b, err := url.Parse(base)
		if err != nil {
			return nil, err
		}
		u = b.ResolveReference(u)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if u.Host == hostOf(base) {
		for k, v := range headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download: %s", resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxFileBytes))
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// fileText opens b as typ and returns its text ("" when it opens but its
// text cannot be read here).
func fileText(ctx context.Context, typ string, b []byte) (string, error) {
	switch typ {
	case "pptx":
		return zipText(b, "ppt/presentation.xml", regexp.MustCompile(`^ppt/slides/slide\d+\.xml$`))
	case "docx":
		return zipText(b, "word/document.xml", regexp.MustCompile(`^word/document\.xml$`))
	case "pdf":
		return pdfText(ctx, b)
	// issue 31: the quiz exports (a QTI content package, Moodle XML,
	// GIFT text, Kahoot and Quizizz spreadsheets).
	case "zip":
		return packageText(b, regexp.MustCompile(`^items/.+\.xml$`), "imsmanifest.xml")
	case "xlsx":
		return zipText(b, "xl/workbook.xml", regexp.MustCompile(`^xl/worksheets/sheet\d+\.xml$`))
	case "xml":
		return readXMLText(bytes.NewReader(b))
	case "txt":
		if !utf8.Valid(b) || len(bytes.TrimSpace(b)) == 0 {
			return "", fmt.Errorf("not UTF-8 text")
		}
		return string(b), nil
	case "html":
		low := strings.ToLower(string(b[:min(len(b), 4096)]))
		if !strings.Contains(low, "<html") && !strings.Contains(low, "<!doctype html") {
			return "", fmt.Errorf("not an HTML document")
		}
		tags := regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]*>`)
		return html.UnescapeString(tags.ReplaceAllString(string(b), " ")) + " " + string(b), nil
	}
	return "", fmt.Errorf("unknown file type %q", typ)
}

// zipText opens an Office Open XML package: it must be a zip with the
// required part, [Content_Types].xml and at least one content part, every
// XML part well formed.
func zipText(b []byte, required string, content *regexp.Regexp) (string, error) {
	return packageText(b, content, required, "[Content_Types].xml")
}

// packageText opens a zip package (Office Open XML, or a QTI content
// package): it must hold the required parts and at least one content part,
// every XML part well formed.
func packageText(b []byte, content *regexp.Regexp, required ...string) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return "", fmt.Errorf("not a zip package: %w", err)
	}
	var text strings.Builder
	parts := 0
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".xml") && !strings.HasSuffix(f.Name, ".rels") {
			continue
		}
		t, err := xmlText(f)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.Name, err)
		}
		if content.MatchString(f.Name) {
			parts++
			text.WriteString(t)
			text.WriteByte(' ')
		}
	}
	if parts == 0 || slices.ContainsFunc(required, func(r string) bool { return lacks(zr, r) }) {
		return "", fmt.Errorf("the package lacks %s or its content", strings.Join(required, ", "))
	}
	return text.String(), nil
}

func lacks(zr *zip.Reader, name string) bool {
	return !slices.ContainsFunc(zr.File, func(f *zip.File) bool { return f.Name == name })
}

func xmlText(f *zip.File) (string, error) {
	rc, err := f.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	return readXMLText(rc)
}

// readXMLText is the character data of a well-formed XML document.
func readXMLText(r io.Reader) (string, error) {
	dec := xml.NewDecoder(io.LimitReader(r, maxFileBytes))
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return "", fmt.Errorf("not well-formed XML: %w", err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			b.Write(cd)
		}
	}
}

// pdfText checks the PDF's header and trailer and reads its text with
// poppler's pdftotext when it is installed.
func pdfText(ctx context.Context, b []byte) (string, error) {
	if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b[max(0, len(b)-1024):], []byte("%%EOF")) {
		return "", fmt.Errorf("not a PDF (header or %%%%EOF missing)")
	}
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		return "", nil
	}
	dir, err := os.MkdirTemp("", "eval-pdf-")
	if err != nil {
		return "", nil
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "f.pdf")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		return "", nil
	}
	out, err := exec.CommandContext(ctx, bin, "-enc", "UTF-8", in, "-").Output()
	if err != nil {
		return "", fmt.Errorf("pdftotext cannot read it: %w", err)
	}
	return string(out), nil
}
