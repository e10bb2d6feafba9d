package offlinemodel

import (
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"
)

// Arguments of the generation tools, shaped like the product's tool schemas
// (shared/tools/gentools), which the tests check them against. The stand-in
// writes them as a model would: from the schema it is shown, not from the
// product's Go types.

type slideArg struct {
	Title   string   `json:"title"`
	Bullets []string `json:"bullets"`
	Notes   string   `json:"notes,omitempty"`
}

// outlineArgs are propose_pptx_outline's arguments.
type outlineArgs struct {
	Title   string     `json:"title"`
	Subject string     `json:"subject,omitempty"`
	Grade   string     `json:"grade,omitempty"`
	Slides  []slideArg `json:"slides"`
}

// pptxArgs are generate_pptx's arguments.
type pptxArgs struct {
	Title    string     `json:"title"`
	Subtitle string     `json:"subtitle,omitempty"`
	Slides   []slideArg `json:"slides"`
}

type tableArg struct {
	Headers []string   `json:"headers"`
	Rows    [][]string `json:"rows"`
}

type sectionArg struct {
	Heading    string    `json:"heading"`
	Level      int       `json:"level,omitempty"`
	Paragraphs []string  `json:"paragraphs,omitempty"`
	Bullets    []string  `json:"bullets,omitempty"`
	Numbered   []string  `json:"numbered,omitempty"`
	Table      *tableArg `json:"table,omitempty"`
}

// documentArgs are generate_docx's and render_pdf's arguments.
type documentArgs struct {
	Title    string       `json:"title"`
	Kind     string       `json:"kind,omitempty"`
	Subject  string       `json:"subject,omitempty"`
	Grade    string       `json:"grade,omitempty"`
	Sections []sectionArg `json:"sections"`
}

type itemArg struct {
	Front       string   `json:"front,omitempty"`
	Back        string   `json:"back,omitempty"`
	Question    string   `json:"question,omitempty"`
	Options     []string `json:"options,omitempty"`
	Answer      string   `json:"answer,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
	Heading     string   `json:"heading,omitempty"`
	Body        string   `json:"body,omitempty"`
}

// interactiveArgs are request_interactive_content's arguments.
type interactiveArgs struct {
	Title    string    `json:"title"`
	Template string    `json:"template"`
	Items    []itemArg `json:"items"`
}

// htmlArgs are generate_interactive_html's arguments.
type htmlArgs struct {
	Title string `json:"title"`
	HTML  string `json:"html"`
}

// Document kinds and page templates, as the schemas' enums name them.
const (
	kindLessonPlan   = "lesson_plan"
	kindLectureNotes = "lecture_notes"
	kindHomework     = "homework"

	templateFlashcards = "flashcards"
	templateQuiz       = "quiz"
	templateExplainer  = "explainer"
	templateMatching   = "matching"
	templateTimeline   = "timeline"
)

// outlineOf is the outline the stand-in proposes for a material.
func outlineOf(m material) outlineArgs {
	return outlineArgs{Title: m.title, Subject: m.subject, Grade: m.grade, Slides: slices.Clone(m.slides)}
}

// deckOf is generate_pptx's arguments from a confirmed outline: its slides
// as the teacher saw them, each with speaker notes (the material's for a
// slide it wrote, a prompt built from the bullets for any other).
func deckOf(l lang, o outlineArgs, m material) pptxArgs {
	notes := map[string]string{}
	for _, s := range m.slides {
		notes[s.Title] = s.Notes
	}
	d := pptxArgs{Title: o.Title, Subtitle: joinNonEmpty(" · ", o.Subject, o.Grade)}
	for _, s := range o.Slides {
		if s.Notes == "" {
			s.Notes = notes[s.Title]
		}
		if s.Notes == "" {
			s.Notes = notesFor(l, s)
		}
		d.Slides = append(d.Slides, s)
	}
	return d
}

func notesFor(l lang, s slideArg) string {
	if len(s.Bullets) == 0 {
		return l.pick("围绕「"+s.Title+"」提一个问题，请学生讨论后回答。", "Ask one question about "+s.Title+" and let students discuss it.")
	}
	return l.pick("先请学生读出要点「"+s.Bullets[0]+"」，再举例说明，最后请一位学生复述。",
		"Start from \""+s.Bullets[0]+"\", give an example, then ask a student to explain it back.")
}

func joinNonEmpty(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(slices.Clone(parts), func(s string) bool { return strings.TrimSpace(s) == "" }), sep)
}

// documentOf writes a document of kind on the material.
func documentOf(l lang, m material, kind string) documentArgs {
	switch kind {
	case kindLectureNotes:
		return lectureNotes(l, m)
	case kindHomework:
		return homeworkSheet(l, m)
	}
	return lessonPlan(l, m)
}

// lessonPlan is a lesson plan: objectives, key points and difficulties, the
// procedure as a table, homework.
func lessonPlan(l lang, m material) documentArgs {
	var focus []string
	for _, k := range m.keyPoints {
		focus = append(focus, l.pick("重点：", "Key point: ")+k)
	}
	for _, d := range m.difficulties {
		focus = append(focus, l.pick("难点：", "Difficulty: ")+d)
	}
	rows := make([][]string, 0, len(m.process))
	for _, p := range m.process {
		rows = append(rows, []string{p[0], p[1], p[2], p[3]})
	}
	return documentArgs{
		Title: l.pick(m.title+"教案", m.title+" — lesson plan"), Kind: kindLessonPlan, Subject: m.subject, Grade: m.grade,
		Sections: []sectionArg{
			{Heading: l.pick("一、教学目标", "1. Learning objectives"), Numbered: m.objectives},
			{Heading: l.pick("二、重点难点", "2. Key points and difficulties"), Bullets: focus},
			{Heading: l.pick("三、教学过程", "3. Lesson procedure"),
				Paragraphs: []string{l.pick("本课共 45 分钟，各环节安排如下：", "The lesson takes 45 minutes:")},
				Table: &tableArg{Headers: []string{l.pick("环节", "Phase"), l.pick("时间", "Time"), l.pick("教师活动", "Teacher"), l.pick("学生活动", "Students")},
					Rows: rows}},
			{Heading: l.pick("四、作业", "4. Homework"), Numbered: m.homework},
		},
	}
}

// lectureNotes follows the deck: a section per slide, its notes as prose.
func lectureNotes(l lang, m material) documentArgs {
	d := documentArgs{Title: l.pick(m.title+"讲稿", m.title+" — lecture notes"), Kind: kindLectureNotes, Subject: m.subject, Grade: m.grade}
	for i, s := range m.slides {
		d.Sections = append(d.Sections, sectionArg{Heading: fmt.Sprintf("%d. %s", i+1, s.Title), Paragraphs: []string{s.Notes}, Bullets: s.Bullets})
	}
	return d
}

// homeworkSheet is choice questions and the lesson's homework tasks.
func homeworkSheet(l lang, m material) documentArgs {
	var choices []string
	for _, q := range quizItems(l, m) {
		line := q.Question
		for i, o := range q.Options {
			line += fmt.Sprintf("  %c. %s", 'A'+i, o)
		}
		choices = append(choices, line)
	}
	return documentArgs{
		Title: l.pick(m.title+"课后作业", m.title+" — homework"), Kind: kindHomework, Subject: m.subject, Grade: m.grade,
		Sections: []sectionArg{
			{Heading: l.pick("一、选择题", "1. Multiple choice"), Numbered: choices},
			{Heading: l.pick("二、简答与实践", "2. Short answer and practice"), Numbered: m.homework},
		},
	}
}

// quizItems are the material's self-check questions, or questions from
// the quiz templates for a topic without its own.
func quizItems(l lang, m material) []itemArg {
	if len(m.quiz) > 0 {
		return m.quiz
	}
	var out []itemArg
	for _, q := range quizQuestions(quizSpec{Topic: m.topic, Count: 5, QuestionType: singleChoice, Difficulty: "medium", Language: l, Subject: m.subject}) {
		out = append(out, itemArg{Question: q.Question, Options: stripOptionLetters(q.Options), Answer: q.Answer, Explanation: q.Explanation})
	}
	return out
}

// stripOptionLetters turns "A. text" into "text": the page letters them.
func stripOptionLetters(options []string) []string {
	out := make([]string, len(options))
	for i, o := range options {
		prefix := fmt.Sprintf("%c. ", 'A'+i)
		out[i] = strings.TrimPrefix(o, prefix)
	}
	return out
}

// pageOf is request_interactive_content's arguments for a template.
func pageOf(l lang, m material, template string) interactiveArgs {
	switch template {
	case templateFlashcards, templateMatching:
		p := interactiveArgs{Title: l.pick(m.title+" · 闪卡", m.title+" · flashcards"), Template: template}
		if template == templateMatching {
			p.Title = l.pick(m.title+" · 配对练习", m.title+" · matching")
		}
		for _, c := range m.cards {
			p.Items = append(p.Items, itemArg{Front: c[0], Back: c[1]})
		}
		if len(p.Items) == 0 {
			for _, s := range m.slides {
				p.Items = append(p.Items, itemArg{Front: s.Title, Back: strings.Join(s.Bullets, l.pick("；", "; "))})
			}
		}
		return p
	case templateQuiz:
		return interactiveArgs{Title: l.pick(m.title+" · 自测题", m.title+" · self-check quiz"), Template: templateQuiz, Items: quizItems(l, m)}
	}
	p := interactiveArgs{Title: l.pick(m.title+" · 分步讲解", m.title+" · step by step"), Template: templateExplainer}
	if template == templateTimeline {
		p = interactiveArgs{Title: l.pick(m.title+" · 时间线", m.title+" · timeline"), Template: templateTimeline}
	}
	for _, s := range m.slides {
		body := strings.Join(s.Bullets, l.pick("；", "; ")) + l.pick("。", ".")
		p.Items = append(p.Items, itemArg{Heading: s.Title, Body: body})
	}
	return p
}

// simplePageOf is generate_interactive_html's arguments: a card that
// reveals the key points one at a time, with inline style and script only.
func simplePageOf(l lang, m material) htmlArgs {
	var b strings.Builder
	b.WriteString(`<style>
.card{max-width:40rem;margin:1.5rem auto;padding:1.5rem;border-radius:12px;background:#f3f7f0;font-family:system-ui,sans-serif;line-height:1.6}
.card h2{margin-top:0;color:#2f5d27}
.point{display:none;margin:.6rem 0;padding:.6rem .8rem;background:#fff;border-left:4px solid #4a8f3c;border-radius:6px}
.point.shown{display:block}
button{padding:.5rem 1.2rem;border:0;border-radius:8px;background:#4a8f3c;color:#fff;font-size:1rem;cursor:pointer}
button:disabled{background:#9bb894;cursor:default}
#count{color:#555}
</style>
<div class="card">
`)
	fmt.Fprintf(&b, "<h2>%s</h2>\n<p>%s</p>\n<div id=\"points\">\n", html.EscapeString(m.title),
		html.EscapeString(l.pick("点击按钮，一条一条地看「"+m.title+"」的要点。", "Press the button to see the key points of "+m.topic+" one at a time.")))
	for _, s := range m.slides {
		fmt.Fprintf(&b, "<p class=\"point\"><strong>%s</strong><br>%s</p>\n", html.EscapeString(s.Title),
			html.EscapeString(strings.Join(s.Bullets, l.pick("；", "; "))))
	}
	fmt.Fprintf(&b, "</div>\n<button id=\"next\" type=\"button\">%s</button> <span id=\"count\"></span>\n</div>\n", l.pick("下一条", "Next point"))
	fmt.Fprintf(&b, `<script>
(function () {
  var points = document.querySelectorAll('.point'), shown = 0;
  var button = document.getElementById('next'), count = document.getElementById('count');
  function next() {
    if (shown < points.length) { points[shown].classList.add('shown'); shown++; }
    count.textContent = shown + ' / ' + points.length;
    if (shown >= points.length) { button.disabled = true; button.textContent = %s; }
  }
  button.addEventListener('click', next);
  next();
})();
</script>`, mustJSON(l.pick("全部看完了", "All done")))
	return htmlArgs{Title: l.pick(m.title+" · 要点速览", m.title+" · key points"), HTML: b.String()}
}

// toArgs is v as a JSON object, for a tool schema to trim.
func toArgs(v any) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(mustJSON(v)), &m); err != nil {
		panic("offlinemodel: arguments are not an object: " + err.Error()) // our own structs: cannot happen
	}
	return m
}
