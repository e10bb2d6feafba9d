// Package export turns a report's Markdown into an office.Document, so the
// existing writers (shared/office/docx, shared/office/pdf) produce the
// report as .docx and PDF: headings become sections (the first H1 the
// title), paragraphs, lists and GFM tables their blocks.
package export

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/report/mdtree"
)

// Document converts markdown (without front matter) to a document in lang.
func Document(markdown, lang string) office.Document {
	src := []byte(markdown)
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	root := md.Parser().Parse(text.NewReader(src))
	doc := office.Document{Lang: lang}
	var cur *office.Section
	add := func(b office.Block) {
		if cur == nil {
			doc.Sections = append(doc.Sections, office.Section{Level: 1})
			cur = &doc.Sections[len(doc.Sections)-1]
		}
		cur.Blocks = append(cur.Blocks, b)
	}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		switch b := n.(type) {
		case *ast.Heading:
			title := strings.TrimSpace(mdtree.InlineText(b, src))
			if b.Level == 1 && doc.Title == "" && len(doc.Sections) == 0 {
				doc.Title = title
				continue
			}
			doc.Sections = append(doc.Sections, office.Section{Heading: title, Level: min(max(b.Level-1, 1), 3)})
			cur = &doc.Sections[len(doc.Sections)-1]
		case *ast.Paragraph:
			add(office.Paragraph{Text: strings.TrimSpace(rawLines(b, src))})
		case *ast.List:
			l := office.List{Ordered: b.IsOrdered()}
			for it := b.FirstChild(); it != nil; it = it.NextSibling() {
				l.Items = append(l.Items, strings.TrimSpace(rawText(it, src)))
			}
			add(l)
		case *east.Table:
			add(table(b, src))
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			add(office.Paragraph{Text: strings.TrimSpace(rawLines(b, src))})
		case *ast.Blockquote:
			add(office.Paragraph{Text: strings.TrimSpace(rawText(b, src))})
		}
	}
	return doc
}

func table(t *east.Table, src []byte) office.Table {
	var out office.Table
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.TrimSpace(mdtree.InlineText(c, src)))
		}
		if _, head := r.(*east.TableHeader); head {
			out.Headers = cells
		} else {
			out.Rows = append(out.Rows, cells)
		}
	}
	return out
}

// rawLines is a block's own source lines (inline **bold** kept: the
// writers honour it).
func rawLines(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(b.String(), "\n", " ")), " ")
}

// rawText is the source text of a container's blocks (list items, quotes).
func rawText(n ast.Node, src []byte) string {
	var parts []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Lines().Len() > 0 {
			parts = append(parts, rawLines(c, src))
		} else {
			parts = append(parts, rawText(c, src))
		}
	}
	return strings.Join(parts, " ")
}
