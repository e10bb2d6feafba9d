package gentools_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office/pdf"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/gentools"
)

var now = time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)

// countingStore is a real file store that counts Puts: the idempotency
// tests assert that a repeated call builds nothing.
type countingStore struct {
	blob.Store
	mu   sync.Mutex
	puts int
}

func (s *countingStore) Put(ctx context.Context, key, contentType string, body []byte) (blob.Object, error) {
	s.mu.Lock()
	s.puts++
	s.mu.Unlock()
	return s.Store.Put(ctx, key, contentType, body)
}

type env struct {
	t      *testing.T
	store  *countingStore
	srv    *httptest.Server
	reg    *tools.Registry
	chunks []protocol.Chunk
}

func newEnv(t *testing.T, withPDF bool) *env {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	fs, err := blob.NewFS(blob.FSConfig{Dir: t.TempDir(), BaseURL: srv.URL, Secret: []byte("gentools-test-secret-0123456789")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	mux.Handle("/files/", fs.Handler())
	e := &env{t: t, store: &countingStore{Store: fs}, srv: srv}
	deps := gentools.Deps{Blob: e.store, Now: func() time.Time { return now }}
	if withPDF {
		w, err := pdf.Load()
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
		deps.PDF = w
	}
	e.reg = tools.NewRegistry(gentools.New(deps)...)
	return e
}

func (e *env) call(id string) tools.Call {
	return tools.Call{TeacherID: "teacher-1", SessionID: "session-1", TurnID: "turn-1", CallID: id,
		Emit: func(ctx context.Context, c protocol.Chunk) error {
			e.chunks = append(e.chunks, c)
			return nil
		}}
}

func (e *env) run(name, callID, args string) (tools.Result, error) {
	e.t.Helper()
	tool, ok := e.reg.Get(name)
	if !ok {
		e.t.Fatalf("no tool %s", name)
	}
	return tool.Run(context.Background(), e.call(callID), json.RawMessage(args))
}

// last returns the last emitted chunk, decoded.
func (e *env) last(t *testing.T, wantType string, payload any) protocol.Data {
	t.Helper()
	if len(e.chunks) == 0 {
		t.Fatalf("nothing emitted, want %s", wantType)
	}
	d, ok := e.chunks[len(e.chunks)-1].(protocol.Data)
	if !ok || d.ChunkType() != wantType {
		t.Fatalf("last chunk %T %s, want %s", e.chunks[len(e.chunks)-1], e.chunks[len(e.chunks)-1].ChunkType(), wantType)
	}
	if err := json.Unmarshal(d.Data, payload); err != nil {
		t.Fatal(err)
	}
	return d
}

// file runs an artifact tool that must succeed and returns the file it
// announced (its last chunk, data-file-ready).
func (e *env) file(t *testing.T, name, callID, args string) gentools.FileReady {
	t.Helper()
	if _, err := e.run(name, callID, args); err != nil {
		t.Fatal(err)
	}
	var fr gentools.FileReady
	e.last(t, "data-file-ready", &fr)
	return fr
}

// download fetches a signed URL as the teacher's browser would.
func (e *env) download(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, b := get(t, url, "teacher-1")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return resp, b
}

// get fetches url as the browser of teacher.
func get(t *testing.T, url, teacher string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set(blob.TeacherHeader, teacher)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestToolSet(t *testing.T) {
	e := newEnv(t, false)
	want := []string{"generate_docx", "generate_interactive_html", "generate_pptx", "propose_pptx_outline", "render_pdf", "request_interactive_content"}
	if got := e.reg.Names(tools.Generation); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("generation tools = %v, want %v", got, want)
	}
	if len(e.reg.Names(tools.Base)) != 0 {
		t.Error("a generation tool registered as base")
	}
	for _, n := range want {
		if !e.reg.IsArtifact(n) {
			t.Errorf("%s makes an artifact but does not declare its part", n)
		}
	}
}

const outlineArgs = `{"title":"勾股定理","subject":"数学","grade":"八年级","slides":[
 {"title":"学习目标","bullets":["1. 理解定理","2. 会证明"],"notes":"先复习"},
 {"title":"定理内容","bullets":["a²+b²=c²"]}]}`

func TestProposeOutline(t *testing.T) {
	e := newEnv(t, false)
	res, err := e.run(gentools.ProposePptxOutline, "call_outline", outlineArgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != protocol.ToolSuccess || !strings.Contains(res.Message, "请确认") {
		t.Errorf("result = %+v", res)
	}
	out, _ := json.Marshal(res.Output)
	if !strings.Contains(string(out), "awaiting_confirmation") || !strings.Contains(string(out), "generate_pptx") {
		t.Errorf("the model is not told to wait: %s", out)
	}
	if len(e.chunks) != 1 {
		t.Fatalf("%d chunks, want 1", len(e.chunks))
	}
	b, err := protocol.MarshalChunk(e.chunks[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"data-pptx-outline","id":"call_outline","data":{"title":"勾股定理","slides":[{"title":"学习目标","bullets":["理解定理","会证明"]},{"title":"定理内容","bullets":["a²+b²=c²"]}]}}`
	if string(b) != want {
		t.Errorf("chunk =\n%s\nwant\n%s", b, want)
	}
	if e.store.puts != 0 {
		t.Error("an outline stored a file")
	}
}

const pptxArgs = `{"title":"勾股定理：证明与应用","subtitle":"数学 · 八年级","slides":[
 {"title":"学习目标","bullets":["理解定理","会证明"],"notes":"先复习直角三角形"},
 {"title":"定理内容","bullets":["a²+b²=c²"]},
 {"title":"课堂练习","bullets":["梯子问题","屏幕尺寸"]}]}`

func TestGeneratePptx(t *testing.T) {
	e := newEnv(t, false)
	res, err := e.run(gentools.GeneratePptx, "call_pptx", pptxArgs)
	if err != nil {
		t.Fatal(err)
	}
	var fr gentools.FileReady
	d := e.last(t, "data-file-ready", &fr)
	if d.ID != "call_pptx" || fr.Type != "pptx" || fr.Filename != "勾股定理：证明与应用.pptx" || fr.Size == 0 {
		t.Errorf("file-ready = %+v (id %s)", fr, d.ID)
	}
	if !strings.Contains(fr.URL, "/files/teachers/teacher-1/sessions/session-1/files/call_pptx/") {
		t.Errorf("URL %s is not in the teacher's folder", fr.URL)
	}
	resp, body := e.download(t, fr.URL)
	if int64(len(body)) != fr.Size || resp.Header.Get("Content-Type") != "application/vnd.openxmlformats-officedocument.presentationml.presentation" {
		t.Errorf("download: %d bytes, %s", len(body), resp.Header.Get("Content-Type"))
	}
	if n := countParts(t, body, "ppt/slides/slide"); n != 4 {
		t.Errorf("%d slides, want 4 (title + 3)", n)
	}
	if res.Status != protocol.ToolSuccess || !strings.Contains(res.Message, fr.Filename) {
		t.Errorf("result = %+v", res)
	}
}

func countParts(t *testing.T, b []byte, prefix string) int {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	n := 0
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, prefix) && strings.HasSuffix(f.Name, ".xml") && !strings.Contains(f.Name, "_rels") {
			n++
		}
	}
	return n
}

// TestIdempotentByCallID re-runs a call with the same id: the stored file
// is found and announced again, nothing is built or stored twice. A new
// call id makes a new file.
func TestIdempotentByCallID(t *testing.T) {
	e := newEnv(t, false)
	first := e.file(t, gentools.GeneratePptx, "call_same", pptxArgs)
	again := e.file(t, gentools.GeneratePptx, "call_same", pptxArgs)
	if e.store.puts != 1 {
		t.Errorf("%d puts for one call id, want 1", e.store.puts)
	}
	if again.Filename != first.Filename || again.Size != first.Size || strings.Split(again.URL, "?")[0] != strings.Split(first.URL, "?")[0] {
		t.Errorf("the re-run announced %+v, first %+v", again, first)
	}
	other := e.file(t, gentools.GeneratePptx, "call_other", pptxArgs)
	if e.store.puts != 2 || other.URL == first.URL {
		t.Errorf("a new call id did not make a new file (%d puts)", e.store.puts)
	}
	// Without a call id the arguments decide.
	for range 2 {
		if _, err := e.run(gentools.GenerateDocx, "", docxArgs); err != nil {
			t.Fatal(err)
		}
	}
	if e.store.puts != 3 {
		t.Errorf("%d puts, want one more for the two identical calls without id", e.store.puts)
	}
}

const docxArgs = `{"title":"《勾股定理》教案","kind":"lesson_plan","subject":"数学","grade":"八年级","sections":[
 {"heading":"一、教学目标","numbered":["理解定理","会证明"]},
 {"heading":"二、教学过程","paragraphs":["导入：测量教室对角线。"],"bullets":["小组合作"],
  "table":{"headers":["环节","时间"],"rows":[["导入","5 分钟"],["探究","15 分钟"]]}},
 {"heading":"2.1 板书设计","level":2,"paragraphs":["a²+b²=c²"]}]}`

// lessonPlan makes docxArgs' lesson plan with tool and downloads it, after
// checking that it is announced as a typ file named after the title (a
// pdf needs the env with the PDF font).
func lessonPlan(t *testing.T, tool, callID, typ string) (*http.Response, []byte) {
	t.Helper()
	e := newEnv(t, typ == "pdf")
	fr := e.file(t, tool, callID, docxArgs)
	if fr.Type != typ || fr.Filename != "《勾股定理》教案."+typ {
		t.Errorf("file-ready = %+v", fr)
	}
	return e.download(t, fr.URL)
}

func TestGenerateDocx(t *testing.T) {
	_, body := lessonPlan(t, gentools.GenerateDocx, "call_docx", "docx")
	doc := partText(t, body, "word/document.xml")
	for _, want := range []string{"数学 · 八年级 · 教案", "一、教学目标", "导入：测量教室对角线。", "15 分钟", `w:val="Heading2"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q", want)
		}
	}
}

func TestHomeworkFields(t *testing.T) {
	e := newEnv(t, false)
	args := `{"title":"Fractions homework","kind":"homework","sections":[{"heading":"Practice","numbered":["1/2 + 1/3 = ?"]}]}`
	fr := e.file(t, gentools.GenerateDocx, "call_hw", args)
	_, body := e.download(t, fr.URL)
	doc := partText(t, body, "word/document.xml")
	for _, want := range []string{"Name: ____", "Class: ____", "Homework"} {
		if !strings.Contains(doc, want) {
			t.Errorf("homework lacks %q", want)
		}
	}
}

func partText(t *testing.T, b []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == name {
			rc, _ := f.Open()
			defer rc.Close()
			data, _ := io.ReadAll(rc)
			return string(data)
		}
	}
	t.Fatalf("no part %s", name)
	return ""
}

func TestRenderPDF(t *testing.T) {
	resp, body := lessonPlan(t, gentools.RenderPDF, "call_pdf", "pdf")
	if !bytes.HasPrefix(body, []byte("%PDF-")) || resp.Header.Get("Content-Type") != "application/pdf" {
		t.Errorf("not a PDF: %.10q %s", body, resp.Header.Get("Content-Type"))
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "inline;") {
		t.Errorf("a PDF is not shown inline: %s", cd)
	}
}

// Without the PDF font the teacher still gets the document, as .docx, and
// a PDF_UNAVAILABLE notice in their language; the memory keeps the
// document, so a later export takes its topic from it.
func TestRenderPDFWithoutFont(t *testing.T) {
	e := newEnv(t, false)
	res, err := e.run(gentools.RenderPDF, "call_pdf", docxArgs)
	if err != nil {
		t.Fatalf("render_pdf without its font: %v", err)
	}
	var fr gentools.FileReady
	e.last(t, "data-file-ready", &fr)
	if fr.Type != "docx" || !strings.HasSuffix(fr.Filename, ".docx") {
		t.Fatalf("file-ready %+v, want the .docx instead", fr)
	}
	resp, body := e.download(t, fr.URL)
	if !bytes.HasPrefix(body, []byte("PK")) || !strings.Contains(resp.Header.Get("Content-Type"), "wordprocessingml") {
		t.Errorf("not a .docx: %.10q %s", body, resp.Header.Get("Content-Type"))
	}
	if len(res.Notices) != 1 || res.Notices[0].Code != protocol.NoticePDFUnavailable || res.Notices[0].Message != i18n.Chinese.Text(i18n.PDFUnavailable) {
		t.Errorf("notices %+v, want PDF_UNAVAILABLE in Chinese", res.Notices)
	}
	if strings.Contains(res.Message, "render_pdf") || strings.Contains(res.Message, "PDF output") {
		t.Errorf("the teacher reads %q", res.Message)
	}
	if !strings.Contains(res.Memory, "《勾股定理》教案") || strings.Contains(res.Memory, "not available") {
		t.Errorf("memory %q does not keep the document", res.Memory)
	}
}

func TestInteractiveTemplates(t *testing.T) {
	tests := []struct {
		name, args, template string
		contains             []string
	}{
		{"flashcards", `{"title":"Unit 3 vocabulary","template":"flashcards","items":[{"front":"apple","back":"苹果"},{"front":"banana","back":"香蕉"}]}`,
			"flashcards", []string{"苹果", "class=\"card\""}},
		{"quiz", `{"title":"分数小测","template":"quiz","items":[
			{"question":"1/2 + 1/4 = ?","options":["A. 3/4","B. 2/6","C. 1/8"],"answer":"A","explanation":"通分"},
			{"question":"哪个最大？","options":["1/2","2/3","3/5"],"answer":"2/3"},
			{"question":"为什么 0.999… = 1？","answer":"两者之差小于任何正数"}]}`,
			"quiz", []string{`data-answer="0"`, `data-answer="1"`, "两者之差小于任何正数", "重新作答"}},
		{"explainer", `{"title":"Photosynthesis","template":"explainer","items":[{"heading":"Light","body":"Chlorophyll absorbs light."},{"heading":"Water","body":"Water is split."}]}`,
			"explainer", []string{"Chlorophyll absorbs light.", "Next"}},
		// issue 30: page kinds beyond the three, through the same sanitiser and CSP.
		{"matching", `{"title":"Cell parts","template":"matching","items":[{"front":"nucleus","back":"holds the DNA"},{"front":"ribosome","back":"makes <proteins>"}]}`,
			"matching", []string{`class="term"`, "holds the DNA", "makes &lt;proteins&gt;", "Score", "Content-Security-Policy"}},
		{"timeline", `{"title":"牛顿力学","template":"timeline","items":[{"heading":"1687","body":"《原理》出版"},{"heading":"1905","body":"狭义相对论"}]}`,
			"timeline", []string{"<summary>1687</summary>", "狭义相对论", "全部翻开"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, false)
			if _, err := e.run(gentools.RequestInteractiveContent, "call_"+tt.name, tt.args); err != nil {
				t.Fatal(err)
			}
			var ic gentools.InteractiveContent
			e.last(t, "data-interactive-content", &ic)
			if ic.Template != tt.template || ic.URL == "" || !strings.HasSuffix(ic.Filename, ".html") || ic.Items == 0 {
				t.Errorf("interactive-content = %+v", ic)
			}
			resp, body := e.download(t, ic.URL)
			if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox allow-scripts") {
				t.Errorf("the page is served without its CSP: %q", resp.Header.Get("Content-Security-Policy"))
			}
			for _, want := range tt.contains {
				if !strings.Contains(string(body), want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if strings.Contains(string(body), ">A. 3/4<") {
				t.Error("option letters were not stripped")
			}
		})
	}
}

func TestGenerateHTMLSanitises(t *testing.T) {
	e := newEnv(t, false)
	args := `{"title":"小实验","html":"<h2>小实验</h2><script src=\"https://cdn.x/y.js\"></script><iframe src=\"https://x\"></iframe><button onclick=\"this.textContent='好'\">点我</button>"}`
	res, err := e.run(gentools.GenerateInteractiveHTML, "call_html", args)
	if err != nil {
		t.Fatal(err)
	}
	var ic gentools.InteractiveContent
	e.last(t, "data-interactive-content", &ic)
	if ic.Template != "custom" {
		t.Errorf("template = %q", ic.Template)
	}
	_, body := e.download(t, ic.URL)
	page := string(body)
	if strings.Contains(page, "cdn.x") || strings.Contains(page, "<iframe") {
		t.Error("external content survived")
	}
	if !strings.Contains(page, `onclick="this.textContent=&#39;好&#39;"`) {
		t.Error("the page's own handler was removed")
	}
	out, _ := json.Marshal(res.Output)
	if !strings.Contains(string(out), "removed") {
		t.Errorf("the model is not told what was removed: %s", out)
	}
}

func TestArgumentErrors(t *testing.T) {
	tests := []struct{ tool, args string }{
		{gentools.GeneratePptx, `{"title":"x"}`},
		{gentools.GeneratePptx, `{"title":" ","slides":[{"title":"a","bullets":[]}]}`},
		{gentools.GeneratePptx, `{"title":"x","slides":[]}`},
		{gentools.GenerateDocx, `{"title":"x","kind":"essay","sections":[{"heading":"a"}]}`},
		{gentools.GenerateDocx, `{"title":"x","kind":"homework","sections":[]}`},
		{gentools.RequestInteractiveContent, `{"title":"x","template":"flashcards","items":[{"front":"only"}]}`},
		{gentools.RequestInteractiveContent, `{"title":"x","template":"quiz","items":[{"question":"q","options":["a","b"],"answer":"E"}]}`},
		{gentools.RequestInteractiveContent, `{"title":"x","template":"slideshow","items":[{"front":"a","back":"b"}]}`},
		{gentools.GenerateInteractiveHTML, `{"title":"x","html":"<iframe src=\"https://x\"></iframe>"}`},
	}
	for _, tt := range tests {
		e := newEnv(t, false)
		_, err := e.run(tt.tool, "call_bad", tt.args)
		var ae *tools.ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("%s %s: err = %v, want an ArgumentError", tt.tool, tt.args, err)
		}
		if len(e.chunks) != 0 || e.store.puts != 0 {
			t.Errorf("%s %s: something was emitted or stored", tt.tool, tt.args)
		}
	}
}

// TestTeacherIsolation checks that another teacher cannot use a link even
// with a valid signature.
func TestTeacherIsolation(t *testing.T) {
	e := newEnv(t, false)
	fr := e.file(t, gentools.GeneratePptx, "call_iso", pptxArgs)
	if resp, _ := get(t, fr.URL, "teacher-2"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("another teacher got %d, want 403", resp.StatusCode)
	}
}

func TestFilename(t *testing.T) {
	tests := map[[2]string]string{
		{"勾股定理：证明与应用", "pptx"}:            "勾股定理：证明与应用.pptx",
		{"a/b\\c:d*e?f\"g<h>i|j", "docx"}: "abcdefghij.docx",
		{"  Lesson   plan\n2  ", "pdf"}:   "Lesson plan 2.pdf",
		{"../../etc/passwd", "html"}:      "etcpasswd.html",
		{"...", "pdf"}:                    "file.pdf",
		{"**重点**复习", "docx"}:              "重点复习.docx",
		{"100% 掌握 #1", "pdf"}:             "100 掌握 1.pdf",
		{strings.Repeat("长", 80), "pptx"}: strings.Repeat("长", 60) + ".pptx",
	}
	for in, want := range tests {
		got := gentools.Filename(in[0], in[1])
		if got != want {
			t.Errorf("Filename(%q) = %q, want %q", in[0], got, want)
		}
		if err := blob.ValidateKey("teachers/t/" + got); err != nil {
			t.Errorf("Filename(%q) = %q is not a valid key segment: %v", in[0], got, err)
		}
	}
}

// TestAnswers checks the forms a model gives a quiz answer in.
func TestAnswers(t *testing.T) {
	e := newEnv(t, false)
	for answer, want := range map[string]string{
		"B": `data-answer="1"`, "b": `data-answer="1"`, "(B)": `data-answer="1"`, "选B": `data-answer="1"`,
		"Ｂ": `data-answer="1"`, "2": `data-answer="1"`, "乙项": "", "二分之一": `data-answer="1"`, "B. 二分之一": `data-answer="1"`,
	} {
		args := `{"title":"t","template":"quiz","items":[{"question":"q","options":["一半多","二分之一","三分之一"],"answer":` + jsonString(answer) + `}]}`
		_, err := e.run(gentools.RequestInteractiveContent, "call_"+filepath.Base(answer), args)
		if want == "" {
			if err == nil {
				t.Errorf("answer %q was accepted", answer)
			}
			continue
		}
		if err != nil {
			t.Errorf("answer %q: %v", answer, err)
			continue
		}
		var ic gentools.InteractiveContent
		e.last(t, "data-interactive-content", &ic)
		_, body := e.download(t, ic.URL)
		if !strings.Contains(string(body), want) {
			t.Errorf("answer %q did not resolve to %s", answer, want)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
