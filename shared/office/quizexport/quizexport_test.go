package quizexport_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/office/quizexport"
	"github.com/insightedge/insightedge/shared/protocol"
)

var modified = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

const longStem = "A very long question that goes on and on, well past the hundred and twenty characters that Kahoot's template allows for a question: which is it?"

// quizzes are what the quiz tool streams, in Chinese and English: every
// kind, GIFT's and XML's special characters, five options, a long stem.
var quizzes = map[string][]protocol.Question{
	"zh": {
		{Type: "single_choice", Question: "下列关于惯性的说法正确的是？", Options: []string{"A. 速度越大惯性越大", "B. 质量越大惯性越大", "C. 静止的物体没有惯性", "D. 失重时惯性消失"}, Answer: "B", Explanation: "惯性只与质量有关 {注意} ~ = # : 符号"},
		{Type: "multiple_choice", Question: "以下哪些现象与惯性有关？", Options: []string{"A、紧急刹车时人向前倾", "B、苹果落地", "C、拍打衣服除尘", "D、磁铁吸铁"}, Answer: "A,C", Explanation: "A 与 C 都是物体保持原有运动状态。"},
		{Type: "true_false", Question: "一切物体在任何情况下都有惯性。", Answer: "正确", Explanation: "惯性是物体的固有属性。"},
		{Type: "fill_blank", Question: "牛顿第一定律又称为____定律。", Answer: "惯性", Explanation: "因为它揭示了惯性。"},
		{Type: "short_answer", Question: "简述惯性的概念。", Answer: "物体保持原有运动状态不变的性质。", Explanation: "答出“保持运动状态”即可。"},
		{Type: "single_choice", Question: "下列单位中属于力的单位的是？", Options: []string{"A. 千克", "B. 米", "C. 秒", "D. 焦耳", "E. 牛顿"}, Answer: "E", Explanation: "力的单位是牛顿（N）。"},
		{Type: "single_choice", Question: strings.Repeat("一辆汽车在平直公路上匀速行驶，", 9) + "此时汽车受到的合力为？", Options: []string{"A. 向前", "B. 向后", "C. 零"}, Answer: "C", Explanation: "匀速直线运动时合力为零。"},
	},
	"en": {
		{Type: "single_choice", Question: "Which is true when a < b & c > d?", Options: []string{"A) a is smaller", "B) b is smaller", "C) they are equal", "D) none"}, Answer: "A", Explanation: "By definition: a < b means {a} is smaller; ~ = # : are fine."},
		{Type: "multiple_choice", Question: "Which are units of force?", Options: []string{"A. newton", "B. kilogram", "C. kg·m/s²", "D. joule"}, Answer: "AC", Explanation: "1 N = 1 kg·m/s²."},
		{Type: "true_false", Question: "An object at rest has no inertia.", Answer: "False", Explanation: "Every object with mass has inertia."},
		{Type: "fill_blank", Question: "Newton's first law is also called the law of ____.", Answer: "inertia", Explanation: "It describes inertia."},
		{Type: "short_answer", Question: "Explain inertia in one sentence.", Answer: "Inertia is an object's resistance to a change in its motion.", Explanation: "Mention the resistance to change."},
		{Type: "single_choice", Question: "Which planet is largest?", Options: []string{"A. Mercury", "B. Venus", "C. Earth", "D. Mars", "E. Jupiter"}, Answer: "Jupiter", Explanation: "Jupiter is the largest planet."},
		{Type: "single_choice", Question: longStem, Options: []string{"A. this", "B. that", "C. the other"}, Answer: "C", Explanation: "It is the other."},
	},
}

// want is what every reader must find, per question: kind, the stem as
// cleaned, the options, the right options' indexes, the written answer.
type want struct {
	kind    quizexport.Kind
	options int
	correct []int
	answer  string
}

var wants = map[string][]want{
	"zh": {{quizexport.SingleChoice, 4, []int{1}, ""}, {quizexport.MultipleChoice, 4, []int{0, 2}, ""}, {quizexport.TrueFalse, 2, []int{0}, ""},
		{quizexport.FillBlank, 0, nil, "惯性"}, {quizexport.ShortAnswer, 0, nil, "物体保持原有运动状态不变的性质。"},
		{quizexport.SingleChoice, 5, []int{4}, ""}, {quizexport.SingleChoice, 3, []int{2}, ""}},
	"en": {{quizexport.SingleChoice, 4, []int{0}, ""}, {quizexport.MultipleChoice, 4, []int{0, 2}, ""}, {quizexport.TrueFalse, 2, []int{1}, ""},
		{quizexport.FillBlank, 0, nil, "inertia"}, {quizexport.ShortAnswer, 0, nil, "Inertia is an object's resistance to a change in its motion."},
		{quizexport.SingleChoice, 5, []int{4}, ""}, {quizexport.SingleChoice, 3, []int{2}, ""}},
}

func quiz(t *testing.T, lang string) quizexport.Quiz {
	t.Helper()
	title := map[string]string{"zh": "牛顿第一定律", "en": "Newton's first law"}[lang]
	q, notes := quizexport.FromProtocol(title, "", quizzes[lang])
	if len(notes) != 0 {
		t.Fatalf("FromProtocol notes = %v, want none", notes)
	}
	return q
}

func TestFromProtocol(t *testing.T) {
	for lang, ws := range wants {
		q := quiz(t, lang)
		if len(q.Questions) != len(ws) {
			t.Fatalf("%s: %d questions, want %d", lang, len(q.Questions), len(ws))
		}
		for i, w := range ws {
			got := q.Questions[i]
			if got.Number != i+1 || got.Kind != w.kind || len(got.Options) != w.options || !slices.Equal(got.Correct, w.correct) {
				t.Errorf("%s question %d = %+v, want %+v", lang, i+1, got, w)
			}
			for _, o := range got.Options {
				if len(o) > 1 && (o[1] == '.' || o[1] == ')' || strings.HasPrefix(o[1:], "、")) {
					t.Errorf("%s question %d: option %q keeps its label", lang, i+1, o)
				}
			}
		}
	}
	if got := quiz(t, "zh").Lang; got != "zh-CN" {
		t.Errorf("zh quiz language %q", got)
	}
}

func TestFromProtocolAnswers(t *testing.T) {
	opts := []string{"A. red", "B. green", "C. blue"}
	cases := []struct {
		name  string
		q     protocol.Question
		kind  quizexport.Kind
		want  []int
		noted bool
	}{
		{"letter", protocol.Question{Type: "single_choice", Options: opts, Answer: "b"}, quizexport.SingleChoice, []int{1}, false},
		{"letters", protocol.Question{Type: "multiple_choice", Options: opts, Answer: "A、C"}, quizexport.MultipleChoice, []int{0, 2}, false},
		{"text", protocol.Question{Type: "single_choice", Options: opts, Answer: "Blue"}, quizexport.SingleChoice, []int{2}, false},
		{"two letters make it multiple", protocol.Question{Type: "single_choice", Options: opts, Answer: "A, B"}, quizexport.MultipleChoice, []int{0, 1}, false},
		{"true", protocol.Question{Type: "true_false", Answer: "对"}, quizexport.TrueFalse, []int{0}, false},
		{"letter out of range", protocol.Question{Type: "single_choice", Options: opts, Answer: "D"}, quizexport.ShortAnswer, nil, true},
		{"no match", protocol.Question{Type: "single_choice", Options: opts, Answer: "purple"}, quizexport.ShortAnswer, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.q.Question = "Which?"
			q, notes := quizexport.FromProtocol("t", "en", []protocol.Question{c.q})
			got := q.Questions[0]
			if got.Kind != c.kind || !slices.Equal(got.Correct, c.want) {
				t.Errorf("got %s %v, want %s %v", got.Kind, got.Correct, c.kind, c.want)
			}
			if c.noted != (len(notes) == 1 && notes[0].Reason == quizexport.ReasonNoAnswer) {
				t.Errorf("notes = %v", notes)
			}
		})
	}
}

func notesOf(ns []quizexport.Note) map[int]quizexport.Note {
	m := map[int]quizexport.Note{}
	for _, n := range ns {
		m[n.Question] = n
	}
	return m
}

func checkNotes(t *testing.T, got []quizexport.Note, want map[int]quizexport.Note) {
	t.Helper()
	if g := notesOf(got); len(got) != len(want) || len(g) != len(want) {
		t.Errorf("notes = %v, want %v", got, want)
	} else {
		for k, w := range want {
			if g[k] != w {
				t.Errorf("note of question %d = %+v, want %+v", k, g[k], w)
			}
		}
	}
}

var manual = quizexport.Note{Question: 5, Action: quizexport.Converted, Reason: quizexport.ReasonManualGrading}

// qtiItem is what the test reads of an assessmentItem.
type qtiItem struct {
	Identifier string   `xml:"identifier,attr"`
	Correct    []string `xml:"responseDeclaration>correctResponse>value"`
	Body       struct {
		P []struct {
			Text  string    `xml:",chardata"`
			Entry *struct{} `xml:"textEntryInteraction"`
		} `xml:"p"`
		Choices []struct {
			ID   string `xml:"identifier,attr"`
			Text string `xml:",chardata"`
		} `xml:"choiceInteraction>simpleChoice"`
		Essay *struct{} `xml:"extendedTextInteraction"`
	} `xml:"itemBody"`
	Feedback []string `xml:"modalFeedback>p"`
}

func TestQTI21(t *testing.T) {
	xsdDir := repoDir(t, "testdata/qti/xsd")
	for lang, ws := range wants {
		t.Run(lang, func(t *testing.T) {
			q := quiz(t, lang)
			data, notes := written(t)(quizexport.WriteQTI21(q, modified))
			checkNotes(t, notes, map[int]quizexport.Note{5: manual})
			dir := unzip(t, data)
			xmllintSchema(t, filepath.Join(xsdDir, "imscp_v1p1.xsd"), filepath.Join(dir, "imsmanifest.xml"))
			files := []string{filepath.Join(dir, "test.xml")}
			for i := range ws {
				files = append(files, filepath.Join(dir, "items", "item-"+itoa(i+1)+".xml"))
			}
			xmllintSchema(t, filepath.Join(xsdDir, "qtiv2p1", "imsqti_v2p1.xsd"), files...)

			var man struct {
				Resources []struct {
					ID   string `xml:"identifier,attr"`
					Type string `xml:"type,attr"`
					Href string `xml:"href,attr"`
					Deps []struct {
						Ref string `xml:"identifierref,attr"`
					} `xml:"dependency"`
				} `xml:"resources>resource"`
			}
			readXML(t, filepath.Join(dir, "imsmanifest.xml"), &man)
			if len(man.Resources) != len(ws)+1 || man.Resources[0].Type != "imsqti_test_xmlv2p1" || len(man.Resources[0].Deps) != len(ws) {
				t.Fatalf("manifest resources = %+v", man.Resources)
			}
			var test struct {
				Refs []struct {
					Href string `xml:"href,attr"`
				} `xml:"testPart>assessmentSection>assessmentItemRef"`
			}
			readXML(t, files[0], &test)
			for i, w := range ws {
				if test.Refs[i].Href != "items/item-"+itoa(i+1)+".xml" {
					t.Errorf("test item %d is %s: out of order", i+1, test.Refs[i].Href)
				}
				var it qtiItem
				readXML(t, files[i+1], &it)
				src := quizzes[lang][i]
				if len(it.Body.P) == 0 || it.Body.P[0].Text != src.Question {
					t.Errorf("item %d stem %+v, want %q", i+1, it.Body.P, src.Question)
				}
				var wantCorrect []string
				for _, c := range w.correct {
					wantCorrect = append(wantCorrect, quizexport.Letter(c))
				}
				switch w.kind {
				case quizexport.FillBlank:
					wantCorrect = []string{w.answer}
					if len(it.Body.P) != 2 || it.Body.P[1].Entry == nil {
						t.Errorf("item %d has no textEntryInteraction", i+1)
					}
				case quizexport.ShortAnswer:
					if it.Body.Essay == nil {
						t.Errorf("item %d has no extendedTextInteraction", i+1)
					}
				default:
					if len(it.Body.Choices) != w.options {
						t.Errorf("item %d has %d choices, want %d", i+1, len(it.Body.Choices), w.options)
					}
				}
				if !slices.Equal(it.Correct, wantCorrect) {
					t.Errorf("item %d correct response %v, want %v", i+1, it.Correct, wantCorrect)
				}
				if !slices.Contains(it.Feedback, src.Explanation) {
					t.Errorf("item %d feedback %q lacks the explanation %q", i+1, it.Feedback, src.Explanation)
				}
			}
		})
	}
}

func TestMoodleXML(t *testing.T) {
	for lang, ws := range wants {
		t.Run(lang, func(t *testing.T) {
			data, notes := quizexport.WriteMoodleXML(quiz(t, lang))
			checkNotes(t, notes, map[int]quizexport.Note{5: manual})
			file := writeTemp(t, "quiz.xml", data)
			xmllintWellFormed(t, file)
			// The shape of docs.moodle.org/en/Moodle_XML_format.
			var doc struct {
				XMLName   xml.Name `xml:"quiz"`
				Questions []struct {
					Type     string `xml:"type,attr"`
					Category string `xml:"category>text"`
					Name     string `xml:"name>text"`
					Text     struct {
						Format string `xml:"format,attr"`
						Text   string `xml:"text"`
					} `xml:"questiontext"`
					Feedback string `xml:"generalfeedback>text"`
					Single   string `xml:"single"`
					Answers  []struct {
						Fraction string `xml:"fraction,attr"`
						Text     string `xml:"text"`
					} `xml:"answer"`
					GraderInfo string `xml:"graderinfo>text"`
				} `xml:"question"`
			}
			readXML(t, file, &doc)
			if len(doc.Questions) != len(ws)+1 || doc.Questions[0].Type != "category" || !strings.HasPrefix(doc.Questions[0].Category, "$course$/top/") {
				t.Fatalf("%d questions, the first %+v", len(doc.Questions), doc.Questions[0])
			}
			types := map[quizexport.Kind]string{quizexport.SingleChoice: "multichoice", quizexport.MultipleChoice: "multichoice",
				quizexport.TrueFalse: "truefalse", quizexport.FillBlank: "shortanswer", quizexport.ShortAnswer: "essay"}
			for i, w := range ws {
				mq := doc.Questions[i+1]
				src := quizzes[lang][i]
				if mq.Type != types[w.kind] || mq.Name == "" || mq.Text.Format != "html" || mq.Text.Text != "<p>"+htmlEscape(src.Question)+"</p>" {
					t.Errorf("question %d: type %s name %q text %+v", i+1, mq.Type, mq.Name, mq.Text)
				}
				if mq.Feedback != "<p>"+htmlEscape(src.Explanation)+"</p>" {
					t.Errorf("question %d feedback %q", i+1, mq.Feedback)
				}
				var right []string
				for _, a := range mq.Answers {
					if !strings.HasPrefix(a.Fraction, "-") && a.Fraction != "0" {
						right = append(right, a.Text)
					}
				}
				var wantRight []string
				switch w.kind {
				case quizexport.TrueFalse:
					wantRight = []string{map[bool]string{true: "true", false: "false"}[w.correct[0] == 0]}
				case quizexport.FillBlank:
					wantRight = []string{w.answer}
				case quizexport.ShortAnswer:
					if mq.GraderInfo == "" || len(mq.Answers) != 0 {
						t.Errorf("essay %d: graderinfo %q, %d answers", i+1, mq.GraderInfo, len(mq.Answers))
					}
				default:
					q := quiz(t, lang).Questions[i]
					for _, c := range w.correct {
						wantRight = append(wantRight, htmlEscape(q.Options[c]))
					}
					if len(mq.Answers) != w.options || mq.Single != map[bool]string{true: "true", false: "false"}[w.kind == quizexport.SingleChoice] {
						t.Errorf("question %d: %d answers, single %s", i+1, len(mq.Answers), mq.Single)
					}
				}
				if !slices.Equal(right, wantRight) {
					t.Errorf("question %d right answers %q, want %q", i+1, right, wantRight)
				}
			}
		})
	}
}

// giftQuestion is what gift-pegjs returns for a question.
type giftQuestion struct {
	Type  string `json:"type"`
	Title string `json:"title"`
	Stem  struct {
		Text string `json:"text"`
	} `json:"stem"`
	IsTrue  *bool `json:"isTrue"`
	Choices []struct {
		IsCorrect bool     `json:"isCorrect"`
		Weight    *float64 `json:"weight"`
		Text      struct {
			Text string `json:"text"`
		} `json:"text"`
	} `json:"choices"`
	GlobalFeedback *struct {
		Text string `json:"text"`
	} `json:"globalFeedback"`
}

func TestGIFT(t *testing.T) {
	for lang, ws := range wants {
		t.Run(lang, func(t *testing.T) {
			q := quiz(t, lang)
			data, notes := quizexport.WriteGIFT(q)
			checkNotes(t, notes, map[int]quizexport.Note{5: manual})
			var parsed []giftQuestion
			quizReader(t, "gift", writeTemp(t, "quiz.gift", data), &parsed)
			if len(parsed) != len(ws)+1 || parsed[0].Type != "Category" {
				t.Fatalf("gift-pegjs read %d questions: %+v", len(parsed), parsed)
			}
			types := map[quizexport.Kind]string{quizexport.SingleChoice: "MC", quizexport.MultipleChoice: "MC",
				quizexport.TrueFalse: "TF", quizexport.FillBlank: "Short", quizexport.ShortAnswer: "Essay"}
			for i, w := range ws {
				g := parsed[i+1]
				src := quizzes[lang][i]
				if g.Type != types[w.kind] || strings.TrimSpace(g.Stem.Text) != src.Question {
					t.Errorf("question %d: %s %q, want %s %q", i+1, g.Type, g.Stem.Text, types[w.kind], src.Question)
				}
				if g.GlobalFeedback == nil || strings.TrimSpace(g.GlobalFeedback.Text) != src.Explanation {
					t.Errorf("question %d feedback %+v, want %q", i+1, g.GlobalFeedback, src.Explanation)
				}
				switch w.kind {
				case quizexport.TrueFalse:
					if g.IsTrue == nil || *g.IsTrue != (w.correct[0] == 0) {
						t.Errorf("question %d isTrue %v", i+1, g.IsTrue)
					}
				case quizexport.FillBlank:
					if len(g.Choices) != 1 || g.Choices[0].Text.Text != w.answer || !g.Choices[0].IsCorrect {
						t.Errorf("question %d answers %+v", i+1, g.Choices)
					}
				case quizexport.SingleChoice, quizexport.MultipleChoice:
					if len(g.Choices) != w.options {
						t.Fatalf("question %d has %d choices, want %d", i+1, len(g.Choices), w.options)
					}
					for j, c := range g.Choices {
						right := slices.Contains(w.correct, j)
						got := c.IsCorrect || c.Weight != nil && *c.Weight > 0
						if got != right || strings.TrimSpace(c.Text.Text) != q.Questions[i].Options[j] {
							t.Errorf("question %d choice %d = %+v, want right=%v %q", i+1, j, c, right, q.Questions[i].Options[j])
						}
					}
				}
			}
		})
	}
}

type sheet struct {
	Name string     `json:"name"`
	Rows [][]string `json:"rows"`
}

func cell(row []string, i int) string {
	if i < len(row) {
		return row[i]
	}
	return ""
}

func TestKahoot(t *testing.T) {
	for lang := range wants {
		t.Run(lang, func(t *testing.T) {
			q := quiz(t, lang)
			data, notes := written(t)(quizexport.WriteKahoot(q, modified))
			checkNotes(t, notes, map[int]quizexport.Note{
				4: {Question: 4, Action: quizexport.LeftOut, Reason: quizexport.ReasonOpenQuestion},
				5: {Question: 5, Action: quizexport.LeftOut, Reason: quizexport.ReasonOpenQuestion},
				6: {Question: 6, Action: quizexport.LeftOut, Reason: quizexport.ReasonTooManyOptions},
				7: {Question: 7, Action: quizexport.Converted, Reason: quizexport.ReasonTooLong},
			})
			var sheets []sheet
			quizReader(t, "xlsx", writeTemp(t, "kahoot.xlsx", data), &sheets)
			rows := sheets[0].Rows
			header := []string{"", "Question - max 120 characters", "Answer 1 - max 75 characters", "Answer 2 - max 75 characters",
				"Answer 3 - max 75 characters", "Answer 4 - max 75 characters",
				"Time limit (sec) – 5, 10, 20, 30, 60, 90, 120, or 240 secs", "Correct answer(s) - choose at least one"}
			if len(rows) < 8 || !slices.Equal(rows[7], header) {
				t.Fatalf("row 8 = %q, want the template's header %q", rows[min(7, len(rows)-1)], header)
			}
			if cell(rows[1], 1) != "Quiz template" {
				t.Errorf("row 2 = %q", rows[1])
			}
			kept := []int{0, 1, 2, 6}
			data8 := rows[8:]
			if len(data8) != len(kept) {
				t.Fatalf("%d question rows, want %d: %q", len(data8), len(kept), data8)
			}
			for n, i := range kept {
				row, src := data8[n], q.Questions[i]
				if cell(row, 0) != itoa(n+1) || cell(row, 6) != "30" {
					t.Errorf("row %d = %q", n+9, row)
				}
				if stem := cell(row, 1); len([]rune(stem)) > 120 || !strings.HasPrefix(src.Stem, strings.TrimSuffix(stem, "…")) {
					t.Errorf("row %d question %q (%d characters)", n+9, stem, len([]rune(stem)))
				}
				for j := range 4 {
					want := ""
					if j < len(src.Options) {
						want = src.Options[j]
					}
					if cell(row, 2+j) != want {
						t.Errorf("row %d answer %d = %q, want %q", n+9, j+1, cell(row, 2+j), want)
					}
				}
				var nums []string
				for _, c := range wants[lang][i].correct {
					nums = append(nums, itoa(c+1))
				}
				if cell(row, 7) != strings.Join(nums, ",") {
					t.Errorf("row %d correct %q, want %q", n+9, cell(row, 7), strings.Join(nums, ","))
				}
			}
		})
	}
}

func TestQuizizz(t *testing.T) {
	for lang, ws := range wants {
		t.Run(lang, func(t *testing.T) {
			q := quiz(t, lang)
			data, notes := written(t)(quizexport.WriteQuizizz(q, modified))
			checkNotes(t, notes, map[int]quizexport.Note{5: manual})
			var sheets []sheet
			quizReader(t, "xlsx", writeTemp(t, "quizizz.xlsx", data), &sheets)
			rows := sheets[0].Rows
			header := []string{"Question Text", "Question Type", "Option 1", "Option 2", "Option 3", "Option 4", "Option 5",
				"Correct Answer", "Time in seconds", "Image Link", "Answer explanation"}
			if !slices.Equal(rows[0], header) {
				t.Fatalf("row 1 = %q, want the template's header %q", rows[0], header)
			}
			if len(rows) != len(ws)+2 {
				t.Fatalf("%d rows, want %d", len(rows), len(ws)+2)
			}
			types := map[quizexport.Kind]string{quizexport.SingleChoice: "Multiple Choice", quizexport.MultipleChoice: "Checkbox",
				quizexport.TrueFalse: "Multiple Choice", quizexport.FillBlank: "Fill-in-the-Blank", quizexport.ShortAnswer: "Open-Ended"}
			for i, w := range ws {
				row, src := rows[i+2], q.Questions[i]
				var nums []string
				for _, c := range w.correct {
					nums = append(nums, itoa(c+1))
				}
				if cell(row, 0) != src.Stem || cell(row, 1) != types[w.kind] || cell(row, 7) != strings.Join(nums, ",") || cell(row, 10) != src.Explanation {
					t.Errorf("row %d = %q", i+3, row)
				}
				for j, o := range src.Options {
					if cell(row, 2+j) != o {
						t.Errorf("row %d option %d = %q, want %q", i+3, j+1, cell(row, 2+j), o)
					}
				}
				if w.kind == quizexport.FillBlank && cell(row, 2) != w.answer {
					t.Errorf("fill-in row %d option 1 = %q, want %q", i+3, cell(row, 2), w.answer)
				}
			}
		})
	}
}

func readXML(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func repoDir(t *testing.T, rel string) string { return repo(t, rel) }

func itoa(i int) string { return strconv.Itoa(i) }

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// written fails the test on a writer's error.
func written(t *testing.T) func([]byte, []quizexport.Note, error) ([]byte, []quizexport.Note) {
	return func(b []byte, n []quizexport.Note, err error) ([]byte, []quizexport.Note) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b, n
	}
}
