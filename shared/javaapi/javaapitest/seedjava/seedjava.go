// Package seedjava is a stand-in for the Java data service written from
// seed 004 §2 alone, not from the project's mock (shared/javaapi/mockserver):
// the seed's paths under /api, Result<T> with a numeric code, ClassroomDTO
// with both uid and a numeric id, SubmissionDTO as the seed spells it, and
// its own choices where the seed leaves the shape open (a class's students
// as {student_id, student_name}, bare arrays of submissions, an assignment
// list of {assignment_id, title, due_date, max_score}).
//
// Its defects are switchable (Defects), one per way a real service has been
// seen to go wrong: ungraded work, missing fields, broken bodies, outages,
// a refused token. Tests of the product put it behind the product end to
// end; package javaapitest's contract suite runs against it with no defect.
package seedjava

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Token and RefreshToken are the credentials the stand-in accepts.
const (
	Token        = "seed-access-token"
	RefreshToken = "seed-refresh-token"
)

// Defects switch the stand-in's failures on; the zero value is a correct
// service.
type Defects struct {
	// Ungraded sends score: null for the work of a-7001 not graded yet
	// (s-3b-04 and s-3b-06), as the seed's SubmissionDTO allows.
	Ungraded bool
	// NoMaxScore leaves max_score out of s-3b-05's submission of a-7001.
	NoMaxScore bool
	// ClassFieldsMissing leaves student_count and grade out of class 3B,
	// and sends a class without a name.
	ClassFieldsMissing bool
	// NamelessStudent sends one student of 3B without a name.
	NamelessStudent bool
	// Malformed answers every request with a body that is not JSON.
	Malformed bool
	// CodeAsString sends "code":"200" (a string) in every Result.
	CodeAsString bool
	// Down answers every request with HTTP 503.
	Down bool
	// DownPath answers 503 to requests whose path contains it (a partial
	// outage), e.g. "/submissions/".
	DownPath string
	// ExpiredToken refuses Token with 401; the refresh endpoint gives a
	// new one, which is accepted.
	ExpiredToken bool
}

// Request is what the stand-in saw of one request.
type Request struct {
	Method, Path, TraceID, Authorization string
}

// HealthPath answers without a teacher, as Spring Boot's actuator does.
const HealthPath = "/actuator/health"

// Server is the stand-in; it is an http.Handler, safe for concurrent use.
type Server struct {
	mu        sync.Mutex
	defects   Defects
	refreshed string // the token the refresh endpoint handed out
	requests  []Request
}

// New returns a correct stand-in.
func New() *Server { return &Server{} }

// SetDefects replaces the defects.
func (s *Server) SetDefects(d Defects) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.defects = d
}

// Requests returns the requests seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// The data set, as the seed's DTOs. Teacher t-100 has 3B (English, 6
// students) and 3D (Mathematics, 4); t-200 has 5A.
type class struct {
	uid, name, grade, subject, teacher string
	id                                 int
	students                           [][2]string
}

var classes = []class{
	{"class-4471", "3B", "Form 3", "English", "t-100", 4471, [][2]string{
		{"s-3b-01", "Chan Tai Man"}, {"s-3b-02", "Lee Siu Ming"}, {"s-3b-03", "Wong Mei Ling"},
		{"s-3b-04", "Cheung Ka Yan"}, {"s-3b-05", "Ho Chun Hei"}, {"s-3b-06", "Lam Wing Sze"}}},
	{"class-4472", "3D", "Form 3", "Mathematics", "t-100", 4472, [][2]string{
		{"s-3d-01", "Yip Hoi Lam"}, {"s-3d-02", "Kwan Tsz Ching"}, {"s-3d-03", "Tse Ming Hin"}, {"s-3d-04", "Fung Yan Yu"}}},
	{"class-5501", "5A", "Form 5", "English", "t-200", 5501, [][2]string{{"s-5a-01", "Poon Ka Lok"}}},
}

type assignment struct {
	id, class, title, due string
	max                   float64
	scores                map[string]float64 // student → score
}

var assignments = []assignment{
	{"a-7001", "class-4471", "Unit 3 Reading Test", "2026-01-15", 100, map[string]float64{
		"s-3b-01": 78, "s-3b-02": 92, "s-3b-03": 45, "s-3b-04": 66, "s-3b-05": 55, "s-3b-06": 71}},
	{"a-7002", "class-4471", "Essay: My Hong Kong", "2026-01-08", 40, map[string]float64{
		"s-3b-01": 31, "s-3b-02": 35, "s-3b-03": 18, "s-3b-04": 24, "s-3b-05": 27, "s-3b-06": 29}},
	{"a-8001", "class-4472", "Quadratics Quiz", "2026-01-12", 50, map[string]float64{
		"s-3d-01": 44, "s-3d-02": 21, "s-3d-03": 37, "s-3d-04": 30}},
	{"a-9001", "class-5501", "Mock Paper 1", "2026-01-10", 100, map[string]float64{"s-5a-01": 61}},
}

// ungraded are the submissions Defects.Ungraded leaves without a score.
var ungraded = map[[2]string]bool{{"a-7001", "s-3b-04"}: true, {"a-7001", "s-3b-06"}: true}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	d := s.defects
	s.requests = append(s.requests, Request{r.Method, r.URL.Path, r.Header.Get("X-Trace-ID"), r.Header.Get("Authorization")})
	refreshed := s.refreshed
	s.mu.Unlock()
	switch {
	case d.Down, d.DownPath != "" && strings.Contains(r.URL.Path, d.DownPath):
		result(w, d, http.StatusServiceUnavailable, 503, "Service Unavailable", nil)
		return
	case d.Malformed:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"code":200,"message":"success","data":[{"uid":"class-4471",`))
		return
	}
	if r.Method == http.MethodPost && r.URL.Path == "/api/auth/refresh" {
		s.refresh(w, r, d)
		return
	}
	auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	valid := auth == Token && !d.ExpiredToken || refreshed != "" && auth == refreshed
	if !valid {
		result(w, d, http.StatusUnauthorized, 401, "Unauthorized", nil)
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == HealthPath {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"UP"}`))
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/dify/teacher/"), "/")
	if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/api/dify/teacher/") || len(parts) < 3 {
		result(w, d, http.StatusNotFound, 404, "Not Found", nil)
		return
	}
	teacher := parts[0]
	switch {
	case len(parts) == 3 && parts[1] == "classes" && parts[2] == "me":
		var out []any
		for _, c := range classes {
			if c.teacher == teacher {
				out = append(out, classDTO(c, d))
			}
		}
		if d.ClassFieldsMissing && teacher == "t-100" {
			out = append(out, map[string]any{"uid": "class-4473", "id": 4473, "grade": "Form 3", "subject": "History",
				"student_count": 30, "teacher_id": "t-100"})
		}
		result(w, d, 200, 200, "success", orEmpty(out))
	case len(parts) == 3 && parts[1] == "classes":
		c, status := s.ownClass(teacher, parts[2])
		if status != 200 {
			result(w, d, status, status, http.StatusText(status), nil)
			return
		}
		dto := classDTO(c, d)
		var students []any
		for i, st := range c.students {
			m := map[string]any{"student_id": st[0], "student_name": st[1]}
			if d.NamelessStudent && i == 2 {
				delete(m, "student_name")
			}
			students = append(students, m)
		}
		dto["students"] = students
		result(w, d, 200, 200, "success", dto)
	case len(parts) == 4 && parts[1] == "classes" && parts[3] == "assignments":
		c, status := s.ownClass(teacher, parts[2])
		if status != 200 {
			result(w, d, status, status, http.StatusText(status), nil)
			return
		}
		var out []any
		for _, a := range assignments {
			if a.class == c.uid {
				out = append(out, map[string]any{"assignment_id": a.id, "title": a.title, "subject": c.subject,
					"due_date": a.due, "max_score": a.max})
			}
		}
		result(w, d, 200, 200, "success", orEmpty(out))
	case len(parts) == 4 && parts[1] == "submissions" && parts[2] == "assignments":
		a, ok := findAssignment(parts[3])
		if !ok {
			result(w, d, 404, 404, "Assignment not found", nil)
			return
		}
		c, _ := findClass(a.class)
		if c.teacher != teacher {
			result(w, d, 403, 403, "Forbidden", nil)
			return
		}
		var out []any
		for _, st := range c.students {
			out = append(out, submission(a, st, d, false))
		}
		result(w, d, 200, 200, "success", orEmpty(out))
	case len(parts) == 4 && parts[1] == "submissions" && parts[2] == "students":
		c, st, ok := findStudent(parts[3])
		if !ok {
			result(w, d, 404, 404, "Student not found", nil)
			return
		}
		if c.teacher != teacher {
			result(w, d, 403, 403, "Forbidden", nil)
			return
		}
		var out []any
		for _, a := range assignments {
			if a.class == c.uid {
				out = append(out, submission(a, st, d, true))
			}
		}
		result(w, d, 200, 200, "success", orEmpty(out))
	default:
		result(w, d, 404, 404, "Not Found", nil)
	}
}

func (s *Server) refresh(w http.ResponseWriter, r *http.Request, d Defects) {
	var in struct {
		RefreshToken string `json:"refresh_token"`
	}
	if json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&in) != nil || in.RefreshToken != RefreshToken {
		result(w, d, 401, 401, "Unauthorized", nil)
		return
	}
	tok := "seed-refreshed-" + time.Now().Format("150405.000000")
	s.mu.Lock()
	s.refreshed = tok
	s.mu.Unlock()
	result(w, d, 200, 200, "success", map[string]any{"access_token": tok, "expires_in": 3600})
}

func (s *Server) ownClass(teacher, id string) (class, int) {
	c, ok := findClass(id)
	switch {
	case !ok:
		return c, http.StatusNotFound
	case c.teacher != teacher:
		return c, http.StatusForbidden
	}
	return c, http.StatusOK
}

func findClass(id string) (class, bool) {
	for _, c := range classes {
		if c.uid == id || strings.TrimPrefix(c.uid, "class-") == id {
			return c, true
		}
	}
	return class{}, false
}

func findAssignment(id string) (assignment, bool) {
	for _, a := range assignments {
		if a.id == id {
			return a, true
		}
	}
	return assignment{}, false
}

func findStudent(id string) (class, [2]string, bool) {
	for _, c := range classes {
		for _, st := range c.students {
			if st[0] == id {
				return c, st, true
			}
		}
	}
	return class{}, [2]string{}, false
}

// classDTO is ClassroomDTO (seed 004 §2.4.1).
func classDTO(c class, d Defects) map[string]any {
	m := map[string]any{"uid": c.uid, "id": c.id, "name": c.name, "grade": c.grade, "subject": c.subject,
		"student_count": len(c.students), "teacher_id": c.teacher, "academic_year": "2025-2026"}
	if d.ClassFieldsMissing && c.name == "3B" {
		delete(m, "student_count")
		delete(m, "grade")
	}
	return m
}

// submission is SubmissionDTO (seed 004 §2.4.2); a student's list also
// names the assignment.
func submission(a assignment, st [2]string, d Defects, withAssignment bool) map[string]any {
	m := map[string]any{"student_id": st[0], "student_name": st[1], "score": a.scores[st[0]], "max_score": a.max,
		"submitted_at": a.due + "T09:00:00", "status": "graded", "feedback": nil}
	if d.Ungraded && ungraded[[2]string{a.id, st[0]}] {
		m["score"], m["status"] = nil, "submitted"
	}
	if d.NoMaxScore && a.id == "a-7001" && st[0] == "s-3b-05" {
		delete(m, "max_score")
	}
	if withAssignment {
		m["assignment_id"], m["assignment_title"] = a.id, a.title
	}
	return m
}

// Score returns the score of student's submission of assignment as the
// stand-in serves it under d (false: ungraded or unknown), for tests that
// recompute statistics on their own.
func Score(assignmentID, studentID string, d Defects) (score, max float64, ok bool) {
	a, found := findAssignment(assignmentID)
	if !found {
		return 0, 0, false
	}
	v, has := a.scores[studentID]
	if !has || d.Ungraded && ungraded[[2]string{assignmentID, studentID}] {
		return 0, a.max, false
	}
	if d.NoMaxScore && assignmentID == "a-7001" && studentID == "s-3b-05" {
		return v, 0, false
	}
	return v, a.max, true
}

// Students returns the ids of a class's students (by uid).
func Students(classUID string) []string {
	c, _ := findClass(classUID)
	var out []string
	for _, st := range c.students {
		out = append(out, st[0])
	}
	return out
}

func orEmpty(xs []any) []any {
	if xs == nil {
		return []any{}
	}
	return xs
}

// result writes Result<T> (seed 004 §2.3).
func result(w http.ResponseWriter, d Defects, status, code int, msg string, data any) {
	var c any = code
	if d.CodeAsString {
		c = "200"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": c, "message": msg, "data": data,
		"timestamp": time.Now().UTC().Format("2006-01-02T15:04:05")})
}
