// Package mockdata is the deterministic data set of the mock Java data
// service: teachers, classes of 30–40 students with Chinese and English
// names, assignments, graded submissions with per-skill sub-scores, error
// patterns, documents and rubrics. The same data backs the mock server of
// local runs and tests and the client's USE_MOCK_DATA fallback, so tests,
// demos and the offline model can rely on every value.
//
// Its types are the Java service's DTOs (snake_case JSON, seed 004 §2.4);
// a Dataset never changes after Default or Generate returns it, so it is
// safe for concurrent readers.
package mockdata

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// Teacher is a teacher of the school.
type Teacher struct {
	ID   string `json:"uid"`
	Name string `json:"name"`
}

// Class is ClassroomDTO.
type Class struct {
	UID          string `json:"uid"`
	ID           string `json:"id"`
	Name         string `json:"name"`
	Grade        string `json:"grade"`
	Subject      string `json:"subject"`
	StudentCount int    `json:"student_count"`
	TeacherID    string `json:"teacher_id"`
	AcademicYear string `json:"academic_year"`
}

// Student is StudentDTO.
type Student struct {
	UID     string `json:"uid"`
	Name    string `json:"name"`
	ClassID string `json:"class_id"`
}

// Assignment is AssignmentDTO.
type Assignment struct {
	UID      string  `json:"uid"`
	Title    string  `json:"title"`
	Subject  string  `json:"subject"`
	DueDate  string  `json:"due_date"`
	MaxScore float64 `json:"max_score"`
	ClassID  string  `json:"class_id"`
}

// Skills are per-skill sub-scores in percent (language subjects only).
type Skills struct {
	Grammar    float64 `json:"grammar"`
	Vocabulary float64 `json:"vocabulary"`
	Reading    float64 `json:"reading"`
	Writing    float64 `json:"writing"`
}

// Submission is SubmissionDTO, with the assignment named.
type Submission struct {
	StudentID       string  `json:"student_id"`
	StudentName     string  `json:"student_name"`
	AssignmentID    string  `json:"assignment_id"`
	AssignmentTitle string  `json:"assignment_title"`
	Score           float64 `json:"score"`
	MaxScore        float64 `json:"max_score"`
	SubmittedAt     string  `json:"submitted_at"`
	Status          string  `json:"status"`
	Feedback        string  `json:"feedback"`
	Skills          *Skills `json:"skills,omitempty"`
}

// ErrorPattern is a student's recurring mistake.
type ErrorPattern struct {
	Pattern string `json:"pattern"`
	Skill   string `json:"skill"`
	Count   int    `json:"count"`
	Example string `json:"example"`
}

// Document is a teacher's document; Content is searched, not served.
type Document struct {
	UID       string `json:"uid"`
	TeacherID string `json:"-"`
	Title     string `json:"title"`
	// Subject is the subject the document is for (not on the wire: the
	// data service's search does not return it; the template backend keeps
	// a class's knowledge base to its subject).
	Subject   string `json:"-"`
	Content   string `json:"-"`
	UpdatedAt string `json:"updated_at"`
}

// DocumentHit is a search result.
type DocumentHit struct {
	UID       string `json:"uid"`
	Title     string `json:"title"`
	Snippet   string `json:"snippet"`
	UpdatedAt string `json:"updated_at"`
}

// Rubric is a marking scheme.
type Rubric struct {
	UID      string      `json:"uid"`
	Title    string      `json:"title"`
	Subject  string      `json:"subject"`
	MaxScore float64     `json:"max_score"`
	Criteria []Criterion `json:"criteria"`
}

// Criterion is one dimension of a rubric.
type Criterion struct {
	Name        string  `json:"name"`
	Weight      float64 `json:"weight"`
	Description string  `json:"description"`
	Levels      []Level `json:"levels"`
}

// Level is one band of a criterion.
type Level struct {
	Score      float64 `json:"score"`
	Descriptor string  `json:"descriptor"`
}

// Dataset is the whole mock school.
type Dataset struct {
	Teachers      []Teacher
	Classes       []Class
	Students      []Student
	Assignments   []Assignment
	Submissions   []Submission
	Documents     []Document
	Rubrics       []Rubric
	ErrorPatterns map[string][]ErrorPattern // by student id

	classByID      map[string]int
	studentByID    map[string]int
	assignmentByID map[string]int
	rubricByID     map[string]int
}

// index builds the lookup maps; Generate calls it once.
func (d *Dataset) index() {
	d.classByID = indexBy(d.Classes, func(c Class) string { return c.UID })
	d.studentByID = indexBy(d.Students, func(s Student) string { return s.UID })
	d.assignmentByID = indexBy(d.Assignments, func(a Assignment) string { return a.UID })
	d.rubricByID = indexBy(d.Rubrics, func(r Rubric) string { return r.UID })
}

func indexBy[T any](ts []T, key func(T) string) map[string]int {
	m := make(map[string]int, len(ts))
	for i, t := range ts {
		m[key(t)] = i
	}
	return m
}

func lookup[T any](ts []T, idx map[string]int, id string) (T, bool) {
	i, ok := idx[id]
	if !ok {
		var zero T
		return zero, false
	}
	return ts[i], true
}

func filter[T any](ts []T, keep func(T) bool) []T {
	out := []T{}
	for _, t := range ts {
		if keep(t) {
			out = append(out, t)
		}
	}
	return out
}

// ClassesOf returns the teacher's classes ([] for an unknown teacher).
func (d *Dataset) ClassesOf(teacherID string) []Class {
	return filter(d.Classes, func(c Class) bool { return c.TeacherID == teacherID })
}

// Class returns a class by uid.
func (d *Dataset) Class(id string) (Class, bool) { return lookup(d.Classes, d.classByID, id) }

// Student returns a student by uid.
func (d *Dataset) Student(id string) (Student, bool) { return lookup(d.Students, d.studentByID, id) }

// Assignment returns an assignment by uid.
func (d *Dataset) Assignment(id string) (Assignment, bool) {
	return lookup(d.Assignments, d.assignmentByID, id)
}

// Rubric returns a rubric by uid.
func (d *Dataset) Rubric(id string) (Rubric, bool) { return lookup(d.Rubrics, d.rubricByID, id) }

// StudentsOf returns the students of a class.
func (d *Dataset) StudentsOf(classID string) []Student {
	return filter(d.Students, func(s Student) bool { return s.ClassID == classID })
}

// AssignmentsOf returns the assignments of a class, by due date.
func (d *Dataset) AssignmentsOf(classID string) []Assignment {
	return filter(d.Assignments, func(a Assignment) bool { return a.ClassID == classID })
}

// SubmissionsOf returns the submissions of an assignment.
func (d *Dataset) SubmissionsOf(assignmentID string) []Submission {
	return filter(d.Submissions, func(s Submission) bool { return s.AssignmentID == assignmentID })
}

// SubmissionsBy returns a student's submissions.
func (d *Dataset) SubmissionsBy(studentID string) []Submission {
	return filter(d.Submissions, func(s Submission) bool { return s.StudentID == studentID })
}

// ErrorPatternsOf returns a student's error patterns, most frequent first.
func (d *Dataset) ErrorPatternsOf(studentID string) []ErrorPattern {
	return append([]ErrorPattern{}, d.ErrorPatterns[studentID]...)
}

// SearchDocuments returns the teacher's documents matching query: each
// whitespace-separated term is looked for in the title and content, case
// insensitively; documents with more matching terms come first, then the
// most recent. An empty query lists every document, most recent first.
func (d *Dataset) SearchDocuments(teacherID, query string) []DocumentHit {
	terms := strings.Fields(strings.ToLower(query))
	type scored struct {
		doc   Document
		score int
		first string
	}
	var found []scored
	for _, doc := range d.Documents {
		if doc.TeacherID != teacherID {
			continue
		}
		text := strings.ToLower(doc.Title + "\n" + doc.Content)
		s := scored{doc: doc}
		for _, t := range terms {
			if strings.Contains(text, t) {
				s.score++
				if s.first == "" {
					s.first = t
				}
			}
		}
		if len(terms) == 0 || s.score > 0 {
			found = append(found, s)
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(b.doc.UpdatedAt, a.doc.UpdatedAt))
	})
	hits := []DocumentHit{}
	for _, s := range found {
		hits = append(hits, DocumentHit{UID: s.doc.UID, Title: s.doc.Title, Snippet: snippet(s.doc.Content, s.first), UpdatedAt: s.doc.UpdatedAt})
	}
	return hits
}

// snippet returns about 120 runes of content around the first occurrence of
// term (or its start).
func snippet(content, term string) string {
	const before, width = 40, 120
	rs := []rune(content)
	start := 0
	if term != "" {
		lower := strings.ToLower(content)
		if i := strings.Index(lower, term); i >= 0 {
			start = max(0, len([]rune(lower[:i]))-before)
		}
	}
	start = max(0, min(start, len(rs)-width))
	end := min(len(rs), start+width)
	s := strings.TrimFunc(string(rs[start:end]), unicode.IsSpace)
	if start > 0 {
		s = "…" + s
	}
	if end < len(rs) {
		s += "…"
	}
	return s
}
