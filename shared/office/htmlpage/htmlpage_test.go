package htmlpage_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/insightedge/insightedge/shared/office/htmlpage"
	readers "github.com/insightedge/insightedge/shared/office/officetest"
)

const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>`

func pages(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	add := func(name string, b []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b
	}
	b, err := htmlpage.Flashcards("英语单词卡", "", []htmlpage.Card{{Front: "apple", Back: "苹果"}, {Front: evil, Back: "**加粗** back"}})
	add("flashcards", b, err)
	b, err = htmlpage.Quiz("Fractions check", "", []htmlpage.Question{
		{Question: "1/2 + 1/4 = ?", Options: []string{"3/4", "2/6", "1/8"}, Answer: 0, Explanation: "Use a common denominator."},
		{Question: evil, Options: []string{evil, "b"}, Answer: 1},
		{Question: "Why is 0.999… = 1?", AnswerText: "Because 1 − 0.999… is smaller than any positive number."},
	})
	add("quiz", b, err)
	b, err = htmlpage.Explainer("光合作用的过程", "", []htmlpage.Step{{Title: "吸收光能", Body: "叶绿素吸收光能。\n第二行"}, {Title: "水的分解", Body: evil}})
	add("explainer", b, err)
	b, _, err = htmlpage.Custom("Custom page", "en-US", `<style>h2{color:red}</style><h2>Hello</h2><button onclick="this.textContent='ok'">Click</button>`)
	add("custom", b, err)
	return out
}

// TestPagesLoadNothing parses every page and checks that nothing in it
// refers to another resource, and that model text stayed text.
func TestPagesLoadNothing(t *testing.T) {
	for name, b := range pages(t) {
		doc, err := html.Parse(strings.NewReader(string(b)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var csp, title string
		scripts := 0
		walk(doc, func(n *html.Node) {
			if n.Type != html.ElementNode {
				return
			}
			switch n.Data {
			case "link", "iframe", "object", "embed", "base":
				t.Errorf("%s: <%s> element", name, n.Data)
			case "script":
				scripts++
			case "title":
				if n.FirstChild != nil {
					title = n.FirstChild.Data
				}
			case "meta":
				if attr(n, "http-equiv") == "Content-Security-Policy" {
					csp = attr(n, "content")
				}
			case "img":
				if name != "custom" {
					t.Errorf("%s: an <img> from model text became an element", name)
				}
			}
			for _, a := range n.Attr {
				if a.Key == "src" || a.Key == "href" {
					t.Errorf("%s: <%s %s=%q>", name, n.Data, a.Key, a.Val)
				}
				if strings.HasPrefix(a.Key, "on") && name != "custom" {
					t.Errorf("%s: <%s %s=%q>", name, n.Data, a.Key, a.Val)
				}
			}
		})
		if csp != htmlpage.CSP {
			t.Errorf("%s: CSP meta %q, want %q", name, csp, htmlpage.CSP)
		}
		if title == "" {
			t.Errorf("%s: no title", name)
		}
		// The page's own script and the one that tells its frame its height.
		if name != "custom" && scripts != 2 {
			t.Errorf("%s: %d scripts, want the page's and the height report", name, scripts)
		}
		if !strings.Contains(string(b), "insightedgeHeight") {
			t.Errorf("%s: the page does not report its height to its frame", name)
		}
		if name != "custom" && !strings.Contains(string(b), "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s: model text was not escaped", name)
		}
	}
}

func TestPageLanguage(t *testing.T) {
	p := pages(t)
	if !strings.Contains(string(p["flashcards"]), `<html lang="zh-CN">`) || !strings.Contains(string(p["flashcards"]), "全部翻开") {
		t.Error("a Chinese page is not in Chinese")
	}
	if !strings.Contains(string(p["quiz"]), `<html lang="en-US">`) || !strings.Contains(string(p["quiz"]), "Try again") {
		t.Error("an English page is not in English")
	}
	if !strings.Contains(string(p["flashcards"]), "<strong>加粗</strong>") {
		t.Error("**bold** was not rendered")
	}
}

// TestScriptsParse runs node --check over every inline script: a syntax
// error would leave the page dead in the browser.
func TestScriptsParse(t *testing.T) {
	node := readers.RequireTool(t, "node")
	dir := t.TempDir()
	for name, b := range pages(t) {
		doc, _ := html.Parse(strings.NewReader(string(b)))
		i := 0
		walk(doc, func(n *html.Node) {
			if n.Type != html.ElementNode || n.Data != "script" || n.FirstChild == nil {
				return
			}
			i++
			f := filepath.Join(dir, name+"-"+string(rune('0'+i))+".js")
			if err := os.WriteFile(f, []byte(n.FirstChild.Data), 0o644); err != nil {
				t.Fatal(err)
			}
			readersCheck(t, node, f)
		})
	}
}

func readersCheck(t *testing.T, node, file string) {
	t.Helper()
	out, err := runCmd(node, "--check", file)
	if err != nil {
		t.Errorf("node --check %s: %v\n%s", filepath.Base(file), err, out)
	}
}

func TestQuizRejectsBadAnswer(t *testing.T) {
	_, err := htmlpage.Quiz("Q", "", []htmlpage.Question{{Question: "1+1", Options: []string{"1", "2"}, Answer: 2}})
	if err == nil {
		t.Error("an answer outside the options was accepted")
	}
}

func TestEmptyAndLimits(t *testing.T) {
	if _, err := htmlpage.Flashcards("T", "", []htmlpage.Card{{Front: " ", Back: ""}}); !errors.Is(err, htmlpage.ErrEmpty) {
		t.Errorf("empty cards: %v", err)
	}
	if _, err := htmlpage.Explainer(" ", "", []htmlpage.Step{{Title: "a"}}); err == nil {
		t.Error("a page without a title was written")
	}
	many := make([]htmlpage.Card, htmlpage.MaxItems+1)
	for i := range many {
		many[i] = htmlpage.Card{Front: "a", Back: "b"}
	}
	if _, err := htmlpage.Flashcards("T", "", many); err == nil {
		t.Error("too many cards were accepted")
	}
	if _, _, err := htmlpage.Custom("T", "", `<iframe src="https://x"></iframe>`); !errors.Is(err, htmlpage.ErrEmpty) {
		t.Errorf("a body with nothing left: %v", err)
	}
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
