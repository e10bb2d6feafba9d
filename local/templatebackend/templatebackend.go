// Package templatebackend is the local stand-in of the template and
// knowledge-base backend of seed 002, serving the contract of
// shared/report/backend: realistic Chinese and English templates (Markdown
// with YAML front matter and nested headings, and HTML ones) and one
// knowledge base per class of the same seeded school as the Java mock
// (shared/javaapi/mockdata), so a report speaks of the students the rest of
// the product knows.
package templatebackend

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/insightedge/insightedge/local/standin"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/scores"
)

//go:embed templates
var templateFiles embed.FS

// Server serves the backend contract.
type Server struct {
	templates []backend.Template
	kbs       []kb
	mux       *http.ServeMux
}

type kb struct {
	backend.KnowledgeBase
	files map[string][]byte
	order []string
	// gradesAt is grades.json at another pass mark (?pass_mark=, issue 23).
	gradesAt func(pass float64) ([]byte, error)
}

// Self-check names (go run ./local template-check).
const (
	SelfCheckTemplate = "自检模板"
	SelfCheckKB       = "自检知识库"
)

// New builds the backend from the embedded templates and data set d.
func New(d *mockdata.Dataset) (*Server, error) {
	s := &Server{mux: http.NewServeMux()}
	entries, err := fs.ReadDir(templateFiles, "templates")
	if err != nil {
		return nil, err
	}
	for i, e := range entries {
		b, err := templateFiles.ReadFile("templates/" + e.Name())
		if err != nil {
			return nil, err
		}
		ext := path.Ext(e.Name())
		format := backend.FormatMarkdown
		if ext == ".html" {
			format = backend.FormatHTML
		}
		lang := "en"
		if strings.ContainsFunc(e.Name(), func(r rune) bool { return r > 0x2e80 }) {
			lang = "zh"
		}
		s.templates = append(s.templates, backend.Template{TemplateInfo: backend.TemplateInfo{
			ID: fmt.Sprintf("tpl-%03d", i+1), Name: strings.TrimSuffix(e.Name(), ext), Format: format, Language: lang}, Content: string(b)})
	}
	for _, c := range d.Classes {
		k, err := classKB(d, c)
		if err != nil {
			return nil, err
		}
		s.kbs = append(s.kbs, k)
	}
	if len(s.kbs) > 0 { // the self-check's knowledge base is Form 1A's data
		self := s.kbs[0]
		self.ID, self.Name = "kb-selfcheck", SelfCheckKB
		self.Description = "自检用知识库（" + s.kbs[0].Name + " 的数据）"
		s.kbs = append(s.kbs, self)
	}
	s.mux.HandleFunc("GET "+backend.Paths.Templates, s.listTemplates)
	s.mux.HandleFunc("GET "+backend.Paths.Template, s.getTemplate)
	s.mux.HandleFunc("GET "+backend.Paths.KnowledgeBases, s.listKBs)
	s.mux.HandleFunc("GET "+backend.Paths.KBFiles, s.listFiles)
	s.mux.HandleFunc("GET "+backend.Paths.KBFile, s.getFile)
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Templates lists the templates' names.
func (s *Server) Templates() []backend.TemplateInfo {
	var out []backend.TemplateInfo
	for _, t := range s.templates {
		out = append(out, t.TemplateInfo)
	}
	return out
}

// KnowledgeBases lists the knowledge bases.
func (s *Server) KnowledgeBases() []backend.KnowledgeBase {
	var out []backend.KnowledgeBase
	for _, k := range s.kbs {
		out = append(out, k.KnowledgeBase)
	}
	return out
}

func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request) {
	out := named(r, s.Templates(), func(t backend.TemplateInfo) string { return t.Name })
	standin.WriteJSON(w, http.StatusOK, map[string]any{"templates": out})
}

// named keeps the items called as the request's ?name= says (all when it
// does not); never nil, so that an empty list is [] on the wire.
func named[T any](r *http.Request, all []T, name func(T) string) []T {
	want := r.URL.Query().Get("name")
	out := []T{}
	for _, x := range all {
		if want == "" || name(x) == want {
			out = append(out, x)
		}
	}
	return out
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) {
	for _, t := range s.templates {
		if t.ID == r.PathValue("id") {
			standin.WriteJSON(w, http.StatusOK, t)
			return
		}
	}
	standin.WriteJSON(w, http.StatusNotFound, map[string]string{"error": "no such template"})
}

func (s *Server) listKBs(w http.ResponseWriter, r *http.Request) {
	out := named(r, s.KnowledgeBases(), func(k backend.KnowledgeBase) string { return k.Name })
	standin.WriteJSON(w, http.StatusOK, map[string]any{"knowledge_bases": out})
}

func (s *Server) kb(id string) (kb, bool) {
	for _, k := range s.kbs {
		if k.ID == id {
			return k, true
		}
	}
	return kb{}, false
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) {
	k, ok := s.kb(r.PathValue("id"))
	if !ok {
		standin.WriteJSON(w, http.StatusNotFound, map[string]string{"error": "no such knowledge base"})
		return
	}
	out := []backend.FileInfo{}
	for _, n := range k.order {
		out = append(out, backend.FileInfo{Name: n, Size: int64(len(k.files[n]))})
	}
	standin.WriteJSON(w, http.StatusOK, map[string]any{"files": out})
}

func (s *Server) getFile(w http.ResponseWriter, r *http.Request) {
	k, ok := s.kb(r.PathValue("id"))
	b, found := k.files[r.PathValue("name")]
	if !ok || !found {
		standin.WriteJSON(w, http.StatusNotFound, map[string]string{"error": "no such file"})
		return
	}
	if pm, err := strconv.ParseFloat(r.URL.Query().Get("pass_mark"), 64); err == nil && pm > 0 && pm <= 100 &&
		r.PathValue("name") == "grades.json" && k.gradesAt != nil {
		if b, err = k.gradesAt(pm); err != nil {
			standin.WriteJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// classKB is a class's knowledge base: its roster, its grades with the
// statistics a report cites, its students' recurring errors and the
// teacher's teaching notes.
func classKB(d *mockdata.Dataset, c mockdata.Class) (kb, error) {
	k := kb{KnowledgeBase: backend.KnowledgeBase{ID: c.UID, Name: c.Name,
		Description: fmt.Sprintf("%s %s (%s), %d students, %s", c.Name, c.Subject, c.Grade, c.StudentCount, c.AcademicYear)},
		files: map[string][]byte{}}
	students := d.StudentsOf(c.UID)
	teacher := ""
	for _, t := range d.Teachers {
		if t.ID == c.TeacherID {
			teacher = t.Name
		}
	}
	add := func(name string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		k.files[name] = b
		k.order = append(k.order, name)
		return nil
	}
	if err := add("class.json", map[string]any{"class": c, "teacher": teacher, "students": students}); err != nil {
		return k, err
	}
	if err := add("grades.json", grades(d, c, students, scores.DefaultPassMark)); err != nil {
		return k, err
	}
	k.gradesAt = func(pass float64) ([]byte, error) { return json.MarshalIndent(grades(d, c, students, pass), "", "  ") }
	errs := []map[string]any{}
	for _, s := range students {
		if ps := d.ErrorPatternsOf(s.UID); len(ps) > 0 {
			errs = append(errs, map[string]any{"student": s.Name, "patterns": ps[:min(3, len(ps))]})
		}
	}
	if err := add("error_patterns.json", map[string]any{"class": c.Name, "students": errs}); err != nil {
		return k, err
	}
	// The teacher's notes for this class's subject only: a report on Form
	// 1A's English cites no Form 3 physics lab sheet.
	subject := map[string]string{}
	for _, doc := range d.Documents {
		subject[doc.UID] = doc.Subject
	}
	notes := []map[string]string{}
	for _, h := range d.SearchDocuments(c.TeacherID, "") {
		if subject[h.UID] == c.Subject {
			notes = append(notes, map[string]string{"title": h.Title, "updated_at": h.UpdatedAt, "summary": h.Snippet})
		}
	}
	return k, add("teaching_log.json", map[string]any{"teacher": teacher, "entries": notes})
}

type scored struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

func grades(d *mockdata.Dataset, c mockdata.Class, students []mockdata.Student, pass float64) map[string]any {
	var assignments []map[string]any
	pct := map[string][]float64{}
	for _, a := range d.AssignmentsOf(c.UID) {
		subs := d.SubmissionsOf(a.UID)
		var done []scored
		var missing, late []string
		for _, s := range subs {
			if s.Status == "late" {
				late = append(late, s.StudentName)
			}
			if s.Status == "missing" || s.SubmittedAt == "" {
				missing = append(missing, s.StudentName)
				continue
			}
			done = append(done, scored{s.StudentName, s.Score})
			pct[s.StudentName] = append(pct[s.StudentName], scores.Percent(s.Score, a.MaxScore))
		}
		slices.SortFunc(done, func(x, y scored) int { return cmp.Compare(y.Score, x.Score) })
		row := map[string]any{"title": a.Title, "due_date": a.DueDate, "max_score": a.MaxScore, "submitted": len(done), "missing": missing, "late": late}
		if len(done) > 0 {
			addStats(row, done, a.MaxScore, pass)
		}
		assignments = append(assignments, row)
	}
	var perStudent []map[string]any
	for _, s := range students {
		ps := pct[s.Name]
		if len(ps) == 0 {
			continue
		}
		var sum float64
		for _, p := range ps {
			sum += p
		}
		perStudent = append(perStudent, map[string]any{"name": s.Name, "average_percent": round1(sum / float64(len(ps)))})
	}
	return map[string]any{"class": c.Name, "subject": c.Subject, "assignments": assignments, "students": perStudent}
}

// addStats puts an assignment's statistics in its row, by the product's one
// definition (shared/scores): the raw mean and median, the same in percent
// of full marks (what the page shows), and the pass rate at the pass mark
// the row names.
func addStats(row map[string]any, done []scored, maxScore, pass float64) {
	raw, pct := make([]float64, len(done)), make([]float64, len(done))
	for i, s := range done {
		raw[i], pct[i] = s.Score, scores.Percent(s.Score, maxScore)
	}
	r, p := scores.Summarize(raw, 0), scores.Summarize(pct, pass)
	row["mean"], row["median"] = round1(r.Mean), round1(r.Median)
	row["mean_percent"], row["median_percent"] = round1(p.Mean), round1(p.Median)
	row["pass_mark_percent"] = p.PassMark
	row["pass_rate"] = round1(100 * p.PassRate())
	row["top3"] = done[:min(3, len(done))]
	row["bottom3"] = done[max(0, len(done)-3):]
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
