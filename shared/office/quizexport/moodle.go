package quizexport

import (
	"html"
	"strconv"
	"strings"

	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/internal/ooxml"
)

// MoodleContentType is Moodle XML's type.
const MoodleContentType = "application/xml"

// WriteMoodleXML writes q in Moodle XML, the format of Moodle's question
// bank import (docs.moodle.org/en/Moodle_XML_format): a category named
// after the quiz, then a multichoice question per choice question (single
// or not; a right option has fraction 100, or 100/n of n right ones), a
// truefalse question, a shortanswer question for a fill-in and an essay
// for an open question (graded by hand: a Note). Texts are HTML; what the
// model wrote is escaped as text, and encoding/xml escapes the XML.
func WriteMoodleXML(q Quiz) ([]byte, []Note) {
	var x ooxml.Writer
	x.Raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.Open("quiz")
	x.Open("question", "type", "category")
	x.Open("category")
	x.Element("text", "$course$/top/"+strings.ReplaceAll(q.Title, "/", "-"))
	x.Close("category")
	x.Close("question")
	var notes []Note
	for _, qu := range q.Questions {
		typ := map[Kind]string{SingleChoice: "multichoice", MultipleChoice: "multichoice", TrueFalse: "truefalse",
			FillBlank: "shortanswer", ShortAnswer: "essay"}[qu.Kind]
		x.Open("question", "type", typ)
		x.Open("name")
		x.Element("text", qu.name())
		x.Close("name")
		moodleText(&x, "questiontext", qu.Stem)
		moodleText(&x, "generalfeedback", qu.Explanation)
		x.Element("defaultgrade", "1")
		x.Element("penalty", "0.3333333")
		x.Element("hidden", "0")
		switch qu.Kind {
		case SingleChoice, MultipleChoice:
			x.Element("single", strconv.FormatBool(qu.Kind == SingleChoice))
			x.Element("shuffleanswers", "true")
			x.Element("answernumbering", "ABCD")
			for i, o := range qu.Options {
				moodleAnswer(&x, o, moodleFraction(qu, i))
			}
		case TrueFalse:
			// Moodle's true/false answers are the words true and false.
			moodleAnswer(&x, "true", moodleFraction(qu, 0))
			moodleAnswer(&x, "false", moodleFraction(qu, 1))
		case FillBlank:
			x.Element("usecase", "0")
			moodleAnswer(&x, office.Line(qu.Answer), "100")
		case ShortAnswer:
			notes = append(notes, Note{Question: qu.Number, Action: Converted, Reason: ReasonManualGrading})
			x.Element("responseformat", "editor")
			x.Element("responserequired", "1")
			x.Element("responsefieldlines", "10")
			moodleText(&x, "graderinfo", qu.Answer)
		}
		x.Close("question")
	}
	x.Close("quiz")
	return x.Bytes(), notes
}

// moodleText writes <name format="html"><text>html</text></name>.
func moodleText(x *ooxml.Writer, name, s string) {
	x.Open(name, "format", "html")
	var b strings.Builder
	for _, p := range office.Paragraphs(s) {
		b.WriteString("<p>" + html.EscapeString(p) + "</p>")
	}
	x.Element("text", b.String())
	x.Close(name)
}

func moodleAnswer(x *ooxml.Writer, text, fraction string) {
	x.Open("answer", "fraction", fraction, "format", "html")
	x.Element("text", html.EscapeString(text))
	x.Open("feedback", "format", "html")
	x.Element("text", "")
	x.Close("feedback")
	x.Close("answer")
}

// moodleFraction is option i's grade in percent: 100 shared among the right
// options, 0 for a wrong one in a single-answer question, and in a
// multiple-answer one minus the same share, so that ticking everything
// scores nothing. Moodle accepts only the grades of its list; 100/n is on
// it for the option counts a quiz has (up to 10), written as Moodle writes
// them (33.33333).
func moodleFraction(q Question, i int) string {
	share := strconv.FormatFloat(100/float64(len(q.Correct)), 'f', 5, 64)
	share = strings.TrimRight(strings.TrimRight(share, "0"), ".")
	switch {
	case q.IsCorrect(i):
		return share
	case q.Kind == MultipleChoice:
		return "-" + share
	}
	return "0"
}
