package quizexport

import (
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
)

// PaperDocument is q as a printable paper, for the .docx and PDF writers:
// the title, name/class/date blanks, the questions numbered with their
// options (a blank line to write on for a fill-in or open question), then,
// on a new page, the answer key: number, answer and explanation of each
// question. Nothing is left out.
func PaperDocument(q Quiz) office.Document {
	l := i18n.Of(q.Lang)
	doc := office.Document{Title: q.Title, Lang: q.Lang, Subtitle: l.Text(i18n.PaperSubtitle, len(q.Questions)),
		Fields: []string{l.Text(i18n.FieldName), l.Text(i18n.FieldClass), l.Text(i18n.FieldDate)}}
	questions := office.Section{Heading: l.Text(i18n.PaperQuestions)}
	key := office.Table{Headers: []string{l.Text(i18n.PaperColNumber), l.Text(i18n.PaperColAnswer), l.Text(i18n.PaperColExplanation)}}
	for _, qu := range q.Questions {
		stem := office.Paragraphs(qu.Stem)
		if len(stem) == 0 {
			stem = []string{""}
		}
		stem[0] = fmt.Sprintf("**%d.** %s", qu.Number, stem[0])
		var b strings.Builder
		b.WriteString(strings.Join(stem, "\n"))
		for i, o := range qu.Options {
			fmt.Fprintf(&b, "\n%s. %s", Letter(i), o)
		}
		if !qu.Kind.Choice() {
			b.WriteString("\n" + strings.Repeat("_", 40))
		}
		questions.Blocks = append(questions.Blocks, office.Paragraph{Text: b.String()})
		key.Rows = append(key.Rows, []string{fmt.Sprint(qu.Number), office.Line(qu.Key()), office.Line(qu.Explanation)})
	}
	answers := office.Section{Heading: l.Text(i18n.PaperAnswerKey), NewPage: true, Blocks: []office.Block{key}}
	doc.Sections = []office.Section{questions, answers}
	return doc.Normalized()
}
