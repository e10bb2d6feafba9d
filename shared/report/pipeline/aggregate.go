package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/office/docx"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/export"
	"github.com/insightedge/insightedge/shared/report/mdtree"
	"github.com/insightedge/insightedge/shared/report/vfs"
)

// Aggregate rebuilds the template's structure with each section under its
// leaf, writes reports/generated_report.md, and ends the run with
// aggregate.completed, pipeline.completed and agent.final_answer.
func (p *Pipeline) Aggregate(ctx context.Context, in StepInput) (AggregateOutput, error) {
	stale := AggregateOutput{Status: "stale"}
	s, err := p.store.UpdateSession(ctx, in.SessionID, func(x *report.Session) error {
		if x.Run != in.Run || x.Status == report.StatusCancelled || x.Status == report.StatusClosed {
			return errStale
		}
		x.Status = report.StatusAggregating
		return nil
	})
	if err != nil {
		return stale, staleOr(err)
	}
	if err := p.emit(ctx, s.ID, in.Run, report.AggregateStart{}); err != nil {
		return stale, staleOr(err)
	}
	f, doc, err := p.template(ctx, s)
	if err != nil {
		return stale, err
	}
	contents := map[int]string{}
	var sections []report.Section
	for _, t := range s.Tasks {
		sec, err := readSection(ctx, f, t.ID)
		switch {
		case errors.Is(err, vfs.ErrNotFound):
			contents[t.ID] = missing(s, s.TaskState[t.ID])
			continue
		case err != nil:
			return stale, err
		}
		sec.Content = strings.TrimSpace(mdtree.Unheaded(sec.Content, t.Title))
		contents[t.ID] = sec.Content
		sections = append(sections, sec)
	}
	body := mdtree.Assemble(doc, contents, s.PlanSummary)
	if _, err := f.Put(ctx, report.ReportPath, []byte(body)); err != nil {
		return stale, err
	}
	files := p.exportFiles(ctx, f, s, body)
	answer := p.finalAnswer(ctx, s, doc, sections, files)
	if _, err := p.store.UpdateSession(ctx, s.ID, func(x *report.Session) error {
		if x.Run != in.Run {
			return errStale
		}
		x.Status = report.StatusCompleted
		return nil
	}); err != nil {
		return stale, staleOr(err)
	}
	if sections == nil {
		sections = []report.Section{}
	}
	done := report.AggregateCompleted{Output: report.Output{Sections: sections,
		Report: report.Report{Content: body, VFSPath: report.ReportPath, Path: report.ReportPath, Files: files}}}
	if err := report.Emitter(p.log, s.ID).Emit(ctx, done, report.PipelineCompleted{}, report.FinalAnswer{Text: answer}); err != nil {
		return stale, err
	}
	return AggregateOutput{Status: "completed", Path: report.ReportPath}, nil
}

// exportFiles writes the report as .docx (and PDF with a renderer) next to
// the Markdown and returns signed download links by format. A format that
// fails is left out and logged: the Markdown report is what the seed
// promises.
func (p *Pipeline) exportFiles(ctx context.Context, f *vfs.FS, s report.Session, body string) map[string]string {
	doc := export.Document(body, lang(s).Tag())
	now := time.Now()
	out := map[string]string{}
	put := func(format string, render func() ([]byte, error)) {
		b, err := render()
		if err == nil {
			path := strings.TrimSuffix(report.ReportPath, ".md") + "." + format
			var key string
			if _, err = f.Put(ctx, path, b); err == nil {
				if key, err = f.Key(path); err == nil {
					out[format], err = p.blobs.URL(ctx, key, p.fileTTL)
				}
			}
		}
		if err != nil {
			delete(out, format)
			p.logger.Warn("report export failed", "sessionId", s.ID, "format", format, "err", err)
		}
	}
	put("docx", func() ([]byte, error) {
		var buf bytes.Buffer
		err := docx.Write(&buf, doc, now)
		return buf.Bytes(), err
	})
	if p.pdf != nil {
		put("pdf", func() ([]byte, error) { return p.pdf.Bytes(doc, now) })
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func readSection(ctx context.Context, f *vfs.FS, id int) (report.Section, error) {
	var sec report.Section
	b, err := f.ReadWork(ctx, sectionName(id))
	if err != nil {
		return sec, err
	}
	return sec, json.Unmarshal(b, &sec)
}

func missing(s report.Session, state string) string {
	if state == report.TaskCancelled {
		return lang(s).Text(i18n.ReportSectionCancelled)
	}
	return lang(s).Text(i18n.ReportSectionFailed)
}

// finalAnswer asks the editor model for the words to the user; if it
// fails, a plain summary says the same.
// The teacher gets the report as download links beside the answer (files,
// by format), never as a path in the session's file system.
func (p *Pipeline) finalAnswer(ctx context.Context, s report.Session, doc *mdtree.Doc, secs []report.Section, files map[string]string) string {
	type row struct {
		ID      int    `json:"id"`
		Title   string `json:"title"`
		Summary string `json:"summary,omitempty"`
		Status  string `json:"status"`
	}
	rows := []row{}
	written := 0
	for _, t := range s.Tasks {
		r := row{ID: t.ID, Title: t.Title, Status: s.TaskState[t.ID]}
		for _, sec := range secs {
			if sec.ID == t.ID {
				r.Summary, r.Status = Summary(sec.Content), report.TaskCompleted
				written++
			}
		}
		rows = append(rows, r)
	}
	title := doc.Title
	if title == "" {
		title = s.PlanSummary
	}
	downloads := slices.Sorted(maps.Keys(files))
	user, _ := json.Marshal(map[string]any{"title": title, "language": s.Language, "downloads": downloads, "question": s.Message.Question, "sections": rows})
	resp, err := p.model.Complete(ctx, llm.Request{Tier: llm.TierFast, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: prompts.ReportAggregator},
		{Role: llm.RoleUser, Content: string(user)},
	}})
	if err == nil && strings.TrimSpace(resp.Message.Content) != "" && len(resp.Message.ToolCalls) == 0 {
		return strings.TrimSpace(resp.Message.Content)
	}
	p.logger.Warn("final answer from the model failed; a plain one is used", "sessionId", s.ID, "err", err)
	return lang(s).Text(i18n.ReportReady, title, written, len(s.Tasks))
}

// Finish ends a run that wrote no report: a declined plan, a confirmation
// that timed out, or a failure caught by the workflow.
func (p *Pipeline) Finish(ctx context.Context, in FinishInput) (struct{}, error) {
	s, err := p.store.UpdateSession(ctx, in.SessionID, func(x *report.Session) error {
		if x.Run != in.Run || x.Status == report.StatusCancelled || x.Status == report.StatusClosed {
			return errStale
		}
		x.StepID = ""
		x.Status = report.StatusIdle
		if in.Reason == ReasonFailed {
			x.Status = report.StatusFailed
		}
		return nil
	})
	if err != nil {
		return struct{}{}, staleOr(err)
	}
	var ev report.ServerEvent
	switch in.Reason {
	case ReasonDeclined:
		ev = report.FinalAnswer{Text: lang(s).Text(i18n.ReportDeclined)}
	case ReasonTimeout:
		ev = report.Error{Code: "VALIDATION_ERROR", Message: lang(s).Text(i18n.ReportConfirmTimeout, p.set.ConfirmTimeout)}
	default:
		if sys, ok := systemFailure(lang(s), in.Error); ok {
			// The run ends (pipeline.completed) and its last event says
			// why: the system failed, not the request.
			return struct{}{}, report.Emitter(p.log, s.ID).Emit(ctx, report.PipelineCompleted{}, sys)
		}
		ev = failure(lang(s), in.Error)
	}
	return struct{}{}, report.Emitter(p.log, s.ID).Emit(ctx, ev, report.PipelineCompleted{})
}

// systemFailure is the system.error of a caught error the seed assigns to
// it, with a stable code: SERVICE_UNAVAILABLE for a template backend that
// is down (its message names what it failed on), INTERNAL_ERROR for a step
// that failed with no code of its own (a crash, a broken store: its cause
// is logged, never sent). A timeout is no system failure (failure: AI_ERROR).
func systemFailure(l i18n.Lang, e *ErrorInfo) (report.SystemError, bool) {
	switch {
	case e == nil || e.TimedOut():
		return report.SystemError{}, false
	case e.Code() == apperr.ServiceUnavailable:
		return report.SystemError{Code: string(apperr.ServiceUnavailable), Message: l.Text(i18n.ReportSystemError, e.Message())}, true
	case e.Code() == apperr.Internal:
		return report.SystemError{Code: string(apperr.Internal), Message: l.Text(i18n.ReportSystemError, l.Text(i18n.ReportInternalError))}, true
	}
	return report.SystemError{}, false
}

// failure turns a caught error into agent.error: a step's apperr is named
// by its code (wire.Typed), its cause starts "CODE: "; anything else is
// AI_ERROR, with the cause as it is.
func failure(l i18n.Lang, e *ErrorInfo) report.Error {
	if e == nil {
		return report.Error{Code: string(apperr.AIError), Message: l.Text(i18n.ReportAgentError, l.Text(i18n.ServiceUnavailable))}
	}
	code := e.Code()
	if code == apperr.Internal {
		code = apperr.AIError
	}
	return report.Error{Code: string(code), Message: l.Text(i18n.ReportAgentError, e.Message())}
}
