package quizexport_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office/docx"
	"github.com/insightedge/insightedge/shared/office/officetest"
	"github.com/insightedge/insightedge/shared/office/quizexport"
)

// TestPaper reads the paper back with readers that are not ours: the PDF
// with pdftotext (the questions on the first pages, the answer key alone
// on the pages after them, matching the quiz; Chinese rendered), the .docx
// with officeparser.
func TestPaper(t *testing.T) {
	w := officetest.PDFWriter(t)
	for lang := range wants {
		t.Run(lang, func(t *testing.T) {
			q := quiz(t, lang)
			doc := quizexport.PaperDocument(q)
			l := i18n.Of(q.Lang)
			pdfBytes, err := w.Bytes(doc, modified)
			if err != nil {
				t.Fatal(err)
			}
			file := writeTemp(t, "paper.pdf", pdfBytes)
			pages := strings.Split(officetest.PDFText(t, file), "\f")
			keyHeading := l.Text(i18n.PaperAnswerKey)
			keyPage := -1
			for i, p := range pages {
				if strings.Contains(p, keyHeading) {
					keyPage = i
					break
				}
			}
			if keyPage < 1 {
				t.Fatalf("the answer key %q is not on a page after the questions: %q", keyHeading, pages)
			}
			questions := squash(strings.Join(pages[:keyPage], ""))
			key := squash(strings.Join(pages[keyPage:], ""))
			// Above the key's heading, its page holds the running title only.
			if before, _, _ := strings.Cut(pages[keyPage], keyHeading); squash(before) != squash(q.Title) {
				t.Errorf("the key's page does not start with its heading: %q", pages[keyPage])
			}
			for _, qu := range q.Questions {
				stem := squash(qu.Stem)
				if !strings.Contains(questions, stem[:min(len(stem), 30)]) {
					t.Errorf("question %d %q is not among the questions", qu.Number, qu.Stem)
				}
				if strings.Contains(key, stem[:min(len(stem), 30)]) {
					t.Errorf("question %d's stem is on the answer key's page", qu.Number)
				}
				for _, o := range qu.Options {
					if !strings.Contains(questions, squash(o)) {
						t.Errorf("question %d option %q missing", qu.Number, o)
					}
				}
				// The key lists "number answer explanation" in a row.
				row := squash(itoa(qu.Number) + qu.Key())
				if !strings.Contains(key, row) {
					t.Errorf("the key lacks question %d's answer %q", qu.Number, qu.Key())
				}
				if e := squash(qu.Explanation); !strings.Contains(key, e[:min(len(e), 24)]) {
					t.Errorf("the key lacks question %d's explanation %q", qu.Number, qu.Explanation)
				}
			}

			var buf bytes.Buffer
			if err := docx.Write(&buf, doc, modified); err != nil {
				t.Fatal(err)
			}
			docFile := filepath.Join(t.TempDir(), "paper-"+lang+".docx")
			parsed := officetest.OfficeParser(t, writeAt(t, docFile, buf.Bytes()))[0]
			text := squash(parsed.Text)
			at := strings.Index(text, squash(keyHeading))
			if at < 0 {
				t.Fatalf("the .docx has no answer key: %q", parsed.Text)
			}
			for _, qu := range q.Questions {
				stem := squash(qu.Stem)
				if i := strings.Index(text, stem); i < 0 || i > at {
					t.Errorf(".docx: question %d is not before the key", qu.Number)
				}
				if !strings.Contains(text[at:], squash(qu.Key())) {
					t.Errorf(".docx: the key lacks question %d's answer %q", qu.Number, qu.Key())
				}
			}
		})
	}
}

// squash removes white space, which line wrapping and table cells put
// anywhere.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func writeAt(t *testing.T, path string, data []byte) string {
	t.Helper()
	return writeTempPath(t, path, data)
}
