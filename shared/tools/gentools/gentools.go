// Package gentools is the agent's generation tool pack for files (seed 000
// §5.1–5.3): slide outlines and decks, documents, PDFs and interactive web
// pages. The quiz tool lives in tools/quiz.
//
// Every file tool builds its file with shared/office, stores it in the blob
// store under the teacher's folder and emits the artifact event the
// frontend renders (data-file-ready or data-interactive-content). The
// store key is derived from teacher, session and the model's tool-call id,
// so a step that runs again with the same call (a Lambda retry, a
// redelivered Map iteration) finds the stored file with Head and emits it
// again instead of building a second one (seed 000 §7.7).
package gentools

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

// Tool names (seed 000 §7.3.1, ARTIFACT_TOOL_SET).
const (
	ProposePptxOutline        = "propose_pptx_outline"
	GeneratePptx              = "generate_pptx"
	GenerateDocx              = "generate_docx"
	RenderPDF                 = "render_pdf"
	RequestInteractiveContent = "request_interactive_content"
	GenerateInteractiveHTML   = "generate_interactive_html"
)

// descriptions tell the model what each tool makes and when to call it.
var descriptions = map[string]string{
	ProposePptxOutline: "Show the teacher a slide outline (titles and key points) to confirm before a deck is made. " +
		"After calling it, end the turn and ask the teacher to confirm or change the outline; call generate_pptx only after they confirm.",
	GeneratePptx: "Make a PowerPoint deck (.pptx): a title slide, then one slide per item with its bullet points and speaker notes. " +
		"Use the outline the teacher confirmed. The teacher gets a download card.",
	GenerateDocx: "Write a Word document (.docx): a lesson plan, lecture notes or a homework sheet, in sections with headings, paragraphs, lists and tables. " +
		"The teacher gets a download card.",
	RenderPDF: "Make a PDF of a document (same arguments as generate_docx), for printing or sharing. The teacher gets a download card.",
	RequestInteractiveContent: "Make an interactive web page from a built-in template: flashcards (front/back), a self-check quiz with instant feedback " +
		"(question/options/answer/explanation), a step-by-step explainer (heading/body), a matching exercise (front: term, back: its match) " +
		"or a timeline (heading: when, body: what happened). Prefer this over generate_interactive_html.",
	GenerateInteractiveHTML: "Make a simple interactive web page from HTML you write: the body only, with inline <style> and <script>. " +
		"External scripts, styles, fonts, images and frames are removed. Use request_interactive_content when a template fits.",
	// issue 31: quiz exports
	ExportQuiz: "Export a quiz of this conversation (the questions generate_quiz_questions showed) as a file for where the teacher uses it: " +
		"qti21 (IMS QTI 2.1 package for Canvas, Blackboard, Schoology, Brightspace and most LMSs), moodle-xml or gift (Moodle), " +
		"kahoot-xlsx (Kahoot), quizizz-xlsx (Quizizz / Wayground), paper (a printable .docx and PDF with the answer key on its own page). " +
		"Without quizId it exports the latest quiz. The teacher gets a download card per file and a notice of any question the format could not hold.",
}

// PDFRenderer renders a document as PDF; *pdf.Writer is one. Make it once
// per process: it holds the font.
type PDFRenderer interface {
	Bytes(doc office.Document, created time.Time) ([]byte, error)
}

// Deps are what the tools need.
type Deps struct {
	Blob blob.Store
	// PDF renders render_pdf; nil makes render_pdf report that PDF output
	// is not available.
	PDF PDFRenderer
	// URLTTL is how long download links work (capability links: keep it
	// short; FILE_LINK_TTL); default DefaultURLTTL.
	URLTTL time.Duration
	Logger *slog.Logger
	// Now stamps the files' properties; default time.Now.
	Now func() time.Time
	// Quizzes finds a conversation's quizzes for export_quiz (issue 31);
	// nil leaves export_quiz out.
	Quizzes QuizSource
}

// DefaultURLTTL is the lifetime of a download link: short, because whoever
// holds the link downloads the file; a reload signs it again.
const DefaultURLTTL = 15 * time.Minute

type pack struct {
	blob blob.Store
	pdf  PDFRenderer
	ttl  time.Duration
	log  *slog.Logger
	now  func() time.Time
}

// New returns the generation tools.
func New(d Deps) []tools.Tool {
	p := newPack(d)
	ts := []tools.Tool{
		generation(ProposePptxOutline, i18n.OutlineRunning, i18n.OutlineThing, p.proposeOutline, protocol.DataPptxOutline),
		generation(GeneratePptx, i18n.SlidesRunning, i18n.SlidesThing, p.generatePptx, protocol.DataFileReady),
		generation(GenerateDocx, i18n.DocxRunning, i18n.DocxThing, p.generateDocx, protocol.DataFileReady),
		generation(RenderPDF, i18n.PDFRunning, i18n.PDFThing, p.renderPDF, protocol.DataFileReady),
		generation(RequestInteractiveContent, i18n.InteractiveRunning, i18n.InteractiveThing, p.requestInteractive, protocol.DataInteractiveContent).
			Drafting(protocol.DataInteractiveProgress, newItemsDraft),
		generation(GenerateInteractiveHTML, i18n.HTMLRunning, i18n.HTMLThing, p.generateHTML, protocol.DataInteractiveContent).
			Drafting(protocol.DataInteractiveProgress, newHTMLDraft),
	}
	if d.Quizzes != nil {
		ts = append(ts, NewQuizExporter(d).Tool())
	}
	return ts
}

func newPack(d Deps) *pack {
	p := &pack{blob: d.Blob, pdf: d.PDF, ttl: d.URLTTL, log: d.Logger, now: d.Now}
	if p.ttl <= 0 {
		p.ttl = DefaultURLTTL
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.log = p.log.With(slog.String("component", "gentools"))
	if p.now == nil {
		p.now = time.Now
	}
	return p
}

// generation defines a generation tool: its progress line, what it does
// for the teacher, and the data part it emits when it succeeds.
func generation[In any](name string, running, thing i18n.Msg, fn func(context.Context, tools.Call, In) (tools.Result, error), emits string) tools.Tool {
	return tools.Define(name, descriptions[name], tools.Generation, running, fn).Emitting(emits).Naming(thing)
}

// FileReady is the payload of data-file-ready.
type FileReady struct {
	Type     string `json:"type"`
	URL      string `json:"url"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
}

// PptxOutline is the payload of data-pptx-outline.
type PptxOutline struct {
	Title  string         `json:"title"`
	Slides []OutlineSlide `json:"slides"`
}

// OutlineSlide is one slide of an outline.
type OutlineSlide struct {
	Title   string   `json:"title"`
	Bullets []string `json:"bullets"`
}

// InteractiveContent is the payload of data-interactive-content.
type InteractiveContent struct {
	Title    string `json:"title"`
	URL      string `json:"url"`
	Template string `json:"template"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
	Items    int    `json:"items,omitempty"`
}

// file is what a tool delivers.
type file struct {
	tool, title, ext, contentType string
	build                         func() ([]byte, error)
}

// delivered is a stored file and its link.
type delivered struct {
	obj    blob.Object
	url    string
	reused bool
}

// deliver stores the file built by f.build under the call's key, unless a
// file is already there, and signs a link to it.
func (p *pack) deliver(ctx context.Context, c tools.Call, args any, f file) (delivered, error) {
	name := Filename(f.title, f.ext)
	key, err := fileKey(c, f.tool, args, name)
	if err != nil {
		return delivered{}, err
	}
	d := delivered{}
	d.obj, err = p.blob.Head(ctx, key)
	switch {
	case err == nil:
		d.reused = true
		p.log.InfoContext(ctx, "file reused", "tool", f.tool, "call", c.CallID, "key", key, "size", d.obj.Size)
	case errors.Is(err, blob.ErrNotFound):
		start := time.Now()
		data, err := f.build()
		if err != nil {
			return delivered{}, err
		}
		d.obj, err = p.blob.Put(ctx, key, f.contentType, data)
		if err != nil {
			return delivered{}, fmt.Errorf("store %s: %w", name, err)
		}
		p.log.InfoContext(ctx, "file built", "tool", f.tool, "call", c.CallID, "key", key,
			"size", d.obj.Size, "ms", time.Since(start).Milliseconds())
	default:
		return delivered{}, fmt.Errorf("look up %s: %w", name, err)
	}
	d.url, err = p.blob.URL(ctx, key, p.ttl)
	if err != nil {
		return delivered{}, fmt.Errorf("sign a link to %s: %w", name, err)
	}
	return d, nil
}

// fileKey is teachers/<teacher>/sessions/<session>/files/<call>/<name>.
// Without a call id (a direct call, a test) the call segment is a hash of
// the tool and its arguments, so the same request still maps to one file.
func fileKey(c tools.Call, tool string, args any, name string) (string, error) {
	call := c.CallID
	if call == "" {
		raw, err := json.Marshal(args)
		if err != nil {
			return "", fmt.Errorf("hash arguments: %w", err)
		}
		sum := sha256.Sum256(append([]byte(tool+"\x00"), raw...))
		call = "args-" + hex.EncodeToString(sum[:12])
	}
	session := c.SessionID
	if session == "" {
		session = "no-session"
	}
	return blob.TeacherKey(c.TeacherID, "sessions", blob.ID(session), "files", blob.ID(call), name)
}

// emit sends a data chunk with the call id as its part id.
func emit(ctx context.Context, c tools.Call, name string, payload any) error {
	if c.Emit == nil {
		return errors.New("no event stream to emit to")
	}
	d, err := protocol.NewData(name, c.CallID, payload)
	if err != nil {
		return err
	}
	return c.Emit(ctx, d)
}

// Filename returns title as a file name with extension ext: characters
// that file systems, URLs or keys treat specially are removed, spaces
// collapsed, Chinese and other letters kept, at most 60 characters; an
// empty result becomes "file".
func Filename(title, ext string) string {
	title = office.PlainText(office.Line(title))
	var b strings.Builder
	space := false
	for _, r := range title {
		switch {
		case unicode.IsControl(r) || strings.ContainsRune(`\/:*?"<>|#%&{}$!'@+=`+"`", r) || r == utf8.RuneError:
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	name := strings.Trim(b.String(), ". ")
	if rs := []rune(name); len(rs) > 60 {
		name = strings.TrimRight(string(rs[:60]), ". ")
	}
	if name == "" {
		name = "file"
	}
	return name + "." + ext
}

// argError reports arguments the model must fix.
func argError(tool, format string, a ...any) error {
	return &tools.ArgumentError{Tool: tool, Err: fmt.Errorf(format, a...)}
}

// teacherLang is the language of the teacher's messages: the call's, or
// else the content's tag. The files themselves take the language of their
// content (an English vocabulary page for a Chinese teacher is English).
func teacherLang(c tools.Call, contentTag string) i18n.Lang {
	return i18n.Of(cmp.Or(c.Language, contentTag))
}

// memory is a tool's note for later turns: what it made, with its arguments
// as compact JSON so that a follow-up ("generate it", "export it as PDF") can
// reuse the content. Oversized content is left out rather than cut into
// invalid JSON.
func memory(what string, args any) string {
	b, err := json.Marshal(args)
	if err != nil || len(b) > maxMemoryJSON {
		return what
	}
	return what + ": " + string(b)
}

// maxMemoryJSON bounds the arguments kept in a memory.
const maxMemoryJSON = 8000
