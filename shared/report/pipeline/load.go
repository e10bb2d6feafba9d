package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/mdtree"
	"github.com/insightedge/insightedge/shared/report/vfs"
)

// load fetches the template and the knowledge base the user named from the
// backend into the session's VFS (seed 002: before the agent runs) and
// records the template's path and the report language.
func (p *Pipeline) load(ctx context.Context, s report.Session) (report.Session, error) {
	if s.TemplatePath != "" {
		return s, nil
	}
	c, err := p.backends.For(s.Message.APIBaseURL)
	if err != nil {
		return s, apperr.Wrap(err, apperr.ValidationError, "api_base_url is not an allowed template backend")
	}
	f, err := p.fs(s)
	if err != nil {
		return s, err
	}
	l := lang(s) // the teacher's, before the template says it
	tpl, err := p.findTemplate(ctx, l, c, s.Message)
	if err != nil {
		return s, err
	}
	md := tpl.Content
	name := fileName(tpl.Name)
	if tpl.Format == backend.FormatHTML {
		if _, err := f.Put(ctx, "template/"+name+".html", []byte(tpl.Content)); err != nil {
			return s, err
		}
		if md, err = mdtree.FromHTML(tpl.Content); err != nil {
			return s, apperr.Wrap(err, apperr.DataError, "%s", l.Text(i18n.ReportTemplateUnreadable, tpl.Name))
		}
	}
	doc, err := mdtree.Parse(md)
	if err != nil {
		return s, apperr.Wrap(err, apperr.DataError, "%s", l.Text(i18n.ReportTemplateUnreadable, tpl.Name))
	}
	if len(doc.Leaves) == 0 {
		return s, apperr.New(apperr.DataError, "%s", l.Text(i18n.ReportTemplateNoHeadings, tpl.Name))
	}
	tplPath := "template/" + name + ".md"
	if _, err := f.Put(ctx, tplPath, []byte(md)); err != nil {
		return s, err
	}
	if err := p.loadKB(ctx, l, c, f, s.Message, p.passMark(ctx, s.TeacherID)); err != nil {
		return s, err
	}
	lang := s.Message.Language
	if lang == "" {
		if l, ok := doc.FrontMatter["language"].(string); ok {
			lang = l
		}
	}
	if lang != "zh" && lang != "en" {
		lang = "en"
		if i18n.Of(s.Message.Language, s.Message.Question, tpl.Name) == i18n.Chinese {
			lang = "zh"
		}
	}
	return p.store.UpdateSession(ctx, s.ID, func(x *report.Session) error {
		x.TemplatePath, x.Language = tplPath, lang
		return nil
	})
}

func (p *Pipeline) findTemplate(ctx context.Context, l i18n.Lang, c *backend.Client, m report.Message) (backend.Template, error) {
	id := m.TemplateID
	if id == "" {
		if m.TemplateName == "" {
			return backend.Template{}, apperr.New(apperr.ValidationError, "name a template (content.template_name or template_id)")
		}
		list, err := c.Templates(ctx, m.TemplateName)
		if err != nil {
			return backend.Template{}, backendErr(l, err, m.TemplateName)
		}
		if len(list) == 0 {
			return backend.Template{}, apperr.New(apperr.EntityNotFound, "%s", l.Text(i18n.ReportNoTemplate, m.TemplateName))
		}
		id = list[0].ID
	}
	t, err := c.Template(ctx, id)
	if err != nil {
		return t, backendErr(l, err, id)
	}
	return t, nil
}

func (p *Pipeline) loadKB(ctx context.Context, l i18n.Lang, c *backend.Client, f *vfs.FS, m report.Message, passMark float64) error {
	id := m.DatabaseID
	if id == "" {
		if m.KnowledgeBaseName == "" {
			return nil // a report from the template alone
		}
		list, err := c.KnowledgeBases(ctx, m.KnowledgeBaseName)
		if err != nil {
			return backendErr(l, err, m.KnowledgeBaseName)
		}
		if len(list) == 0 {
			return apperr.New(apperr.EntityNotFound, "%s", l.Text(i18n.ReportNoKnowledgeBase, m.KnowledgeBaseName))
		}
		id = list[0].ID
	}
	files, err := c.Files(ctx, id)
	if err != nil {
		return backendErr(l, err, id)
	}
	for _, fi := range files {
		raw, err := c.FileAt(ctx, id, fi.Name, passMark)
		if err != nil {
			return backendErr(l, err, fi.Name)
		}
		name := fileName(strings.TrimSuffix(path.Base(fi.Name), ".json"))
		if _, err := f.Put(ctx, "datasets/"+name+".json", raw); err != nil {
			return apperr.Wrap(err, apperr.DataError, "the knowledge base file %q could not be stored", fi.Name)
		}
	}
	return nil
}

func backendErr(l i18n.Lang, err error, what string) error {
	if errors.Is(err, backend.ErrNotFound) {
		return apperr.Wrap(err, apperr.EntityNotFound, "%s", l.Text(i18n.ReportBackendMissing, what))
	}
	// The backend is down or broken: a system failure (system.error).
	return apperr.Wrap(err, apperr.ServiceUnavailable, "%s", l.Text(i18n.ReportBackendFailed, what))
}

// fileName makes a name safe as one VFS path segment.
func fileName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || strings.ContainsRune(`/\?#%*:|"<>`, r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	name = strings.Trim(name, ". ")
	if name == "" {
		name = "template"
	}
	if r := []rune(name); len(r) > 80 {
		name = string(r[:80])
	}
	return name
}

// describe gives an error a user can read.
func describe(err error) string {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	return fmt.Sprint(err)
}
