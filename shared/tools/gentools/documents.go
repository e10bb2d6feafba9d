package gentools

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/docx"
	"github.com/insightedge/insightedge/shared/office/pdf"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

// Bounds of a document the model may ask for.
const (
	MaxSections  = 40
	MaxTableRows = 60
	MaxTableCols = 8
)

// Document kinds.
const (
	KindLessonPlan   = "lesson_plan"
	KindLectureNotes = "lecture_notes"
	KindHomework     = "homework"
)

// TableArg is a table with a header row.
type TableArg struct {
	Headers []string   `json:"headers" description:"column headings"`
	Rows    [][]string `json:"rows" description:"the rows, each with one cell per heading"`
}

// SectionArg is one section of a document.
type SectionArg struct {
	Heading    string    `json:"heading" description:"the section heading, e.g. 一、教学目标"`
	Level      int       `json:"level,omitempty" description:"heading level: 1 (default) for a section, 2 or 3 for a subsection"`
	Paragraphs []string  `json:"paragraphs,omitempty" description:"paragraphs of prose, in order"`
	Bullets    []string  `json:"bullets,omitempty" description:"a bulleted list, after the paragraphs"`
	Numbered   []string  `json:"numbered,omitempty" description:"a numbered list (steps, exercises), after the bullets"`
	Table      *TableArg `json:"table,omitempty" description:"a table, after the lists"`
}

// DocxArgs are generate_docx's arguments.
type DocxArgs struct {
	Title    string       `json:"title" description:"the document's title, also the file name"`
	Kind     string       `json:"kind" enum:"lesson_plan,lecture_notes,homework" description:"lesson_plan (教案), lecture_notes (讲稿) or homework (作业)"`
	Subject  string       `json:"subject,omitempty" description:"the subject, e.g. 数学"`
	Grade    string       `json:"grade,omitempty" description:"the grade, e.g. 八年级"`
	Sections []SectionArg `json:"sections" description:"the sections in order"`
}

// PDFArgs are render_pdf's arguments: a document as for generate_docx.
type PDFArgs struct {
	Title    string       `json:"title" description:"the document's title, also the file name"`
	Kind     string       `json:"kind,omitempty" enum:"lesson_plan,lecture_notes,homework" description:"lesson_plan (教案), lecture_notes (讲稿) or homework (作业)"`
	Subject  string       `json:"subject,omitempty" description:"the subject, e.g. 数学"`
	Grade    string       `json:"grade,omitempty" description:"the grade, e.g. 八年级"`
	Sections []SectionArg `json:"sections" description:"the sections in order"`
}

// document checks the arguments and builds the document.
func document(tool, title, kind, subject, grade string, sections []SectionArg) (office.Document, error) {
	if office.Line(title) == "" {
		return office.Document{}, argError(tool, "title is empty")
	}
	if len(sections) == 0 {
		return office.Document{}, argError(tool, "sections is empty: give at least one section")
	}
	if len(sections) > MaxSections {
		return office.Document{}, argError(tool, "%d sections is more than %d", len(sections), MaxSections)
	}
	doc := office.Document{Title: title}
	for i, s := range sections {
		sec := office.Section{Heading: s.Heading, Level: s.Level}
		for _, p := range s.Paragraphs {
			sec.Blocks = append(sec.Blocks, office.Paragraph{Text: p})
		}
		if len(s.Bullets) > 0 {
			sec.Blocks = append(sec.Blocks, office.List{Items: s.Bullets})
		}
		if len(s.Numbered) > 0 {
			sec.Blocks = append(sec.Blocks, office.List{Ordered: true, Items: s.Numbered})
		}
		if t := s.Table; t != nil {
			if len(t.Rows) > MaxTableRows {
				return office.Document{}, argError(tool, "section %d: the table has %d rows, more than %d", i+1, len(t.Rows), MaxTableRows)
			}
			tab := office.Table{Headers: t.Headers, Rows: t.Rows}
			if tab.Columns() > MaxTableCols {
				return office.Document{}, argError(tool, "section %d: the table has %d columns, more than %d", i+1, tab.Columns(), MaxTableCols)
			}
			sec.Blocks = append(sec.Blocks, tab)
		}
		doc.Sections = append(doc.Sections, sec)
	}
	doc = doc.Normalized()
	if len(doc.Sections) == 0 {
		return office.Document{}, argError(tool, "every section is empty")
	}
	doc.Lang = office.Lang("", doc.Title, docText(doc))
	l := i18n.Of(doc.Lang)
	var sub []string
	for _, s := range []string{subject, grade, l.Text(kindLabels[kind])} {
		if s = office.Line(s); s != "" {
			sub = append(sub, s)
		}
	}
	doc.Subtitle = strings.Join(sub, " · ")
	if kind == KindHomework {
		doc.Fields = []string{l.Text(i18n.FieldName), l.Text(i18n.FieldClass), l.Text(i18n.FieldDate)}
	}
	return doc, nil
}

// kindLabels name the kinds of document in a document's subtitle.
var kindLabels = map[string]i18n.Msg{
	KindLessonPlan: i18n.KindLessonPlan, KindLectureNotes: i18n.KindLectureNotes, KindHomework: i18n.KindHomework,
}

func docText(d office.Document) string {
	var b strings.Builder
	for _, s := range d.Sections {
		b.WriteString(s.Heading)
		for _, bl := range s.Blocks {
			if p, ok := bl.(office.Paragraph); ok {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String()
}

func (p *pack) generateDocx(ctx context.Context, c tools.Call, a DocxArgs) (tools.Result, error) {
	doc, err := document(GenerateDocx, a.Title, a.Kind, a.Subject, a.Grade, a.Sections)
	if err != nil {
		return tools.Result{}, err
	}
	return p.documentFile(ctx, c, a, GenerateDocx, "docx", docx.ContentType, doc, func() ([]byte, error) {
		var buf bytes.Buffer
		if err := docx.Write(&buf, doc, p.now()); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
}

func (p *pack) renderPDF(ctx context.Context, c tools.Call, a PDFArgs) (tools.Result, error) {
	doc, err := document(RenderPDF, a.Title, a.Kind, a.Subject, a.Grade, a.Sections)
	if err != nil {
		return tools.Result{}, err
	}
	if p.pdf == nil {
		return p.docxInstead(ctx, c, a, doc)
	}
	return p.documentFile(ctx, c, a, RenderPDF, "pdf", pdf.ContentType, doc, func() ([]byte, error) {
		return p.pdf.Bytes(doc, p.now())
	})
}

// docxInstead answers render_pdf on a server without the PDF font
// (pdf.FontPackage): the same document as .docx, with a PDF_UNAVAILABLE
// notice, so that the teacher gets the document and knows why it is not a
// PDF; its memory keeps the document, so a later export has its topic.
func (p *pack) docxInstead(ctx context.Context, c tools.Call, a PDFArgs, doc office.Document) (tools.Result, error) {
	p.log.WarnContext(ctx, "PDF unavailable: the document is made as .docx", "call", c.CallID, "font", pdf.FontPackage)
	res, err := p.documentFile(ctx, c, a, GenerateDocx, "docx", docx.ContentType, doc, func() ([]byte, error) {
		var buf bytes.Buffer
		if err := docx.Write(&buf, doc, p.now()); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
	if err != nil {
		return res, err
	}
	l := teacherLang(c, doc.Lang)
	notice := protocol.Notice{Code: protocol.NoticePDFUnavailable, Message: l.Text(i18n.PDFUnavailable)}
	res.Notices = append(res.Notices, notice)
	res.Message = notice.Message
	if out, ok := res.Output.(map[string]any); ok {
		out["pdfUnavailable"] = true
		out["teacherMessage"] = notice.Message
		out["next"] = "PDF export is unavailable on this server; the teacher got the same document as .docx (a download card) and a notice saying so. Tell them briefly, in their language, without naming tools."
	}
	return res, nil
}

func (p *pack) documentFile(ctx context.Context, c tools.Call, args any, tool, typ, contentType string, doc office.Document, build func() ([]byte, error)) (tools.Result, error) {
	d, err := p.deliver(ctx, c, args, file{tool: tool, title: doc.Title, ext: typ, contentType: contentType, build: build})
	if err != nil {
		return tools.Result{}, err
	}
	if err := emit(ctx, c, protocol.DataFileReady, FileReady{Type: typ, URL: d.url, Filename: d.obj.Filename(), Size: d.obj.Size}); err != nil {
		return tools.Result{}, err
	}
	l := teacherLang(c, doc.Lang)
	return tools.Result{
		Status:  protocol.ToolSuccess,
		Message: l.Text(i18n.FileReady, d.obj.Filename()),
		Output: map[string]any{
			"status": "ready", "type": typ, "filename": d.obj.Filename(), "size": d.obj.Size,
			"sections": len(doc.Sections),
			"next":     "The teacher sees a download card for the file; do not repeat the link. Tell them briefly what it contains.",
		},
		Memory: memory(fmt.Sprintf("%s file %s generated from this document", typ, d.obj.Filename()), args),
	}.Counted(len(doc.Sections), tools.Labels(doc.Sections, func(s office.Section) string { return s.Heading })...), nil
}
