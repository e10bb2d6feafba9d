// Package htmlpage writes self-contained interactive web pages for the
// classroom: flashcards, a self-check quiz with instant feedback, a
// step-by-step explainer, and pages whose body a model wrote (sanitised
// first, see Sanitize).
//
// A page loads nothing: no external script, style, font or image. Its CSS
// and JavaScript are inline, and a Content-Security-Policy meta tag forbids
// every fetch, so the page works offline, from a presigned S3 URL, or from a
// teacher's disk, and cannot leak what a student types. The file server adds
// the same policy as a header with a sandbox (see shared/blob).
//
// The built-in pages are rendered on the server with html/template (every
// text is escaped) and readable without JavaScript; the scripts only add
// the interaction.
package htmlpage

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
)

// ContentType is the media type of a page.
const ContentType = "text/html; charset=utf-8"

// CSP is the Content-Security-Policy of a page: inline script and style,
// data: images, nothing else.
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:; form-action 'none'; base-uri 'none'"

// Limits that keep a page a page.
const (
	MaxItems     = 100
	MaxBodyBytes = 512 << 10
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// Card is one flashcard.
type Card struct {
	Front, Back string
}

// Question is one self-check question. With options, Answer is the index
// of the correct one; without, AnswerText is revealed on request.
type Question struct {
	Question    string
	Options     []string
	Answer      int
	AnswerText  string
	Explanation string
}

// Step is one step of an explainer.
type Step struct {
	Title, Body string
}

// ErrEmpty is returned for a page with nothing on it.
var ErrEmpty = errors.New("htmlpage: nothing to show")

// Flashcards returns a page of cards that flip when clicked.
func Flashcards(title, lang string, cards []Card) ([]byte, error) {
	cs := cleaned(cards, func(c Card) (Card, bool) {
		c = Card{Front: office.Clean(c.Front), Back: office.Clean(c.Back)}
		return c, c.Front != "" || c.Back != ""
	})
	return render("flashcards", title, lang, cs, len(cs))
}

// Quiz returns a page of questions that give feedback on each answer and
// keep a score.
func Quiz(title, lang string, questions []Question) ([]byte, error) {
	var qs []Question
	for _, q := range questions {
		c := Question{Question: office.Clean(q.Question), Answer: q.Answer,
			AnswerText: office.Clean(q.AnswerText), Explanation: office.Clean(q.Explanation)}
		for _, o := range q.Options {
			c.Options = append(c.Options, office.ListItem(o))
		}
		if c.Question == "" {
			continue
		}
		if len(c.Options) > 0 && (c.Answer < 0 || c.Answer >= len(c.Options)) {
			return nil, fmt.Errorf("htmlpage: question %q: answer %d is not one of its %d options", c.Question, c.Answer, len(c.Options))
		}
		qs = append(qs, c)
	}
	return render("quiz", title, lang, qs, len(qs))
}

// Explainer returns a page that walks through steps one at a time.
func Explainer(title, lang string, steps []Step) ([]byte, error) {
	ss := cleaned(steps, func(s Step) (Step, bool) {
		s = Step{Title: office.Line(s.Title), Body: office.Clean(s.Body)}
		return s, s.Title != "" || s.Body != ""
	})
	return render("explainer", title, lang, ss, len(ss))
}

// cleaned is items cleaned by clean, without those it reports as empty.
func cleaned[T any](items []T, clean func(T) (T, bool)) []T {
	var out []T
	for _, item := range items {
		if c, ok := clean(item); ok {
			out = append(out, c)
		}
	}
	return out
}

// Custom returns a page around body, an HTML fragment (or document) a model
// wrote, after Sanitize. It also returns how many elements and attributes
// the sanitiser removed.
func Custom(title, lang, body string) ([]byte, int, error) {
	if len(body) > MaxBodyBytes {
		return nil, 0, fmt.Errorf("htmlpage: the body is %d bytes, more than %d", len(body), MaxBodyBytes)
	}
	clean, removed, err := Sanitize(body)
	if err != nil {
		return nil, removed, err
	}
	if strings.TrimSpace(clean) == "" {
		return nil, removed, ErrEmpty
	}
	page, err := render("custom", title, lang, template.HTML(clean), 1) // #nosec: sanitised above
	return page, removed, err
}

type page struct {
	Title string
	Lang  string
	CSP   string
	Kind  string
	T     uiText
	Data  any
}

func render(kind, title, lang string, data any, n int) ([]byte, error) {
	title = office.Line(title)
	if title == "" {
		return nil, errors.New("htmlpage: the page has no title")
	}
	if n == 0 {
		return nil, ErrEmpty
	}
	if n > MaxItems {
		return nil, fmt.Errorf("htmlpage: %d items is more than %d", n, MaxItems)
	}
	lang = office.Lang(lang, title, fmt.Sprint(data))
	t, err := template.New("page").Funcs(template.FuncMap{
		"rich": rich,
		"add":  func(a, b int) int { return a + b },
		"letter": func(i int) string {
			return string(rune('A' + i))
		},
	}).ParseFS(templateFS, "templates/page.tmpl", "templates/"+kind+".tmpl")
	if err != nil {
		return nil, fmt.Errorf("htmlpage: parse templates: %w", err)
	}
	var buf bytes.Buffer
	err = t.ExecuteTemplate(&buf, "page", page{
		Title: title, Lang: lang, CSP: CSP, Kind: kind, T: uiStrings(lang), Data: data,
	})
	if err != nil {
		return nil, fmt.Errorf("htmlpage: render %s: %w", kind, err)
	}
	return buf.Bytes(), nil
}

// rich escapes s and turns **bold** spans into <strong>.
func rich(s string) template.HTML {
	var b strings.Builder
	for _, sp := range office.Spans(s) {
		esc := template.HTMLEscapeString(sp.Text)
		if sp.Bold {
			b.WriteString("<strong>" + esc + "</strong>")
		} else {
			b.WriteString(esc)
		}
	}
	return template.HTML(b.String()) // #nosec: every piece is escaped
}

// uiText holds the page's interface texts in its language.
type uiText struct {
	FlipHint, ShowAll, HideAll, Shuffle, Card             string
	Score, Retry, Correct, Wrong, Explanation, ShowAnswer string
	Prev, Next, StepOf, Done, Footer, Answer, Of          string
}

func uiStrings(lang string) uiText {
	l := i18n.Of(lang)
	return uiText{
		FlipHint: l.Text(i18n.UIFlipHint), ShowAll: l.Text(i18n.UIShowAll), HideAll: l.Text(i18n.UIHideAll),
		Shuffle: l.Text(i18n.UIShuffle), Card: l.Text(i18n.UICard), Score: l.Text(i18n.UIScore), Retry: l.Text(i18n.UIRetry),
		Correct: l.Text(i18n.UICorrect), Wrong: l.Text(i18n.UIWrong), Explanation: l.Text(i18n.UIExplanation),
		ShowAnswer: l.Text(i18n.UIShowAnswer), Prev: l.Text(i18n.UIPrev), Next: l.Text(i18n.UINext), StepOf: l.Text(i18n.UIStepOf),
		Done: l.Text(i18n.UIDone), Answer: l.Text(i18n.UIAnswer), Of: "/", Footer: l.Text(i18n.UIFooter),
	}
}
