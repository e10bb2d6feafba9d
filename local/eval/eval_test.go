package eval

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sse(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	return b.String()
}

const (
	start   = `{"type":"start","messageId":"m"}`
	step    = `{"type":"start-step"}`
	endStep = `{"type":"finish-step"}`
	finish  = `{"type":"finish","finishReason":"stop"}`
	done    = `[DONE]`
)

func text(s string) []string {
	return []string{`{"type":"text-start","id":"t"}`, `{"type":"text-delta","id":"t","delta":"` + s + `"}`, `{"type":"text-end","id":"t"}`}
}

func stream(parts ...any) string {
	var cs []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			cs = append(cs, v)
		case []string:
			cs = append(cs, v...)
		}
	}
	return sse(cs...)
}

func TestObserve(t *testing.T) {
	fileReady := `{"type":"data-file-ready","data":{"type":"pptx","url":"/files/x.pptx","filename":"x.pptx","size":10}}`
	cases := []struct {
		name, lang, raw string
		path            string
		falsePromise    bool
		retry           bool
		protocol        bool
	}{
		{"a claim with no artifact event is a false promise", "zh",
			stream(start, step, text("已为你生成光合作用的 PPT，请在下方查看。"), endStep, finish, done), PathAnswer, true, false, false},
		{"an English claim too", "en",
			stream(start, step, text("Done! I've created the slide deck for you; take a look below."), endStep, finish, done), PathAnswer, true, false, false},
		{"a claim with its artifact event stands", "zh",
			stream(start, step, fileReady, endStep, step, text("PPT 已经生成好了，可以直接下载。"), endStep, finish, done), PathArtifact, false, false, false},
		{"an answer that claims nothing", "en",
			stream(start, step, text("Photosynthesis turns light into sugar."), endStep, finish, done), PathAnswer, false, false, false},
		{"a refused round is a validate retry", "zh",
			stream(start, step, endStep, step, text("好的"), endStep, finish, done), PathAnswer, false, true, false},
		{"a warning on finish is a soft retry", "en",
			stream(start, step, text("Here are some ideas."), endStep, `{"type":"finish","messageMetadata":{"conversationId":"c","turnId":"t","warnings":["soft"]}}`, done), PathAnswer, false, true, false},
		{"the build notice has no agent round", "zh", stream(start, text("正在为你搭建分析页面"), finish, done), PathBuild, false, false, false},
		{"clarify", "zh", stream(start, `{"type":"data-clarify","data":{"question":"哪个班？"}}`, finish, done), PathClarify, false, false, false},
		{"error", "en", stream(start, `{"type":"error","errorText":"x"}`, `{"type":"finish","finishReason":"error"}`, done), PathError, false, false, false},
		{"no [DONE] breaks the protocol", "en", stream(start, step, text("hi"), endStep, finish), PathAnswer, false, false, true},
		{"a line that is not a chunk breaks the protocol", "en", stream(start, `{"nope":1}`, step, text("hi"), endStep, finish, done), PathAnswer, false, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := readStream(strings.NewReader(c.raw), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			o := observe(r, c.lang)
			if o.Path != c.path || o.FalsePromise != c.falsePromise || o.ValidateRetry != c.retry || (len(o.Protocol) > 0) != c.protocol {
				t.Errorf("path %s falsePromise %v retry %v protocol %v", o.Path, o.FalsePromise, o.ValidateRetry, o.Protocol)
			}
			fails := judge(o, Expect{})
			if c.falsePromise && !strings.Contains(strings.Join(fails, ";"), "false promise") {
				t.Errorf("a false promise is not a failure: %v", fails)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	raw := stream(start, step, `{"type":"data-tool-progress","data":{"tool":"generate_quiz_questions","status":"running","message":"…"}}`,
		`{"type":"data-quiz-question","data":{"question":{"id":"q1","index":1,"type":"single","question":"?","answer":"A"}}}`,
		`{"type":"data-quiz-complete","data":{"total":1}}`,
		`{"type":"data-tool-progress","data":{"tool":"generate_quiz_questions","status":"success","message":"ok"}}`, endStep,
		step, text("1 question on Newton"), endStep, finish, done)
	r, _ := readStream(strings.NewReader(raw), time.Now())
	o := observe(r, "en")
	if o.ToolCalls != 1 || o.ToolErrors != 0 || o.QuizQuestions != 1 {
		t.Fatalf("tool calls %d errors %d questions %d", o.ToolCalls, o.ToolErrors, o.QuizQuestions)
	}
	cut, _ := readStream(strings.NewReader(stream(start, step, `{"type":"data-tool-progress","data":{"tool":"render_pdf","status":"running","message":"…"}}`,
		endStep, `{"type":"error","errorText":"x"}`, finish, done)), time.Now())
	if o := observe(cut, "en"); o.ToolCalls != 1 || o.ToolErrors != 1 {
		t.Errorf("a tool that never ended: calls %d errors %d, want 1 and 1", o.ToolCalls, o.ToolErrors)
	}
	for _, c := range []struct {
		e    Expect
		want string
	}{
		{Expect{Path: PathArtifact, Parts: []string{"quiz-complete"}, QuizCount: 1, Text: []string{"newton"}}, ""},
		{Expect{Path: PathAnswer}, "path artifact, want answer"},
		{Expect{QuizCount: 5}, "1 quiz questions, want 5"},
		{Expect{Parts: []string{"file-ready"}}, "no data-file-ready"},
		{Expect{NoParts: []string{"quiz-complete"}}, "unexpected data-quiz-complete"},
		{Expect{AnyText: []string{"einstein", "galileo"}}, "says none of"},
		{Expect{NotText: []string{"NEWTON"}}, `says "NEWTON"`},
	} {
		got := strings.Join(judge(o, c.e), "; ")
		if (c.want == "" && got != "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: failures %q, want %q", c.e, got, c.want)
		}
	}
}

func zipOf(t *testing.T, files map[string]string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for n, c := range files {
		w, _ := zw.Create(n)
		w.Write([]byte(c))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFileText(t *testing.T) {
	ct := `<?xml version="1.0"?><Types/>`
	pptx := zipOf(t, map[string]string{"[Content_Types].xml": ct, "ppt/presentation.xml": "<p/>",
		"ppt/slides/slide1.xml": `<p:sld xmlns:p="p" xmlns:a="a"><a:t>光合作用</a:t></p:sld>`})
	docx := zipOf(t, map[string]string{"[Content_Types].xml": ct, "word/document.xml": `<w:document xmlns:w="w"><w:t>Newton</w:t></w:document>`})
	cases := []struct {
		name, typ string
		b         []byte
		text      string
		err       string
	}{
		{"pptx", "pptx", pptx, "光合作用", ""},
		{"docx", "docx", docx, "Newton", ""},
		{"a docx is not a deck", "pptx", docx, "", "lacks ppt/presentation.xml"},
		{"a truncated package", "docx", docx[:len(docx)/2], "", "not a zip"},
		{"broken XML", "docx", zipOf(t, map[string]string{"[Content_Types].xml": ct, "word/document.xml": "<w:document><w:t>x</w:document>"}), "", "not well-formed"},
		{"html", "html", []byte("<!doctype html><html><body><h1>Planets &amp; stars</h1><script>var x</script></body></html>"), "Planets & stars", ""},
		{"not html", "html", []byte("Planets"), "", "not an HTML document"},
		{"not a pdf", "pdf", []byte("PDF-1.4 nothing"), "", "not a PDF"},
		// issue 31: quiz exports
		{"qti", "zip", zipOf(t, map[string]string{"imsmanifest.xml": "<manifest/>", "items/item-1.xml": "<assessmentItem><p>惯性</p></assessmentItem>"}), "惯性", ""},
		{"qti without manifest", "zip", zipOf(t, map[string]string{"items/item-1.xml": "<a/>"}), "", "lacks imsmanifest.xml"},
		{"xlsx", "xlsx", zipOf(t, map[string]string{"[Content_Types].xml": ct, "xl/workbook.xml": "<w/>", "xl/worksheets/sheet1.xml": "<s><t>Kahoot</t></s>"}), "Kahoot", ""},
		{"moodle xml", "xml", []byte("<quiz><question><text>Q1</text></question></quiz>"), "Q1", ""},
		{"broken moodle xml", "xml", []byte("<quiz><question></quiz>"), "", "not well-formed"},
		{"gift", "txt", []byte("::Q1:: 2+2? {=4 ~3}"), "Q1", ""},
		{"not text", "txt", []byte{0xff, 0xfe, 0x00}, "", "not UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := fileText(context.Background(), c.typ, c.b)
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("err = %v, want %q", err, c.err)
			case c.err == "" && err != nil:
				t.Errorf("err = %v", err)
			case c.err == "" && !strings.Contains(got, c.text):
				t.Errorf("text %q lacks %q", got, c.text)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	base := Report{Rows: []Row{
		{PinnedRow: PinnedRow{Name: "quiz", Cases: 10, SuccessRate: 0.9}, TotalP50: 1000},
		{PinnedRow: PinnedRow{Name: "ppt", Cases: 10, SuccessRate: 0.8}},
		{PinnedRow: PinnedRow{Name: "clarify", Cases: 10, ClarifyRounds: 10}},
		{PinnedRow: PinnedRow{Name: "all", Cases: 30}},
	}}
	with := func(f func(rows []Row)) Report {
		r := Report{Rows: append([]Row(nil), base.Rows...)}
		f(r.Rows)
		return r
	}
	cases := []struct {
		name string
		cur  Report
		fail []string
	}{
		{"the same run passes", base, nil},
		{"better passes", with(func(r []Row) { r[0].SuccessRate, r[0].TotalP50 = 1, 900 }), nil},
		{"quiz success lower", with(func(r []Row) { r[0].SuccessRate = 0.8 }), []string{"quiz success rate ≥ baseline"}},
		{"quiz P50 30% worse", with(func(r []Row) { r[0].TotalP50 = 1300 }), []string{"quiz P50 no more than 20% worse"}},
		{"quiz P50 15% worse is allowed", with(func(r []Row) { r[0].TotalP50 = 1150 }), nil},
		{"ppt success lower", with(func(r []Row) { r[1].SuccessRate = 0.7 }), []string{"ppt success rate ≥ baseline"}},
		{"more clarify rounds", with(func(r []Row) { r[2].ClarifyRounds = 12 }), []string{"clarify rounds not more"}},
		{"a broken stream", with(func(r []Row) { r[3].ProtocolBreaks = 1 }), []string{"zero breakage of the frontend protocol"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, v := range Failed(Compare(c.cur, base, CompareOptions{})) {
				got = append(got, v.Rule)
			}
			if strings.Join(got, "|") != strings.Join(c.fail, "|") {
				t.Errorf("failed rules %q, want %q", got, c.fail)
			}
		})
	}
}

func TestBuiltinCases(t *testing.T) {
	cs, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 150 {
		t.Fatalf("%d built-in cases, want at least 150", len(cs))
	}
	if err := Validate(append(cs, Case{ID: cs[0].ID, Scene: "quiz", Language: "de", Mode: "loose"})); err == nil ||
		!strings.Contains(err.Error(), "duplicate id") || !strings.Contains(err.Error(), `language "de"`) || !strings.Contains(err.Error(), `mode "loose"`) {
		t.Errorf("validation: %v", err)
	}
}

func TestMeterAttributes(t *testing.T) {
	m := NewMeter("http://unused")
	stop := m.Track("出 5 道题")
	m.count("出 5 道题", Usage{Prompt: 10, Completion: 5, Calls: 1})
	m.count("出 5 道题 [[offline:skip-tools]]", Usage{Prompt: 1, Calls: 1})
	m.count("a tool's own prompt", Usage{Prompt: 100, Calls: 1})
	if u := stop(); u != (Usage{Prompt: 11, Completion: 5, Calls: 2}) {
		t.Errorf("turn usage %+v", u)
	}
	total, un := m.Totals()
	if total.Prompt != 111 || un.Prompt != 100 {
		t.Errorf("total %+v unattributed %+v", total, un)
	}
	if got := usageIn([]byte(`data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`)); got != (Usage{7, 3, 1}) {
		t.Errorf("usage %+v", got)
	}
	body := AppendToUser(" X")([]byte(`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`))
	if lastUser(body) != "c X" {
		t.Errorf("rewrite: %s", body)
	}
}

func TestLoadYAML(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(`cases:
  - id: ppt-yaml
    scene: ppt
    language: zh
    mode: strict
    turns:
      - message: 做一个关于光合作用的PPT
        expect:
          path: artifact
          parts: [pptx-outline]
      - message: 好的，就按这个提纲生成
        expect:
          files:
            - type: pptx
              mention: [光合]
`), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(`[{"id": "qa", "scene": "knowledge", "language": "en", "turns": [{"message": "What is photosynthesis?"}]}]`), 0o644)
	cs, err := LoadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].ID != "ppt-yaml" || cs[0].Mode != "strict" || cs[0].Turns[1].Expect.Files[0].Mention[0] != "光合" {
		t.Fatalf("loaded %+v", cs)
	}
	bad := filepath.Join(dir, "bad.yml")
	os.WriteFile(bad, []byte("- id: x\n  scene: quiz\n  language: en\n  turns: [{message: hi, expect: {paht: answer}}]\n"), 0o644)
	if _, err := LoadFile(bad); err == nil || !strings.Contains(err.Error(), `unknown field "paht"`) {
		t.Errorf("err = %v, want the unknown field named", err)
	}
}
