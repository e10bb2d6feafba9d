package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Quiz exports (issue 31) in a conversation and through the route: each
// file is downloaded through its signed link and read back here, by its
// parts (the QTI package's items, the spreadsheet's rows). The formats'
// own readers (xmllint with the 1EdTech XSDs, gift-pegjs, exceljs,
// pdftotext) run in shared/office/quizexport.

// quizStems are the stems of the questions a turn streamed, in order.
func quizStems(t *testing.T, st stream) []string {
	t.Helper()
	var out []string
	for _, d := range st.data(t, "data-quiz-question") {
		q, _ := d["question"].(map[string]any)
		out = append(out, q["question"].(string))
	}
	return out
}

// announced are the files a turn announced.
func announced(t *testing.T, st stream) []fileReady {
	t.Helper()
	var out []fileReady
	for _, d := range st.data(t, "data-file-ready") {
		b, _ := json.Marshal(d)
		var f fileReady
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// zipPart reads one part of a zip.
func zipPart(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	f, err := zr.Open(name)
	if err != nil {
		t.Fatalf("no %s in the zip: %v", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// qtiStems reads the QTI package's items in the test's order: each item's
// first paragraph.
func qtiStems(t *testing.T, pkg []byte) []string {
	t.Helper()
	var test struct {
		Refs []struct {
			Href string `xml:"href,attr"`
		} `xml:"testPart>assessmentSection>assessmentItemRef"`
	}
	if err := xml.Unmarshal(zipPart(t, pkg, "test.xml"), &test); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range test.Refs {
		var item struct {
			P []string `xml:"itemBody>p"`
		}
		if err := xml.Unmarshal(zipPart(t, pkg, r.Href), &item); err != nil {
			t.Fatal(err)
		}
		if len(item.P) > 0 {
			out = append(out, item.P[0])
		}
	}
	return out
}

// sheetRows reads the first sheet's rows (inline strings and numbers) of a
// spreadsheet: row number → column letter → text.
func sheetRows(t *testing.T, xlsx []byte) map[int]map[string]string {
	t.Helper()
	var ws struct {
		Rows []struct {
			R     int `xml:"r,attr"`
			Cells []struct {
				Ref string `xml:"r,attr"`
				V   string `xml:"v"`
				T   string `xml:"is>t"`
			} `xml:"c"`
		} `xml:"sheetData>row"`
	}
	if err := xml.Unmarshal(zipPart(t, xlsx, "xl/worksheets/sheet1.xml"), &ws); err != nil {
		t.Fatal(err)
	}
	out := map[int]map[string]string{}
	for _, r := range ws.Rows {
		out[r.R] = map[string]string{}
		for _, c := range r.Cells {
			out[r.R][strings.TrimRight(c.Ref, "0123456789")] = c.V + c.T
		}
	}
	return out
}

func getFile(t *testing.T, base string, f fileReady) []byte {
	t.Helper()
	status, _, body := download(t, base, f.URL)
	if status != http.StatusOK || int64(len(body)) != f.Size {
		t.Fatalf("GET %s: %d, %d bytes (announced %d)", f.URL, status, len(body), f.Size)
	}
	return body
}

// TestQuizExportConversation: a quiz, then "导出为 QTI", then "再做成
// Kahoot": two files, each with the quiz's questions in order, and no new
// questions.
func TestQuizExportConversation(t *testing.T) {
	s := NewLocal(t, nil)
	quiz := say(t, s.URL, "", "出 5 道牛顿第一定律的选择题")
	conv := quiz.Header.Get("X-Conversation-Id")
	stems := quizStems(t, quiz)
	if len(stems) != 5 {
		t.Fatalf("the quiz has %d questions", len(stems))
	}

	qti := say(t, s.URL, conv, "导出为 QTI")
	files := announced(t, qti)
	if len(files) != 1 || files[0].Type != "zip" || len(qti.data(t, "data-quiz-question")) != 0 {
		t.Fatalf("导出为 QTI announced %+v", files)
	}
	if got := qtiStems(t, getFile(t, s.URL, files[0])); !slices.Equal(got, stems) {
		t.Errorf("QTI items %q, want the quiz's %q", got, stems)
	}
	if !strings.Contains(qti.text(t), files[0].Filename) {
		t.Errorf("the answer %q does not name the file", qti.text(t))
	}

	kahoot := say(t, s.URL, conv, "再做成 Kahoot")
	files = announced(t, kahoot)
	if len(files) != 1 || files[0].Type != "xlsx" || len(kahoot.data(t, "data-quiz-question")) != 0 {
		t.Fatalf("再做成 Kahoot announced %+v", files)
	}
	rows := sheetRows(t, getFile(t, s.URL, files[0]))
	if rows[8]["B"] != "Question - max 120 characters" || rows[8]["H"] != "Correct answer(s) - choose at least one" {
		t.Errorf("row 8 is not Kahoot's header: %v", rows[8])
	}
	var got []string
	for r := 9; rows[r] != nil; r++ {
		got = append(got, rows[r]["B"])
		if rows[r]["A"] != fmt.Sprint(r-8) || rows[r]["H"] == "" {
			t.Errorf("row %d = %v", r, rows[r])
		}
	}
	if !slices.Equal(got, stems) {
		t.Errorf("Kahoot rows %q, want the quiz's %q", got, stems)
	}
	if n := len(kahoot.data(t, "data-notice")); n != 0 {
		t.Errorf("a quiz of choice questions fits Kahoot, yet %d notices", n)
	}
}

// TestQuizExportMixedQuiz: a quiz of two question types is written as a
// call per type, numbered on (Q1–Q5); exporting it exports every question
// the teacher saw.
func TestQuizExportMixedQuiz(t *testing.T) {
	s := NewLocal(t, nil)
	quiz := say(t, s.URL, "", "出 3 道选择题和 2 道填空题，关于牛顿第一定律")
	conv := quiz.Header.Get("X-Conversation-Id")
	stems := quizStems(t, quiz)
	if len(stems) != 5 || len(quiz.data(t, "data-quiz-complete")) != 2 {
		t.Fatalf("the mixed quiz has %d questions in %d parts", len(stems), len(quiz.data(t, "data-quiz-complete")))
	}
	// One quiz to the teacher: numbered on across its parts.
	for i, d := range quiz.data(t, "data-quiz-question") {
		if q, _ := d["question"].(map[string]any); q["index"] != float64(i+1) {
			t.Errorf("question %d is numbered %v", i+1, q["index"])
		}
	}
	qti := say(t, s.URL, conv, "导出为 QTI")
	files := announced(t, qti)
	if len(files) != 1 || files[0].Type != "zip" {
		t.Fatalf("导出为 QTI announced %+v", files)
	}
	if got := qtiStems(t, getFile(t, s.URL, files[0])); !slices.Equal(got, stems) {
		t.Errorf("QTI items %q, want the whole quiz's %q", got, stems)
	}
}

// TestQuizExportSaysWhatWasLeftOut: open questions cannot go to Kahoot;
// the teacher reads which in a notice and in the answer.
func TestQuizExportSaysWhatWasLeftOut(t *testing.T) {
	s := NewLocal(t, nil)
	quiz := say(t, s.URL, "", "Create 2 short-answer questions about photosynthesis")
	conv := quiz.Header.Get("X-Conversation-Id")
	if n := len(quizStems(t, quiz)); n != 2 {
		t.Fatalf("the quiz has %d questions", n)
	}
	st := say(t, s.URL, conv, "export this quiz for Kahoot")
	notices := st.data(t, "data-notice")
	want := "Not every question fits this format as it is: question 1 was left out: this format holds choice questions only, " +
		"question 2 was left out: this format holds choice questions only."
	if len(notices) != 1 || notices[0]["code"] != "QUIZ_EXPORT_ADJUSTED" || notices[0]["message"] != want {
		t.Fatalf("notices %v, want %q", notices, want)
	}
	if len(announced(t, st)) != 0 {
		t.Errorf("an empty Kahoot sheet was announced")
	}
	if !strings.Contains(st.text(t), want) {
		t.Errorf("the answer %q does not say what was left out", st.text(t))
	}
	// The same quiz for Canvas keeps both (graded by hand, said so).
	canvas := say(t, s.URL, conv, "export this quiz for Canvas")
	if files := announced(t, canvas); len(files) != 1 || files[0].Type != "zip" {
		t.Errorf("export for Canvas announced %+v", files)
	}
	if n := canvas.data(t, "data-notice"); len(n) != 1 || !strings.Contains(n[0]["message"].(string), "graded by hand") {
		t.Errorf("export for Canvas notices %v", n)
	}
}

// quizExportAnswer is the route's answer.
type quizExportAnswer struct {
	QuizID   string      `json:"quizId"`
	Files    []fileReady `json:"files"`
	Exported int         `json:"exported"`
	Notes    []struct {
		Question int    `json:"question"`
		Action   string `json:"action"`
		Reason   string `json:"reason"`
		Message  string `json:"message"`
	} `json:"notes"`
	Notices []struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"notices"`
	Error *struct {
		Code string `json:"code"`
	} `json:"error"`
}

// TestQuizExportRoute: POST /api/quiz/export for a frontend button: a
// stored quiz by its call id, the same request again (the same file),
// questions given, and bad input answered with seed 004's codes.
func TestQuizExportRoute(t *testing.T) {
	s := NewLocal(t, nil)
	quiz := say(t, s.URL, "", "出 3 道牛顿第一定律的选择题")
	conv := quiz.Header.Get("X-Conversation-Id")
	callID, _ := quiz.last(t, "data-quiz-complete")["id"].(string)
	url := s.URL + "/api/quiz/export"

	body := fmt.Sprintf(`{"conversationId":%q,"toolCallId":%q,"format":"moodle-xml"}`, conv, callID)
	var first, again quizExportAnswer
	if st := PostJSON(t, url, body, &first); st != http.StatusOK || len(first.Files) != 1 || first.Files[0].Type != "xml" ||
		first.Exported != 3 || first.QuizID != callID {
		t.Fatalf("export: %d %+v", st, first)
	}
	moodle := string(getFile(t, s.URL, first.Files[0]))
	for _, stem := range quizStems(t, quiz) {
		if !strings.Contains(moodle, stem) {
			t.Errorf("the Moodle XML lacks %q", stem)
		}
	}
	if PostJSON(t, url, body, &again); again.Files[0].Filename != first.Files[0].Filename ||
		strings.Split(again.Files[0].URL, "?")[0] != strings.Split(first.Files[0].URL, "?")[0] {
		t.Errorf("the same request made another file: %+v, then %+v", first.Files, again.Files)
	}

	mixed := `{"format":"kahoot-xlsx","title":"Mixed","language":"en","questions":[
		{"type":"single_choice","question":"2 + 2 = ?","options":["A. 3","B. 4"],"answer":"B"},
		{"type":"short_answer","question":"Why?","answer":"Because."}]}`
	var m quizExportAnswer
	if st := PostJSON(t, url, mixed, &m); st != http.StatusOK || len(m.Files) != 1 || m.Exported != 1 ||
		len(m.Notes) != 1 || m.Notes[0].Question != 2 || m.Notes[0].Action != "left_out" || len(m.Notices) != 1 {
		t.Fatalf("questions given: %d %+v", st, m)
	}

	for name, c := range map[string]struct {
		body   string
		status int
		code   string
	}{
		"unknown format":        {fmt.Sprintf(`{"conversationId":%q,"format":"pdf"}`, conv), 400, "VALIDATION_ERROR"},
		"no conversation":       {`{"format":"gift"}`, 400, "VALIDATION_ERROR"},
		"call id and questions": {fmt.Sprintf(`{"conversationId":%q,"toolCallId":"c1","format":"gift","questions":[{"question":"x"}]}`, conv), 400, "VALIDATION_ERROR"},
		"empty question":        {`{"format":"gift","questions":[{"question":" "}]}`, 400, "VALIDATION_ERROR"},
		"bad id":                {`{"conversationId":"../x","format":"gift"}`, 400, "VALIDATION_ERROR"},
		"bad language":          {`{"format":"gift","language":"en\nIgnore all","questions":[{"question":"x"}]}`, 400, "VALIDATION_ERROR"},
		"malformed":             {`{"format":`, 400, "VALIDATION_ERROR"},
		"unknown conversation":  {`{"conversationId":"nobody-has-it","format":"gift"}`, 404, "ENTITY_NOT_FOUND"},
		"unknown quiz":          {fmt.Sprintf(`{"conversationId":%q,"toolCallId":"call_none","format":"gift"}`, conv), 404, "ENTITY_NOT_FOUND"},
	} {
		var a quizExportAnswer
		if st := PostJSON(t, url, c.body, &a); st != c.status || a.Error == nil || a.Error.Code != c.code {
			t.Errorf("%s: %d %+v, want %d %s", name, st, a.Error, c.status, c.code)
		}
	}
	// Another teacher's conversation is not found.
	var other quizExportAnswer
	if st := PostJSON(t, url, body, &other, "X-Teacher-Id", "t-002"); st != http.StatusNotFound {
		t.Errorf("another teacher's conversation: %d", st)
	}
}
