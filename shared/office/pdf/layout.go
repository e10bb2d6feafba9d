package pdf

import (
	"strconv"

	"github.com/go-pdf/fpdf"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
)

// Page geometry (mm) and type sizes (pt).
const (
	pageW, pageH     = 210.0, 297.0
	marginX          = 20.0
	marginTop        = 20.0
	marginBottom     = 20.0
	contentW         = pageW - 2*marginX
	bodySize         = 11.0
	tableSize        = 10.0
	ptToMM           = 25.4 / 72
	lineFactor       = 1.6 // line height as a multiple of the type size
	listIndent       = 7.0
	cellPad          = 1.8
	paragraphSpacing = 2.2
)

// rgb is a colour as 0xRRGGBB.
type rgb uint32

func (c rgb) r() int { return int(c >> 16 & 0xFF) }
func (c rgb) g() int { return int(c >> 8 & 0xFF) }
func (c rgb) b() int { return int(c & 0xFF) }

// The palette of the .pptx theme and the .docx styles.
const (
	colorText   rgb = 0x1F2937
	colorNavy   rgb = 0x1E3A5F
	colorBlue   rgb = 0x2E75B6
	colorMuted  rgb = 0x6B7280
	colorRule   rgb = 0xA6B4C4
	colorHeader rgb = 0xE3ECF6
	colorZebra  rgb = 0xF7F9FC
	colorWhite  rgb = 0xFFFFFF
)

type renderer struct {
	f       *fpdf.Fpdf
	hasBold bool
	lang    string
	title   string
	// lastLevel is the outline level of the previous bookmark: fpdf's
	// outline must not skip a level.
	lastLevel int
}

func (r *renderer) setup() {
	f := r.f
	f.SetMargins(marginX, marginTop, marginX)
	f.SetAutoPageBreak(false, marginBottom) // pages are broken by ensure
	f.SetCellMargin(0)
	r.lastLevel = -1
	f.SetHeaderFunc(func() {
		if f.PageNo() == 1 {
			return
		}
		r.font(false, 8.5)
		r.color(colorMuted)
		f.SetXY(marginX, 9)
		f.CellFormat(contentW, 5, r.fit(office.PlainText(r.title), contentW), "", 0, "L", false, 0, "")
		r.rule(marginX, 14.5, contentW, colorRule, 0.2)
	})
	f.SetFooterFunc(func() {
		r.font(false, 9)
		r.color(colorMuted)
		f.SetXY(marginX, pageH-13)
		f.CellFormat(contentW, 5, i18n.Of(r.lang).Text(i18n.PageNumber, f.PageNo()), "", 0, "C", false, 0, "")
	})
	f.AddPage()
}

func (r *renderer) font(bold bool, size float64) {
	style := ""
	if bold && r.hasBold {
		style = "B"
	}
	r.f.SetFont(family, style, size)
}

func (r *renderer) color(c rgb) { r.f.SetTextColor(c.r(), c.g(), c.b()) }

func (r *renderer) rule(x, y, w float64, c rgb, width float64) {
	r.f.SetDrawColor(c.r(), c.g(), c.b())
	r.f.SetLineWidth(width)
	r.f.Line(x, y, x+w, y)
}

// measure returns a measurer at size.
func (r *renderer) measure(size float64) measurer {
	return func(s string, bold bool) float64 {
		r.font(bold, size)
		return r.f.GetStringWidth(s)
	}
}

// fit shortens s with an ellipsis to fit width at the current font.
func (r *renderer) fit(s string, width float64) string {
	if r.f.GetStringWidth(s) <= width {
		return s
	}
	rs := []rune(s)
	for len(rs) > 0 && r.f.GetStringWidth(string(rs)+"…") > width {
		rs = rs[:len(rs)-1]
	}
	return string(rs) + "…"
}

// ensure starts a new page unless h more millimetres fit on this one.
func (r *renderer) ensure(h float64) {
	if r.f.GetY()+h > pageH-marginBottom {
		r.f.AddPage()
		r.f.SetY(marginTop)
	}
}

func lineHeight(size float64) float64 { return size * ptToMM * lineFactor }

// text lays out text in a column at x, width w; bold runs use the bold face
// (or, without one, are set in the heading colour). align is "L" or "C".
func (r *renderer) text(text string, x, w, size float64, c rgb, bold bool, align string) {
	lh := lineHeight(size)
	for _, ln := range wrap(text, w, r.measure(size)) {
		r.ensure(lh)
		r.drawLine(ln, x, w, lh, size, c, bold, align)
		r.f.SetY(r.f.GetY() + lh)
	}
}

func (r *renderer) drawLine(ln line, x, w, lh, size float64, c rgb, bold bool, align string) {
	if align == "C" {
		x += (w - ln.width) / 2
	}
	y := r.f.GetY()
	for _, s := range ln.segs {
		b := bold || s.bold
		r.font(b, size)
		if s.bold && !bold && !r.hasBold {
			r.color(colorNavy)
		} else {
			r.color(c)
		}
		sw := r.f.GetStringWidth(s.text)
		r.f.SetXY(x, y)
		r.f.CellFormat(sw, lh, s.text, "", 0, "LM", false, 0, "")
		x += sw
	}
}

func (r *renderer) document(doc office.Document) {
	f := r.f
	f.SetY(marginTop + 4)
	r.text(doc.Title, marginX, contentW, 22, colorNavy, true, "C")
	if doc.Subtitle != "" {
		f.SetY(f.GetY() + 1)
		r.text(doc.Subtitle, marginX, contentW, 12.5, colorMuted, false, "C")
	}
	if len(doc.Fields) > 0 {
		colon := i18n.Of(r.lang).Text(i18n.FieldSeparator)
		line := ""
		for i, fl := range doc.Fields {
			if i > 0 {
				line += "      "
			}
			line += fl + colon + "______________"
		}
		f.SetY(f.GetY() + 3)
		r.text(line, marginX, contentW, 11.5, colorText, false, "C")
	}
	f.SetY(f.GetY() + 3)
	r.rule(marginX, f.GetY(), contentW, colorBlue, 0.6)
	f.SetY(f.GetY() + 4)

	for _, s := range doc.Sections {
		if s.NewPage {
			f.AddPage()
			f.SetY(marginTop)
		}
		if s.Heading != "" {
			r.heading(s.Heading, s.Level)
		}
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case office.Paragraph:
				for _, p := range office.Paragraphs(b.Text) {
					r.text(p, marginX, contentW, bodySize, colorText, false, "L")
					f.SetY(f.GetY() + paragraphSpacing)
				}
			case office.List:
				r.list(b)
			case office.Table:
				r.table(b)
			}
		}
	}
}

func (r *renderer) heading(text string, level int) {
	f := r.f
	size, before, c := 16.0, 6.0, colorNavy
	switch level {
	case 2:
		size, before, c = 13.5, 4.5, colorBlue
	case 3:
		size, before, c = 12, 3.5, colorText
	}
	lines := wrap(text, contentW, r.measure(size))
	lh := lineHeight(size) * 0.9
	// Keep the heading with the first two lines of what follows.
	r.ensure(before + float64(len(lines))*lh + 2*lineHeight(bodySize))
	if f.GetY() > marginTop+1 {
		f.SetY(f.GetY() + before)
	}
	outline := min(level-1, r.lastLevel+1)
	f.Bookmark(office.PlainText(text), outline, -1)
	r.lastLevel = outline
	for _, ln := range lines {
		r.drawLine(ln, marginX, contentW, lh, size, c, true, "L")
		f.SetY(f.GetY() + lh)
	}
	if level == 1 {
		r.rule(marginX, f.GetY()+0.8, contentW, colorBlue, 0.4)
		f.SetY(f.GetY() + 3)
	} else {
		f.SetY(f.GetY() + 1.5)
	}
}

func (r *renderer) list(l office.List) {
	f := r.f
	lh := lineHeight(bodySize)
	for i, it := range l.Items {
		lines := wrap(it, contentW-listIndent, r.measure(bodySize))
		for j, ln := range lines {
			r.ensure(lh)
			if j == 0 {
				marker, c := "•", colorBlue
				if l.Ordered {
					marker, c = strconv.Itoa(i+1)+".", colorText
				}
				r.font(false, bodySize)
				r.color(c)
				f.SetXY(marginX+1.5, f.GetY())
				f.CellFormat(listIndent-1.5, lh, marker, "", 0, "LM", false, 0, "")
			}
			r.drawLine(ln, marginX+listIndent, contentW-listIndent, lh, bodySize, colorText, false, "L")
			f.SetY(f.GetY() + lh)
		}
		f.SetY(f.GetY() + 0.8)
	}
	f.SetY(f.GetY() + paragraphSpacing)
}

func (r *renderer) table(t office.Table) {
	f := r.f
	cols := t.Columns()
	widths := r.columnWidths(t)
	lh := lineHeight(tableSize) * 0.9

	type cell struct{ lines []line }
	layout := func(row int) ([]cell, float64) {
		cells := make([]cell, cols)
		h := 0.0
		for c := range cols {
			text := t.Cell(row, c)
			if row < 0 {
				text = "**" + office.PlainText(text) + "**"
			}
			cells[c].lines = wrap(text, widths[c]-2*cellPad, r.measure(tableSize))
			h = max(h, float64(max(len(cells[c].lines), 1))*lh)
		}
		return cells, h + 2*cellPad
	}
	draw := func(row int, cells []cell, h float64) {
		x, y := marginX, f.GetY()
		fill := colorWhite
		switch {
		case row < 0:
			fill = colorHeader
		case row%2 == 1:
			fill = colorZebra
		}
		f.SetDrawColor(colorRule.r(), colorRule.g(), colorRule.b())
		f.SetLineWidth(0.25)
		f.SetFillColor(fill.r(), fill.g(), fill.b())
		for c := range cols {
			f.Rect(x, y, widths[c], h, "FD")
			f.SetY(y + cellPad)
			for _, ln := range cells[c].lines {
				r.drawLine(ln, x+cellPad, widths[c]-2*cellPad, lh, tableSize, colorText, row < 0, "L")
				f.SetY(f.GetY() + lh)
			}
			x += widths[c]
		}
		f.SetY(y + h)
	}

	var header []cell
	var headerH float64
	if len(t.Headers) > 0 {
		header, headerH = layout(-1)
		first := 0.0
		if len(t.Rows) > 0 {
			_, first = layout(0)
		}
		r.ensure(headerH + first) // never a header alone at the foot of a page
		draw(-1, header, headerH)
	}
	for i := range t.Rows {
		cells, h := layout(i)
		if f.GetY()+h > pageH-marginBottom {
			f.AddPage()
			f.SetY(marginTop)
			if header != nil {
				draw(-1, header, headerH) // repeat the header on the new page
			}
		}
		draw(i, cells, h)
	}
	f.SetY(f.GetY() + paragraphSpacing + 1)
}

// columnWidths gives each column its natural width when that is less than
// an even share, and shares the rest of the page among the others in
// proportion to their natural widths; narrow tables are stretched to the
// full width.
func (r *renderer) columnWidths(t office.Table) []float64 {
	cols := t.Columns()
	natural := make([]float64, cols)
	for c := range cols {
		r.font(true, tableSize)
		w := r.f.GetStringWidth(office.PlainText(t.Cell(-1, c)))
		r.font(false, tableSize)
		for i := range t.Rows {
			w = max(w, r.f.GetStringWidth(office.PlainText(t.Cell(i, c))))
		}
		natural[c] = max(w+2*cellPad+0.5, 14)
	}
	total := 0.0
	for _, w := range natural {
		total += w
	}
	out := make([]float64, cols)
	if total <= contentW {
		for c, w := range natural {
			out[c] = w * contentW / total
		}
		return out
	}
	// Columns at or under the share keep their width; repeat while some
	// column drops under the share left.
	fixed := make([]bool, cols)
	for range cols {
		rest, flexible, flexTotal := contentW, 0, 0.0
		for c := range cols {
			if fixed[c] {
				rest -= natural[c]
			} else {
				flexible++
				flexTotal += natural[c]
			}
		}
		changed := false
		for c := range cols {
			if !fixed[c] && natural[c] <= rest/float64(flexible) {
				fixed[c], changed = true, true
			}
		}
		if !changed {
			for c := range cols {
				if fixed[c] {
					out[c] = natural[c]
				} else {
					out[c] = natural[c] * rest / flexTotal
				}
			}
			return out
		}
	}
	// Every column is under its share: the table fits (handled above).
	copy(out, natural)
	return out
}
