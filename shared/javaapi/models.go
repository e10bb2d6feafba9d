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
	ClassID string `json:"classId"`
	Name    string `json:"name"`
	Grade   string `json:"grade"`
	Subject string `json:"subject"`
	// StudentCount is null when the service did not send it: unknown, not 0.
	StudentCount *int   `json:"studentCount"`
	TeacherID    string `json:"teacherId"`
	AcademicYear string `json:"academicYear,omitempty"`
	// Incomplete names the fields the service left out (camelCase).
	Incomplete []string `json:"incomplete,omitempty"`
}

// Student is a member of a class.
type Student struct {
	StudentID string `json:"studentId"`
	Name      string `json:"name"`
	// Incomplete names the fields the service left out (camelCase).
	Incomplete []string `json:"incomplete,omitempty"`
}

// ClassDetail is a class with its students.
type ClassDetail struct {
	Class    ClassInfo `json:"class"`
	Students []Student `json:"students"`
}

// Assignment is a piece of work set for a class.
type Assignment struct {
	AssignmentID string `json:"assignmentId"`
	Title        string `json:"title"`
	Subject      string `json:"subject"`
	DueDate      string `json:"dueDate"`
	// MaxScore is null when the service did not send it.
	MaxScore *float64 `json:"maxScore"`
	// Incomplete names the fields the service left out (camelCase).
	Incomplete []string `json:"incomplete,omitempty"`
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
	AssignmentID    string `json:"assignmentId,omitempty"`
	AssignmentTitle string `json:"assignmentTitle,omitempty"`
	// Score is null for work not graded yet (seed 004 sends score: null):
	// it is left out of every statistic, never counted as 0.
	Score *float64 `json:"score"`
	// MaxScore is null when the service did not send a usable one (absent,
	// null, or not above 0): the score cannot be put on a scale, and the
	// submission is left out of the statistics as unusable.
	MaxScore    *float64 `json:"maxScore"`
	SubmittedAt string   `json:"submittedAt"`
	Status      string   `json:"status"`
	Feedback    string   `json:"feedback,omitempty"`
	Skills      *Skills  `json:"skills,omitempty"`
	// Incomplete names the fields the service left out (camelCase).
	Incomplete []string `json:"incomplete,omitempty"`
}

// Graded reports whether the submission has a score.
func (s SubmissionRecord) Graded() bool { return s.Score != nil }

// Usable reports whether the submission's score can be put on its scale:
// graded, with a max score above 0.
func (s SubmissionRecord) Usable() bool {
	return s.Score != nil && s.MaxScore != nil && *s.MaxScore > 0
}

// Percent is the score as a percentage of the max score, if Usable.
func (s SubmissionRecord) Percent() (float64, bool) {
	if !s.Usable() {
		return 0, false
	}
	return *s.Score / *s.MaxScore * 100, true
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

// incomplete records that the service left out field (as the contract
// names it, "class.grade") and names it in a model's Incomplete list (as
// the model's JSON does, "grade").
func (is *issues) incomplete(list *[]string, field, name string) {
	is.missing(field)
	*list = append(*list, name)
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

// identify applies pickID to a record of kind labelled label; without an
// identifier the record is left out (ok false).
func (is *issues) identify(kind, label string, ids ...flexID) (id string, ok bool) {
	id, err := pickID(kind, label, ids...)
	if err != nil {
		is.reject(kind, "uid")
		return "", false
	}
	return id, true
}

// firstOf returns the first of the strings that is set: the seed leaves
// some shapes open, so a field may come under either of two names.
func firstOf(a, b optStr) (string, bool) {
	if v, ok := a.get(); ok {
		return v, true
	}
	return b.get()
}

type classDTO struct {
	UID          flexID       `json:"uid"`
	ClassID      flexID       `json:"class_id"`
	ID           flexID       `json:"id"`
	Name         optStr       `json:"name"`
	Grade        optStr       `json:"grade"`
	Subject      optStr       `json:"subject"`
	StudentCount optNum       `json:"student_count"`
	TeacherID    flexID       `json:"teacher_id"`
	AcademicYear string       `json:"academic_year"`
	Students     []studentDTO `json:"students"`
}

// model maps a class (seed 004 §2.4.1: name, grade, subject, student_count
// and teacher_id are required). A class without an identifier or a name,
// or of another teacher than the one asked about, is left out (ok false).
func (d classDTO) model(teacherID string, is *issues) (ClassInfo, bool) {
	name, hasName := d.Name.get()
	id, err := pickID("class", name, d.UID, d.ClassID, d.ID)
	if err != nil {
		is.missing("class.uid")
	}
	if !hasName {
		is.missing("class.name")
	}
	if err != nil || !hasName {
		is.drop("class")
		return ClassInfo{}, false
	}
	if d.TeacherID != "" && string(d.TeacherID) != teacherID {
		// Another teacher's class must never be shown as this teacher's.
		is.reject("class", "teacher_id(other teacher)")
		return ClassInfo{}, false
	}
	c := ClassInfo{ClassID: id, Name: name, TeacherID: teacherID, AcademicYear: strings.TrimSpace(d.AcademicYear)}
	var ok bool
	if c.Grade, ok = d.Grade.get(); !ok {
		is.incomplete(&c.Incomplete, "class.grade", "grade")
	}
	if c.Subject, ok = d.Subject.get(); !ok {
		is.incomplete(&c.Incomplete, "class.subject", "subject")
	}
	if n := d.StudentCount; n.valid && n.v >= 0 && n.v == float64(int(n.v)) {
		v := int(n.v)
		c.StudentCount = &v
	} else {
		is.incomplete(&c.Incomplete, "class.student_count", "studentCount")
	}
	if d.TeacherID == "" {
		is.incomplete(&c.Incomplete, "class.teacher_id", "teacherId")
	}
	return c, true
}

type studentDTO struct {
	UID       flexID `json:"uid"`
	StudentID flexID `json:"student_id"`
	ID        flexID `json:"id"`
	Name      optStr `json:"name"`
	// StudentName is the name as SubmissionDTO spells it (seed 004 §2.4.2);
	// the seed leaves a class's student shape open, so either is taken.
	StudentName optStr `json:"student_name"`
}

// model maps a class's student (the seed leaves the shape open; the
// product needs an identifier and a name): without an identifier the
// student is left out; without a name, kept and marked incomplete.
func (d studentDTO) model(is *issues) (Student, bool) {
	name, hasName := firstOf(d.Name, d.StudentName)
	id, ok := is.identify("student", name, d.UID, d.StudentID, d.ID)
	if !ok {
		return Student{}, false
	}
	s := Student{StudentID: id, Name: name}
	if !hasName {
		is.incomplete(&s.Incomplete, "student.name", "name")
	}
	return s, true
}

type assignmentDTO struct {
	UID          flexID `json:"uid"`
	AssignmentID flexID `json:"assignment_id"`
	ID           flexID `json:"id"`
	Title        optStr `json:"title"`
	// Name is taken for a title: the seed leaves the assignment shape open.
	Name     optStr `json:"name"`
	Subject  string `json:"subject"`
	DueDate  string `json:"due_date"`
	MaxScore optNum `json:"max_score"`
}

// model maps an assignment: without an identifier it is left out; without
// a title or a max score above 0, kept and marked incomplete.
func (d assignmentDTO) model(is *issues) (Assignment, bool) {
	title, hasTitle := firstOf(d.Title, d.Name)
	id, ok := is.identify("assignment", title, d.UID, d.AssignmentID, d.ID)
	if !ok {
		return Assignment{}, false
	}
	a := Assignment{AssignmentID: id, Title: title, Subject: d.Subject, DueDate: d.DueDate}
	if !hasTitle {
		is.incomplete(&a.Incomplete, "assignment.title", "title")
	}
	if a.MaxScore = d.MaxScore.positive(); a.MaxScore == nil {
		is.incomplete(&a.Incomplete, "assignment.max_score", "maxScore")
	}
	return a, true
}

type submissionDTO struct {
	StudentID       flexID  `json:"student_id"`
	StudentName     optStr  `json:"student_name"`
	AssignmentID    flexID  `json:"assignment_id"`
	AssignmentTitle string  `json:"assignment_title"`
	Score           optNum  `json:"score"`
	MaxScore        optNum  `json:"max_score"`
	SubmittedAt     string  `json:"submitted_at"`
	Status          string  `json:"status"`
	Feedback        string  `json:"feedback"`
	Skills          *Skills `json:"skills"`
}

// model maps a submission (seed 004 §2.4.2). score: null is work not yet
// graded, which is data, not a violation; a score left out is both. Without
// student_id (or, in a student's list, assignment_id: needAssignment) the
// submission is left out.
func (d submissionDTO) model(needAssignment bool, is *issues) (SubmissionRecord, bool) {
	if d.StudentID == "" {
		is.reject("submission", "student_id")
		return SubmissionRecord{}, false
	}
	if needAssignment && d.AssignmentID == "" {
		is.reject("submission", "assignment_id")
		return SubmissionRecord{}, false
	}
	name, hasName := d.StudentName.get()
	r := SubmissionRecord{
		StudentID: string(d.StudentID), StudentName: name,
		AssignmentID: string(d.AssignmentID), AssignmentTitle: strings.TrimSpace(d.AssignmentTitle),
		Score: d.Score.ptr(), SubmittedAt: d.SubmittedAt,
		Status: d.Status, Feedback: d.Feedback, Skills: d.Skills,
	}
	if !hasName {
		is.incomplete(&r.Incomplete, "submission.student_name", "studentName")
	}
	if !d.Score.set {
		is.incomplete(&r.Incomplete, "submission.score", "score")
	}
	if r.MaxScore = d.MaxScore.positive(); r.MaxScore == nil {
		is.incomplete(&r.Incomplete, "submission.max_score", "maxScore")
	}
	if needAssignment && r.AssignmentTitle == "" {
		is.incomplete(&r.Incomplete, "submission.assignment_title", "assignmentTitle")
	}
	return r, true
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

// mapValid maps every DTO, leaving out those f refuses (and records); the
// result is never nil, so an empty list encodes as [].
func mapValid[D any, M any](ds []D, f func(D, *issues) (M, bool), is *issues) []M {
	out := make([]M, 0, len(ds))
	for _, d := range ds {
		if m, ok := f(d, is); ok {
			out = append(out, m)
		}
	}
	return out
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
