package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/net/html"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/office/docx"
	"github.com/insightedge/insightedge/shared/office/officetest"
	"github.com/insightedge/insightedge/shared/office/pdf"
	"github.com/insightedge/insightedge/shared/office/pptx"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// End to end for the generation tools that make files (seed 000 §5.1–5.3):
// each file is asked for in a conversation, announced on the stream,
// downloaded through its signed URL and opened with readers that are not
// ours (officeparser, LibreOffice, poppler, an HTML parser).

// testFilesSecret signs the test servers' download links, so that a test can
// sign a link that has expired.
const testFilesSecret = "files-secret-for-tests-only-0123456789"

// fileServer is a local server whose data directory the test knows, so
// that it can count the files in the store.
type fileServer struct {
	Local
	dir string
}

func newFileServer(t *testing.T) fileServer {
	t.Helper()
	dir := t.TempDir()
	return fileServer{Local: newLocalIn(t, dir, map[string]string{"FILES_SECRET": testFilesSecret}), dir: dir}
}

// teacherFiles lists the files stored for a teacher (paths relative to the
// teacher's folder).
func (s fileServer) teacherFiles(t *testing.T, teacher string) []string {
	t.Helper()
	root := filepath.Join(s.dir, "files", "objects", "teachers", blob.ID(teacher))
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && !strings.Contains(d.Name(), ".tmp-") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// say sends one message of a conversation ("" starts one) and checks what
// every turn must satisfy: 200, gap-free ids, a final message, no error
// chunk.
func say(t *testing.T, base, conv, msg string) stream {
	t.Helper()
	body := map[string]string{"message": msg}
	if conv != "" {
		body["conversationId"] = conv
	}
	b, _ := json.Marshal(body)
	st := postStream(t, base, string(b))
	if st.Status != http.StatusOK {
		t.Fatalf("%q: status %d: %s", msg, st.Status, st.Raw)
	}
	if conv != "" && st.Header.Get("X-Conversation-Id") != conv {
		t.Fatalf("%q: answered in conversation %q, want %q", msg, st.Header.Get("X-Conversation-Id"), conv)
	}
	types := st.types(t)
	if slices.Contains(types, "error") || st.last(t, "finish")["finishReason"] == "error" {
		t.Fatalf("%q: the turn failed: %v\n%s", msg, types, st.Raw)
	}
	// A clarify turn says its question in data-clarify only.
	if st.text(t) == "" && !slices.Contains(types, "data-clarify") {
		t.Fatalf("%q: no final message: %v", msg, types)
	}
	st.checkIDs(t, 0)
	return st
}

// fileReady is the payload of data-file-ready.
type fileReady struct {
	Type     string `json:"type"`
	URL      string `json:"url"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
}

// pageReady is the payload of data-interactive-content.
type pageReady struct {
	Title    string `json:"title"`
	URL      string `json:"url"`
	Template string `json:"template"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
	Items    int    `json:"items"`
}

type outlineEvent struct {
	Title  string `json:"title"`
	Slides []struct {
		Title   string   `json:"title"`
		Bullets []string `json:"bullets"`
	} `json:"slides"`
}

// payloads decodes the data of every chunk of type typ.
func payloads[T any](t *testing.T, st stream, typ string) []T {
	t.Helper()
	var out []T
	for _, d := range st.data(t, typ) {
		b, _ := json.Marshal(d)
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s %s: %v", typ, b, err)
		}
		out = append(out, v)
	}
	return out
}

// one is the only file-ready event of a turn, of type typ.
func one(t *testing.T, st stream, typ string) fileReady {
	t.Helper()
	fs := payloads[fileReady](t, st, "data-file-ready")
	if len(fs) != 1 || fs[0].Type != typ || fs[0].URL == "" || fs[0].Size <= 0 || !strings.HasSuffix(fs[0].Filename, "."+typ) {
		t.Fatalf("want one %s file-ready event, got %+v (%v)", typ, fs, st.types(t))
	}
	return fs[0]
}

func onePage(t *testing.T, st stream) pageReady {
	t.Helper()
	ps := payloads[pageReady](t, st, "data-interactive-content")
	if len(ps) != 1 || ps[0].URL == "" || ps[0].Title == "" || ps[0].Size <= 0 {
		t.Fatalf("want one interactive-content event, got %+v (%v)", ps, st.types(t))
	}
	return ps[0]
}

// callOf is the part id (the tool call's id) of the last chunk of type typ.
func callOf(t *testing.T, st stream, typ string) string {
	t.Helper()
	id := ""
	for _, e := range st.Events {
		if e.typ(t) == typ {
			id, _ = e.chunk(t)["id"].(string)
		}
	}
	return id
}

// download GETs a file link as a page served from base would: a relative
// link is resolved against base.
func download(t *testing.T, base, link string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	b, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u, err := b.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("GET %s: %v", link, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// fetch downloads an announced file, checks its headers and size, and saves
// it as dir/name.
func fetch(t *testing.T, base, link string, size int64, contentType, dir, name string) string {
	t.Helper()
	status, h, body := download(t, base, link)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", link, status, body)
	}
	if got := h.Get("Content-Type"); !strings.HasPrefix(got, contentType) {
		t.Errorf("%s: Content-Type %q, want %q", name, got, contentType)
	}
	if int64(len(body)) != size {
		t.Errorf("%s: %d bytes, the event said %d", name, len(body), size)
	}
	if !strings.Contains(h.Get("Content-Disposition"), "filename*=UTF-8''") {
		t.Errorf("%s: Content-Disposition %q", name, h.Get("Content-Disposition"))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, body, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// conversationFiles is what one conversation produced.
type conversationFiles struct {
	outline               outlineEvent
	deck, plan, pdf       fileReady
	page, simple          pageReady
	headings, pageContent []string
}

// TestGeneratedFilesOpenInOtherReaders asks, in Chinese and in English, for
// a deck (outline, then confirmation), a lesson plan, its PDF, a template
// page and a simple page, downloads every file and opens it with
// independent readers.
func TestGeneratedFilesOpenInOtherReaders(t *testing.T) {
	s := newFileServer(t)
	scripts := []struct {
		lang                                      string
		deck, confirm, plan, pdf, page, simple    string
		headings, planText, pageContent           []string
		deckTitle, planTitle, pageTitle, template string
	}{
		{lang: "zh", deck: "做一个光合作用的 PPT", confirm: "可以，就按这个提纲生成", plan: "写一份牛顿第一定律的教案", pdf: "把这份教案导出成 PDF",
			page: "做一个光合作用的互动网页", simple: "做一个简单的网页介绍牛顿第一定律",
			deckTitle: "光合作用", planTitle: "牛顿第一定律教案", pageTitle: "光合作用", template: "explainer",
			headings: []string{"一、教学目标", "二、重点难点", "三、教学过程", "四、作业"}, planText: []string{"环节", "教师活动", "惯性"},
			pageContent: []string{"叶绿体", "二氧化碳"}},
		{lang: "en", deck: "Make a slide deck on photosynthesis", confirm: "yes, go ahead", plan: "Write a lesson plan on Newton's first law", pdf: "export it as PDF",
			page: "Make interactive flashcards on photosynthesis", simple: "Make a simple web page about Newton's first law",
			deckTitle: "Photosynthesis", planTitle: "Newton's first law — lesson plan", pageTitle: "Photosynthesis", template: "flashcards",
			headings: []string{"1. Learning objectives", "2. Key points and difficulties", "3. Lesson procedure", "4. Homework"}, planText: []string{"Phase", "Teacher", "inertia"},
			pageContent: []string{"Chlorophyll", "Stomata"}},
	}
	got := map[string]conversationFiles{}
	for _, sc := range scripts {
		var cf conversationFiles
		first := say(t, s.URL, "", sc.deck)
		conv := first.Header.Get("X-Conversation-Id")
		outlines := payloads[outlineEvent](t, first, "data-pptx-outline")
		if len(outlines) != 1 || len(outlines[0].Slides) < 6 || len(outlines[0].Slides) > 10 || outlines[0].Title != sc.deckTitle {
			t.Fatalf("%s: outline events %+v", sc.lang, outlines)
		}
		cf.outline = outlines[0]
		if len(first.data(t, "data-file-ready")) != 0 {
			t.Fatalf("%s: a file was made before the teacher confirmed the outline", sc.lang)
		}
		second := say(t, s.URL, conv, sc.confirm)
		cf.deck = one(t, second, "pptx")
		if !strings.Contains(second.text(t), strconv.Itoa(len(cf.outline.Slides)+1)) {
			t.Errorf("%s: the deck message does not give the slide count: %q", sc.lang, second.text(t))
		}
		cf.plan = one(t, say(t, s.URL, conv, sc.plan), "docx")
		cf.pdf = one(t, say(t, s.URL, conv, sc.pdf), "pdf")
		if strings.TrimSuffix(cf.pdf.Filename, ".pdf") != strings.TrimSuffix(cf.plan.Filename, ".docx") {
			t.Errorf("%s: the PDF %q is not the lesson plan %q", sc.lang, cf.pdf.Filename, cf.plan.Filename)
		}
		cf.page = onePage(t, say(t, s.URL, conv, sc.page))
		if cf.page.Template != sc.template || cf.page.Items < 6 {
			t.Errorf("%s: page %+v, want template %s with at least 6 items", sc.lang, cf.page, sc.template)
		}
		cf.simple = onePage(t, say(t, s.URL, conv, sc.simple))
		if cf.simple.Template != "custom" {
			t.Errorf("%s: simple page %+v", sc.lang, cf.simple)
		}
		cf.headings, cf.pageContent = sc.headings, sc.pageContent
		got[sc.lang] = cf
	}

	dir := t.TempDir()
	var office []string // .pptx and .docx, for one officeparser and one soffice run
	for _, sc := range scripts {
		cf := got[sc.lang]
		office = append(office,
			fetch(t, s.URL, cf.deck.URL, cf.deck.Size, pptx.ContentType, dir, "deck-"+sc.lang+".pptx"),
			fetch(t, s.URL, cf.plan.URL, cf.plan.Size, docx.ContentType, dir, "plan-"+sc.lang+".docx"))
		fetch(t, s.URL, cf.pdf.URL, cf.pdf.Size, pdf.ContentType, dir, "plan-"+sc.lang+".pdf")
	}

	t.Run("officeparser", func(t *testing.T) {
		parsed := officetest.OfficeParser(t, office...)
		for i, sc := range scripts {
			cf := got[sc.lang]
			deck, plan := parsed[2*i], parsed[2*i+1]
			if deck.Slides != len(cf.outline.Slides)+1 {
				t.Errorf("%s deck: %d slides, want the outline's %d and a title slide", sc.lang, deck.Slides, len(cf.outline.Slides))
			}
			want := []string{sc.deckTitle}
			for _, sl := range cf.outline.Slides {
				want = append(want, sl.Title)
				want = append(want, sl.Bullets...)
			}
			officetest.RequireText(t, sc.lang+" deck", deck.Text, want...)
			if len(deck.Notes) < len(cf.outline.Slides) {
				t.Errorf("%s deck: %d slides have notes, want every content slide (%d)", sc.lang, len(deck.Notes), len(cf.outline.Slides))
			}
			var headings []string
			for _, h := range plan.Headings {
				headings = append(headings, officetest.Squash(h.Text))
			}
			for _, h := range cf.headings {
				if !slices.Contains(headings, officetest.Squash(h)) {
					t.Errorf("%s lesson plan: heading %q missing from %q", sc.lang, h, headings)
				}
			}
			officetest.RequireText(t, sc.lang+" lesson plan", plan.Text, append([]string{sc.planTitle}, sc.planText...)...)
			if sc.lang == "zh" && (!hasHan(deck.Text) || !hasHan(plan.Text)) {
				t.Errorf("no Chinese characters read back")
			}
		}
	})

	t.Run("soffice and poppler", func(t *testing.T) {
		pdfs := officetest.Soffice(t, dir, office...)
		for i, sc := range scripts {
			cf := got[sc.lang]
			deckPDF, planPDF := pdfs[2*i], pdfs[2*i+1]
			if n := officetest.PDFPages(t, deckPDF); n != len(cf.outline.Slides)+1 {
				t.Errorf("%s deck: LibreOffice shows %d slides, want %d", sc.lang, n, len(cf.outline.Slides)+1)
			}
			want := []string{sc.deckTitle}
			for _, sl := range cf.outline.Slides {
				want = append(want, sl.Title)
			}
			officetest.RequireText(t, sc.lang+" deck via LibreOffice", officetest.PDFText(t, deckPDF), want...)
			officetest.RequireText(t, sc.lang+" lesson plan via LibreOffice", officetest.PDFText(t, planPDF), append(cf.headings, sc.planTitle)...)

			// The PDF the product rendered itself.
			ours := filepath.Join(dir, "plan-"+sc.lang+".pdf")
			officetest.RequireText(t, sc.lang+" rendered PDF", officetest.PDFText(t, ours), append(cf.headings, sc.planTitle)...)
			fonts := officetest.PDFFonts(t, ours)
			if len(fonts) == 0 {
				t.Fatalf("%s rendered PDF lists no fonts", sc.lang)
			}
			for _, f := range fonts {
				if !f.Embedded || !f.Unicode {
					t.Errorf("%s rendered PDF: font %+v is not embedded with a Unicode map (tofu or unsearchable text)", sc.lang, f)
				}
			}
		}

		// A rendered page of the Chinese PDF and a Chinese slide are not
		// blank, and their fonts carry the Chinese title.
		page := officetest.RenderPage(t, filepath.Join(dir, "plan-zh.pdf"), 1, 40)
		if ink, _ := officetest.Ink(page); ink < 0.005 {
			t.Errorf("the lesson plan's first page renders blank (ink %.4f)", ink)
		}
		slide := officetest.RenderPage(t, pdfs[0], 2, 40)
		if ink, colours := officetest.Ink(slide); ink < 0.01 || colours < 3 {
			t.Errorf("the deck's first content slide renders blank (ink %.4f, %d colours)", ink, colours)
		}
		officetest.RequireText(t, "zh slide fonts", officetest.PDFText(t, pdfs[0]), got["zh"].outline.Slides[0].Title)
		embedded := slices.ContainsFunc(officetest.PDFFonts(t, pdfs[0]), func(f officetest.Font) bool { return f.Embedded })
		if !embedded {
			t.Error("LibreOffice embedded no font in the Chinese deck")
		}
	})

	t.Run("pages", func(t *testing.T) {
		for _, sc := range scripts {
			cf := got[sc.lang]
			for _, p := range []pageReady{cf.page, cf.simple} {
				status, h, body := download(t, s.URL, p.URL)
				if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
					t.Fatalf("%s page: %d %q", sc.lang, status, h.Get("Content-Type"))
				}
				if got := h.Get("Content-Security-Policy"); got != blob.PageCSP {
					t.Errorf("%s page: CSP %q, want %q", sc.lang, got, blob.PageCSP)
				}
				checkSelfContained(t, sc.lang+" "+p.Template, body)
				text := pageText(t, body)
				officetest.RequireText(t, sc.lang+" "+p.Template+" page", text, p.Title)
				if p.Template != "custom" {
					officetest.RequireText(t, sc.lang+" "+p.Template+" page", string(body), cf.pageContent...)
				}
				if !bytes.Contains(body, []byte("<script")) {
					t.Errorf("%s %s page has no script: not interactive", sc.lang, p.Template)
				}
			}
		}
	})
}

// checkSelfContained parses a page and fails on anything that loads from
// elsewhere: external scripts, stylesheets, frames, objects, or URL
// attributes other than data: and fragments.
func checkSelfContained(t *testing.T, what string, page []byte) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("%s: not HTML: %v", what, err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "link", "iframe", "frame", "object", "embed", "base", "portal":
				t.Errorf("%s: <%s> element", what, n.Data)
			}
			for _, a := range n.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				switch a.Key {
				case "src", "href", "action", "formaction", "poster", "srcset", "data", "xlink:href":
					if v != "" && !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "data:") {
						t.Errorf("%s: <%s %s=%q> loads from elsewhere", what, n.Data, a.Key, a.Val)
					}
				}
			}
			if n.Data == "style" && n.FirstChild != nil && strings.Contains(strings.ToLower(n.FirstChild.Data), "@import") {
				t.Errorf("%s: a style imports from elsewhere", what)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
}

// pageText is the visible text of a page (script and style left out).
func pageText(t *testing.T, page []byte) string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return b.String()
}

// TestCrossSceneConversation switches scenes in one session (seed 000 §6):
// quiz → deck (outline, confirmation, file) → interactive page, each turn
// with its artifact event and its own final message, each stream accepted
// by the AI SDK's client.
func TestCrossSceneConversation(t *testing.T) {
	s := NewLocal(t, nil)
	steps := []struct {
		msg      string
		artifact string
		text     []string
	}{
		{"出 5 道光合作用的选择题", "data-quiz-complete", []string{"5 道", "光合作用"}},
		{"做一个光合作用的 PPT", "data-pptx-outline", []string{"提纲", "可以，就按这个提纲生成"}},
		{"可以，就按这个提纲生成", "data-file-ready", []string{"课件", "已经生成好了"}},
		{"做一个光合作用的互动网页", "data-interactive-content", []string{"互动网页", "已经生成好了"}},
	}
	conv := ""
	artifactTypes := []string{"data-quiz-complete", "data-pptx-outline", "data-file-ready", "data-interactive-content"}
	for i, step := range steps {
		st := say(t, s.URL, conv, step.msg)
		conv = st.Header.Get("X-Conversation-Id")
		types := st.types(t)
		for _, a := range artifactTypes {
			n := 0
			for _, ty := range types {
				if ty == a {
					n++
				}
			}
			if want := btoi(a == step.artifact); n != want {
				t.Fatalf("turn %d %q: %d %s events, want %d: %v", i+1, step.msg, n, a, want, types)
			}
		}
		text := st.text(t)
		for _, w := range step.text {
			if !strings.Contains(text, w) {
				t.Errorf("turn %d %q: message %q lacks %q", i+1, step.msg, text, w)
			}
		}
		msg := aiSDK(t, st.Raw)
		if msg.Role != "assistant" || !slices.ContainsFunc(msg.Parts, func(p protocol.Part) bool { return p.Type == step.artifact }) {
			t.Errorf("turn %d: the AI SDK assembled no %s part: %+v", i+1, step.artifact, msg.Parts)
		}
	}
	agents := requests(s, offlinemodel.KindAgent)
	if last := agents[len(agents)-1]; !hasSystem(last, prompts.HistoryHeader) {
		t.Error("the last turn's agent call got no history summary")
	}
}

// TestFailedFileToolIsValidated: the model calls generate_docx with
// arguments the tool rejects and claims the file anyway; the claim is
// refused, the retry makes the file, and the teacher never reads a promise
// without a file.
func TestFailedFileToolIsValidated(t *testing.T) {
	s := NewLocal(t, nil)
	cases := []struct {
		name, marker string
		wantFile     bool
	}{
		{"failed call, false claim, retry makes the file", string(offlinemodel.MarkerFileToolFails), true},
		{"claims on both attempts: a clear error, no file", string(offlinemodel.MarkerClaimAlways), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.Offline.Reset()
			st := postStream(t, s.URL, fmt.Sprintf(`{"message":%q}`, "写一份牛顿第一定律的教案 "+c.marker))
			if st.Status != http.StatusOK {
				t.Fatalf("status %d", st.Status)
			}
			types := st.types(t)
			files := payloads[fileReady](t, st, "data-file-ready")
			text := st.text(t)
			// Never a promise without a file.
			if strings.Contains(text, "已经生成") && len(files) == 0 {
				t.Fatalf("the final message claims a file but none was announced: %q %v", text, types)
			}
			if c.wantFile {
				if len(files) != 1 || files[0].Type != "docx" || slices.Contains(types, "error") || text == "" {
					t.Fatalf("files %+v, chunks %v, text %q", files, types, text)
				}
				// The failed call announced nothing: its progress ends in
				// error, and the file comes from another call.
				var failed, ok []string
				for _, e := range st.Events {
					if e.typ(t) != "data-tool-progress" {
						continue
					}
					ch := e.chunk(t)
					d := ch["data"].(map[string]any)
					switch d["status"] {
					case "error":
						failed = append(failed, ch["id"].(string))
					case "success":
						ok = append(ok, ch["id"].(string))
					}
				}
				fileID := callOf(t, st, "data-file-ready")
				if len(failed) != 1 || len(ok) != 1 || fileID != ok[0] || fileID == failed[0] {
					t.Fatalf("progress: failed %v succeeded %v, file from %q", failed, ok, fileID)
				}
			} else {
				if len(files) != 0 || !slices.Contains(types, "error") || text != "" || st.last(t, "finish")["finishReason"] != "error" {
					t.Fatalf("files %+v, chunks %v, text %q", files, types, text)
				}
			}
			retried := slices.ContainsFunc(requests(s, offlinemodel.KindAgent), func(r offlinemodel.Recorded) bool {
				return slices.ContainsFunc(r.Messages, func(m offlinemodel.Message) bool {
					return m.Role == "tool" && strings.HasPrefix(m.Content, prompts.RefusedPrefix)
				})
			})
			if !retried {
				t.Fatal("the false claim was not refused and retried")
			}
			aiSDK(t, st.Raw)
		})
	}
}

// TestFileLinks: a download link works only as signed, until it expires,
// and only for its teacher.
func TestFileLinks(t *testing.T) {
	s := newFileServer(t)
	f := one(t, say(t, s.URL, "", "写一份牛顿第一定律的教案"), "docx")
	u, err := url.Parse(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimPrefix(u.Path, "/files/")
	q := u.Query()
	exp, sig := q.Get("exp"), q.Get("sig")
	link := func(path, exp, sig string) string {
		v := url.Values{}
		if exp != "" {
			v.Set("exp", exp)
		}
		if sig != "" {
			v.Set("sig", sig)
		}
		return s.URL + (&url.URL{Path: path}).EscapedPath() + "?" + v.Encode()
	}
	sign := func(key, exp string) string {
		m := hmac.New(sha256.New, []byte(testFilesSecret))
		m.Write([]byte(key + "|" + exp))
		return hex.EncodeToString(m.Sum(nil))
	}
	past := strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
	flipped := sig[:len(sig)-1] + string("01"[btoi(sig[len(sig)-1] == '0')])
	otherKey := strings.Replace(key, ".docx", "-x.docx", 1)
	cases := []struct {
		name    string
		link    string
		headers []string
		want    []int
	}{
		{"as signed", f.URL, nil, []int{http.StatusOK}},
		{"as signed, by its teacher", f.URL, []string{blob.TeacherHeader, "t-001"}, []int{http.StatusOK}},
		{"another teacher", f.URL, []string{blob.TeacherHeader, "t-002"}, []int{http.StatusForbidden, http.StatusNotFound}},
		{"expired (correctly signed)", link(u.Path, past, sign(key, past)), nil, []int{http.StatusForbidden}},
		{"tampered signature", link(u.Path, exp, flipped), nil, []int{http.StatusForbidden}},
		{"tampered expiry", link(u.Path, strconv.FormatInt(time.Now().Add(365*24*time.Hour).Unix(), 10), sig), nil, []int{http.StatusForbidden}},
		{"signature of another file", link("/files/"+otherKey, exp, sig), nil, []int{http.StatusForbidden}},
		{"unsigned", link(u.Path, "", ""), nil, []int{http.StatusForbidden}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, _, body := download(t, s.URL, c.link, c.headers...)
			if !slices.Contains(c.want, status) {
				t.Fatalf("GET %s: %d %s, want %v", c.link, status, body, c.want)
			}
			if status == http.StatusOK && int64(len(body)) != f.Size {
				t.Fatalf("%d bytes, want %d", len(body), f.Size)
			}
			if status != http.StatusOK && bytes.Contains(body, []byte("PK\x03\x04")) {
				t.Fatal("a refused request got the file's bytes")
			}
		})
	}
	// The signing above is the store's: a fresh signature for a future
	// expiry works, so the refusals are about the link, not the helper.
	future := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	if status, _, _ := download(t, s.URL, link(u.Path, future, sign(key, future))); status != http.StatusOK {
		t.Fatalf("a link signed like the store signs got %d", status)
	}
}

// TestFileToolIsIdempotent re-executes a finished generate_docx call: as
// the tool step (a redelivered Map iteration) and as the tool itself with
// the same call id (a step whose record was lost). Either way the stored
// file is returned and no second file is made.
func TestFileToolIsIdempotent(t *testing.T) {
	s := newFileServer(t)
	st := say(t, s.URL, "", "写一份牛顿第一定律的教案")
	f := one(t, st, "docx")
	conv := st.Header.Get("X-Conversation-Id")
	meta, _ := st.Events[0].chunk(t)["messageMetadata"].(map[string]any)
	turnID, _ := meta["turnId"].(string)
	callID := callOf(t, st, "data-file-ready")
	if turnID == "" || callID == "" {
		t.Fatalf("turn %q call %q", turnID, callID)
	}
	before := s.teacherFiles(t, "t-001")
	if len(before) != 1 {
		t.Fatalf("files after one document: %v", before)
	}

	ctx := context.Background()
	turn := workflow.Turn{SessionID: conv, TurnID: turnID, TeacherID: "t-001", Message: "写一份牛顿第一定律的教案"}
	for range 2 {
		out, err := s.App.Agent.RunTool(ctx, workflow.ToolInput{Turn: turn, Attempt: 1, Call: workflow.ToolCallRef{ID: callID, Name: "generate_docx"}})
		if err != nil || out.Status != string(protocol.ToolSuccess) {
			t.Fatalf("re-run tool step: %+v %v", out, err)
		}
	}
	if after := s.teacherFiles(t, "t-001"); !slices.Equal(after, before) {
		t.Fatalf("re-running the tool step changed the files: %v → %v", before, after)
	}

	var args string
	for _, r := range requests(s.Local, offlinemodel.KindAgent) {
		for _, c := range r.ToolCalls {
			if c.ID == callID {
				args = c.Arguments
			}
		}
	}
	tool, ok := s.App.Tools.Get("generate_docx")
	if args == "" || !ok {
		t.Fatalf("arguments of %s: %q, tool registered %v", callID, args, ok)
	}
	run := func(id string) fileReady {
		t.Helper()
		var got []fileReady
		call := tools.Call{TeacherID: "t-001", SessionID: conv, TurnID: turnID, CallID: id,
			Emit: func(_ context.Context, c protocol.Chunk) error {
				if c.ChunkType() != "data-file-ready" {
					return nil
				}
				b, err := json.Marshal(c)
				if err != nil {
					return err
				}
				var ch struct {
					Data fileReady `json:"data"`
				}
				if err := json.Unmarshal(b, &ch); err != nil {
					return err
				}
				got = append(got, ch.Data)
				return nil
			}}
		if _, err := tool.Run(ctx, call, json.RawMessage(args)); err != nil {
			t.Fatalf("run generate_docx: %v", err)
		}
		if len(got) != 1 {
			t.Fatalf("%d file-ready events", len(got))
		}
		return got[0]
	}
	pathOf := func(link string) string {
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		return u.Path
	}
	for range 2 {
		again := run(callID)
		if pathOf(again.URL) != pathOf(f.URL) || again.Size != f.Size || again.Filename != f.Filename {
			t.Fatalf("the same call made %+v, first %+v", again, f)
		}
	}
	if after := s.teacherFiles(t, "t-001"); !slices.Equal(after, before) {
		t.Fatalf("re-running the same call made another file: %v → %v", before, after)
	}
	// A different call is a different file: the count above can move.
	run(callID + "-other")
	if after := s.teacherFiles(t, "t-001"); len(after) != 2 {
		t.Fatalf("a new call id left %v", after)
	}
}
