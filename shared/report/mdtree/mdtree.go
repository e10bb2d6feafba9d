// Package mdtree reads a report template: its YAML front matter, its heading
// tree and its leaves (the smallest sections, the ones a solver writes), with
// goldmark as the Markdown parser, and converts HTML templates to Markdown.
//
// A leaf is a heading with no heading of a deeper level under it. Its
// template is the Markdown from its heading line up to the next heading.
package mdtree

import (
	"bytes"
	"fmt"
	"iter"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"
	"gopkg.in/yaml.v3"
)

// Node is a heading of the template.
type Node struct {
	Level    int     `json:"level"`
	Title    string  `json:"title"`
	Children []*Node `json:"children,omitempty"`
	// Leaf is the leaf's number (1..N in document order), 0 for inner headings.
	Leaf int `json:"leaf,omitempty"`
}

// Leaf is a smallest section.
type Leaf struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Level int    `json:"level"`
	// Path are the titles of the headings above it, outermost first.
	Path     []string `json:"path,omitempty"`
	Template string   `json:"template"`
}

// Doc is a parsed template.
type Doc struct {
	// Title is the front matter's title, else the first H1's text, else "".
	Title string `json:"title"`
	// TitleFromH1 reports that Title is the first H1 (and so already a heading).
	TitleFromH1 bool           `json:"-"`
	FrontMatter map[string]any `json:"front_matter,omitempty"`
	Tree        []*Node        `json:"tree"`
	Leaves      []Leaf         `json:"leaves"`
	// Headings are all headings in document order.
	Headings []*Node `json:"-"`
}

// MaxHeadings bounds the headings of a template a plan is made from.
const MaxHeadings = 200

// Parse reads a Markdown template.
func Parse(markdown string) (*Doc, error) {
	fm, body, err := frontMatter(markdown)
	if err != nil {
		return nil, err
	}
	src := []byte(body)
	type found struct {
		node  *Node
		start int
	}
	var hs []found
	for h := range headings(src) {
		title := strings.TrimSpace(InlineText(h, src))
		if title == "" {
			continue
		}
		hs = append(hs, found{&Node{Level: h.Level, Title: title}, lineStart(src, h)})
	}
	if len(hs) > MaxHeadings {
		return nil, fmt.Errorf("mdtree: the template has %d headings, more than %d", len(hs), MaxHeadings)
	}
	d := &Doc{FrontMatter: fm}
	if t, ok := fm["title"].(string); ok && strings.TrimSpace(t) != "" {
		d.Title = strings.TrimSpace(t)
	}
	var stack []*Node
	for i, h := range hs {
		d.Headings = append(d.Headings, h.node)
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.node.Level {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			d.Tree = append(d.Tree, h.node)
		} else {
			p := stack[len(stack)-1]
			p.Children = append(p.Children, h.node)
		}
		var path []string
		for _, p := range stack {
			path = append(path, p.Title)
		}
		stack = append(stack, h.node)
		end := len(src)
		if i+1 < len(hs) {
			end = hs[i+1].start
		}
		if i+1 == len(hs) || hs[i+1].node.Level <= h.node.Level {
			h.node.Leaf = len(d.Leaves) + 1
			d.Leaves = append(d.Leaves, Leaf{ID: h.node.Leaf, Title: h.node.Title, Level: h.node.Level, Path: path,
				Template: strings.TrimRight(string(src[h.start:end]), "\n") + "\n"})
		}
	}
	if d.Title == "" {
		for _, h := range hs {
			if h.node.Level == 1 {
				d.Title, d.TitleFromH1 = h.node.Title, true
				break
			}
		}
	} else if len(hs) > 0 && hs[0].node.Level == 1 && hs[0].node.Title == d.Title {
		d.TitleFromH1 = true
	}
	return d, nil
}

// frontMatter splits a leading "---" YAML block from the body.
func frontMatter(s string) (map[string]any, string, error) {
	s = strings.TrimPrefix(s, "\ufeff")
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		rest, ok = strings.CutPrefix(s, "---\r\n")
	}
	if !ok {
		return nil, s, nil
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, s, nil // an unterminated block is a thematic break, not front matter
	}
	block := rest[:end]
	body := rest[end+len("\n---"):]
	body = strings.TrimLeft(strings.TrimPrefix(body, "-"), "\r\n")
	fm := map[string]any{}
	if err := yaml.Unmarshal([]byte(block), &fm); err != nil {
		return nil, "", fmt.Errorf("mdtree: the front matter is not valid YAML: %w", err)
	}
	return fm, body, nil
}

// headings yields the top-level headings of a Markdown text.
func headings(src []byte) iter.Seq[*ast.Heading] {
	root := goldmark.New().Parser().Parse(text.NewReader(src))
	return func(yield func(*ast.Heading) bool) {
		for n := root.FirstChild(); n != nil; n = n.NextSibling() {
			if h, ok := n.(*ast.Heading); ok && !yield(h) {
				return
			}
		}
	}
}

// InlineText is the plain text of a node's inline children: line breaks are
// spaces, code spans their text.
func InlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for cc := t.FirstChild(); cc != nil; cc = cc.NextSibling() {
				if tt, ok := cc.(*ast.Text); ok {
					b.Write(tt.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// lineStart is the offset of the first line of a heading.
func lineStart(src []byte, h *ast.Heading) int {
	pos := 0
	if h.Lines().Len() > 0 {
		pos = h.Lines().At(0).Start
	} else if c := h.FirstChild(); c != nil {
		if t, ok := c.(*ast.Text); ok {
			pos = t.Segment.Start
		}
	}
	return bytes.LastIndexByte(src[:pos], '\n') + 1
}

// FromHTML converts an HTML template to Markdown; the document's <title>,
// when it has one, becomes the front matter's title.
func FromHTML(doc string) (string, error) {
	md, err := htmltomarkdown.ConvertString(doc)
	if err != nil {
		return "", fmt.Errorf("mdtree: convert HTML: %w", err)
	}
	if t := htmlTitle(doc); t != "" {
		fm, err := yaml.Marshal(map[string]string{"title": t})
		if err != nil {
			return "", err
		}
		md = "---\n" + string(fm) + "---\n\n" + md
	}
	return strings.TrimSpace(md) + "\n", nil
}

func htmlTitle(doc string) string {
	z := html.NewTokenizer(strings.NewReader(doc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "title" {
				if z.Next() == html.TextToken {
					return strings.TrimSpace(string(z.Text()))
				}
				return ""
			}
		}
	}
}
