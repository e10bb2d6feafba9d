package gentools

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/htmlpage"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

// Templates of request_interactive_content.
const (
	TemplateFlashcards = "flashcards"
	TemplateQuiz       = "quiz"
	TemplateExplainer  = "explainer"
	// TemplateCustom marks a page from generate_interactive_html.
	TemplateCustom = "custom"
)

// MaxItems bounds the items of a page.
const MaxItems = 60

// ItemArg is one item of a page; which fields count depends on the
// template.
type ItemArg struct {
	Front       string   `json:"front,omitempty" description:"flashcards: the prompt side (a term, a question)"`
	Back        string   `json:"back,omitempty" description:"flashcards: the answer side (a definition, an answer)"`
	Question    string   `json:"question,omitempty" description:"quiz: the question"`
	Options     []string `json:"options,omitempty" description:"quiz: 2 to 6 choices without letters; omit for an open question"`
	Answer      string   `json:"answer,omitempty" description:"quiz: the correct choice as its letter (A, B …); for an open question, the model answer"`
	Explanation string   `json:"explanation,omitempty" description:"quiz: why the answer is right, shown after answering"`
	Heading     string   `json:"heading,omitempty" description:"explainer: the step's title"`
	Body        string   `json:"body,omitempty" description:"explainer: the step's explanation"`
}

// InteractiveArgs are request_interactive_content's arguments.
type InteractiveArgs struct {
	Title    string    `json:"title" description:"the page title"`
	Template string    `json:"template" enum:"flashcards,quiz,explainer,matching,timeline" description:"flashcards, quiz (self-check with instant feedback), explainer (one step at a time), matching (match each term with its definition) or timeline (events in order, each opening to its details)"`
	Items    []ItemArg `json:"items" description:"flashcards and matching: {front, back}; quiz: {question, options, answer, explanation}; explainer: {heading, body}; timeline: {heading: when, body: what happened}, in order"`
}

// HTMLArgs are generate_interactive_html's arguments.
type HTMLArgs struct {
	Title string `json:"title" description:"the page title"`
	HTML  string `json:"html" description:"the page body as HTML with inline <style> and <script> only (no external files, fonts or images; data: images are fine)"`
}

func (p *pack) requestInteractive(ctx context.Context, c tools.Call, a InteractiveArgs) (tools.Result, error) {
	const tool = RequestInteractiveContent
	if office.Line(a.Title) == "" {
		return tools.Result{}, argError(tool, "title is empty")
	}
	if len(a.Items) == 0 {
		return tools.Result{}, argError(tool, "items is empty")
	}
	if len(a.Items) > MaxItems {
		return tools.Result{}, argError(tool, "%d items is more than %d", len(a.Items), MaxItems)
	}
	content := office.Lang("", a.Title, itemText(a.Items))
	var build func() ([]byte, error)
	switch a.Template {
	case TemplateFlashcards, TemplateMatching:
		cards := make([]htmlpage.Card, 0, len(a.Items))
		for i, it := range a.Items {
			c := htmlpage.Card{Front: first(it.Front, it.Question, it.Heading), Back: first(it.Back, it.Answer, it.Body)}
			if c.Front == "" || c.Back == "" {
				return tools.Result{}, argError(tool, "%s item %d needs front and back", a.Template, i+1)
			}
			cards = append(cards, c)
		}
		build = func() ([]byte, error) { return htmlpage.Flashcards(a.Title, content, cards) }
		if a.Template == TemplateMatching {
			if len(cards) < 2 {
				return tools.Result{}, argError(tool, "a matching exercise needs at least 2 pairs")
			}
			build = func() ([]byte, error) { return matchingPage(a.Title, content, cards) }
		}
	case TemplateQuiz:
		qs := make([]htmlpage.Question, 0, len(a.Items))
		for i, it := range a.Items {
			q, err := quizQuestion(it)
			if err != nil {
				return tools.Result{}, argError(tool, "question %d: %v", i+1, err)
			}
			qs = append(qs, q)
		}
		build = func() ([]byte, error) { return htmlpage.Quiz(a.Title, content, qs) }
	case TemplateExplainer, TemplateTimeline:
		steps := make([]htmlpage.Step, 0, len(a.Items))
		for i, it := range a.Items {
			s := htmlpage.Step{Title: first(it.Heading, it.Front, it.Question), Body: first(it.Body, it.Back, it.Answer, it.Explanation)}
			if s.Body == "" && s.Title == "" {
				return tools.Result{}, argError(tool, "step %d needs heading and body", i+1)
			}
			steps = append(steps, s)
		}
		build = func() ([]byte, error) { return htmlpage.Explainer(a.Title, content, steps) }
		if a.Template == TemplateTimeline {
			build = func() ([]byte, error) { return timelinePage(a.Title, content, steps) }
		}
	default:
		return tools.Result{}, argError(tool, "template %q is not flashcards, quiz, explainer, matching or timeline", a.Template)
	}
	res, err := p.page(ctx, c, a, tool, a.Title, a.Template, len(a.Items), content, build)
	return res.Counted(len(a.Items), tools.Labels(a.Items, itemLabel)...), err
}

func (p *pack) generateHTML(ctx context.Context, c tools.Call, a HTMLArgs) (tools.Result, error) {
	const tool = GenerateInteractiveHTML
	if office.Line(a.Title) == "" {
		return tools.Result{}, argError(tool, "title is empty")
	}
	if strings.TrimSpace(a.HTML) == "" {
		return tools.Result{}, argError(tool, "html is empty")
	}
	if len(a.HTML) > htmlpage.MaxBodyBytes {
		return tools.Result{}, argError(tool, "html is %d bytes, more than %d: make the page simpler", len(a.HTML), htmlpage.MaxBodyBytes)
	}
	content := office.Lang("", a.Title, a.HTML)
	removed := 0
	build := func() ([]byte, error) {
		page, n, err := htmlpage.Custom(a.Title, content, a.HTML)
		removed = n
		if err != nil {
			return nil, argError(tool, "%v", err)
		}
		return page, nil
	}
	res, err := p.page(ctx, c, a, tool, a.Title, TemplateCustom, 0, content, build)
	if err == nil && removed > 0 {
		p.log.InfoContext(ctx, "page sanitised", "call", c.CallID, "removed", removed)
		if out, ok := res.Output.(map[string]any); ok {
			out["removed"] = fmt.Sprintf("%d external or unsafe elements/attributes were removed; the page cannot load anything from outside", removed)
		}
	}
	return res, err
}

func (p *pack) page(ctx context.Context, c tools.Call, args any, tool, title, template string, items int, content string, build func() ([]byte, error)) (tools.Result, error) {
	// A page that passed its checks is shown being built (stored) before
	// its content part; one that fails them shows nothing more.
	built := func() ([]byte, error) {
		page, err := build()
		if err != nil {
			return nil, err
		}
		building := protocol.InteractiveProgress{Stage: protocol.StageBuilding, Title: office.Line(title)}
		return page, emit(ctx, c, protocol.DataInteractiveProgress, building)
	}
	d, err := p.deliver(ctx, c, args, file{tool: tool, title: title, ext: "html", contentType: htmlpage.ContentType, build: built})
	if err != nil {
		return tools.Result{}, err
	}
	payload := InteractiveContent{
		Title: office.Line(title), URL: d.url, Template: template,
		Filename: d.obj.Filename(), Size: d.obj.Size, Items: items,
	}
	if err := emit(ctx, c, protocol.DataInteractiveContent, payload); err != nil {
		return tools.Result{}, err
	}
	l := teacherLang(c, content)
	return tools.Result{
		Status:  protocol.ToolSuccess,
		Message: l.Text(i18n.InteractiveReady, payload.Title),
		Output: map[string]any{
			"status": "ready", "template": template, "filename": d.obj.Filename(), "items": items,
			"next": "The teacher sees the page in a card and can open it; do not repeat the link. Tell them briefly how to use it in class.",
		},
	}, nil
}

// quizQuestion resolves a quiz item: the answer of a choice question may
// be a letter, a number or the text of an option.
func quizQuestion(it ItemArg) (htmlpage.Question, error) {
	q := htmlpage.Question{Question: first(it.Question, it.Front, it.Heading), Explanation: it.Explanation}
	if q.Question == "" {
		return q, fmt.Errorf("question is empty")
	}
	for _, o := range stripLetters(it.Options) {
		if o = office.ListItem(o); o != "" {
			q.Options = append(q.Options, o)
		}
	}
	answer := first(it.Answer, it.Back)
	if len(q.Options) == 0 {
		if answer == "" {
			return q, fmt.Errorf("an open question needs its answer")
		}
		q.AnswerText = answer
		return q, nil
	}
	if len(q.Options) < 2 || len(q.Options) > 8 {
		return q, fmt.Errorf("%d options: give 2 to 8", len(q.Options))
	}
	i, ok := answerIndex(answer, it.Options, q.Options)
	if !ok {
		return q, fmt.Errorf("answer %q is not one of the options: give the letter of the correct option", answer)
	}
	q.Answer = i
	return q, nil
}

// answerIndex finds the option an answer names: "B", "b", "B.", "(B)",
// "选B", "2", or the option's text with or without its letter.
func answerIndex(answer string, raw, options []string) (int, bool) {
	a := strings.TrimSpace(answer)
	a = strings.TrimPrefix(a, "选")
	a = strings.TrimSpace(strings.NewReplacer("答案", "", "Answer:", "", "answer:", "", "：", "", ":", "").Replace(a))
	trimmed := strings.Trim(a, "()（）.．、 ")
	if r, size := utf8.DecodeRuneInString(trimmed); size == len(trimmed) && size > 0 {
		if r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		if r >= 'Ａ' && r <= 'Ｚ' { // full-width letters
			r = r - 'Ａ' + 'A'
		}
		if i := int(r - 'A'); r >= 'A' && r <= 'Z' && i < len(options) {
			return i, true
		}
	}
	if n, err := strconv.Atoi(trimmed); err == nil && n >= 1 && n <= len(options) {
		return n - 1, true
	}
	for i, o := range options {
		if strings.EqualFold(office.PlainText(o), office.PlainText(a)) ||
			(i < len(raw) && strings.EqualFold(strings.TrimSpace(raw[i]), a)) ||
			strings.EqualFold(office.ListItem(a), o) || strings.EqualFold(stripLetter(a), o) {
			return i, true
		}
	}
	return 0, false
}

// stripLetters removes "A. ", "B. " … from options when every option has
// its own letter: the page letters them itself.
func stripLetters(options []string) []string {
	out := make([]string, len(options))
	for i, o := range options {
		o = strings.TrimSpace(o)
		if len(o) < 2 || (o[0] != byte('A'+i) && o[0] != byte('a'+i)) || stripLetter(o) == o {
			return options
		}
		out[i] = stripLetter(o)
	}
	return out
}

// stripLetter removes a leading "A. ", "A、" or "A) " from s.
func stripLetter(s string) string {
	if len(s) >= 2 && ((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) {
		rest := s[1:]
		for _, p := range []string{".", "、", ")", "）", "．", ":", "："} {
			if r, ok := strings.CutPrefix(rest, p); ok {
				return strings.TrimSpace(r)
			}
		}
	}
	return s
}

// itemLabel names an item in a preview: its prompt side.
func itemLabel(it ItemArg) string { return first(it.Front, it.Question, it.Heading) }

func first(s ...string) string {
	for _, x := range s {
		if x = strings.TrimSpace(x); x != "" {
			return x
		}
	}
	return ""
}

func itemText(items []ItemArg) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.Front + it.Back + it.Question + it.Heading + it.Body)
	}
	return b.String()
}
