package gentools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/docx"
	"github.com/insightedge/insightedge/shared/office/pdf"
	"github.com/insightedge/insightedge/shared/office/quizexport"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

// ExportQuiz is the quiz export tool's name.
const ExportQuiz = "export_quiz"

// ExportQuizArgs are export_quiz's arguments.
type ExportQuizArgs struct {
	Format string `json:"format" enum:"qti21,moodle-xml,gift,kahoot-xlsx,quizizz-xlsx,paper" description:"qti21 for an LMS (Canvas, Blackboard...), moodle-xml or gift for Moodle, kahoot-xlsx, quizizz-xlsx, paper to print"`
	QuizID string `json:"quizId,omitempty" description:"the quiz's id (its generate_quiz_questions call id); default: the latest quiz of this conversation (every quiz call of its turn)"`
}

// QuizExportRequest is one export: of a stored quiz (QuizID, "" for the
// latest) or of questions given (Questions, with Title).
type QuizExportRequest struct {
	Format    quizexport.Format
	QuizID    string
	Questions []protocol.Question
	Title     string
}

// QuizExport is an export's result: the files, in order, and what the
// format could not hold as it is.
type QuizExport struct {
	QuizID   string            `json:"quizId,omitempty"`
	Files    []FileReady       `json:"files"`
	Exported int               `json:"exported"`
	Notes    []ExportNote      `json:"notes"`
	Notices  []protocol.Notice `json:"notices,omitempty"`
	notes    []quizexport.Note // as the writer gave them
	lang     i18n.Lang
}

// ExportNote is a quizexport.Note with its text for the teacher.
type ExportNote struct {
	quizexport.Note
	Message string `json:"message"`
}

// QuizExporter exports quizzes to files through the file path of every
// generation tool (the blob store, a key per call, signed links). The
// export_quiz tool and the /api/quiz/export route share it.
type QuizExporter struct {
	p       *pack
	quizzes QuizSource
}

// NewQuizExporter returns the exporter over d (d.Quizzes finds stored
// quizzes; without it only given questions are exported).
func NewQuizExporter(d Deps) *QuizExporter {
	return &QuizExporter{p: newPack(d), quizzes: d.Quizzes}
}

// ErrBadQuiz wraps a request whose questions cannot be exported.
var ErrBadQuiz = errors.New("bad quiz")

// MaxExportQuestions bounds the questions of one export.
const MaxExportQuestions = 200

// Export finds the quiz, writes the format's files under c's key and
// signs their links. lang is the teacher's language for the notes.
func (e *QuizExporter) Export(ctx context.Context, c tools.Call, r QuizExportRequest) (QuizExport, error) {
	if !r.Format.Valid() {
		return QuizExport{}, fmt.Errorf("%w: unknown format %q", ErrBadQuiz, r.Format)
	}
	stored := StoredQuiz{ID: r.QuizID, Topic: r.Title, Questions: r.Questions}
	if len(r.Questions) == 0 {
		if e.quizzes == nil {
			return QuizExport{}, ErrNoQuiz
		}
		var err error
		if stored, err = e.quizzes.Quiz(ctx, c.SessionID, r.QuizID); err != nil {
			return QuizExport{}, err
		}
	}
	if len(stored.Questions) > MaxExportQuestions {
		return QuizExport{}, fmt.Errorf("%w: %d questions, at most %d", ErrBadQuiz, len(stored.Questions), MaxExportQuestions)
	}
	for i, q := range stored.Questions {
		if office.Line(q.Question) == "" {
			return QuizExport{}, fmt.Errorf("%w: question %d has no text", ErrBadQuiz, i+1)
		}
	}
	l := c.Lang()
	title := office.Line(stored.Topic)
	if title == "" {
		title = l.Text(i18n.QuizTitle)
	}
	quiz, notes := quizexport.FromProtocol(title, "", stored.Questions)
	out := QuizExport{QuizID: stored.ID, Files: []FileReady{}}
	files, more, err := e.files(quiz, r.Format)
	if err != nil {
		return QuizExport{}, err
	}
	out.Notes, out.Notices = explain(l, append(notes, more...))
	out.Exported = len(quiz.Questions)
	for _, n := range out.Notes {
		if n.Action == quizexport.LeftOut {
			out.Exported--
		}
	}
	if out.Exported == 0 {
		return out, nil // nothing fits: no empty file, the notice says why
	}
	args := QuizExportRequest{Format: r.Format, QuizID: stored.ID, Questions: stored.Questions, Title: title}
	for _, f := range files {
		if f.ext == "pdf" && e.p.pdf == nil {
			out.Notices = append(out.Notices, protocol.Notice{Code: protocol.NoticePDFUnavailable, Message: l.Text(i18n.PDFUnavailable)})
			continue
		}
		d, err := e.p.deliver(ctx, c, args, f)
		if err != nil {
			return QuizExport{}, err
		}
		out.Files = append(out.Files, FileReady{Type: f.ext, URL: d.url, Filename: d.obj.Filename(), Size: d.obj.Size})
	}
	return out, nil
}

// explain turns the writers' notes into the teacher's words: a text per
// note and one notice listing them.
func explain(l i18n.Lang, notes []quizexport.Note) ([]ExportNote, []protocol.Notice) {
	out := []ExportNote{}
	texts := make([]string, 0, len(notes))
	for _, n := range notes {
		msg := i18n.ExportConverted
		if n.Action == quizexport.LeftOut {
			msg = i18n.ExportLeftOut
		}
		out = append(out, ExportNote{Note: n, Message: l.Text(msg, n.Question, l.Text(reasons[n.Reason]))})
		texts = append(texts, out[len(out)-1].Message)
	}
	if len(texts) == 0 {
		return out, nil
	}
	return out, []protocol.Notice{{Code: protocol.NoticeQuizExport, Message: l.Text(i18n.ExportNotice, l.List(texts))}}
}

// reasons are the teacher's words for the writers' reasons.
var reasons = map[quizexport.Reason]i18n.Msg{
	quizexport.ReasonOpenQuestion: i18n.ExportReasonOpen, quizexport.ReasonTooManyOptions: i18n.ExportReasonOptions,
	quizexport.ReasonTooLong: i18n.ExportReasonLong, quizexport.ReasonManualGrading: i18n.ExportReasonManual,
	quizexport.ReasonNoAnswer: i18n.ExportReasonNoAnswer,
}

// files are the files of format f, each built when stored (a call run
// again finds them and builds nothing). The writers run once here for
// their notes; the build reruns them, which costs microseconds.
func (e *QuizExporter) files(q quizexport.Quiz, f quizexport.Format) ([]file, []quizexport.Note, error) {
	now := e.p.now()
	one := func(suffix, ext, contentType string, write func() ([]byte, []quizexport.Note, error)) ([]file, []quizexport.Note, error) {
		_, notes, err := write()
		if err != nil {
			return nil, nil, err
		}
		return []file{{tool: ExportQuiz, title: q.Title + suffix, ext: ext, contentType: contentType,
			build: func() ([]byte, error) { b, _, err := write(); return b, err }}}, notes, nil
	}
	switch f {
	case quizexport.QTI21:
		return one(" QTI", "zip", quizexport.QTIContentType, func() ([]byte, []quizexport.Note, error) { return quizexport.WriteQTI21(q, now) })
	case quizexport.MoodleXML:
		return one(" Moodle", "xml", quizexport.MoodleContentType, func() ([]byte, []quizexport.Note, error) {
			b, n := quizexport.WriteMoodleXML(q)
			return b, n, nil
		})
	case quizexport.GIFT:
		return one(" GIFT", "txt", quizexport.GIFTContentType, func() ([]byte, []quizexport.Note, error) {
			b, n := quizexport.WriteGIFT(q)
			return b, n, nil
		})
	case quizexport.Kahoot:
		return one(" Kahoot", "xlsx", quizexport.XLSXContentType, func() ([]byte, []quizexport.Note, error) { return quizexport.WriteKahoot(q, now) })
	case quizexport.Quizizz:
		return one(" Quizizz", "xlsx", quizexport.XLSXContentType, func() ([]byte, []quizexport.Note, error) { return quizexport.WriteQuizizz(q, now) })
	}
	doc := quizexport.PaperDocument(q)
	return []file{
		{tool: ExportQuiz, title: q.Title, ext: "docx", contentType: docx.ContentType, build: func() ([]byte, error) {
			var buf bytes.Buffer
			err := docx.Write(&buf, doc, now)
			return buf.Bytes(), err
		}},
		{tool: ExportQuiz, title: q.Title, ext: "pdf", contentType: pdf.ContentType, build: func() ([]byte, error) {
			return e.p.pdf.Bytes(doc, now)
		}},
	}, nil, nil
}

// exportQuiz is the export_quiz tool.
func (e *QuizExporter) exportQuiz(ctx context.Context, c tools.Call, a ExportQuizArgs) (tools.Result, error) {
	format := quizexport.Format(a.Format)
	if !format.Valid() {
		return tools.Result{}, argError(ExportQuiz, "format %q is not one of %v", a.Format, quizexport.Formats)
	}
	out, err := e.Export(ctx, c, QuizExportRequest{Format: format, QuizID: strings.TrimSpace(a.QuizID)})
	l := c.Lang()
	if errors.Is(err, ErrNoQuiz) {
		msg := l.Text(i18n.ExportNoQuiz)
		return tools.Result{Status: protocol.ToolEmpty, Message: msg, Output: map[string]any{
			"status": "no_quiz", "teacherMessage": msg,
			"next": "There is no quiz to export: tell the teacher, and offer to write one (generate_quiz_questions) first."}}, nil
	}
	if err != nil {
		return tools.Result{}, err
	}
	if len(out.Files) == 0 {
		msg := strings.Join(noticeTexts(out.Notices), " ")
		return tools.Result{Status: protocol.ToolEmpty, Message: msg, Notices: out.Notices, Output: map[string]any{
			"status": "nothing_exported", "format": a.Format, "quizId": out.QuizID, "notes": out.Notes, "teacherMessage": msg,
			"next": "No question of the quiz fits this format, so no file was made: tell the teacher why (teacherMessage) and suggest qti21, moodle-xml, gift or paper, which hold every kind."}}, nil
	}
	names := make([]string, len(out.Files))
	for i, f := range out.Files {
		// A part id per file: the client keeps one part per id, and a
		// paper is two files of one call.
		id := c.CallID
		if len(out.Files) > 1 {
			id += "-" + f.Type
		}
		d, err := protocol.NewData(protocol.DataFileReady, id, f)
		if err == nil && c.Emit != nil {
			err = c.Emit(ctx, d)
		}
		if err != nil {
			return tools.Result{}, err
		}
		names[i] = f.Filename
	}
	msg := l.Text(i18n.ExportReady, l.List(names), out.Exported)
	output := map[string]any{"status": "ready", "format": a.Format, "quizId": out.QuizID, "files": names,
		"exported": out.Exported, "notes": out.Notes,
		"next": "The teacher sees a download card per file; do not repeat links. Tell them briefly what was exported."}
	if len(out.Notices) > 0 {
		output["teacherMessage"] = strings.Join(noticeTexts(out.Notices), " ")
		output["next"] = "The teacher sees a download card per file and a notice. Say in your answer, in their language, which questions were left out or adapted and why (teacherMessage)."
	}
	return tools.Result{Status: protocol.ToolSuccess, Message: msg, Output: output, Notices: out.Notices,
		Memory: fmt.Sprintf("quiz %s exported as %s: %s", out.QuizID, a.Format, strings.Join(names, ", "))}, nil
}

// Tool is the export_quiz tool.
func (e *QuizExporter) Tool() tools.Tool {
	return generation(ExportQuiz, i18n.ExportQuizRunning, i18n.ExportQuizThing, e.exportQuiz, protocol.DataFileReady)
}

func noticeTexts(ns []protocol.Notice) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Message
	}
	return out
}
