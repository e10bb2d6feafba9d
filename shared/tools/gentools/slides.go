package gentools

import (
	"bytes"
	"context"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/pptx"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

// Bounds of a deck the model may ask for.
const (
	MaxSlides         = 40
	MaxBulletsOfSlide = 12
)

// SlideArg is one content slide.
type SlideArg struct {
	Title   string   `json:"title" description:"the slide's title"`
	Bullets []string `json:"bullets" description:"the slide's key points, 2 to 6 short lines, no leading bullet marks"`
	Notes   string   `json:"notes,omitempty" description:"speaker notes for the teacher: what to say or ask on this slide"`
}

// OutlineArgs are propose_pptx_outline's arguments.
type OutlineArgs struct {
	Title   string     `json:"title" description:"the deck's title"`
	Subject string     `json:"subject,omitempty" description:"the subject, e.g. 数学"`
	Grade   string     `json:"grade,omitempty" description:"the grade, e.g. 八年级"`
	Slides  []SlideArg `json:"slides" description:"the content slides in order (the title slide is added)"`
}

// PptxArgs are generate_pptx's arguments.
type PptxArgs struct {
	Title    string     `json:"title" description:"the deck's title, shown on the title slide and as the file name"`
	Subtitle string     `json:"subtitle,omitempty" description:"a line under the title, e.g. subject, grade or teacher"`
	Slides   []SlideArg `json:"slides" description:"the content slides in order (the title slide is added)"`
}

func checkSlides(tool, title string, slides []SlideArg) error {
	if office.Line(title) == "" {
		return argError(tool, "title is empty")
	}
	if len(slides) == 0 {
		return argError(tool, "slides is empty: give at least one slide")
	}
	if len(slides) > MaxSlides {
		return argError(tool, "%d slides is more than %d: merge or cut slides", len(slides), MaxSlides)
	}
	for i, s := range slides {
		if office.Line(s.Title) == "" && len(s.Bullets) == 0 {
			return argError(tool, "slide %d has neither title nor bullets", i+1)
		}
		if len(s.Bullets) > MaxBulletsOfSlide {
			return argError(tool, "slide %d has %d bullets, more than %d: split it", i+1, len(s.Bullets), MaxBulletsOfSlide)
		}
	}
	return nil
}

func (p *pack) proposeOutline(ctx context.Context, c tools.Call, a OutlineArgs) (tools.Result, error) {
	if err := checkSlides(ProposePptxOutline, a.Title, a.Slides); err != nil {
		return tools.Result{}, err
	}
	deck := office.Deck{Title: a.Title}
	for _, s := range a.Slides {
		deck.Slides = append(deck.Slides, office.Slide{Title: s.Title, Bullets: s.Bullets})
	}
	deck = deck.Normalized()
	out := PptxOutline{Title: deck.Title, Slides: make([]OutlineSlide, 0, len(deck.Slides))}
	for _, s := range deck.Slides {
		out.Slides = append(out.Slides, OutlineSlide{Title: s.Title, Bullets: nonNil(s.Bullets)})
	}
	if err := emit(ctx, c, protocol.DataPptxOutline, out); err != nil {
		return tools.Result{}, err
	}
	l := teacherLang(c, office.Lang("", deck.Title))
	return tools.Result{
		Status:  protocol.ToolSuccess,
		Message: l.Text(i18n.OutlineReady, len(out.Slides)),
		Output: map[string]any{
			"status": "awaiting_confirmation",
			"slides": len(out.Slides),
			"next": "The teacher now sees the outline. End this turn: ask them to confirm it or say what to change. " +
				"Call generate_pptx only after they confirm, with the confirmed slides and speaker notes.",
		},
		Memory: memory("PPT outline proposed, awaiting the teacher's confirmation (propose_pptx_outline arguments)", a),
	}.Counted(len(out.Slides), tools.Labels(out.Slides, func(s OutlineSlide) string { return s.Title })...), nil
}

func (p *pack) generatePptx(ctx context.Context, c tools.Call, a PptxArgs) (tools.Result, error) {
	if err := checkSlides(GeneratePptx, a.Title, a.Slides); err != nil {
		return tools.Result{}, err
	}
	deck := office.Deck{Title: a.Title, Subtitle: a.Subtitle}
	for _, s := range a.Slides {
		deck.Slides = append(deck.Slides, office.Slide{Title: s.Title, Bullets: s.Bullets, Notes: s.Notes})
	}
	deck = deck.Normalized()
	content := office.Lang("", deck.Title, slideText(deck))
	deck.Lang = content
	d, err := p.deliver(ctx, c, a, file{
		tool: GeneratePptx, title: deck.Title, ext: "pptx", contentType: pptx.ContentType,
		build: func() ([]byte, error) {
			var buf bytes.Buffer
			if err := pptx.Write(&buf, deck, p.now()); err != nil {
				return nil, err
			}
			return buf.Bytes(), nil
		},
	})
	if err != nil {
		return tools.Result{}, err
	}
	if err := emit(ctx, c, protocol.DataFileReady, FileReady{Type: "pptx", URL: d.url, Filename: d.obj.Filename(), Size: d.obj.Size}); err != nil {
		return tools.Result{}, err
	}
	l := teacherLang(c, content)
	return tools.Result{
		Status:  protocol.ToolSuccess,
		Message: l.Text(i18n.SlidesReady, d.obj.Filename()),
		Output: map[string]any{
			"status": "ready", "type": "pptx", "filename": d.obj.Filename(), "size": d.obj.Size,
			"slides": len(deck.Slides) + 1,
			"next":   "The teacher sees a download card for the deck; do not repeat the link. Tell them briefly what the deck contains.",
		},
		// The deck's content, so that "导出为PDF" next exports this deck.
		Memory: memory("pptx file "+d.obj.Filename()+" generated from this deck (generate_pptx arguments)", a),
	}.Counted(len(deck.Slides), tools.Labels(deck.Slides, func(s office.Slide) string { return s.Title })...), nil
}

func slideText(d office.Deck) string {
	var b strings.Builder
	for _, s := range d.Slides {
		b.WriteString(s.Title)
		for _, x := range s.Bullets {
			b.WriteString(x)
		}
	}
	return b.String()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
