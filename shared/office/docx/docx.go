// Package docx writes an office.Document as a Word document (.docx,
// ECMA-376 WordprocessingML).
//
// Parts: document, styles (Title, Subtitle, Heading1..3 named "heading N" so
// Word's navigation pane and table of contents see them, List Paragraph,
// Table Grid), numbering (one bullet list definition; a numbering instance
// per numbered list so each starts at 1), settings (Word 2013+
// compatibility, so Word does not open it in compatibility mode), a footer
// with page numbers, and the core and app properties. Page size is A4.
package docx

import (
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/internal/ooxml"
)

//go:embed parts/styles.xml
var stylesXML []byte

// ContentType is the media type of a .docx file.
const ContentType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

const (
	ctDocument  = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
	ctStyles    = "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"
	ctNumbering = "application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"
	ctSettings  = "application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"
	ctFooter    = "application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"

	nsW = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsR = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

	// A4 in twentieths of a point, with 2.2 cm side margins.
	pageWidth   = 11906
	pageHeight  = 16838
	marginSide  = 1247
	marginTopBt = 1304
	textWidth   = pageWidth - 2*marginSide

	bulletNumID = 1 // the w:num of every bulleted list
)

// Write writes doc as a .docx file to w; created stamps the properties and
// zip entries (zero leaves the date out).
func Write(w io.Writer, doc office.Document, created time.Time) error {
	doc = doc.Normalized()
	if doc.Title == "" {
		return fmt.Errorf("docx: the document has no title")
	}
	lang := office.Lang(doc.Lang, doc.Title, sample(doc))

	body, ordered := document(doc, lang)

	p := ooxml.NewPackage(w, created)
	p.AddRels("", []ooxml.Relationship{
		{ID: "rId1", Type: ooxml.RelOfficeDocument, Target: "word/document.xml"},
		{ID: "rId2", Type: ooxml.RelCoreProps, Target: "docProps/core.xml"},
		{ID: "rId3", Type: ooxml.RelExtendedProps, Target: "docProps/app.xml"},
	})
	p.Add("docProps/core.xml", ooxml.TypeCoreProps, ooxml.CoreProps(doc.Title, doc.Author, lang, created))
	p.Add("docProps/app.xml", ooxml.TypeAppProps, ooxml.AppProps())
	p.Add("word/document.xml", ctDocument, body)
	p.AddRels("word/document.xml", []ooxml.Relationship{
		{ID: "rId1", Type: ooxml.Rel("styles"), Target: "styles.xml"},
		{ID: "rId2", Type: ooxml.Rel("numbering"), Target: "numbering.xml"},
		{ID: "rId3", Type: ooxml.Rel("settings"), Target: "settings.xml"},
		{ID: "rId4", Type: ooxml.Rel("footer"), Target: "footer1.xml"},
	})
	p.Add("word/styles.xml", ctStyles, stylesXML)
	p.Add("word/numbering.xml", ctNumbering, numbering(ordered))
	p.Add("word/settings.xml", ctSettings, settings())
	p.Add("word/footer1.xml", ctFooter, footer(lang))
	if err := p.Close(); err != nil {
		return fmt.Errorf("docx: %w", err)
	}
	return nil
}

func sample(doc office.Document) string {
	var s string
	for _, sec := range doc.Sections {
		s += sec.Heading
	}
	return s
}

// document returns word/document.xml and the number of numbered lists
// (each needs its own numbering instance).
func document(doc office.Document, lang string) ([]byte, int) {
	var x ooxml.Writer
	x.Declaration()
	x.Open("w:document", "xmlns:w", nsW, "xmlns:r", nsR)
	x.Open("w:body")

	para(&x, "Title", doc.Title)
	if doc.Subtitle != "" {
		para(&x, "Subtitle", doc.Subtitle)
	}
	if len(doc.Fields) > 0 {
		x.Open("w:p")
		x.Raw(`<w:pPr><w:pStyle w:val="FormFields"/></w:pPr>`)
		colon := i18n.Of(lang).Text(i18n.FieldSeparator)
		for i, f := range doc.Fields {
			gap := "      "
			if i == 0 {
				gap = ""
			}
			run(&x, gap+f+colon+"____________", false)
		}
		x.Close("w:p")
	}

	ordered := 0
	for _, s := range doc.Sections {
		if s.NewPage {
			x.Raw(`<w:p><w:r><w:br w:type="page"/></w:r></w:p>`)
		}
		if s.Heading != "" {
			para(&x, "Heading"+strconv.Itoa(s.Level), s.Heading)
		}
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case office.Paragraph:
				for _, t := range office.Paragraphs(b.Text) {
					para(&x, "", t)
				}
			case office.List:
				numID := bulletNumID
				if b.Ordered {
					ordered++
					numID = bulletNumID + ordered
				}
				for _, it := range b.Items {
					x.Open("w:p")
					x.Raw(`<w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/>`)
					x.Empty("w:numId", "w:val", strconv.Itoa(numID))
					x.Raw(`</w:numPr></w:pPr>`)
					spans(&x, it)
					x.Close("w:p")
				}
			case office.Table:
				table(&x, b)
			}
		}
	}

	x.Open("w:sectPr")
	x.Empty("w:footerReference", "w:type", "default", "r:id", "rId4")
	x.Empty("w:pgSz", "w:w", strconv.Itoa(pageWidth), "w:h", strconv.Itoa(pageHeight))
	x.Empty("w:pgMar", "w:top", strconv.Itoa(marginTopBt), "w:right", strconv.Itoa(marginSide),
		"w:bottom", strconv.Itoa(marginTopBt), "w:left", strconv.Itoa(marginSide),
		"w:header", "720", "w:footer", "567", "w:gutter", "0")
	x.Empty("w:cols", "w:space", "425")
	x.Empty("w:docGrid", "w:type", "lines", "w:linePitch", "312")
	x.Close("w:sectPr")
	x.Close("w:body")
	x.Close("w:document")
	return x.Bytes(), ordered
}

// para writes a paragraph of style (empty for Normal) with **bold** spans.
func para(x *ooxml.Writer, style, text string) {
	x.Open("w:p")
	if style != "" {
		x.Open("w:pPr")
		x.Empty("w:pStyle", "w:val", style)
		x.Close("w:pPr")
	}
	spans(x, text)
	x.Close("w:p")
}

func spans(x *ooxml.Writer, text string) {
	for _, sp := range office.Spans(text) {
		run(x, sp.Text, sp.Bold)
	}
}

func run(x *ooxml.Writer, text string, bold bool) {
	x.Open("w:r")
	if bold {
		x.Raw(`<w:rPr><w:b/><w:bCs/></w:rPr>`)
	}
	x.Element("w:t", text, "xml:space", "preserve")
	x.Close("w:r")
}

func table(x *ooxml.Writer, t office.Table) {
	cols := t.Columns()
	widths := columnWidths(t, textWidth)
	border := func(side string) {
		x.Empty("w:"+side, "w:val", "single", "w:sz", "4", "w:space", "0", "w:color", "A6B4C4")
	}
	x.Open("w:tbl")
	x.Open("w:tblPr")
	x.Empty("w:tblStyle", "w:val", "TableGrid")
	x.Empty("w:tblW", "w:w", strconv.Itoa(textWidth), "w:type", "dxa")
	x.Open("w:tblBorders")
	for _, side := range []string{"top", "left", "bottom", "right", "insideH", "insideV"} {
		border(side)
	}
	x.Close("w:tblBorders")
	x.Empty("w:tblLayout", "w:type", "fixed")
	x.Empty("w:tblLook", "w:val", "04A0", "w:firstRow", "1", "w:lastRow", "0",
		"w:firstColumn", "0", "w:lastColumn", "0", "w:noHBand", "0", "w:noVBand", "1")
	x.Close("w:tblPr")
	x.Open("w:tblGrid")
	for _, w := range widths {
		x.Empty("w:gridCol", "w:w", strconv.Itoa(w))
	}
	x.Close("w:tblGrid")
	row := func(r int) {
		header := r < 0
		x.Open("w:tr")
		if header {
			x.Raw(`<w:trPr><w:cantSplit/><w:tblHeader/></w:trPr>`)
		} else {
			x.Raw(`<w:trPr><w:cantSplit/></w:trPr>`)
		}
		for c := range cols {
			x.Open("w:tc")
			x.Open("w:tcPr")
			x.Empty("w:tcW", "w:w", strconv.Itoa(widths[c]), "w:type", "dxa")
			if header {
				x.Empty("w:shd", "w:val", "clear", "w:color", "auto", "w:fill", "E3ECF6")
			} else if r%2 == 1 {
				x.Empty("w:shd", "w:val", "clear", "w:color", "auto", "w:fill", "F7F9FC")
			}
			x.Empty("w:vAlign", "w:val", "center")
			x.Close("w:tcPr")
			x.Open("w:p")
			x.Raw(`<w:pPr><w:pStyle w:val="TableText"/></w:pPr>`)
			if header {
				run(x, office.PlainText(t.Cell(r, c)), true)
			} else {
				spans(x, t.Cell(r, c))
			}
			x.Close("w:p")
			x.Close("w:tc")
		}
		x.Close("w:tr")
	}
	if len(t.Headers) > 0 {
		row(-1)
	}
	for r := range t.Rows {
		row(r)
	}
	x.Close("w:tbl")
	// Word ends a table with a paragraph; it also keeps two tables apart.
	x.Raw(`<w:p><w:pPr><w:spacing w:after="60"/></w:pPr></w:p>`)
}

// columnWidths shares total among t's columns in proportion to the widest
// text of each, no column narrower than half an even share.
func columnWidths(t office.Table, total int) []int {
	cols := t.Columns()
	want := make([]float64, cols)
	for c := range cols {
		w := office.EmWidth(t.Cell(-1, c))
		for r := range t.Rows {
			w = max(w, office.EmWidth(t.Cell(r, c)))
		}
		want[c] = min(max(w, 2), 30) // beyond 30 ems the cell wraps anyway
	}
	sum := 0.0
	for _, w := range want {
		sum += w
	}
	floor := float64(total) / float64(cols) / 2
	out := make([]int, cols)
	rest := float64(total) - floor*float64(cols)
	used := 0
	for c, w := range want {
		out[c] = int(floor + rest*w/sum)
		used += out[c]
	}
	out[cols-1] += total - used
	return out
}

func numbering(ordered int) []byte {
	var x ooxml.Writer
	x.Declaration()
	x.Open("w:numbering", "xmlns:w", nsW)
	x.Raw(`<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="hybridMultilevel"/>` +
		`<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="` + "\u2022" + `"/><w:lvlJc w:val="left"/>` +
		`<w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr><w:rPr><w:rFonts w:ascii="Arial" w:hAnsi="Arial" w:hint="default"/><w:color w:val="2E75B6"/></w:rPr></w:lvl>` +
		`</w:abstractNum>`)
	x.Raw(`<w:abstractNum w:abstractNumId="1"><w:multiLevelType w:val="hybridMultilevel"/>` +
		`<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/><w:lvlJc w:val="left"/>` +
		`<w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl>` +
		`</w:abstractNum>`)
	x.Raw(`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>`)
	for i := range ordered {
		x.Open("w:num", "w:numId", strconv.Itoa(bulletNumID+1+i))
		x.Raw(`<w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride>`)
		x.Close("w:num")
	}
	x.Close("w:numbering")
	return x.Bytes()
}

func settings() []byte {
	var x ooxml.Writer
	x.Declaration()
	x.Open("w:settings", "xmlns:w", nsW)
	x.Empty("w:defaultTabStop", "w:val", "420")
	x.Empty("w:characterSpacingControl", "w:val", "compressPunctuation")
	x.Raw(`<w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat>`)
	x.Empty("w:themeFontLang", "w:val", "en-US", "w:eastAsia", "zh-CN")
	x.Close("w:settings")
	return x.Bytes()
}

func footer(lang string) []byte {
	var x ooxml.Writer
	x.Declaration()
	x.Open("w:ftr", "xmlns:w", nsW, "xmlns:r", nsR)
	x.Open("w:p")
	x.Raw(`<w:pPr><w:pStyle w:val="Footer"/></w:pPr>`)
	field := func(instr, shown string) {
		x.Raw(`<w:r><w:fldChar w:fldCharType="begin"/></w:r>`)
		x.Open("w:r")
		x.Element("w:instrText", " "+instr+" ", "xml:space", "preserve")
		x.Close("w:r")
		x.Raw(`<w:r><w:fldChar w:fldCharType="separate"/></w:r>`)
		run(&x, shown, false)
		x.Raw(`<w:r><w:fldChar w:fldCharType="end"/></w:r>`)
	}
	// The catalogue's "Page %s of %s", its two numbers as fields.
	texts := i18n.Of(lang).Parts(i18n.PageNumberOf)
	run(&x, texts[0], false)
	field("PAGE", "1")
	run(&x, texts[1], false)
	field("NUMPAGES", "1")
	if texts[2] != "" {
		run(&x, texts[2], false)
	}
	x.Close("w:p")
	x.Close("w:ftr")
	return x.Bytes()
}
