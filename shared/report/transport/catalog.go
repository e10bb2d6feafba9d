package transport

import (
	"context"
	"net/http"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/report/backend"
)

// Catalog lists what a report can be written from: the templates and the
// knowledge bases of the default template backend (*backend.Client).
type Catalog interface {
	Templates(ctx context.Context, name string) ([]backend.TemplateInfo, error)
	KnowledgeBases(ctx context.Context, name string) ([]backend.KnowledgeBase, error)
}

// catalogAnswer is GET /api/template/catalog's body.
type catalogAnswer struct {
	Templates      []backend.TemplateInfo  `json:"templates"`
	KnowledgeBases []backend.KnowledgeBase `json:"knowledge_bases"`
}

// catalog is GET /api/template/catalog: the templates and knowledge bases a
// client can offer the teacher by name, so that a report is asked for with
// names that exist.
func (s *Server) catalog(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.auth.Authenticate(r); err != nil {
		return err
	}
	if s.o.Catalog == nil {
		return apperr.New(apperr.ServiceUnavailable, "no template backend is configured")
	}
	ts, err := s.o.Catalog.Templates(r.Context(), "")
	if err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "the template backend is unavailable")
	}
	kbs, err := s.o.Catalog.KnowledgeBases(r.Context(), "")
	if err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "the template backend is unavailable")
	}
	out := catalogAnswer{Templates: ts, KnowledgeBases: kbs}
	if out.Templates == nil {
		out.Templates = []backend.TemplateInfo{}
	}
	if out.KnowledgeBases == nil {
		out.KnowledgeBases = []backend.KnowledgeBase{}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
