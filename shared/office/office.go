// Package office is the format-neutral model of the files the generation tools
// produce: a Document (lesson plans, lecture notes, homework) and a Deck
// (slides). The writers live in sub-packages, one per format (pptx, docx, pdf,
// html); each reads this model and nothing else, so a document rendered as
// .docx and as PDF says the same thing.
//
// Text is plain Unicode. The model comes from a language model, so the
// constructors here clean it (control characters, stray whitespace) and the
// writers never have to.
package office

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/i18n"
)

// Document is a text document: a title, an optional subtitle and sections.
type Document struct {
	Title    string
	Subtitle string
	// Lang is a BCP 47 tag such as "zh-CN" or "en-US"; empty means "guess from
	// the text" (see Lang).
	Lang     string
	Author   string
	Sections []Section
	// Fields are short labelled blanks printed under the title, such as
	// "Name" and "Class" on a homework sheet.
	Fields []string
}

// Section is a heading and the blocks under it.
type Section struct {
	Heading string
	// Level is the heading level, 1 to 3 (0 is read as 1).
	Level  int
	Blocks []Block
	// NewPage starts the section on a new page (issue 31: a paper's
	// answer key).
	NewPage bool
}

// Block is one element of a section's body: Paragraph, List or Table.
type Block interface{ block() }

// Paragraph is a run of text. Inline **bold** spans are honoured by every
// writer (see Spans).
type Paragraph struct {
	Text string
}

// List is a bulleted or numbered list of items.
type List struct {
	Ordered bool
	Items   []string
}

// Table is a grid with a header row.
type Table struct {
	Headers []string
	Rows    [][]string
}

func (Paragraph) block() {}
func (List) block()      {}
func (Table) block()     {}

// Columns is the number of columns of t: the widest of the header and rows.
func (t Table) Columns() int {
	n := len(t.Headers)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	return n
}

// Cell returns the text of row r, column c ("" past the end of a short row);
// r = -1 is the header row.
func (t Table) Cell(r, c int) string {
	row := t.Headers
	if r >= 0 {
		row = t.Rows[r]
	}
	if c < len(row) {
		return row[c]
	}
	return ""
}

// Deck is a slide presentation: a title slide, then content slides.
type Deck struct {
	Title    string
	Subtitle string
	Lang     string
	Author   string
	Slides   []Slide
}

// Slide is one content slide.
type Slide struct {
	Title   string
	Bullets []string
	// Notes are the speaker notes, shown to the teacher only.
	Notes string
}

// Lang returns tag if it is set, otherwise "zh-CN" when the sample contains
// Han characters and "en-US" when it does not.
func Lang(tag string, sample ...string) string {
	if tag != "" {
		return tag
	}
	for _, s := range sample {
		if i18n.HasHan(s) {
			return "zh-CN"
		}
	}
	return "en-US"
}

// Clean returns s with control characters (other than newline and tab)
// removed, Windows line ends normalised and surrounding space trimmed. XML
// 1.0 forbids most control characters, so a stray one from a model would
// otherwise corrupt a .pptx or .docx.
func Clean(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return '\n'
		case unicode.IsControl(r), r == '\uFFFE', r == '\uFFFF', r >= 0xD800 && r <= 0xDFFF:
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// Line returns s cleaned and folded to one line (newlines and tabs become
// spaces); titles and bullets are single lines.
func Line(s string) string {
	s = Clean(s)
	s = strings.Join(strings.Fields(s), " ")
	return s
}

// ListItem returns s as one line without a leading list marker ("-", "*",
// "•", "1.", "2)", "（3）"): models often number or bullet the items of a
// list that the writer will number or bullet again.
func ListItem(s string) string {
	s = Line(s)
	for _, m := range []string{"- ", "* ", "• ", "· ", "·", "•", "– "} {
		if strings.HasPrefix(s, m) {
			return strings.TrimSpace(s[len(m):])
		}
	}
	// A number followed by ".", ")", "、" or "．", or a number in brackets.
	i := 0
	open := strings.HasPrefix(s, "(") || strings.HasPrefix(s, "（")
	if open {
		_, n := utf8.DecodeRuneInString(s)
		i = n
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || j-i > 2 {
		return s
	}
	r, n := utf8.DecodeRuneInString(s[j:])
	switch {
	case open && (r == ')' || r == '）'):
	case !open && (r == '.' || r == ')' || r == '、' || r == '．' || r == '）'):
		if r == '.' && j+n < len(s) && s[j+n] >= '0' && s[j+n] <= '9' { // "3.14" is a number, not a marker
			return s
		}
	default:
		return s
	}
	rest := strings.TrimSpace(s[j+n:])
	if rest == "" {
		return s
	}
	return rest
}

// Span is a piece of text with its emphasis.
type Span struct {
	Text string
	Bold bool
}

// Spans splits s at "**" markers into plain and bold spans. Models write
// Markdown emphasis even when asked not to; an unmatched "**" is kept as
// text.
func Spans(s string) []Span {
	parts := strings.Split(s, "**")
	if len(parts)%2 == 0 { // odd number of markers: the last one is unmatched
		last := len(parts) - 1
		parts[last-1] += "**" + parts[last]
		parts = parts[:last]
	}
	var out []Span
	for i, p := range parts {
		if p == "" {
			continue
		}
		out = append(out, Span{Text: p, Bold: i%2 == 1})
	}
	return out
}

// PlainText returns s without "**" emphasis markers.
func PlainText(s string) string {
	var b strings.Builder
	for _, sp := range Spans(s) {
		b.WriteString(sp.Text)
	}
	return b.String()
}

// EmWidth estimates the width of s in ems: wide (CJK, full-width) characters
// are one em, Latin capitals and digits a little over half, the rest about
// half. Good enough to choose a font size, not to lay out text.
func EmWidth(s string) float64 {
	w := 0.0
	for _, r := range PlainText(s) {
		switch {
		case r == ' ':
			w += 0.25
		case r >= 0x1100 && isWide(r):
			w += 1
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			w += 0.6
		case r == 'i' || r == 'l' || r == 'j' || r == '.' || r == ',' || r == '\'' || r == '!' || r == '|':
			w += 0.25
		case r == 'm' || r == 'w' || r == 'M' || r == 'W':
			w += 0.8
		default:
			w += 0.5
		}
	}
	return w
}

func isWide(r rune) bool {
	return (r >= 0x1100 && r <= 0x115F) || (r >= 0x2E80 && r <= 0xA4CF) || (r >= 0xAC00 && r <= 0xD7A3) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0xFE30 && r <= 0xFE4F) || (r >= 0xFF00 && r <= 0xFF60) ||
		(r >= 0xFFE0 && r <= 0xFFE6) || (r >= 0x20000 && r <= 0x3FFFD)
}

// Normalized returns a copy of d fit for a writer: text cleaned (titles,
// headings, list items and cells on one line), list markers the model
// typed removed, heading levels clamped to 1..3, and empty paragraphs,
// items, lists, tables and sections dropped.
func (d Document) Normalized() Document {
	out := Document{
		Title: Line(d.Title), Subtitle: Line(d.Subtitle), Lang: d.Lang, Author: Line(d.Author),
	}
	for _, f := range d.Fields {
		if f = Line(f); f != "" {
			out.Fields = append(out.Fields, f)
		}
	}
	for _, s := range d.Sections {
		c := Section{Heading: Line(s.Heading), Level: min(max(s.Level, 1), 3), NewPage: s.NewPage}
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case Paragraph:
				if t := Clean(b.Text); t != "" {
					c.Blocks = append(c.Blocks, Paragraph{Text: t})
				}
			case List:
				l := List{Ordered: b.Ordered}
				for _, it := range b.Items {
					if it = ListItem(it); it != "" {
						l.Items = append(l.Items, it)
					}
				}
				if len(l.Items) > 0 {
					c.Blocks = append(c.Blocks, l)
				}
			case Table:
				t := Table{Headers: cells(b.Headers)}
				for _, r := range b.Rows {
					if r = cells(r); len(r) > 0 {
						t.Rows = append(t.Rows, r)
					}
				}
				if t.Columns() > 0 && (len(t.Rows) > 0 || len(t.Headers) > 0) {
					c.Blocks = append(c.Blocks, t)
				}
			}
		}
		if c.Heading == "" && len(c.Blocks) == 0 {
			continue
		}
		out.Sections = append(out.Sections, c)
	}
	return out
}

// cells cleans a table row; a row whose cells are all empty becomes nil.
func cells(r []string) []string {
	out := make([]string, len(r))
	empty := true
	for i, c := range r {
		out[i] = Line(c)
		empty = empty && out[i] == ""
	}
	if empty {
		return nil
	}
	return out
}

// Normalized returns a copy of d fit for a writer: text on one line (notes
// keep their line breaks), list markers removed, slides with neither title
// nor bullets dropped.
func (d Deck) Normalized() Deck {
	out := Deck{Title: Line(d.Title), Subtitle: Line(d.Subtitle), Lang: d.Lang, Author: Line(d.Author)}
	for _, s := range d.Slides {
		c := Slide{Title: Line(s.Title), Notes: Clean(s.Notes)}
		for _, b := range s.Bullets {
			if b = ListItem(b); b != "" {
				c.Bullets = append(c.Bullets, b)
			}
		}
		if c.Title == "" && len(c.Bullets) == 0 {
			continue
		}
		out.Slides = append(out.Slides, c)
	}
	return out
}

// Paragraphs splits text at line breaks into non-empty paragraphs.
func Paragraphs(text string) []string {
	var out []string
	for p := range strings.SplitSeq(text, "\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
