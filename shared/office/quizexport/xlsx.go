package quizexport

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/internal/ooxml"
)

// XLSXContentType is a spreadsheet's type.
const XLSXContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// KahootHeader is the header row of Kahoot's quiz template (row 8, from
// column B; column A numbers the questions), exactly as the template
// writes it: Kahoot finds its columns by these texts.
var KahootHeader = []string{
	"Question - max 120 characters",
	"Answer 1 - max 75 characters",
	"Answer 2 - max 75 characters",
	"Answer 3 - max 75 characters",
	"Answer 4 - max 75 characters",
	"Time limit (sec) – 5, 10, 20, 30, 60, 90, 120, or 240 secs",
	"Correct answer(s) - choose at least one",
}

// kahootIntro are the template's rows above its header (rows 1 to 7).
var kahootIntro = [][]string{
	{},
	{"", "Quiz template"},
	{"", "Add questions, at least two answer alternatives, time limit and choose correct answers (at least one). Have fun creating your awesome quiz!"},
	{"", "Remember: questions have a limit of 120 characters and answers can have 75 characters max. Text will turn red in Excel or Google Docs if you exceed this limit. If several answers are correct, separate them with a comma."},
	{"", "See an example question below (don't forget to overwrite this with your first question!)"},
	{"", "And remember, if you're not using Excel you need to export to .xlsx format before you upload to Kahoot!"},
	{},
}

// Kahoot's limits.
const (
	kahootQuestionMax = 120
	kahootAnswerMax   = 75
	kahootOptionsMax  = 4
	kahootTimeLimit   = 30
)

// WriteKahoot writes q in Kahoot's quiz template: the template's rows,
// then one row per question (number, question, four answers, time limit,
// the right answers' numbers "1,3"). Kahoot plays choice questions with
// two to four answers: a fill-in or open question, or one with more
// options, is left out; a text over the template's limit is cut. Each is
// a Note.
func WriteKahoot(q Quiz, modified time.Time) ([]byte, []Note, error) {
	rows := append([][]string{}, kahootIntro...)
	rows = append(rows, append([]string{""}, KahootHeader...))
	var notes []Note
	n := 0
	for _, qu := range q.Questions {
		switch {
		case !qu.Kind.Choice():
			notes = append(notes, Note{Question: qu.Number, Action: LeftOut, Reason: ReasonOpenQuestion})
			continue
		case len(qu.Options) > kahootOptionsMax:
			notes = append(notes, Note{Question: qu.Number, Action: LeftOut, Reason: ReasonTooManyOptions})
			continue
		}
		n++
		stem, cut := clip(office.Line(qu.Stem), kahootQuestionMax)
		row := []string{strconv.Itoa(n), stem}
		for i := range kahootOptionsMax {
			a := ""
			if i < len(qu.Options) {
				var c bool
				a, c = clip(qu.Options[i], kahootAnswerMax)
				cut = cut || c
			}
			row = append(row, a)
		}
		row = append(row, strconv.Itoa(kahootTimeLimit), numbers(qu.Correct))
		if cut {
			notes = append(notes, Note{Question: qu.Number, Action: Converted, Reason: ReasonTooLong})
		}
		rows = append(rows, row)
	}
	data, err := writeXLSX("Sheet1", rows, modified)
	return data, notes, err
}

// QuizizzHeader is the header row of Quizizz's spreadsheet import template
// (row 1); row 2 holds the template's notes on each column.
var QuizizzHeader = []string{
	"Question Text", "Question Type", "Option 1", "Option 2", "Option 3", "Option 4", "Option 5",
	"Correct Answer", "Time in seconds", "Image Link", "Answer explanation",
}

var quizizzNotes = []string{
	"Text of the question\n\n(required)",
	"Question Type\n\n(default is Multiple Choice)",
	"Text for option 1\n\n(required in all cases except open-ended & draw questions)",
	"Text for option 2\n\n(required in all cases except open-ended & draw questions)",
	"Text for option 3\n\n(optional)",
	"Text for option 4\n\n(optional)",
	"Text for option 5\n\n(optional)",
	"The correct option choice (between 1-5).\n\nLeave blank for \"Open-Ended\", \"Poll\", \"Draw\" and \"Fill-in-the-Blank\".",
	"Time in seconds\n\n(optional, default value is 30 seconds)",
	"Link of the image\n\n(optional)",
	"Explanation for the answer\n(optional)",
}

const (
	quizizzOptionsMax = 5
	quizizzTime       = 30
)

// Quizizz's question types.
const (
	QuizizzMultipleChoice = "Multiple Choice"
	QuizizzCheckbox       = "Checkbox"
	QuizizzFillInTheBlank = "Fill-in-the-Blank"
	QuizizzOpenEnded      = "Open-Ended"
)

// WriteQuizizz writes q in Quizizz's import template: a single-answer or
// true/false question is Multiple Choice, a multiple-answer one Checkbox
// (the right options' numbers "1,3"), a fill-in Fill-in-the-Blank (its
// answer as the option), an open question Open-Ended (graded by hand, a
// Note). A question with more than five options is left out (a Note).
func WriteQuizizz(q Quiz, modified time.Time) ([]byte, []Note, error) {
	rows := [][]string{QuizizzHeader, quizizzNotes}
	var notes []Note
	for _, qu := range q.Questions {
		if len(qu.Options) > quizizzOptionsMax {
			notes = append(notes, Note{Question: qu.Number, Action: LeftOut, Reason: ReasonTooManyOptions})
			continue
		}
		opts := make([]string, quizizzOptionsMax)
		copy(opts, qu.Options)
		typ, answer := QuizizzMultipleChoice, numbers(qu.Correct)
		switch qu.Kind {
		case MultipleChoice:
			typ = QuizizzCheckbox
		case FillBlank:
			typ, answer = QuizizzFillInTheBlank, ""
			opts[0] = office.Line(qu.Answer)
		case ShortAnswer:
			typ, answer = QuizizzOpenEnded, ""
			notes = append(notes, Note{Question: qu.Number, Action: Converted, Reason: ReasonManualGrading})
		}
		row := append([]string{office.Line(qu.Stem), typ}, opts...)
		row = append(row, answer, strconv.Itoa(quizizzTime), "", qu.Explanation)
		rows = append(rows, row)
	}
	data, err := writeXLSX("Sheet1", rows, modified)
	return data, notes, err
}

// numbers are indexes as 1-based numbers, "1,3".
func numbers(idx []int) string {
	s := make([]string, len(idx))
	for i, v := range idx {
		s[i] = strconv.Itoa(v + 1)
	}
	return strings.Join(s, ",")
}

// writeXLSX writes rows as the one sheet of a workbook. Every cell is an
// inline string except whole numbers, which are numbers (Kahoot reads the
// time limit as one); empty cells are left out.
func writeXLSX(sheet string, rows [][]string, modified time.Time) ([]byte, error) {
	var buf bytes.Buffer
	p := ooxml.NewPackage(&buf, modified)
	p.AddRels("", []ooxml.Relationship{{ID: "rId1", Type: ooxml.RelOfficeDocument, Target: "xl/workbook.xml"}})
	p.Add("xl/workbook.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml", workbook(sheet))
	p.AddRels("xl/workbook.xml", []ooxml.Relationship{
		{ID: "rId1", Type: ooxml.Rel("worksheet"), Target: "worksheets/sheet1.xml"},
		{ID: "rId2", Type: ooxml.Rel("styles"), Target: "styles.xml"},
	})
	p.Add("xl/worksheets/sheet1.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml", worksheet(rows))
	p.Add("xl/styles.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml", []byte(styles))
	if err := p.Close(); err != nil {
		return nil, fmt.Errorf("quizexport: xlsx: %w", err)
	}
	return buf.Bytes(), nil
}

const mainNS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"

func workbook(sheet string) []byte {
	var x ooxml.Writer
	x.Declaration()
	x.Open("workbook", "xmlns", mainNS, "xmlns:r", "http://schemas.openxmlformats.org/officeDocument/2006/relationships")
	x.Open("sheets")
	x.Empty("sheet", "name", sheet, "sheetId", "1", "r:id", "rId1")
	x.Close("sheets")
	x.Close("workbook")
	return x.Bytes()
}

func worksheet(rows [][]string) []byte {
	var x ooxml.Writer
	x.Declaration()
	x.Open("worksheet", "xmlns", mainNS)
	x.Open("sheetData")
	for r, row := range rows {
		ref := strconv.Itoa(r + 1)
		x.Open("row", "r", ref)
		for c, v := range row {
			if v == "" {
				continue
			}
			cell := column(c) + ref
			if _, err := strconv.Atoi(v); err == nil && len(v) < 10 {
				x.Open("c", "r", cell)
				x.Element("v", v)
			} else {
				x.Open("c", "r", cell, "t", "inlineStr")
				x.Open("is")
				x.Element("t", v, "xml:space", "preserve")
				x.Close("is")
			}
			x.Close("c")
		}
		x.Close("row")
	}
	x.Close("sheetData")
	x.Close("worksheet")
	return x.Bytes()
}

// column is the letter name of column c (0 is A); the templates stay
// within Z.
func column(c int) string { return string(rune('A' + c)) }

// styles is the minimal stylesheet Excel wants: one font, fill, border and
// cell format.
const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
	`<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>` +
	`<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
	`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
	`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
	`<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>` +
	`<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>` +
	`</styleSheet>`
