package mdtree

import "strings"

// Assemble rebuilds the template's structure with contents[leafID] under
// each leaf (seed 002, aggregator): the title on top (front matter, first H1,
// else fallbackTitle), every heading at its level and in its order, and
// nothing of the template's guidance text. Headings inside a content are
// not the template's: one that repeats its leaf's title is dropped, any
// other becomes a bold line, so the report's heading tree is the template's.
func Assemble(d *Doc, contents map[int]string, fallbackTitle string) string {
	var b strings.Builder
	title := d.Title
	if title == "" {
		title = strings.TrimSpace(fallbackTitle)
	}
	if !d.TitleFromH1 && title != "" {
		b.WriteString("# " + title + "\n\n")
	}
	for _, h := range d.Headings {
		b.WriteString(strings.Repeat("#", h.Level) + " " + h.Title + "\n\n")
		if h.Leaf == 0 {
			continue
		}
		if c := strings.TrimSpace(Unheaded(contents[h.Leaf], h.Title)); c != "" {
			b.WriteString(c + "\n\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// Unheaded removes from content a heading that repeats title and turns every
// other heading into a bold line.
func Unheaded(content, title string) string {
	src := []byte(content)
	type cut struct {
		start, end int
		repl       string
	}
	var cuts []cut
	for h := range headings(src) {
		start := lineStart(src, h)
		end := len(src)
		if i := strings.IndexByte(content[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		if h.Lines().Len() > 0 { // a setext heading spans its underline too
			last := h.Lines().At(h.Lines().Len() - 1)
			if j := strings.IndexByte(content[last.Stop:], '\n'); j >= 0 && last.Stop+j+1 > end {
				end = last.Stop + j + 1
			}
		}
		t := strings.TrimSpace(InlineText(h, src))
		repl := ""
		if t != "" && !sameTitle(t, title) {
			repl = "**" + t + "**\n"
		}
		cuts = append(cuts, cut{start, end, repl})
	}
	for i := len(cuts) - 1; i >= 0; i-- {
		c := cuts[i]
		content = content[:c.start] + c.repl + content[c.end:]
	}
	return content
}

func sameTitle(a, b string) bool {
	norm := func(s string) string {
		return strings.ToLower(strings.Join(strings.Fields(strings.Trim(s, " #*:：")), " "))
	}
	return norm(a) == norm(b)
}

// Outline is the heading tree as "level title" lines, for comparing two
// documents' structures.
func Outline(markdown string) ([]string, error) {
	d, err := Parse(markdown)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, h := range d.Headings {
		out = append(out, strings.Repeat("#", h.Level)+" "+h.Title)
	}
	return out, nil
}
