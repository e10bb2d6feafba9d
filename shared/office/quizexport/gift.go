package quizexport

import (
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/office"
)

// GIFTContentType is GIFT's type.
const GIFTContentType = "text/plain; charset=utf-8"

// WriteGIFT writes q in GIFT, Moodle's text format
// (docs.moodle.org/en/GIFT_format): "::name:: stem {answers ####feedback}",
// one question per paragraph. A single-answer choice marks its answer "=",
// the others "~"; a multiple-answer one weighs each option "~%50%" (the
// wrong ones negative); true/false is {T} or {F}; a fill-in {=answer}; an
// open question the essay {} (graded by hand: a Note). The characters GIFT
// reserves (~ = # { } :) are escaped with a backslash, and every text is
// one line (a blank line ends a question).
func WriteGIFT(q Quiz) ([]byte, []Note) {
	var b strings.Builder
	var notes []Note
	fmt.Fprintf(&b, "$CATEGORY: $course$/top/%s\n\n", giftEscape(q.Title))
	for _, qu := range q.Questions {
		fmt.Fprintf(&b, "::%s::%s {", giftEscape(qu.name()), giftEscape(qu.Stem))
		switch qu.Kind {
		case SingleChoice:
			for i, o := range qu.Options {
				mark := "~"
				if qu.IsCorrect(i) {
					mark = "="
				}
				fmt.Fprintf(&b, "\n\t%s%s", mark, giftEscape(o))
			}
		case MultipleChoice:
			for i, o := range qu.Options {
				fmt.Fprintf(&b, "\n\t~%%%s%%%s", moodleFraction(qu, i), giftEscape(o))
			}
		case TrueFalse:
			b.WriteString(map[bool]string{true: "T", false: "F"}[qu.IsCorrect(0)])
		case FillBlank:
			fmt.Fprintf(&b, "=%s", giftEscape(office.Line(qu.Answer)))
		case ShortAnswer:
			notes = append(notes, Note{Question: qu.Number, Action: Converted, Reason: ReasonManualGrading})
		}
		if qu.Explanation != "" {
			fmt.Fprintf(&b, "\n\t####%s", giftEscape(qu.Explanation))
		}
		b.WriteString("\n}\n\n")
	}
	return []byte(b.String()), notes
}

// giftEscape escapes GIFT's reserved characters and folds s to one line
// (GIFT's \n stands for a line break).
func giftEscape(s string) string {
	s = office.Clean(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '~', '=', '#', '{', '}', ':', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
