package htmlpage

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Sanitize returns the body of src, HTML a model wrote, without anything
// that loads from elsewhere or escapes the page, and the number of elements
// and attributes it removed. Inline scripts and styles stay: they are what
// makes the page interactive, and the page's Content-Security-Policy stops
// them from reaching the network.
//
// Removed: script elements with src; iframe, frame, object, embed, applet,
// link, meta, base and portal elements; event-handler attributes that
// mention a URL or a network API; URL attributes other than fragments,
// data: media and (on links only) http(s) and mailto targets; style rules
// and attributes that import or load a URL; form actions.
//
// A full document is accepted: its head's styles are kept, the rest of the
// head dropped, and the body's content returned.
func Sanitize(src string) (string, int, error) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return "", 0, fmt.Errorf("htmlpage: parse: %w", err)
	}
	s := &sanitizer{}
	var out strings.Builder
	// The parser moves leading <style>, <script>, <link> and <meta> into the
	// head: styles go first, inline scripts after the body's content (where
	// the elements they look up exist), the rest is dropped.
	var headScripts []*html.Node
	for _, n := range findAll(doc, atom.Head) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch {
			case dropped(c):
				if c.DataAtom != atom.Title {
					s.removed++
				}
			case c.DataAtom == atom.Style:
				s.attrs(c)
				s.styleText(c)
				if err := html.Render(&out, c); err != nil {
					return "", s.removed, fmt.Errorf("htmlpage: render: %w", err)
				}
			case c.DataAtom == atom.Script:
				s.attrs(c)
				headScripts = append(headScripts, c)
			}
		}
	}
	for _, body := range findAll(doc, atom.Body) {
		s.clean(body)
		for c := body.FirstChild; c != nil; c = c.NextSibling {
			if err := html.Render(&out, c); err != nil {
				return "", s.removed, fmt.Errorf("htmlpage: render: %w", err)
			}
		}
	}
	for _, c := range headScripts {
		if err := html.Render(&out, c); err != nil {
			return "", s.removed, fmt.Errorf("htmlpage: render: %w", err)
		}
	}
	return out.String(), s.removed, nil
}

type sanitizer struct {
	removed int
}

// dropped are elements removed with their content.
func dropped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Iframe, atom.Frame, atom.Frameset, atom.Object, atom.Embed, atom.Applet,
		atom.Link, atom.Meta, atom.Base, atom.Title, atom.Noscript:
		return true
	case atom.Script:
		return attr(n, "src") != ""
	}
	switch strings.ToLower(n.Data) { // elements without an atom
	case "portal", "fencedframe":
		return true
	}
	return false
}

func (s *sanitizer) clean(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch c.Type {
		case html.ElementNode:
			if dropped(c) {
				n.RemoveChild(c)
				s.removed++
			} else {
				s.attrs(c)
				if c.DataAtom == atom.Style {
					s.styleText(c)
				}
				s.clean(c)
			}
		case html.CommentNode:
			n.RemoveChild(c)
		}
		c = next
	}
}

func (s *sanitizer) styleText(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			cleaned := cleanCSS(c.Data)
			if cleaned != c.Data {
				s.removed++
				c.Data = cleaned
			}
		}
	}
}

// network matches script that reaches beyond the page (compiled on first
// use, not at start-up, as the CSS patterns below).
var network = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(fetch\s*\(|xmlhttprequest|websocket|eventsource|sendbeacon|import\s*\(|https?:|//|\blocation\b|window\.open|document\.cookie|\.src\s*=|new\s+image|javascript:)`)
})

// urlAttrs are attributes whose value the browser loads or navigates to.
func urlAttr(name string) bool {
	switch name {
	case "src", "href", "srcset", "poster", "action", "formaction", "background", "data",
		"xlink:href", "ping", "lowsrc", "dynsrc", "longdesc", "manifest", "codebase", "cite", "archive", "imagesrcset":
		return true
	}
	return false
}

func (s *sanitizer) attrs(n *html.Node) {
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		key := strings.ToLower(a.Key)
		if a.Namespace != "" {
			key = a.Namespace + ":" + key
		}
		ok := true
		switch {
		case strings.HasPrefix(key, "on"):
			ok = !network().MatchString(a.Val)
		case key == "style":
			ok = cleanCSS(a.Val) == a.Val
		case key == "action" || key == "formaction":
			ok = false
		case key == "http-equiv":
			ok = false
		case urlAttr(key):
			ok = allowedURL(n, key, a.Val)
		}
		if ok {
			kept = append(kept, a)
		} else {
			s.removed++
		}
	}
	n.Attr = kept
}

// allowedURL reports whether a URL attribute may stay: a fragment anywhere,
// data: media in src, and http(s)/mailto on links, which navigate rather
// than load.
func allowedURL(n *html.Node, key, val string) bool {
	v := strings.ToLower(strings.TrimSpace(val))
	v = strings.Map(func(r rune) rune { // browsers ignore these inside a scheme
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, v)
	switch {
	case strings.HasPrefix(v, "#"):
		return true
	case key == "src" && (strings.HasPrefix(v, "data:image/") || strings.HasPrefix(v, "data:audio/") || strings.HasPrefix(v, "data:video/")):
		return true
	case key == "href" && n.DataAtom == atom.A:
		return strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "mailto:")
	}
	return false
}

var (
	cssImport = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)@import[^;]*;?`) })
	cssURL    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)url\(\s*(['"]?)([^)'"]*)(['"]?)\s*\)`) })
	cssExpr   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)expression\s*\(|behavior\s*:|-moz-binding`) })
)

// cleanCSS removes @import rules, url() references other than data:, and
// old IE script hooks.
func cleanCSS(css string) string {
	css = cssImport().ReplaceAllString(css, "")
	css = cssURL().ReplaceAllStringFunc(css, func(m string) string {
		sub := cssURL().FindStringSubmatch(m)
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(sub[2])), "data:") {
			return m
		}
		return "none"
	})
	return cssExpr().ReplaceAllString(css, "")
}

func findAll(n *html.Node, a atom.Atom) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == a {
			out = append(out, n)
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}
