// Package quizexport writes a generated quiz in the formats teachers take it
// to (issue 31): an IMS QTI 2.1 content package for a learning platform,
// Moodle XML and GIFT, Kahoot's and Quizizz's spreadsheet templates, and a
// printable paper with its answer key on a page of its own.
//
// Every writer takes a Quiz and returns what it wrote with the Notes of
// what it had to change: a question the target cannot hold is converted
// or left out, and a Note says so, so that the caller can tell the teacher
// (never a silent drop).
package quizexport

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/protocol"
)

// Kind is a question's kind, as the quiz tool names it.
type Kind string

// The kinds of question.
const (
	SingleChoice   Kind = "single_choice"
	MultipleChoice Kind = "multiple_choice"
	TrueFalse      Kind = "true_false"
	FillBlank      Kind = "fill_blank"
	ShortAnswer    Kind = "short_answer"
)

// Choice reports whether questions of kind k are answered by picking
// options.
func (k Kind) Choice() bool { return k == SingleChoice || k == MultipleChoice || k == TrueFalse }

// Question is one question of a quiz.
type Question struct {
	// Number is the question's number in the quiz, from 1.
	Number int
	Kind   Kind
	Stem   string
	// Options are a choice question's options without their labels.
	Options []string
	// Correct are the indexes in Options of the right options.
	Correct []int
	// Answer is the answer as written: the text of a fill-in or open
	// question's answer; for a choice question, the options' labels.
	Answer      string
	Explanation string
}

// Quiz is a titled list of questions.
type Quiz struct {
	Title string
	// Lang is a BCP 47 tag such as "zh-CN" or "en-US".
	Lang      string
	Questions []Question
}

// Format names an export format.
type Format string

// The export formats.
const (
	QTI21     Format = "qti21"
	MoodleXML Format = "moodle-xml"
	GIFT      Format = "gift"
	Kahoot    Format = "kahoot-xlsx"
	Quizizz   Format = "quizizz-xlsx"
	Paper     Format = "paper"
)

// Formats are the formats, in the order they are offered.
var Formats = []Format{QTI21, MoodleXML, GIFT, Kahoot, Quizizz, Paper}

// Valid reports whether f is one of Formats.
func (f Format) Valid() bool {
	for _, g := range Formats {
		if f == g {
			return true
		}
	}
	return false
}

// Action is what a writer did with a question it could not take as it is.
type Action string

// The actions.
const (
	LeftOut   Action = "left_out"
	Converted Action = "converted"
)

// Reason is why.
type Reason string

// The reasons.
const (
	// ReasonOpenQuestion: the target plays choice questions only.
	ReasonOpenQuestion Reason = "open_question"
	// ReasonTooManyOptions: more options than the target's columns.
	ReasonTooManyOptions Reason = "too_many_options"
	// ReasonTooLong: a text was cut to the template's limit.
	ReasonTooLong Reason = "too_long"
	// ReasonManualGrading: an open question kept as one a teacher grades.
	ReasonManualGrading Reason = "manual_grading"
	// ReasonNoAnswer: the answer names no option; the question is kept as
	// an open question with the written answer as its reference.
	ReasonNoAnswer Reason = "no_answer"
)

// Note says what a writer did with one question.
type Note struct {
	Question int    `json:"question"`
	Action   Action `json:"action"`
	Reason   Reason `json:"reason"`
}

// FromProtocol makes a Quiz of the questions as the quiz tool streamed them
// (data-quiz-question), in their order: option labels ("A. ") come off,
// the answer's labels or texts become indexes, a true/false question gets
// its two options. A choice question whose answer names no option is kept
// as an open question, with a Note.
func FromProtocol(title, lang string, qs []protocol.Question) (Quiz, []Note) {
	var sample strings.Builder
	for _, q := range qs {
		sample.WriteString(q.Question)
	}
	lang = office.Lang(lang, title, sample.String())
	quiz := Quiz{Title: office.Line(title), Lang: lang}
	var notes []Note
	for i, p := range qs {
		q := Question{Number: i + 1, Kind: Kind(p.Type), Stem: office.Clean(p.Question),
			Answer: office.Clean(p.Answer), Explanation: office.Clean(p.Explanation)}
		for _, o := range p.Options {
			if o = stripLabel(office.Line(o)); o != "" {
				q.Options = append(q.Options, o)
			}
		}
		q = settle(q, i18n.Of(lang))
		if q.Kind == ShortAnswer && Kind(p.Type).Choice() {
			notes = append(notes, Note{Question: q.Number, Action: Converted, Reason: ReasonNoAnswer})
		}
		quiz.Questions = append(quiz.Questions, q)
	}
	return quiz, notes
}

// settle gives q a known kind and, for a choice question, its correct
// options.
func settle(q Question, l i18n.Lang) Question {
	switch q.Kind {
	case SingleChoice, MultipleChoice, TrueFalse, FillBlank, ShortAnswer:
	default:
		q.Kind = ShortAnswer
		if len(q.Options) >= 2 {
			q.Kind = SingleChoice
		}
	}
	if q.Kind == TrueFalse && len(q.Options) != 2 {
		q.Options = []string{l.Text(i18n.QuizTrue), l.Text(i18n.QuizFalse)}
	}
	if !q.Kind.Choice() {
		q.Options, q.Correct = nil, nil
		return q
	}
	q.Correct = correct(q)
	if len(q.Correct) == 0 || len(q.Options) < 2 {
		q.Kind, q.Options, q.Correct = ShortAnswer, nil, nil
		return q
	}
	if q.Kind == SingleChoice && len(q.Correct) > 1 {
		q.Kind = MultipleChoice
	}
	return q
}

// correct reads the answer as option labels ("A", "A,C", "AC", "A、C"),
// else as an option's text, else (true/false) as a yes or a no.
func correct(q Question) []int {
	a := strings.TrimSpace(q.Answer)
	if idx, ok := labels(a, len(q.Options)); ok {
		return idx
	}
	for i, o := range q.Options {
		if strings.EqualFold(stripLabel(a), o) {
			return []int{i}
		}
	}
	if q.Kind == TrueFalse {
		switch strings.ToLower(strings.Trim(a, " .。!！")) {
		case "true", "t", "yes", "correct", "right", "正确", "对", "是", "√", "✓":
			return []int{0}
		case "false", "f", "no", "incorrect", "wrong", "错误", "错", "否", "×", "✗":
			return []int{1}
		}
	}
	return nil
}

// labels reads s as option letters, each within n options.
func labels(s string, n int) ([]int, bool) {
	var idx []int
	seen := map[int]bool{}
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
			i := int(unicode.ToUpper(r) - 'A')
			if i >= n {
				return nil, false
			}
			if !seen[i] {
				seen[i] = true
				idx = append(idx, i)
			}
		case unicode.IsSpace(r) || strings.ContainsRune(",，、;；和&", r):
		default:
			return nil, false
		}
	}
	return idx, len(idx) > 0
}

// stripLabel removes a leading option label: "A. ", "A、", "A) ", "(A) ",
// "（A）", "A:" .
func stripLabel(s string) string {
	t := s
	open := false
	if r, n := utf8.DecodeRuneInString(t); r == '(' || r == '（' {
		t, open = t[n:], true
	}
	r, n := utf8.DecodeRuneInString(t)
	if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
		return s
	}
	t = t[n:]
	r, n = utf8.DecodeRuneInString(t)
	switch {
	case open && (r == ')' || r == '）'):
	case !open && strings.ContainsRune(".．、)）:：", r):
	default:
		return s
	}
	if rest := strings.TrimSpace(t[n:]); rest != "" {
		return rest
	}
	return s
}

// Letter is the label of option i: A, B, C ...
func Letter(i int) string { return string(rune('A' + i)) }

// Key is q's answer as the key prints it: the letters of the right options,
// or the written answer.
func (q Question) Key() string {
	if !q.Kind.Choice() {
		return q.Answer
	}
	var b strings.Builder
	for _, i := range q.Correct {
		b.WriteString(Letter(i))
	}
	return b.String()
}

// IsCorrect reports whether option i is right.
func (q Question) IsCorrect(i int) bool {
	for _, c := range q.Correct {
		if c == i {
			return true
		}
	}
	return false
}

// clip cuts s to n runes, marking the cut with "…", and says whether it
// did.
func clip(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	return string([]rune(s)[:n-1]) + "…", true
}

// name is a question's short name for the formats that want one.
func (q Question) name() string {
	s, _ := clip(office.Line(q.Stem), 40)
	return fmt.Sprintf("Q%d %s", q.Number, s)
}
