package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/prompts"
)

// The dev console driven by a real headless Chromium: what a frontend
// engineer sees after each kind of turn. Every wait is on a DOM condition
// with a bound; any JavaScript exception, console error or failed resource
// load fails the test; a failing test leaves a screenshot and the page's
// HTML in the artifacts directory (its path is logged).

// waitBound bounds every wait for a DOM condition.
const waitBound = 45 * time.Second

// browser is one headless Chromium tab on the console.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu   sync.Mutex
	errs []string
}

// chromiumPath finds Debian's chromium; missing, it fails the test in CI and
// skips it elsewhere with how to install it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is required in CI but not on PATH (.ci/run installs it)")
	}
	t.Skip("chromium not on PATH: apt-get install chromium (or install every test tool: bash .ci/run --install-only)")
	return ""
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1200, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	b := &browser{t: t, ctx: ctx, base: base}
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	// The first action starts the browser: no timeout on its context.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if err := chromedp.Listen(ctx, b.collect); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	b.run("open the console", chromedp.Navigate(base+"/"), chromedp.WaitReady(chromedp.CSS("#chat")))
	b.waitJS("the console restored its state", `document.querySelector('#chat').dataset.state === 'idle'`)
	// Registered after the tab: runs before it closes.
	t.Cleanup(func() {
		if errs := b.errors(); len(errs) > 0 {
			t.Errorf("the page reported %d error(s):\n%s", len(errs), strings.Join(errs, "\n"))
		}
		if t.Failed() {
			b.artifacts()
		}
	})
	return b
}

// collect records JavaScript exceptions, console.error calls and the
// browser's own error log entries (failed loads, CSP violations).
func (b *browser) collect(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		msg = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			msg += " " + ev.ExceptionDetails.Exception.Description
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, string(a.Value)+a.Description)
		}
		msg = "console." + string(ev.Type) + ": " + strings.Join(parts, " ")
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level != cdplog.EntryLevelError {
			return
		}
		msg = "log: " + ev.Entry.Text + " " + ev.Entry.URL
	default:
		return
	}
	b.mu.Lock()
	b.errs = append(b.errs, msg)
	b.mu.Unlock()
}

func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// artifactsDir is $TEST_ARTIFACTS, or a directory under the system's temp
// directory that outlives the test (t.TempDir does not).
func artifactsDir() string {
	if d := os.Getenv("TEST_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "insightedge-test-artifacts")
}

func (b *browser) artifacts() {
	dir := artifactsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Logf("artifacts: %v", err)
		return
	}
	name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(b.t.Name(), "_") + "-" + time.Now().UTC().Format("20060102T150405")
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("artifacts: %v", err)
		return
	}
	html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	shot, page := filepath.Join(dir, name+".png"), filepath.Join(dir, name+".html")
	if err := os.WriteFile(shot, png, 0o644); err == nil {
		_ = os.WriteFile(page, []byte(html), 0o644)
		b.t.Logf("screenshot: %s (page: %s)", shot, page)
	}
}

func (b *browser) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitBound)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// waitJS waits, at most waitBound, until the expression is truthy.
// submit opens the tab, types value into the field and submits the form.
func (b *browser) submit(what, tab, field, value, form string) {
	b.run(what, chromedp.Click(chromedp.CSS(`nav button[data-tab="`+tab+`"]`)),
		chromedp.SetValue(chromedp.CSS(field), value), chromedp.Click(chromedp.CSS(form+" button")))
}

func (b *browser) waitJS(what, expr string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(waitBound), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		b.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression into out (through JSON).
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitBound)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	if err := json.Unmarshal(v, out); err != nil {
		b.t.Fatalf("evaluate %s: %v (%s)", expr, err, v)
	}
}

// send types a message into the chat and waits until its turn has ended:
// the n-th assistant message carries its finish reason.
func (b *browser) send(msg string, n int) {
	b.t.Helper()
	b.run("send "+msg, chromedp.SetValue(chromedp.CSS("#m"), msg), chromedp.Click(chromedp.CSS("#send")))
	b.waitTurn(n)
}

func (b *browser) waitTurn(n int) {
	b.t.Helper()
	b.waitJS(fmt.Sprintf("assistant message %d to finish", n), fmt.Sprintf(
		`document.querySelector('#chat').dataset.state === 'idle' && document.querySelectorAll('#chat .msg.assistant[data-finish]').length >= %d`, n))
}

// waitPage waits until the page view has completed n builds and patches.
func (b *browser) waitPage(what string, n int) {
	b.t.Helper()
	b.waitJS(what, fmt.Sprintf(`document.querySelector('#page').dataset.state === 'complete' && +document.querySelector('#page').dataset.runs === %d`, n))
}

// lastAssistant is what the teacher sees of the latest answer.
func (b *browser) lastAssistant() string {
	var s string
	b.eval(`[...document.querySelectorAll('#chat .msg.assistant')].pop().innerText`, &s)
	return s
}

// noRawJSON: without the raw-events toggle, no part is shown as JSON.
func (b *browser) noRawJSON() {
	b.t.Helper()
	var s string
	b.eval(`document.querySelector('#chat').innerText`, &s)
	for _, bad := range []string{`{"`, `":"`, `"type":`} {
		if strings.Contains(s, bad) {
			b.t.Errorf("the chat shows raw JSON (%q):\n%s", bad, s)
		}
	}
}

func TestConsoleQuizTurn(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.send("出 3 道牛顿第一定律的选择题", 1)
	var cards []struct {
		Question, Answer, Explanation string
		Options, Correct              int
		ExplanationVisible            bool
	}
	b.eval(`[...document.querySelectorAll('#chat .quiz-card')].map(c => ({
		Question: c.querySelector('.question').innerText,
		Answer: c.querySelector('.answer').innerText,
		Explanation: c.querySelector('.explanation') ? c.querySelector('.explanation').innerText : '',
		ExplanationVisible: !!(c.querySelector('.explanation') && c.querySelector('.explanation').offsetParent),
		Options: c.querySelectorAll('.opts li').length,
		Correct: c.querySelectorAll('.opts li.correct').length}))`, &cards)
	if len(cards) != 3 {
		t.Fatalf("%d quiz cards, want 3:\n%s", len(cards), b.lastAssistant())
	}
	for i, c := range cards {
		if c.Question == "" || c.Options != 4 || c.Correct != 1 || !strings.Contains(c.Answer, "答案") {
			t.Errorf("card %d: question %q, %d options, %d marked correct, answer %q", i+1, c.Question, c.Options, c.Correct, c.Answer)
		}
		if !c.ExplanationVisible || len([]rune(c.Explanation)) < 10 {
			t.Errorf("card %d: explanation not shown: %q", i+1, c.Explanation)
		}
	}
	got := b.lastAssistant()
	for _, want := range []string{"共 3 道题", "已生成 3 道题", "已为你生成 3 道", "单选 single choice"} {
		if !strings.Contains(got, want) {
			t.Errorf("the answer lacks %q:\n%s", want, got)
		}
	}
	// Words, not codes: the tool's name is a tooltip, the kind is named.
	for _, code := range []string{"generate_quiz_questions", "single_choice"} {
		if strings.Contains(got, code) {
			t.Errorf("the teacher reads the code %q:\n%s", code, got)
		}
	}
	// A Markdown answer is rendered: a list with bold class names.
	b.send("帮我看看成绩", 2)
	var strong []string
	b.eval(`[...[...document.querySelectorAll('#chat .msg.assistant')].pop().querySelectorAll('.text li strong')].map(e => e.innerText)`, &strong)
	if len(strong) < 2 || !strings.Contains(strings.Join(strong, " "), "Form 1A") {
		t.Errorf("the class list is not a rendered Markdown list with bold names: %q\n%s", strong, b.lastAssistant())
	}
	if got := b.lastAssistant(); strings.Contains(got, "**") {
		t.Errorf("Markdown markers shown as text:\n%s", got)
	}
	b.noRawJSON()
	// The page's Markdown renderer builds only its own markup.
	for _, c := range []struct{ in, want, not string }{
		{"<script>alert(1)</script>", "&lt;script&gt;", "<script"},
		{`<img src=x onerror="alert(1)">`, "&lt;img", "<img"},
		{"[x](javascript:alert(1))", "[x](javascript:alert(1))", "<a"},
		{"[docs](https://example.org/?a=1&b=2)", `<a href="https://example.org/?a=1&amp;b=2"`, ""},
		{"# T\n\n- **a** and *b*\n- `c<d`", "<h1>T</h1><ul><li><strong>a</strong> and <em>b</em></li><li><code>c&lt;d</code></li></ul>", ""},
		{"| a | b |\n| --- | --- |\n| 1 | 2 |", "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>", ""},
		{"1. one\n2. two", "<ol><li>one</li><li>two</li></ol>", ""},
	} {
		in, _ := json.Marshal(c.in)
		var html string
		b.eval("md("+string(in)+")", &html)
		if !strings.Contains(html, c.want) || (c.not != "" && strings.Contains(html, c.not)) {
			t.Errorf("md(%q) = %q, want %q and no %q", c.in, html, c.want, c.not)
		}
	}
	// The raw-events toggle shows what arrived, as it arrived.
	b.run("raw events", chromedp.Click(chromedp.CSS("#rawToggle")))
	var rawText string
	b.eval(`document.querySelector('#rawLog').textContent`, &rawText)
	if !strings.Contains(rawText, `"type":"data-quiz-question"`) {
		t.Errorf("raw events lack the quiz chunks: %.300s", rawText)
	}
}

func TestConsoleDeckAndInteractivePage(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.send("做一个关于光合作用的PPT", 1)
	var outline struct {
		Title  string
		Slides int
		First  string
	}
	b.eval(`(() => { const o = document.querySelector('#chat .outline'); return o && {Title: o.querySelector('h4').innerText,
		Slides: o.querySelectorAll(':scope > ol > li').length, First: o.querySelector(':scope > ol > li').innerText}; })()`, &outline)
	if !strings.Contains(outline.Title, "光合作用") || outline.Slides < 5 || outline.First == "" {
		t.Fatalf("outline card: %+v\n%s", outline, b.lastAssistant())
	}
	// Confirming from the card sends the teacher's yes; the deck comes back
	// as a file card with a download link.
	b.run("confirm the outline", chromedp.Click(chromedp.CSS("#chat .outline button.confirm")))
	b.waitTurn(2)
	var link struct{ Href, Download, Text string }
	b.eval(`(() => { const a = [...document.querySelectorAll('#chat .file-card a.file')].pop(); return a && {Href: a.href, Download: a.getAttribute('download'), Text: a.innerText}; })()`, &link)
	if !strings.HasSuffix(link.Download, ".pptx") || link.Text != link.Download {
		t.Fatalf("file card: %+v\n%s", link, b.lastAssistant())
	}
	resp, err := http.Get(link.Href)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.HasPrefix(body, []byte("PK")) {
		t.Fatalf("the download link gives %d, %d bytes (%.20q)", resp.StatusCode, len(body), body)
	}
	// An interactive page runs in a sandboxed frame without same-origin.
	b.send("做一个演示自由落体的互动网页", 3)
	var frame struct{ Sandbox, Src string }
	b.eval(`(() => { const f = document.querySelector('#chat .interactive iframe'); return f && {Sandbox: f.getAttribute('sandbox'), Src: f.src}; })()`, &frame)
	if frame.Sandbox != "allow-scripts" || !strings.Contains(frame.Src, ".html") {
		t.Fatalf("interactive frame: %+v", frame)
	}
	b.waitJS("the framed page to load", `!!document.querySelector('#chat .interactive iframe[data-loaded]')`)
	// The page tells its frame how tall it is; the frame shows it whole.
	b.waitJS("the frame sized to its page", `document.querySelector('#chat .interactive iframe').style.height !== ''`)
	b.run("show the frame", chromedp.ScrollIntoView(chromedp.CSS("#chat .interactive iframe")))
	// The frame's document loads in its own process: poll its pixels until
	// it is painted (bounded), as a teacher would look at it.
	ink := b.drawn("#chat .interactive iframe", 0.15)
	t.Logf("the framed page: %.2f of its pixels drawn", ink)
	if ink < 0.15 {
		t.Errorf("the framed page looks blank (%.3f of its pixels differ from the background)", ink)
	}
	b.noRawJSON()
}

func TestConsoleBuildThenPatch(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.submit("plan a page", "page", "#pm", "分析 1A 班英语成绩", "#pf")
	b.waitJS("the blueprint card", `!!document.querySelector('#bp .blueprint-card button.build')`)
	// Blocks are drawn as the build streams them (a streaming block has its
	// slots; a drawn page's block has a body), then the whole page.
	var none any
	b.eval(`(() => { window.streamed = []; new MutationObserver((recs) => { for (const r of recs) for (const n of r.addedNodes)
		if (n.nodeType === 1 && n.matches('.block') && n.querySelector(':scope > .slots')) streamed.push(n.dataset.blockId); })
		.observe(document.querySelector('#page'), {childList: true, subtree: true}); return null; })()`, &none)
	b.run("build", chromedp.Click(chromedp.CSS("#bp .blueprint-card button.build")))
	b.waitPage("the built page", 1)
	var streamed []string
	b.eval(`streamed.splice(0)`, &streamed)
	if want := []string{"kpis", "distribution", "summary", "assignmentTable", "skillChart", "ranking", "insights", "actions"}; !slices.Equal(streamed, want) {
		t.Errorf("blocks streamed %v, want %v", streamed, want)
	}
	type block struct{ ID, Type, Text string }
	var blocks []block
	read := func() map[string]block {
		b.eval(`[...document.querySelectorAll('#page .block')].map(e => ({ID: e.dataset.blockId, Type: e.dataset.type, Text: e.querySelector('.body').textContent}))`, &blocks)
		m := map[string]block{}
		for _, x := range blocks {
			m[x.ID] = x
		}
		return m
	}
	before := read()
	if len(before) != 8 {
		t.Fatalf("%d blocks on the page, want 8: %+v", len(before), blocks)
	}
	for _, id := range []string{"kpis", "distribution", "summary", "assignmentTable", "ranking"} {
		if strings.TrimSpace(before[id].Text) == "" {
			t.Errorf("block %s is empty", id)
		}
	}
	if !strings.Contains(before["summary"].Text, "平均得分率") {
		t.Errorf("summary: %q", before["summary"].Text)
	}
	// Patch the summary: it is written again, the other blocks stay.
	b.run("patch", chromedp.SetValue(chromedp.CSS("#pbBlock"), "summary"), chromedp.SetValue(chromedp.CSS("#pbOp"), "recompose"),
		chromedp.SetValue(chromedp.CSS("#pbPrompt"), "更简短一些"), chromedp.Click(chromedp.CSS("#patchForm button")))
	b.waitPage("the patched page", 2)
	b.eval(`streamed.splice(0)`, &streamed)
	if !slices.Equal(streamed, []string{"summary"}) {
		t.Errorf("the patch streamed %v, want only the summary", streamed)
	}
	after := read()
	if len(after) != 8 {
		t.Fatalf("%d blocks after the patch", len(after))
	}
	if after["summary"].Text == before["summary"].Text || strings.TrimSpace(after["summary"].Text) == "" {
		t.Errorf("the summary did not change:\nbefore %q\nafter  %q", before["summary"].Text, after["summary"].Text)
	}
	if len([]rune(after["summary"].Text)) >= len([]rune(before["summary"].Text)) {
		t.Errorf("the summary is not shorter: %d → %d runes", len([]rune(before["summary"].Text)), len([]rune(after["summary"].Text)))
	}
	for _, id := range []string{"kpis", "distribution", "assignmentTable", "ranking"} {
		if after[id].Text != before[id].Text {
			t.Errorf("block %s changed by a patch of the summary", id)
		}
	}
	// Each chart is drawn as its variant; a restyle redraws it as the new one.
	var drawn []string
	b.eval(`[...document.querySelectorAll('#page .block[data-type=chart] svg')].map(e => e.dataset.variant + ':' + e.querySelectorAll('rect,polyline,polygon,path').length)`, &drawn)
	if !slices.Equal(drawn, []string{"bar:5", "radar:1"}) {
		t.Errorf("charts drawn as %v, want the distribution's 5 bars and the skills' radar polygon", drawn)
	}
	b.run("restyle", chromedp.SetValue(chromedp.CSS("#pbBlock"), "skillChart"), chromedp.SetValue(chromedp.CSS("#pbOp"), "restyle"),
		chromedp.SetValue(chromedp.CSS("#pbPrompt"), "pie"), chromedp.Click(chromedp.CSS("#patchForm button")))
	b.waitPage("the restyled page", 3)
	b.eval(`[...document.querySelectorAll('#page .block[data-type=chart] svg')].map(e => e.dataset.variant + ':' + e.querySelectorAll('rect,polyline,polygon,path').length)`, &drawn)
	if !slices.Equal(drawn, []string{"bar:5", "pie:4"}) {
		t.Errorf("after restyling the skills to a pie: %v", drawn)
	}
	// The chat now offers the page as the context of a follow-up.
	var attach bool
	b.eval(`!document.querySelector('#attachRow').hidden && document.querySelector('#attach').checked`, &attach)
	if !attach {
		t.Error("no follow-up context offered after a build")
	}
	// A new conversation starts clean: the page is not its context.
	b.eval(`document.querySelector('#new').click(), !document.querySelector('#attachRow').hidden || document.querySelector('#attach').checked`, &attach)
	if attach {
		t.Error("a new conversation keeps the built page attached")
	}
}

// TestConsoleChatBuildRefineRebuild: the page follow-ups of seed 004
// §1.3.1 from the chat: the stream's data-blueprint card builds the page; a
// follow-up carries the page, its data-patch-plan card patches the block in
// place; a structural follow-up brings a new blueprint that rebuilds it.
func TestConsoleChatBuildRefineRebuild(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.buildFromChat("分析 1A 班英语成绩")
	summary := `document.querySelector('#page [data-block-id="summary"] .body').textContent`
	var before, after string
	var blocks int
	b.eval(summary, &before)
	b.eval(`document.querySelectorAll('#page .block').length`, &blocks)

	b.run("back to the chat", chromedp.Click(chromedp.CSS(`nav button[data-tab="chat"]`)))
	b.send("把分析总结改得更简短", 2)
	b.waitJS("the patch-plan card", `!!document.querySelector('#chat .msg.assistant:last-child .patch-card button.apply')`)
	b.run("apply", chromedp.Click(chromedp.CSS("#chat .msg.assistant:last-child .patch-card button.apply")))
	b.waitPage("the patched page", 2)
	b.eval(summary, &after)
	if after == before || len([]rune(after)) >= len([]rune(before)) {
		t.Errorf("the summary is not shorter after the refine:\nbefore %q\nafter  %q", before, after)
	}

	b.run("back to the chat", chromedp.Click(chromedp.CSS(`nav button[data-tab="chat"]`)))
	b.send("加一个按作业的对比图", 3)
	b.waitJS("the rebuild's blueprint card", `!!document.querySelector('#chat .msg.assistant:last-child .blueprint-card button.build')`)
	b.run("rebuild", chromedp.Click(chromedp.CSS("#chat .msg.assistant:last-child .blueprint-card button.build")))
	b.waitPage("the rebuilt page", 3)
	var rebuilt int
	b.eval(`document.querySelectorAll('#page .block').length`, &rebuilt)
	if rebuilt != blocks+1 {
		t.Errorf("%d blocks after the rebuild, want %d (one comparison chart more)", rebuilt, blocks+1)
	}
	b.noRawJSON()
}

func TestConsoleNewConversation(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.send("What is photosynthesis?", 1)
	var first string
	b.eval(`document.querySelector('#conv').innerText`, &first)
	if !strings.HasPrefix(first, "conv-") {
		t.Fatalf("conversation id shown: %q", first)
	}
	b.run("new conversation", chromedp.Click(chromedp.CSS("#new")))
	var shown struct {
		Conv     string
		Messages int
		Stored   bool
	}
	b.eval(`({Conv: document.querySelector('#conv').innerText, Messages: document.querySelectorAll('#chat .msg').length,
		Stored: localStorage.getItem('insightedge.conversation') !== null})`, &shown)
	if shown.Conv != "(new)" || shown.Messages != 0 || shown.Stored {
		t.Fatalf("after New: %+v", shown)
	}
	b.send("出 3 道牛顿第一定律的选择题", 1)
	// What a teacher reads: the offline model says it is answering, tool
	// progress is words (the tool's name only as a tooltip).
	var seen struct {
		Offline bool
		Tool    string
	}
	b.eval(`({Offline: !document.querySelector('#offlineBanner').hidden,
		Tool: document.querySelector('#chat .tool[data-status="success"]').innerText})`, &seen)
	if !seen.Offline || strings.Contains(seen.Tool, "generate_quiz_questions") || !strings.Contains(seen.Tool, "3") {
		t.Errorf("offline banner %v, tool progress %q", seen.Offline, seen.Tool)
	}
	var second string
	b.eval(`document.querySelector('#conv').innerText`, &second)
	if !strings.HasPrefix(second, "conv-") || second == first {
		t.Fatalf("the new turn went to %q (first %q)", second, first)
	}
	var msgs struct{ Messages []json.RawMessage }
	if code := GetJSON(t, s.URL+"/api/conversation/"+first+"/messages", &msgs); code != 200 || len(msgs.Messages) != 2 {
		t.Errorf("the first conversation: %d, %d messages (want 2: the new turn must not join it)", code, len(msgs.Messages))
	}
}

// TestConsoleClarifyGuideNotice: the parts that ask the teacher something
// or warn her are drawn as buttons and banners, never as JSON.
func TestConsoleClarifyGuideNotice(t *testing.T) {
	s := NewLocal(t, map[string]string{"JAVA_API_RETRY_BASE": "10ms"})
	b := newBrowser(t, s.URL)
	// The data service is down: sample data, and a notice saying so.
	s.Java.SetFault(mockserver.Fault{Status: http.StatusServiceUnavailable})
	b.send("我有哪些班？", 1)
	var notice string
	b.eval(`(() => { const n = [...document.querySelectorAll('#chat .msg.assistant')].pop().querySelector('.notice'); return n ? n.innerText : ''; })()`, &notice)
	if !strings.Contains(notice, "MOCK_DATA") || len([]rune(notice)) < 12 {
		t.Errorf("notice %q:\n%s", notice, b.lastAssistant())
	}
	s.Java.ClearFault()
	// A class that does not exist: a clarify with the closest classes.
	b.send("分析 2B 班英语成绩", 2)
	var options []string
	b.eval(`[...document.querySelectorAll('#chat .clarify .choices button')].map(e => e.innerText)`, &options)
	if len(options) < 2 || !strings.Contains(b.lastAssistant(), "2B") {
		t.Fatalf("clarify options %q:\n%s", options, b.lastAssistant())
	}
	b.run("choose", chromedp.Click(chromedp.CSS("#chat .clarify .choices button")))
	b.waitTurn(3)
	var asked string
	b.eval(`[...document.querySelectorAll('#chat .msg.user')].pop().innerText`, &asked)
	if asked != options[0] {
		t.Errorf("the choice sent %q, want %q", asked, options[0])
	}
	// Strict mode answers a greeting with guidance and suggestions.
	b.run("strict", chromedp.SetValue(chromedp.CSS("#mode"), "strict"))
	b.send("你好", 4)
	var suggestions []string
	b.eval(`[...[...document.querySelectorAll('#chat .msg.assistant')].pop().querySelectorAll('.guide .choices button')].map(e => e.innerText)`, &suggestions)
	if len(suggestions) < 2 {
		t.Errorf("guide suggestions %q:\n%s", suggestions, b.lastAssistant())
	}
	b.noRawJSON()
}

// TestConsoleResearchTimeline: the research tab proposes, runs and draws
// the timeline from the named SSE events.
func TestConsoleResearchTimeline(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.submit("propose", "research", "#topic", "牛顿力学的发展", "#rf")
	b.waitJS("the proposal", `!document.querySelector('#run').disabled`)
	b.run("run", chromedp.Click(chromedp.CSS("#run")))
	b.waitJS("the end of the run", `/✓ \d+ milestones/.test(document.querySelector('#steps').innerText) || !!document.querySelector('#steps .err')`)
	var tl struct {
		Items, Sources int
		Err            string
	}
	b.eval(`({Items: document.querySelectorAll('#timeline li').length, Sources: document.querySelectorAll('#timeline a.src[href^="http"]').length,
		Err: [...document.querySelectorAll('#steps .err')].map(e => e.innerText).join(' ')})`, &tl)
	if tl.Err != "" || tl.Items < 3 || tl.Sources < 1 {
		t.Errorf("timeline: %+v", tl)
	}
}

// TestConsoleTemplateReport: the report tab runs seed 002 over SSE + POST:
// the plan is confirmed from its card and the report arrives rendered, with
// its download links.
func TestConsoleTemplateReport(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.submit("start a report", "report", "#tq", "写一份本学期的教学工作总结", "#tf")
	b.waitJS("the plan's confirm button", `!!document.querySelector('#rlog .card button')`)
	b.run("confirm", chromedp.Click(chromedp.CSS("#rlog .card button")))
	b.waitJS("the report", `!!document.querySelector('#rlog .card .md h1')`)
	var report struct {
		Title          string
		Sections, Rows int
		Files          []string
	}
	b.eval(`(() => { const c = document.querySelector('#rlog .card .md h1').closest('.card'); return {Title: c.querySelector('h1').innerText,
		Sections: c.querySelectorAll('h2').length, Rows: c.querySelectorAll('table tr').length,
		Files: [...c.querySelectorAll('a.file')].map(a => a.innerText)}; })()`, &report)
	if report.Title != "学期教学工作总结" || report.Sections < 2 || report.Rows < 2 || !slices.Contains(report.Files, "⬇ docx") {
		t.Errorf("the report as shown: %+v", report)
	}
	var log string
	b.eval(`document.querySelector('#rlog').innerText`, &log)
	if strings.Contains(log, `{"`) || strings.Contains(log, "reports/generated_report.md") {
		t.Errorf("the report log shows raw JSON or a file path:\n%s", log)
	}
	for _, code := range []string{"solver.start", "aggregate.start", "split_markdown_tree", "read_local_file"} {
		if strings.Contains(log, code) {
			t.Errorf("the report's progress shows the code %q, not words:\n%s", code, log)
		}
	}
	if !strings.Contains(log, "撰写 writing · ") {
		t.Errorf("the report's progress does not say which section is written:\n%s", log)
	}
	// The form offers the backend's templates and knowledge bases by name.
	var offered struct{ Templates, KBs []string }
	b.eval(`({Templates: [...document.querySelectorAll('#templates option')].map(o => o.value),
		KBs: [...document.querySelectorAll('#kbs option')].map(o => o.value)})`, &offered)
	if !slices.Contains(offered.Templates, "学期教学工作总结") || !slices.Contains(offered.KBs, "Form 1A") {
		t.Errorf("the Report form offers %+v", offered)
	}
}

// GET /api/template/catalog lists the default backend's templates and
// knowledge bases by name (what the Report form offers).
func TestTemplateCatalog(t *testing.T) {
	s := NewLocal(t, nil)
	var c struct {
		Templates      []struct{ ID, Name string }
		KnowledgeBases []struct{ ID, Name string } `json:"knowledge_bases"`
	}
	if code := GetJSON(t, s.URL+"/api/template/catalog", &c); code != 200 || len(c.Templates) == 0 || len(c.KnowledgeBases) == 0 {
		t.Fatalf("catalog: %d %+v", code, c)
	}
	if !slices.ContainsFunc(c.KnowledgeBases, func(k struct{ ID, Name string }) bool { return k.Name == "Form 1A" && k.ID != "" }) {
		t.Errorf("no Form 1A knowledge base: %+v", c.KnowledgeBases)
	}
}

// TestConsoleReloadResumesTheTurn: the model's answer is held after its
// first words (a gate in front of the offline model), the page is reloaded,
// and the console shows the conversation and follows the running turn to its
// end once the gate opens.
func TestConsoleReloadResumesTheTurn(t *testing.T) {
	gate := newHeldModel(t, answersWith("What is photosynthesis?"))
	s := NewLocal(t, map[string]string{"OPENAI_BASE_URL": gate.URL, "OPENAI_API_KEY": "offline",
		"LLM_MODEL_FAST": offlinemodel.ModelFast, "LLM_MODEL_STANDARD": offlinemodel.ModelStandard, "LLM_MODEL_STRONG": offlinemodel.ModelStrong})
	b := newBrowser(t, s.URL)
	b.run("send", chromedp.SetValue(chromedp.CSS("#m"), "What is photosynthesis?"), chromedp.Click(chromedp.CSS("#send")))
	select {
	case <-gate.held:
	case <-time.After(waitBound):
		t.Fatal("the model's answer never reached the gate")
	}
	b.waitJS("the first words", `document.querySelector('#chat').dataset.state === 'running' && !!document.querySelector('#chat .msg.assistant .text') && document.querySelector('#chat .msg.assistant .text').innerText.length > 0`)
	var partial string
	b.eval(`document.querySelector('#chat .msg.assistant .text').innerText`, &partial)

	b.run("reload", chromedp.Reload())
	b.waitJS("the resumed turn", `document.querySelector('#chat').dataset.state === 'running' && !!document.querySelector('#chat .msg.assistant[data-resumed]')`)
	var user string
	b.eval(`document.querySelector('#chat .msg.user').innerText`, &user)
	if user != "What is photosynthesis?" {
		t.Errorf("after the reload the question shows as %q", user)
	}
	close(gate.release)
	b.waitTurn(1)
	var answer struct {
		Text       string
		Assistants int
		Resumed    bool
	}
	b.eval(`({Text: document.querySelector('#chat .msg.assistant .text').innerText, Assistants: document.querySelectorAll('#chat .msg.assistant').length,
		Resumed: !!document.querySelector('#chat .msg.assistant[data-resumed][data-finish="stop"]')})`, &answer)
	if answer.Assistants != 1 || !answer.Resumed {
		t.Fatalf("after the resume: %+v", answer)
	}
	if !strings.HasPrefix(plain(answer.Text), plain(partial)) || len(answer.Text) <= len(partial) || !strings.Contains(strings.ToLower(answer.Text), "photosynthesis") {
		t.Errorf("the resumed answer %q does not continue %q", answer.Text, partial)
	}
	// What the console shows is what the server stored.
	var stored struct {
		Messages []struct{ Parts []struct{ Type, Text string } }
	}
	var conv string
	b.eval(`document.querySelector('#conv').innerText`, &conv)
	GetJSON(t, s.URL+"/api/conversation/"+conv+"/messages", &stored)
	var text string
	if n := len(stored.Messages); n == 2 {
		for _, p := range stored.Messages[1].Parts {
			text += p.Text
		}
	}
	if plain(text) != plain(answer.Text) {
		t.Errorf("shown %q, stored %q", answer.Text, text)
	}
}

// TestConsoleReloadResumesTheBuild: a reload while a page builds picks the
// build up where the page tab was (the blocks drawn so far, then the rest
// as the model writes them), and a reload after it has ended draws the
// finished page again.
func TestConsoleReloadResumesTheBuild(t *testing.T) {
	gate := newHeldModel(t, writesSlot)
	s := NewLocal(t, map[string]string{"OPENAI_BASE_URL": gate.URL, "OPENAI_API_KEY": "offline",
		"LLM_MODEL_FAST": offlinemodel.ModelFast, "LLM_MODEL_STANDARD": offlinemodel.ModelStandard, "LLM_MODEL_STRONG": offlinemodel.ModelStrong})
	b := newBrowser(t, s.URL)
	b.submit("plan a page", "page", "#pm", "分析 1A 班英语成绩", "#pf")
	b.waitJS("the blueprint card", `!!document.querySelector('#bp .blueprint-card button.build')`)
	b.run("build", chromedp.Click(chromedp.CSS("#bp .blueprint-card button.build")))
	select {
	case <-gate.held:
	case <-time.After(waitBound):
		t.Fatal("no slot text reached the gate")
	}
	b.waitJS("a block streaming", `document.querySelector('#page').dataset.state === 'building' && !!document.querySelector('#page .block[data-state="streaming"] .slots .md')`)

	b.run("reload", chromedp.Reload())
	b.waitJS("the resumed build", `!document.querySelector('#tab-page').hidden && document.querySelector('#page').dataset.resumed === '1' &&
		document.querySelector('#page').dataset.state === 'building' && !!document.querySelector('#page .block[data-state="streaming"]')`)
	close(gate.release)
	b.waitPage("the page after the resume", 1)
	page := func() (texts map[string]string) {
		var blocks []struct{ ID, Text string }
		b.eval(`[...document.querySelectorAll('#page .block')].map(e => ({ID: e.dataset.blockId, Text: e.querySelector('.body').textContent}))`, &blocks)
		texts = map[string]string{}
		for _, x := range blocks {
			texts[x.ID] = x.Text
		}
		return texts
	}
	resumed := page()
	if len(resumed) != 8 || !strings.Contains(resumed["summary"], "平均得分率") {
		t.Fatalf("the resumed build drew %d blocks, summary %q", len(resumed), resumed["summary"])
	}

	b.run("reload the built page", chromedp.Reload())
	b.waitPage("the page after a second reload", 1)
	if again := page(); !maps.Equal(again, resumed) {
		t.Errorf("a reload drew another page:\nbefore %v\nafter  %v", resumed, again)
	}
}

// drawn screenshots the element until at least share of its pixels are
// drawn or waitBound passes, and returns the last share seen.
func (b *browser) drawn(sel string, share float64) float64 {
	b.t.Helper()
	ink := 0.0
	for deadline := time.Now().Add(waitBound); time.Now().Before(deadline); {
		shot, err := chromedp.Run(b.ctx, chromedp.Screenshot(chromedp.CSS(sel)))
		if err != nil {
			b.t.Fatalf("screenshot of %s: %v", sel, err)
		}
		if ink = inked(b.t, shot); ink >= share {
			break
		}
		time.Sleep(100 * time.Millisecond) // the poll interval
	}
	return ink
}

// inked is the share of a PNG's pixels that differ from its most common
// colour (the background): how much of a frame is drawn.
func inked(t *testing.T, shot []byte) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	r := img.Bounds()
	count := map[color.RGBA]int{}
	all := 0
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
			all++
		}
	}
	most := 0
	for _, n := range count {
		most = max(most, n)
	}
	return float64(all-most) / float64(max(all, 1))
}

// wordsRE finds a streamed chunk with words in it.
var wordsRE = regexp.MustCompile(`"content":"[^"]`)

// TestConsoleStop: Stop ends the running turn on the server; its stream
// closes with finish "other" and the console can send again.
func TestConsoleStop(t *testing.T) {
	gate := newHeldModel(t, answersWith("What is photosynthesis?"))
	defer close(gate.release)
	s := NewLocal(t, map[string]string{"OPENAI_BASE_URL": gate.URL, "OPENAI_API_KEY": "offline",
		"LLM_MODEL_FAST": offlinemodel.ModelFast, "LLM_MODEL_STANDARD": offlinemodel.ModelStandard, "LLM_MODEL_STRONG": offlinemodel.ModelStrong})
	b := newBrowser(t, s.URL)
	b.run("send", chromedp.SetValue(chromedp.CSS("#m"), "What is photosynthesis?"), chromedp.Click(chromedp.CSS("#send")))
	b.waitJS("the first words", `document.querySelector('#chat').dataset.state === 'running' && !!document.querySelector('#chat .msg.assistant .text')`)
	b.run("stop", chromedp.Click(chromedp.CSS("#stop")))
	b.waitJS("the stopped turn", `document.querySelector('#chat').dataset.state === 'idle' && !!document.querySelector('#chat .msg.assistant[data-finish="other"]')`)
	var conv string
	b.eval(`document.querySelector('#conv').innerText`, &conv)
	// The turn has ended: a resume answers at once, with nothing (204) or
	// with the ended turn replayed to its end (the reload rule), never a
	// turn still waiting on the held model.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/conversation/"+conv+"/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("resume after Stop: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		t.Errorf("after Stop the turn still runs: resume did not end (%v)", err)
	case resp.StatusCode == http.StatusOK && !strings.Contains(string(body), `"finishReason":"other"`):
		t.Errorf("resume after Stop replays a turn that did not end stopped:\n%s", body)
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent:
		t.Errorf("resume after Stop: %d", resp.StatusCode)
	}
	var sendable bool
	b.eval(`!document.querySelector('#send').disabled && document.querySelector('#stop').disabled`, &sendable)
	if !sendable {
		t.Error("after Stop the console cannot send")
	}
	// The teacher reads that the turn stopped, not a finish reason; with a
	// real model configured, no offline banner.
	var seen struct {
		Meta    string
		Offline bool
	}
	b.eval(`({Meta: document.querySelector('#chat .msg.assistant .meta[data-finish-reason]').innerText,
		Offline: !document.querySelector('#offlineBanner').hidden})`, &seen)
	if seen.Meta != "已停止 stopped" || seen.Offline {
		t.Errorf("after Stop: %+v, want \"已停止 stopped\" and no offline banner", seen)
	}
}

// plain is Markdown as a reader sees it: no emphasis markers or list
// bullets, whitespace folded.
func plain(s string) string {
	s = strings.ReplaceAll(s, "**", "")
	s = regexp.MustCompile(`(?m)^\s*- `).ReplaceAllString(s, "")
	return strings.Join(strings.Fields(s), " ")
}

// heldModel is the offline model behind a gate: a streamed agent or chat
// answer to a message containing hold passes its first words, then waits
// until release is closed (bounded by the request's own context).
type heldModel struct {
	URL     string
	held    chan struct{}
	release chan struct{}
}

func newHeldModel(t *testing.T, hold func(body []byte) bool) *heldModel {
	t.Helper()
	base := startOfflineModel(t)
	m := &heldModel{held: make(chan struct{}), release: make(chan struct{})}
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, strings.TrimSuffix(base, "/v1")+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		flush := func() { w.(http.Flusher).Flush() }
		if !hold(body) {
			_, _ = io.Copy(w, resp.Body)
			return
		}
		// Pass events until the first one with words, then hold.
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		waiting := false
		for sc.Scan() {
			line := sc.Text()
			_, _ = io.WriteString(w, line+"\n")
			if strings.HasPrefix(line, "data: ") && wordsRE.MatchString(line) {
				waiting = true
			}
			if line == "" && waiting {
				flush()
				once.Do(func() { close(m.held) })
				select {
				case <-m.release:
				case <-r.Context().Done():
					return
				}
				waiting = false
			}
		}
	}))
	t.Cleanup(srv.Close)
	m.URL = srv.URL + "/v1"
	return m
}

// answersWith holds an agent or chat call (the kinds that stream the
// answer's words) whose last message contains text.
func answersWith(text string) func(body []byte) bool {
	return func(body []byte) bool {
		first, last, ok := streamedCall(body)
		return ok && (first == prompts.AgentHeader || first == prompts.ChatHeader) && strings.Contains(last, text)
	}
}

// writesSlot holds a page writer's call (a block's slot text).
func writesSlot(body []byte) bool {
	first, _, ok := streamedCall(body)
	return ok && first == prompts.WriterHeader
}

// streamedCall reads a streamed model call: the first line of its system
// message and its last message.
func streamedCall(body []byte) (first, last string, ok bool) {
	var req struct {
		Stream   bool `json:"stream"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || !req.Stream || len(req.Messages) < 2 {
		return "", "", false
	}
	first, _, _ = strings.Cut(strings.TrimSpace(req.Messages[0].Content), "\n")
	return first, req.Messages[len(req.Messages)-1].Content, true
}
