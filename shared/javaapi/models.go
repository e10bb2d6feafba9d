package javaapi

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
)

// The models below are what the rest of the code base and the frontend see:
// camelCase JSON, one identifier field per entity (seed 004 §2.4).

// ClassInfo is a class the teacher teaches.
type ClassInfo struct {
	ClassID      string `json:"classId"`
	Name         string `json:"name"`
	Grade        string `json:"grade"`
	Subject      string `json:"subject"`
	StudentCount int    `json:"studentCount"`
	TeacherID    string `json:"teacherId"`
	AcademicYear string `json:"academicYear,omitempty"`
}

// Student is a member of a class.
type Student struct {
	StudentID string `json:"studentId"`
	Name      string `json:"name"`
}

// ClassDetail is a class with its students.
type ClassDetail struct {
	Class    ClassInfo `json:"class"`
	Students []Student `json:"students"`
}

// Assignment is a piece of work set for a class.
type Assignment struct {
	AssignmentID string  `json:"assignmentId"`
	Title        string  `json:"title"`
	Subject      string  `json:"subject"`
	DueDate      string  `json:"dueDate"`
	MaxScore     float64 `json:"maxScore"`
}

// Skills are per-skill sub-scores of a language submission, each a
// percentage (0–100).
type Skills struct {
	Grammar    float64 `json:"grammar"`
	Vocabulary float64 `json:"vocabulary"`
	Reading    float64 `json:"reading"`
	Writing    float64 `json:"writing"`
}

// SkillNames returns the names of the skills of Skills, in a fixed order.
func SkillNames() []string { return []string{"grammar", "vocabulary", "reading", "writing"} }

// Get returns the named skill's score.
func (s Skills) Get(name string) (float64, bool) {
	switch name {
	case "grammar":
		return s.Grammar, true
	case "vocabulary":
		return s.Vocabulary, true
	case "reading":
		return s.Reading, true
	case "writing":
		return s.Writing, true
	}
	return 0, false
}

// SubmissionRecord is one student's submission of one assignment.
type SubmissionRecord struct {
	StudentID   string `json:"studentId"`
	StudentName string `json:"studentName"`
	// AssignmentID and AssignmentTitle are set in a student's grade list.
	AssignmentID    string  `json:"assignmentId,omitempty"`
	AssignmentTitle string  `json:"assignmentTitle,omitempty"`
	Score           float64 `json:"score"`
	MaxScore        float64 `json:"maxScore"`
	SubmittedAt     string  `json:"submittedAt"`
	Status          string  `json:"status"`
	Feedback        string  `json:"feedback,omitempty"`
	Skills          *Skills `json:"skills,omitempty"`
}

// AssignmentSubmissions are the submissions of one assignment.
type AssignmentSubmissions struct {
	AssignmentID string             `json:"assignmentId"`
	Title        string             `json:"title"`
	Submissions  []SubmissionRecord `json:"submissions"`
}

// StudentGrades are one student's submissions.
type StudentGrades struct {
	StudentID   string             `json:"studentId"`
	StudentName string             `json:"studentName"`
	Submissions []SubmissionRecord `json:"submissions"`
}

// Document is a teacher's document found by a search.
type Document struct {
	DocumentID string `json:"documentId"`
	Title      string `json:"title"`
	Snippet    string `json:"snippet"`
	UpdatedAt  string `json:"updatedAt"`
}

// RubricSummary names a rubric.
type RubricSummary struct {
	RubricID string `json:"rubricId"`
	Title    string `json:"title"`
	Subject  string `json:"subject"`
}

// Rubric is a marking scheme.
type Rubric struct {
	RubricID string      `json:"rubricId"`
	Title    string      `json:"title"`
	Subject  string      `json:"subject"`
	MaxScore float64     `json:"maxScore,omitempty"`
	Criteria []Criterion `json:"criteria"`
}

// Criterion is one dimension of a rubric.
type Criterion struct {
	Name        string  `json:"name"`
	Weight      float64 `json:"weight"`
	Description string  `json:"description,omitempty"`
	Levels      []Level `json:"levels"`
}

// Level is one band of a criterion.
type Level struct {
	Score      float64 `json:"score"`
	Descriptor string  `json:"descriptor"`
}

// ErrorPattern is a mistake a student keeps making.
type ErrorPattern struct {
	Pattern string `json:"pattern"`
	Skill   string `json:"skill,omitempty"`
	Count   int    `json:"count"`
	Example string `json:"example"`
}

// --- Java DTOs (snake_case, seed 004 §2.4) and their mapping ---
//
// The DTOs are decoded by their json tags and UnmarshalJSON methods, with
// go-json on the fast path and encoding/json as the reference (decode.go).

// flexID is an identifier the service may send as a string or a number.
type flexID string

func (f *flexID) UnmarshalJSON(b []byte) error {
	id, err := parseFlexID(string(b))
	if err != nil {
		return err
	}
	*f = id
	return nil
}

// parseFlexID reads an identifier from a JSON literal that is known to be
// valid: a string (trimmed), a number (its text), or null ("").
func parseFlexID(lit string) (flexID, error) {
	lit = strings.TrimSpace(lit)
	switch {
	case lit == "null":
		return "", nil
	case len(lit) > 1 && lit[0] == '"':
		// The literal is valid JSON; without escapes its bytes are the
		// string (the common case, and far cheaper than decoding).
		if strings.IndexByte(lit, '\\') < 0 {
			return flexID(strings.TrimSpace(lit[1 : len(lit)-1])), nil
		}
		var s string
		if err := json.Unmarshal([]byte(lit), &s); err != nil {
			return "", err
		}
		return flexID(strings.TrimSpace(s)), nil
	case len(lit) > 0 && (lit[0] == '-' || '0' <= lit[0] && lit[0] <= '9'):
		// A valid literal that starts so is a number; its text is the id
		// (what json.Number would hold).
		return flexID(lit), nil
	default:
		return "", fmt.Errorf("identifier %s is neither a string nor a number", lit)
	}
}

// pickID applies the identifier rule of seed 004 §2.4.1: uid first, then the
// entity's own id field (class_id ...), then id. With none, the answer is a
// contract breach the caller must hear about, not a silent empty id.
func pickID(kind, label string, ids ...flexID) (string, error) {
	for _, id := range ids {
		if id != "" {
			return string(id), nil
		}
	}
	what := kind
	if label != "" {
		what = fmt.Sprintf("%s %q", kind, label)
	}
	return "", apperr.New(apperr.DataError,
		"the data service returned %s without an identifier (uid, %s_id or id)", what, kind)
}

type classDTO struct {
	UID          flexID       `json:"uid"`
	ClassID      flexID       `json:"class_id"`
	ID           flexID       `json:"id"`
	Name         string       `json:"name"`
	Grade        string       `json:"grade"`
	Subject      string       `json:"subject"`
	StudentCount int          `json:"student_count"`
	TeacherID    flexID       `json:"teacher_id"`
	AcademicYear string       `json:"academic_year"`
	Students     []studentDTO `json:"students"`
}

func (d classDTO) model() (ClassInfo, error) {
	id, err := pickID("class", d.Name, d.UID, d.ClassID, d.ID)
	if err != nil {
		return ClassInfo{}, err
	}
	return ClassInfo{
		ClassID: id, Name: d.Name, Grade: d.Grade, Subject: d.Subject,
		StudentCount: d.StudentCount, TeacherID: string(d.TeacherID), AcademicYear: d.AcademicYear,
	}, nil
}

type studentDTO struct {
	UID       flexID `json:"uid"`
	StudentID flexID `json:"student_id"`
	ID        flexID `json:"id"`
	Name      string `json:"name"`
}

func (d studentDTO) model() (Student, error) {
	id, err := pickID("student", d.Name, d.UID, d.StudentID, d.ID)
	return Student{StudentID: id, Name: d.Name}, err
}

type assignmentDTO struct {
	UID          flexID  `json:"uid"`
	AssignmentID flexID  `json:"assignment_id"`
	ID           flexID  `json:"id"`
	Title        string  `json:"title"`
	Subject      string  `json:"subject"`
	DueDate      string  `json:"due_date"`
	MaxScore     float64 `json:"max_score"`
}

func (d assignmentDTO) model() (Assignment, error) {
	id, err := pickID("assignment", d.Title, d.UID, d.AssignmentID, d.ID)
	return Assignment{AssignmentID: id, Title: d.Title, Subject: d.Subject, DueDate: d.DueDate, MaxScore: d.MaxScore}, err
}

type submissionDTO struct {
	StudentID       flexID  `json:"student_id"`
	StudentName     string  `json:"student_name"`
	AssignmentID    flexID  `json:"assignment_id"`
	AssignmentTitle string  `json:"assignment_title"`
	Score           float64 `json:"score"`
	MaxScore        float64 `json:"max_score"`
	SubmittedAt     string  `json:"submitted_at"`
	Status          string  `json:"status"`
	Feedback        string  `json:"feedback"`
	Skills          *Skills `json:"skills"`
}

func (d submissionDTO) model() (SubmissionRecord, error) {
	if d.StudentID == "" {
		return SubmissionRecord{}, apperr.New(apperr.DataError,
			"the data service returned a submission without student_id (student %q)", d.StudentName)
	}
	return SubmissionRecord{
		StudentID: string(d.StudentID), StudentName: d.StudentName,
		AssignmentID: string(d.AssignmentID), AssignmentTitle: d.AssignmentTitle,
		Score: d.Score, MaxScore: d.MaxScore, SubmittedAt: d.SubmittedAt,
		Status: d.Status, Feedback: d.Feedback, Skills: d.Skills,
	}, nil
}

// assignmentSubmissionsDTO is the object form of the submissions endpoint;
// a bare array of submissions is accepted too (the seed leaves it open; see
// fetchObjectOrArray).
type assignmentSubmissionsDTO struct {
	UID          flexID          `json:"uid"`
	AssignmentID flexID          `json:"assignment_id"`
	ID           flexID          `json:"id"`
	Title        string          `json:"title"`
	Submissions  []submissionDTO `json:"submissions"`
}

// studentSubmissionsDTO is the object form of a student's submissions; a
// bare array is accepted too.
type studentSubmissionsDTO struct {
	StudentID   flexID          `json:"student_id"`
	StudentName string          `json:"student_name"`
	Submissions []submissionDTO `json:"submissions"`
}

type documentDTO struct {
	UID        flexID `json:"uid"`
	DocumentID flexID `json:"document_id"`
	ID         flexID `json:"id"`
	Title      string `json:"title"`
	Snippet    string `json:"snippet"`
	UpdatedAt  string `json:"updated_at"`
}

func (d documentDTO) model() (Document, error) {
	id, err := pickID("document", d.Title, d.UID, d.DocumentID, d.ID)
	return Document{DocumentID: id, Title: d.Title, Snippet: d.Snippet, UpdatedAt: d.UpdatedAt}, err
}

type rubricDTO struct {
	UID      flexID         `json:"uid"`
	RubricID flexID         `json:"rubric_id"`
	ID       flexID         `json:"id"`
	Title    string         `json:"title"`
	Subject  string         `json:"subject"`
	MaxScore float64        `json:"max_score"`
	Criteria []criterionDTO `json:"criteria"`
}

type criterionDTO struct {
	Name        string  `json:"name"`
	Weight      float64 `json:"weight"`
	Description string  `json:"description"`
	Levels      []Level `json:"levels"`
}

func (d rubricDTO) summary() (RubricSummary, error) {
	id, err := pickID("rubric", d.Title, d.UID, d.RubricID, d.ID)
	return RubricSummary{RubricID: id, Title: d.Title, Subject: d.Subject}, err
}

func (d rubricDTO) model() (Rubric, error) {
	s, err := d.summary()
	if err != nil {
		return Rubric{}, err
	}
	r := Rubric{RubricID: s.RubricID, Title: s.Title, Subject: s.Subject, MaxScore: d.MaxScore, Criteria: []Criterion{}}
	for _, c := range d.Criteria {
		levels := c.Levels
		if levels == nil {
			levels = []Level{}
		}
		r.Criteria = append(r.Criteria, Criterion{Name: c.Name, Weight: c.Weight, Description: c.Description, Levels: levels})
	}
	return r, nil
}

type errorPatternDTO struct {
	Pattern string `json:"pattern"`
	Skill   string `json:"skill"`
	Count   int    `json:"count"`
	Example string `json:"example"`
}

// mapAll maps every DTO, stopping at the first that cannot be mapped; the
// result is never nil, so an empty list encodes as [].
func mapAll[D any, M any](ds []D, f func(D) (M, error)) ([]M, error) {
	out := make([]M, 0, len(ds))
	for _, d := range ds {
		m, err := f(d)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
