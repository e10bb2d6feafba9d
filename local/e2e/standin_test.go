package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/insightedge/insightedge/shared/office/docx"
	"github.com/insightedge/insightedge/shared/office/officetest"
	"github.com/insightedge/insightedge/shared/office/pdf"
)

// The offline stand-in model is what every new user meets first; these
// conversations are the ones that went wrong when it was tried as a new
// user would (issue 17), each run through the whole product.

// TestStandInWorksheetAsWordDocument: the format a teacher asks for is not
// the topic.
func TestStandInWorksheetAsWordDocument(t *testing.T) {
	s := newFileServer(t)
	st := say(t, s.URL, "", "Make a worksheet on fractions as a Word document")
	f := one(t, st, "docx")
	path := fetch(t, s.URL, f.URL, f.Size, docx.ContentType, t.TempDir(), "worksheet.docx")
	text := officetest.OfficeParser(t, path)[0].Text
	officetest.RequireText(t, "worksheet", text, "Fractions", "Multiple choice")
	for _, got := range []string{text, f.Filename, st.text(t)} {
		if low := strings.ToLower(got); strings.Contains(low, "word document") || strings.Contains(low, "as a word") {
			t.Errorf("the format became part of the topic: %q", got)
		}
	}
}

// TestStandInMoreQuestionsAreNew: "再出 3 道" after a quiz gives three new
// questions on the same topic, none repeating an earlier one of the
// conversation, word for word or by stem.
func TestStandInMoreQuestionsAreNew(t *testing.T) {
	s := NewLocal(t, nil)
	for _, tc := range []struct{ first, topic string }{
		{"出 5 道牛顿第一定律的选择题", "牛顿第一定律"},
		{"出 5 道分数加减法的选择题", "分数加减法"},
	} {
		t.Run(tc.topic, func(t *testing.T) {
			conv := ""
			var asked []string
			for round, msg := range []string{tc.first, "再出 3 道", "再出 3 道"} {
				st := say(t, s.URL, conv, msg)
				conv = st.Header.Get("X-Conversation-Id")
				qs := st.data(t, "data-quiz-question")
				if want := map[bool]int{true: 5, false: 3}[round == 0]; len(qs) != want {
					t.Fatalf("%q: %d questions, want %d", msg, len(qs), want)
				}
				if done := lastData(t, st, "data-quiz-complete"); !strings.Contains(done["topic"].(string), tc.topic) {
					t.Errorf("%q: the quiz is not on %s: %v", msg, tc.topic, done)
				}
				for _, q := range qs {
					text := q["question"].(map[string]any)["question"].(string)
					for _, a := range asked {
						if text == a || questionStem(text) == questionStem(a) {
							t.Errorf("%q repeats an earlier question: %q", msg, a)
						}
					}
					asked = append(asked, text)
				}
			}
		})
	}
}

// questionStem is a question without numbering, review marks, spaces and
// punctuation: two questions with one stem are the same question.
func questionStem(q string) string {
	q = regexp.MustCompile(`^\s*(?:（巩固 \d+）|\(Review \d+\)\s*|\d+[.、．]\s*)`).ReplaceAllString(q, "")
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, q)
}

// TestStandInExportsTheLatestArtifact: "导出为PDF" after a deck exports the
// deck, not a lesson plan on the topic.
func TestStandInExportsTheLatestArtifact(t *testing.T) {
	s := newFileServer(t)
	first := say(t, s.URL, "", "做一个光合作用的 PPT")
	conv := first.Header.Get("X-Conversation-Id")
	outline := payloads[outlineEvent](t, first, "data-pptx-outline")[0]
	one(t, say(t, s.URL, conv, "可以，就按这个提纲生成"), "pptx")
	st := say(t, s.URL, conv, "导出为PDF")
	f := one(t, st, "pdf")
	text := officetest.PDFText(t, fetch(t, s.URL, f.URL, f.Size, pdf.ContentType, t.TempDir(), "deck.pdf"))
	want := []string{outline.Title}
	for _, sl := range outline.Slides {
		want = append(want, sl.Title)
	}
	officetest.RequireText(t, "the exported deck", text, want...)
	if strings.Contains(officetest.Squash(text), "教学目标") || strings.Contains(f.Filename, "教案") {
		t.Errorf("the PDF is a lesson plan, not the deck: %s", f.Filename)
	}
}

// TestStandInPhysicsDemoIsASimulation: a page demonstrating free fall is
// titled by the topic and is a real simulation (its physics is checked in
// offlinemodel's TestSimulationPages, run in node).
func TestStandInPhysicsDemoIsASimulation(t *testing.T) {
	s := NewLocal(t, nil)
	for _, tc := range []struct{ msg, topic, sim string }{
		{"做一个演示自由落体的互动网页", "自由落体", "free-fall"},
		{"Make an interactive page demonstrating projectile motion", "Projectile motion", "projectile"},
		{"做一个演示单摆的互动网页", "单摆", "pendulum"},
	} {
		st := say(t, s.URL, "", tc.msg)
		p := onePage(t, st)
		if !strings.HasPrefix(p.Title, tc.topic) || strings.Contains(p.Title, "演示") || strings.Contains(strings.ToLower(p.Title), "demonstrat") {
			t.Errorf("%q: page title %q, want it titled by the topic %q", tc.msg, p.Title, tc.topic)
		}
		status, _, body := download(t, s.URL, p.URL)
		if status != 200 {
			t.Fatalf("%q: page %d", tc.msg, status)
		}
		page := string(body)
		for _, want := range []string{`data-simulation="` + tc.sim + `"`, "<canvas", "requestAnimationFrame", `id="gravity"`, `id="time"`, `id="start"`} {
			if !strings.Contains(page, want) {
				t.Errorf("%q: the page has no %s", tc.msg, want)
			}
		}
	}
}

// TestStandInClarifyAsksOneThingAtATime: a practice request with nothing to
// go on asks for the class (options: classes only), then for the topic
// (options: topics only), then makes the quiz.
func TestStandInClarifyAsksOneThingAtATime(t *testing.T) {
	s := NewLocal(t, nil)
	isClass := regexp.MustCompile(`\d[A-H]`)
	first := say(t, s.URL, "", "帮我给班上出一份练习")
	conv := first.Header.Get("X-Conversation-Id")
	c := lastData(t, first, "data-clarify")
	if len(toStrings(c["options"])) == 0 || c["hint"] != "needClassId" {
		t.Fatalf("first clarify %v: want the class asked first", c)
	}
	for _, o := range toStrings(c["options"]) {
		if !isClass.MatchString(o) {
			t.Errorf("the class question offers %q, which is not a class (options %q)", o, c["options"])
		}
	}
	second := say(t, s.URL, conv, toStrings(c["options"])[0])
	c2 := lastData(t, second, "data-clarify")
	if c2["hint"] != "needTopic" || len(toStrings(c2["options"])) == 0 {
		t.Fatalf("after the class, want the topic asked: %v (%v)", c2, second.types(t))
	}
	for _, o := range toStrings(c2["options"]) {
		if isClass.MatchString(o) {
			t.Errorf("the topic question offers a class %q (options %q)", o, c2["options"])
		}
	}
	third := say(t, s.URL, conv, toStrings(c2["options"])[0])
	if done := lastData(t, third, "data-quiz-complete"); done["topic"] != toStrings(c2["options"])[0] {
		t.Errorf("picking the topic %q did not make the quiz: %v", toStrings(c2["options"])[0], third.types(t))
	}
}

// lastData is the data of the last chunk of type typ.
func lastData(t *testing.T, st stream, typ string) map[string]any {
	t.Helper()
	d, _ := st.last(t, typ)["data"].(map[string]any)
	return d
}

func toStrings(v any) []string {
	var out []string
	if list, ok := v.([]any); ok {
		for _, x := range list {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestPDFUnavailableIsSaidInTheTeachersWords: on a server without the PDF
// font, "导出成 PDF" gives the same document as .docx with a PDF_UNAVAILABLE
// notice; what the teacher reads is catalogue text in Chinese (no tool
// name, no English internals); the AI SDK accepts the stream; and the next
// export still knows the document's topic.
func TestPDFUnavailableIsSaidInTheTeachersWords(t *testing.T) {
	s := NewLocal(t, map[string]string{"PDF_FONT_PATH": filepath.Join(t.TempDir(), "no-such-font.ttf")})
	first := say(t, s.URL, "", "写一份牛顿第一定律的教案")
	conv := first.Header.Get("X-Conversation-Id")
	plan := one(t, first, "docx")
	for _, msg := range []string{"把这份教案导出成 PDF", "导出为PDF"} {
		st := say(t, s.URL, conv, msg)
		f := one(t, st, "docx")
		if f.Filename != plan.Filename {
			t.Errorf("%q made %q, want the lesson plan %q again", msg, f.Filename, plan.Filename)
		}
		n := lastData(t, st, "data-notice")
		if n["code"] != "PDF_UNAVAILABLE" || n["message"] != "PDF 导出暂不可用，已为您生成内容相同的 Word 文档（.docx）。" {
			t.Errorf("%q: notice %v", msg, n)
		}
		teacherReads := []string{st.text(t), fmt.Sprint(n["message"])}
		for _, p := range st.data(t, "data-tool-progress") {
			teacherReads = append(teacherReads, fmt.Sprint(p["message"]))
		}
		for _, r := range teacherReads {
			if strings.Contains(r, "render_pdf") || strings.Contains(r, "generate_docx") || regexp.MustCompile(`[a-z]{4,} [a-z]{3,}`).MatchString(r) {
				t.Errorf("%q: a Chinese teacher reads a tool name or English: %q", msg, r)
			}
		}
		if !strings.Contains(st.text(t), "牛顿第一定律") || !strings.Contains(st.text(t), ".docx") {
			t.Errorf("%q: the answer does not offer the lesson plan as .docx: %q", msg, st.text(t))
		}
		m := aiSDK(t, st.Raw)
		found := false
		for _, p := range m.Parts {
			found = found || p.Type == "data-notice"
		}
		if !found {
			t.Errorf("%q: the AI SDK's message has no data-notice part", msg)
		}
	}
	// The JSON answer carries the notice too.
	var resp struct {
		Notices []struct{ Code, Message string } `json:"notices"`
	}
	PostJSON(t, s.URL+"/api/conversation", fmt.Sprintf(`{"message":"导出为PDF","conversationId":%q}`, conv), &resp)
	if len(resp.Notices) != 1 || resp.Notices[0].Code != "PDF_UNAVAILABLE" {
		t.Errorf("JSON answer notices %+v", resp.Notices)
	}
}
