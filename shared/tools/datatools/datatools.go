// Package datatools is the agent's base tool pack over the teacher's data
// (seed 000 §7.2): classes, class detail, grades, submissions, documents,
// rubrics, weaknesses and error patterns. Every tool is registered on every
// agent run (tools.Base).
//
// Outputs go to the model as JSON: compact, camelCase, self-describing, and
// stable (golden files pin them), because a model, real or the offline
// stand-in, reads them. The teacher is always tools.Call.TeacherID, never an
// argument: a model cannot ask for another teacher's data.
package datatools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

// DataSource is the teacher data the tools read; *javaapi.Client is one.
type DataSource interface {
	Classes(ctx context.Context, teacherID string) ([]javaapi.ClassInfo, error)
	ClassDetail(ctx context.Context, teacherID, classID string) (javaapi.ClassDetail, error)
	ClassAssignments(ctx context.Context, teacherID, classID string) ([]javaapi.Assignment, error)
	AssignmentSubmissions(ctx context.Context, teacherID, assignmentID string) (javaapi.AssignmentSubmissions, error)
	StudentSubmissions(ctx context.Context, teacherID, studentID string) (javaapi.StudentGrades, error)
	SearchDocuments(ctx context.Context, teacherID, query string) ([]javaapi.Document, error)
	Rubrics(ctx context.Context, teacherID string) ([]javaapi.RubricSummary, error)
	Rubric(ctx context.Context, teacherID, rubricID string) (javaapi.Rubric, error)
	ErrorPatterns(ctx context.Context, teacherID, studentID string) ([]javaapi.ErrorPattern, error)
}

// Tool names.
const (
	GetTeacherClasses        = "get_teacher_classes"
	GetClassDetail           = "get_class_detail"
	GetStudentGrades         = "get_student_grades"
	GetAssignmentSubmissions = "get_assignment_submissions"
	SearchTeacherDocuments   = "search_teacher_documents"
	GetRubric                = "get_rubric"
	ListAvailableRubrics     = "list_available_rubrics"
	AnalyzeStudentWeakness   = "analyze_student_weakness"
	GetStudentErrorPatterns  = "get_student_error_patterns"
)

// fanOut bounds concurrent data requests made by one tool call.
const fanOut = 4

// maxNameSearchClasses bounds the classes searched for a student's name.
const maxNameSearchClasses = 20

type pack struct {
	src DataSource
	log *slog.Logger
}

// descriptions tell the model what each tool reads of the teacher's data.
var descriptions = map[string]string{
	GetTeacherClasses:        "List the classes the current teacher teaches (id, name, grade, subject, student count). Use it to find a classId. Set refresh when the teacher asks for current data or says a class is missing.",
	GetClassDetail:           "Get one class: its info, its students (studentId, name) and its assignments (assignmentId, title, dueDate, maxScore).",
	GetStudentGrades:         "Get one student's submissions across assignments: score, maxScore, status, feedback and, for English, skill sub-scores in percent.",
	GetAssignmentSubmissions: "Get every submission of one assignment (score, maxScore, status, feedback, skill sub-scores in percent) and score statistics (count, mean, median, min, max) over the graded ones; score null = not graded yet, counted in stats.ungraded and left out of the statistics.",
	SearchTeacherDocuments:   "Search the teacher's own documents (lesson plans, worksheets, notes) by keywords; returns titles and snippets.",
	GetRubric:                "Get one marking rubric with its criteria, weights and level descriptors.",
	ListAvailableRubrics:     "List the marking rubrics available to the teacher (rubricId, title, subject).",
	AnalyzeStudentWeakness:   "Rank a class's students from weakest to strongest, from all its graded assignments. Without skill: average = mean score in percent. With skill (English classes): average = mean sub-score in that skill, in percent. weakestSkill is each student's lowest skill.",
	GetStudentErrorPatterns:  "Get a student's recurring mistakes (pattern, skill, count, example), most frequent first.",
}

// New returns the base data tools over src.
func New(src DataSource, logger *slog.Logger) []tools.Tool {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	p := &pack{src: src, log: logger.With(slog.String("component", "datatools"))}
	return []tools.Tool{
		data(GetTeacherClasses, i18n.DataClassesRunning, p.teacherClasses),
		data(GetClassDetail, i18n.DataClassRunning, p.classDetail),
		data(GetStudentGrades, i18n.DataGradesRunning, p.studentGrades),
		data(GetAssignmentSubmissions, i18n.DataSubmissionsRunning, p.assignmentSubmissions),
		data(SearchTeacherDocuments, i18n.DataDocumentsRunning, p.searchDocuments),
		data(GetRubric, i18n.DataRubricRunning, p.rubric),
		data(ListAvailableRubrics, i18n.DataRubricsRunning, p.rubrics),
		data(AnalyzeStudentWeakness, i18n.DataWeaknessRunning, p.weakness),
		data(GetStudentErrorPatterns, i18n.DataErrorsRunning, p.errorPatterns),
	}
}

// data defines a base data tool: scoped to the call's teacher (scoped) and
// named for the teacher as a lookup of their data.
func data[In any](name string, running i18n.Msg, fn func(ctx context.Context, teacherID string, in In) (tools.Result, error)) tools.Tool {
	return tools.Define(name, descriptions[name], tools.Base, running, scoped(fn)).Naming(i18n.DataThing)
}

// scoped checks the teacher identity, carries the trace id to the data
// service and gives the call its own javaapi.Report; what the Report finds
// (sample data, a stale list, incomplete records) becomes the result's
// notices, for the teacher and, inside the output, for the model.
func scoped[In any](fn func(ctx context.Context, teacherID string, in In) (tools.Result, error)) func(context.Context, tools.Call, In) (tools.Result, error) {
	return func(ctx context.Context, c tools.Call, in In) (tools.Result, error) {
		if strings.TrimSpace(c.TeacherID) == "" {
			return tools.Result{}, apperr.New(apperr.AuthError, "no teacher identity for a data tool").WithStatus(401)
		}
		if c.TraceID != "" && javaapi.TraceID(ctx) == "" {
			ctx = javaapi.WithTraceID(ctx, c.TraceID)
		}
		ctx = context.WithValue(ctx, langKey{}, c.Lang())
		// A caller's Report (a page build's) spans all its calls, so that
		// they keep to one source; otherwise the call has its own.
		rep := javaapi.ReportFrom(ctx)
		if rep == nil {
			ctx, rep = javaapi.WithReport(ctx)
		}
		res, err := fn(ctx, c.TeacherID, in)
		if err != nil {
			return res, err
		}
		res.Notices = append(reportNotices(rep.Summary(), c.Lang()), res.Notices...)
		if len(res.Notices) > 0 {
			res.Output = noticed{out: res.Output, notices: res.Notices}
		}
		return res, nil
	}
}

type langKey struct{}

// lang is the teacher's language of the call (tools.Call.Lang); Chinese,
// the one rule's default, outside one.
func lang(ctx context.Context) i18n.Lang {
	l, ok := ctx.Value(langKey{}).(i18n.Lang)
	if !ok {
		return i18n.Chinese
	}
	return l
}

// reportNotices are the notices of what a call's Report found.
func reportNotices(s javaapi.Summary, l i18n.Lang) []protocol.Notice {
	var out []protocol.Notice
	switch {
	case s.MockConfigured:
		out = append(out, protocol.Notice{Code: protocol.NoticeMockData, Message: l.Text(i18n.NoticeMockConfigured)})
	case s.Mock:
		out = append(out, protocol.Notice{Code: protocol.NoticeMockData, Message: l.Text(i18n.NoticeMockFallback)})
	}
	if s.Stale {
		out = append(out, protocol.Notice{Code: protocol.NoticeStaleData, Message: l.Text(i18n.NoticeStale, int(s.StaleAge.Minutes()))})
	}
	if s.Incomplete() {
		var names []string
		for _, f := range s.Fields() {
			names = append(names, fieldName(f, l))
		}
		fields := l.List(names)
		msg := l.Text(i18n.NoticeIncomplete, fields)
		if n := s.DroppedTotal(); n > 0 {
			msg = l.Text(i18n.NoticeIncompleteDropped, fields, n)
		}
		out = append(out, protocol.Notice{Code: protocol.NoticeIncompleteData, Message: msg})
	}
	return out
}

// fieldNames name the contract's fields for a teacher.
var fieldNames = map[string]i18n.Msg{
	"class.uid": i18n.FieldClassID, "class.name": i18n.FieldClassName, "class.grade": i18n.FieldClassGrade,
	"class.subject": i18n.FieldClassSubject, "class.student_count": i18n.FieldClassStudentCount,
	"class.teacher_id": i18n.FieldClassTeacher, "class.teacher_id(other teacher)": i18n.FieldClassOtherTeacher,
	"student.uid": i18n.FieldStudentID, "student.name": i18n.FieldStudentName,
	"assignment.uid": i18n.FieldAssignmentID, "assignment.title": i18n.FieldAssignmentTitle,
	"assignment.max_score":  i18n.FieldAssignmentMaxScore,
	"submission.student_id": i18n.FieldSubmissionStudentID, "submission.student_name": i18n.FieldSubmissionStudentName,
	"submission.score": i18n.FieldSubmissionScore, "submission.max_score": i18n.FieldSubmissionMaxScore,
	"submission.assignment_id": i18n.FieldSubmissionAssignmentID, "submission.assignment_title": i18n.FieldSubmissionAssignmentTitle,
}

func fieldName(f string, l i18n.Lang) string {
	if m, ok := fieldNames[f]; ok {
		return l.Text(m)
	}
	return f
}

// noticed is a tool output with the call's notices: the model reads them
// first ("dataNotices"), so that it tells the teacher.
type noticed struct {
	out     any
	notices []protocol.Notice
}

func (n noticed) MarshalJSON() ([]byte, error) {
	body, err := json.Marshal(n.out)
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(map[string]any{"dataNotices": n.notices})
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return json.Marshal(map[string]any{"dataNotices": n.notices, "result": json.RawMessage(body)})
	}
	if string(body) == "{}" {
		return head, nil
	}
	return append(append(head[:len(head)-1], ','), body[1:]...), nil
}

// --- arguments ---

type noArgs struct{}

type classesArgs struct {
	Refresh bool `json:"refresh,omitempty" description:"Optional: true to skip the short-lived cache, when the teacher asks for current data or says a class is missing."`
}

type classArgs struct {
	ClassID string `json:"classId" description:"The class: its classId (class-…) or the name the teacher used, e.g. 1A, Form 1A, 1A班, 中一甲."`
}

type studentArgs struct {
	StudentID string `json:"studentId" description:"The student's studentId (s-…), or their name as the teacher wrote it."`
	ClassID   string `json:"classId,omitempty" description:"Optional: the student's class (id or name), to find a student named by name."`
}

type assignmentArgs struct {
	AssignmentID string `json:"assignmentId" description:"The assignmentId (a-…), from get_class_detail."`
}

type weaknessArgs struct {
	ClassID string `json:"classId" description:"The class: its classId (class-…) or the name the teacher used, e.g. 1A."`
	// No enum in the schema: a model that sends "" for "none" should get
	// the overall ranking, not an argument error; other values are refused
	// with the list of skills.
	Skill string `json:"skill,omitempty" description:"Optional: rank by this skill instead of the overall score: grammar, vocabulary, reading or writing (English classes)."`
}

type searchArgs struct {
	Query string `json:"query" description:"Keywords, English or Chinese."`
}

type rubricArgs struct {
	RubricID string `json:"rubricId" description:"The rubricId, from list_available_rubrics."`
}

// --- outputs (field order is the JSON order the model sees) ---

type classesOut struct {
	TeacherID string              `json:"teacherId"`
	Classes   []javaapi.ClassInfo `json:"classes"`
}

type classDetailOut struct {
	Class       javaapi.ClassInfo    `json:"class"`
	Students    []javaapi.Student    `json:"students"`
	Assignments []javaapi.Assignment `json:"assignments"`
}

// stats are over the graded submissions with a usable max score; the
// others are counted, never as 0.
type stats struct {
	Count  int     `json:"count"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// Ungraded counts submissions without a score yet (score null).
	Ungraded int `json:"ungraded,omitempty"`
	// Unusable counts graded submissions without a usable max score.
	Unusable int `json:"unusable,omitempty"`
}

type submissionsOut struct {
	AssignmentID string                     `json:"assignmentId"`
	Title        string                     `json:"title"`
	Submissions  []javaapi.SubmissionRecord `json:"submissions"`
	Stats        stats                      `json:"stats"`
}

type gradesOut struct {
	StudentID   string        `json:"studentId"`
	StudentName string        `json:"studentName"`
	Submissions []gradeRecord `json:"submissions"`
}

// gradeRecord is a submission in a student's list: the student is named
// once, at the top.
type gradeRecord struct {
	AssignmentID    string          `json:"assignmentId"`
	AssignmentTitle string          `json:"assignmentTitle"`
	Score           *float64        `json:"score"`
	MaxScore        *float64        `json:"maxScore"`
	SubmittedAt     string          `json:"submittedAt"`
	Status          string          `json:"status"`
	Feedback        string          `json:"feedback,omitempty"`
	Skills          *javaapi.Skills `json:"skills,omitempty"`
	Incomplete      []string        `json:"incomplete,omitempty"`
}

type weakStudent struct {
	StudentID    string  `json:"studentId"`
	StudentName  string  `json:"studentName"`
	Average      float64 `json:"average"`
	WeakestSkill string  `json:"weakestSkill,omitempty"`
}

type weaknessOut struct {
	ClassID  string        `json:"classId"`
	Skill    string        `json:"skill"`
	Students []weakStudent `json:"students"`
}

type patternsOut struct {
	StudentID string                 `json:"studentId"`
	Patterns  []javaapi.ErrorPattern `json:"patterns"`
}

type documentsOut struct {
	Documents []javaapi.Document `json:"documents"`
}

type rubricsOut struct {
	Rubrics []javaapi.RubricSummary `json:"rubrics"`
}

type rubricOut struct {
	Rubric javaapi.Rubric `json:"rubric"`
}

// --- tools ---

func (p *pack) teacherClasses(ctx context.Context, teacher string, in classesArgs) (tools.Result, error) {
	if in.Refresh {
		ctx = javaapi.WithFreshData(ctx)
	}
	cs, err := p.src.Classes(ctx, teacher)
	if err != nil {
		return tools.Result{}, err
	}
	return result(len(cs), lang(ctx).Text(i18n.DataClasses, len(cs)),
		classesOut{TeacherID: teacher, Classes: cs}, tools.Labels(cs, func(c javaapi.ClassInfo) string { return c.Name })...), nil
}

func (p *pack) classDetail(ctx context.Context, teacher string, in classArgs) (tools.Result, error) {
	cls, err := p.resolveClass(ctx, teacher, in.ClassID)
	if err != nil {
		return tools.Result{}, err
	}
	var (
		detail  javaapi.ClassDetail
		as      []javaapi.Assignment
		errD    error
		errA    error
		waitAll sync.WaitGroup
	)
	waitAll.Go(func() { detail, errD = p.src.ClassDetail(ctx, teacher, cls.ClassID) })
	waitAll.Go(func() { as, errA = p.src.ClassAssignments(ctx, teacher, cls.ClassID) })
	waitAll.Wait()
	if err := firstErr(errD, errA); err != nil {
		return tools.Result{}, err
	}
	msg := lang(ctx).Text(i18n.DataClass, detail.Class.Name, len(detail.Students), len(as))
	// The preview counts the roster: names alone, never with a score.
	return result(1, msg, classDetailOut{Class: detail.Class, Students: detail.Students, Assignments: as}).
		Counted(len(detail.Students), tools.Labels(detail.Students, func(s javaapi.Student) string { return s.Name })...), nil
}

func (p *pack) assignmentSubmissions(ctx context.Context, teacher string, in assignmentArgs) (tools.Result, error) {
	subs, err := p.src.AssignmentSubmissions(ctx, teacher, strings.TrimSpace(in.AssignmentID))
	if apperr.CodeOf(err) == apperr.EntityNotFound {
		return tools.Result{}, apperr.Wrap(err, apperr.EntityNotFound,
			"no assignment %q for this teacher; call get_class_detail to see the class's assignmentIds", in.AssignmentID)
	}
	if err != nil {
		return tools.Result{}, err
	}
	var scores []float64
	ungraded, unusable := 0, 0
	records := make([]javaapi.SubmissionRecord, len(subs.Submissions))
	for i, s := range subs.Submissions {
		switch {
		case !s.Graded():
			ungraded++
		case !s.Usable():
			unusable++
		default:
			scores = append(scores, *s.Score)
		}
		// The assignment is named once, at the top.
		s.AssignmentID, s.AssignmentTitle = "", ""
		records[i] = s
	}
	st := summarize(scores)
	st.Ungraded, st.Unusable = ungraded, unusable
	n := len(subs.Submissions)
	// A count and no preview: every item is a pupil's score.
	res := result(n, lang(ctx).Text(i18n.DataSubmissions, n, statsLeftOut(ungraded, unusable, lang(ctx))),
		submissionsOut{AssignmentID: subs.AssignmentID, Title: subs.Title, Submissions: records, Stats: st})
	res.Notices = ungradedNotices(ungraded, unusable, lang(ctx))
	return res, nil
}

// statsLeftOut says, after a result's count, which submissions its
// statistics leave out ("（2 份未评分，未计入统计）"), or "" when none.
func statsLeftOut(ungraded, unusable int, l i18n.Lang) string {
	if ungraded == 0 && unusable == 0 {
		return ""
	}
	return l.Text(i18n.DataLeftOut, strings.Join(leftOutCounts(ungraded, unusable, l), l.Text(i18n.CountSeparator)))
}

// ungradedNotices tell the teacher that statistics leave work out.
func ungradedNotices(ungraded, unusable int, l i18n.Lang) []protocol.Notice {
	if ungraded == 0 && unusable == 0 {
		return nil
	}
	return []protocol.Notice{{Code: protocol.NoticeUngraded, Message: l.Text(i18n.NoticeLeftOut, LeftOut(ungraded, unusable, l))}}
}

// LeftOut says which submissions statistics leave out ("2 份未评分、1 份缺少满分"),
// or "" when none.
func LeftOut(ungraded, unusable int, l i18n.Lang) string {
	return l.List(leftOutCounts(ungraded, unusable, l))
}

func leftOutCounts(ungraded, unusable int, l i18n.Lang) []string {
	var parts []string
	if ungraded > 0 {
		parts = append(parts, l.Text(i18n.Ungraded, ungraded))
	}
	if unusable > 0 {
		parts = append(parts, l.Text(i18n.NoMaxScore, unusable))
	}
	return parts
}

func (p *pack) studentGrades(ctx context.Context, teacher string, in studentArgs) (tools.Result, error) {
	var g javaapi.StudentGrades
	err := p.withStudent(ctx, teacher, in, func(id string) (err error) {
		g, err = p.src.StudentSubmissions(ctx, teacher, id)
		return err
	})
	if err != nil {
		return tools.Result{}, err
	}
	n := len(g.Submissions)
	records := make([]gradeRecord, n)
	ungraded, unusable := 0, 0
	for i, s := range g.Submissions {
		records[i] = gradeRecord{
			AssignmentID: s.AssignmentID, AssignmentTitle: s.AssignmentTitle, Score: s.Score, MaxScore: s.MaxScore,
			SubmittedAt: s.SubmittedAt, Status: s.Status, Feedback: s.Feedback, Skills: s.Skills, Incomplete: s.Incomplete,
		}
		switch {
		case !s.Graded():
			ungraded++
		case !s.Usable():
			unusable++
		}
	}
	// The preview names the assignments, without their scores.
	res := result(n, lang(ctx).Text(i18n.DataGrades, g.StudentName, n, statsLeftOut(ungraded, unusable, lang(ctx))),
		gradesOut{StudentID: g.StudentID, StudentName: g.StudentName, Submissions: records},
		tools.Labels(records, func(r gradeRecord) string { return r.AssignmentTitle })...)
	res.Notices = ungradedNotices(ungraded, unusable, lang(ctx))
	return res, nil
}

func (p *pack) errorPatterns(ctx context.Context, teacher string, in studentArgs) (tools.Result, error) {
	var (
		ps []javaapi.ErrorPattern
		id string
	)
	err := p.withStudent(ctx, teacher, in, func(sid string) (err error) {
		id = sid
		ps, err = p.src.ErrorPatterns(ctx, teacher, sid)
		return err
	})
	if err != nil {
		return tools.Result{}, err
	}
	return result(len(ps), lang(ctx).Text(i18n.DataErrors, len(ps)),
		patternsOut{StudentID: id, Patterns: ps}, tools.Labels(ps, func(p javaapi.ErrorPattern) string { return p.Pattern })...), nil
}

func (p *pack) searchDocuments(ctx context.Context, teacher string, in searchArgs) (tools.Result, error) {
	docs, err := p.src.SearchDocuments(ctx, teacher, strings.TrimSpace(in.Query))
	if err != nil {
		return tools.Result{}, err
	}
	return result(len(docs), lang(ctx).Text(i18n.DataDocuments, len(docs)),
		documentsOut{Documents: docs}, tools.Labels(docs, func(d javaapi.Document) string { return d.Title })...), nil
}

func (p *pack) rubrics(ctx context.Context, teacher string, _ noArgs) (tools.Result, error) {
	rs, err := p.src.Rubrics(ctx, teacher)
	if err != nil {
		return tools.Result{}, err
	}
	return result(len(rs), lang(ctx).Text(i18n.DataRubrics, len(rs)), rubricsOut{Rubrics: rs},
		tools.Labels(rs, func(r javaapi.RubricSummary) string { return r.Title })...), nil
}

func (p *pack) rubric(ctx context.Context, teacher string, in rubricArgs) (tools.Result, error) {
	r, err := p.src.Rubric(ctx, teacher, strings.TrimSpace(in.RubricID))
	if apperr.CodeOf(err) == apperr.EntityNotFound {
		return tools.Result{}, p.unknownRubric(ctx, teacher, in.RubricID, err)
	}
	if err != nil {
		return tools.Result{}, err
	}
	return result(1, lang(ctx).Text(i18n.DataRubric, r.Title), rubricOut{Rubric: r}).
		Counted(len(r.Criteria), tools.Labels(r.Criteria, func(c javaapi.Criterion) string { return c.Name })...), nil
}

// unknownRubric turns a 404 into an error that lists the rubrics there are.
func (p *pack) unknownRubric(ctx context.Context, teacher, id string, cause error) error {
	rs, err := p.src.Rubrics(ctx, teacher)
	if err != nil {
		return cause
	}
	sugg := make([]javaapi.Suggestion, 0, len(rs))
	opts := make([]string, 0, len(rs))
	for _, r := range rs {
		sugg = append(sugg, javaapi.Suggestion{Label: r.Title, Value: r.RubricID})
		opts = append(opts, fmt.Sprintf("%s (%s)", r.Title, r.RubricID))
	}
	return apperr.Wrap(cause, apperr.EntityNotFound, "no rubric %q; available: %s", id, strings.Join(opts, "; ")).
		WithDetails(javaapi.NotFound{Kind: "rubric", Mention: id, Suggestions: sugg})
}

func (p *pack) weakness(ctx context.Context, teacher string, in weaknessArgs) (tools.Result, error) {
	skill := strings.ToLower(strings.TrimSpace(in.Skill))
	if skill != "" && !slices.Contains(javaapi.SkillNames(), skill) {
		return tools.Result{}, apperr.New(apperr.ValidationError, "unknown skill %q; use one of %s", in.Skill, strings.Join(javaapi.SkillNames(), ", "))
	}
	cls, err := p.resolveClass(ctx, teacher, in.ClassID)
	if err != nil {
		return tools.Result{}, err
	}
	as, err := p.src.ClassAssignments(ctx, teacher, cls.ClassID)
	if err != nil {
		return tools.Result{}, err
	}
	all, err := fetchAll(as, func(a javaapi.Assignment) (javaapi.AssignmentSubmissions, error) {
		return p.src.AssignmentSubmissions(ctx, teacher, a.AssignmentID)
	})
	if err != nil {
		return tools.Result{}, err
	}
	students, hasSkills := rank(all, skill)
	if skill != "" && !hasSkills {
		return tools.Result{}, apperr.New(apperr.ValidationError,
			"%s (%s) has no per-skill sub-scores; call analyze_student_weakness without skill", cls.Name, cls.Subject)
	}
	label := skill
	if label == "" {
		label = "overall"
	}
	msg := lang(ctx).Text(i18n.DataWeakness, cls.Name, len(students), lang(ctx).Skill(label))
	// A count and no preview: a ranking by score names pupils with their results.
	return result(len(students), msg, weaknessOut{ClassID: cls.ClassID, Skill: label, Students: students}), nil
}

// rank averages each student's results over the assignments and sorts the
// students weakest first. With skill, the average is of that skill's
// sub-scores; otherwise of the scores as percentages of maxScore.
func rank(all []javaapi.AssignmentSubmissions, skill string) (out []weakStudent, hasSkills bool) {
	type acc struct {
		name   string
		pct    []float64
		skills [4][]float64
	}
	by := map[string]*acc{}
	var order []string
	for _, a := range all {
		for _, s := range a.Submissions {
			st := by[s.StudentID]
			if st == nil {
				st = &acc{name: s.StudentName}
				by[s.StudentID] = st
				order = append(order, s.StudentID)
			}
			if pct, ok := s.Percent(); ok {
				st.pct = append(st.pct, pct)
			}
			if s.Skills != nil && s.Graded() {
				hasSkills = true
				for k, name := range javaapi.SkillNames() {
					v, _ := s.Skills.Get(name)
					st.skills[k] = append(st.skills[k], v)
				}
			}
		}
	}
	out = []weakStudent{}
	for _, id := range order {
		st := by[id]
		w := weakStudent{StudentID: id, StudentName: st.name, Average: round1(mean(st.pct))}
		best := math.Inf(1)
		for k, name := range javaapi.SkillNames() {
			if len(st.skills[k]) == 0 {
				continue
			}
			m := mean(st.skills[k])
			if m < best {
				best, w.WeakestSkill = m, name
			}
			if name == skill {
				w.Average = round1(m)
			}
		}
		out = append(out, w)
	}
	slices.SortStableFunc(out, func(a, b weakStudent) int {
		return cmp.Or(cmp.Compare(a.Average, b.Average), strings.Compare(a.StudentID, b.StudentID))
	})
	return out, hasSkills
}

// resolveClass finds the class the model named among the teacher's classes.
func (p *pack) resolveClass(ctx context.Context, teacher, mention string) (javaapi.ClassInfo, error) {
	classes, err := p.src.Classes(ctx, teacher)
	if err != nil {
		return javaapi.ClassInfo{}, err
	}
	c, err := javaapi.ResolveClass(mention, classes)
	if apperr.CodeOf(err) == apperr.EntityNotFound {
		// The list may be a cached one that predates a new class: look once
		// more at the service's current list before saying "not found".
		if fresh, ferr := p.src.Classes(javaapi.WithFreshData(ctx), teacher); ferr == nil {
			c, err = javaapi.ResolveClass(mention, fresh)
		}
	}
	if err == nil && c.ClassID != strings.TrimSpace(mention) {
		p.log.LogAttrs(ctx, slog.LevelDebug, "resolved class mention",
			slog.String("mention", mention), slog.String("classId", c.ClassID))
	}
	return c, err
}

// withStudent calls fn with the student's id. The model may pass an id or a
// name: the mention is resolved among the students of the teacher's classes
// (or of in.ClassID), by id or by name, before any request names it, so
// that a pupil's name never goes into a data service path (and its access
// logs) as if it were an id.
func (p *pack) withStudent(ctx context.Context, teacher string, in studentArgs, fn func(id string) error) error {
	mention := strings.TrimSpace(in.StudentID)
	var classes []javaapi.ClassInfo
	if in.ClassID != "" {
		c, cerr := p.resolveClass(ctx, teacher, in.ClassID)
		if cerr != nil {
			return cerr
		}
		classes = []javaapi.ClassInfo{c}
	} else {
		all, cerr := p.src.Classes(ctx, teacher)
		if cerr != nil {
			return cerr
		}
		classes = all[:min(len(all), maxNameSearchClasses)]
	}
	details, derr := fetchAll(classes, func(c javaapi.ClassInfo) (javaapi.ClassDetail, error) {
		return p.src.ClassDetail(ctx, teacher, c.ClassID)
	})
	if derr != nil {
		return derr
	}
	var students []javaapi.Student
	for _, d := range details {
		students = append(students, d.Students...)
	}
	s, rerr := javaapi.ResolveStudent(mention, students)
	if rerr != nil {
		return rerr
	}
	return fn(s.StudentID)
}

// result builds a Result of n items, previewed by labels: empty when
// there is nothing to show.
func result(n int, msg string, out any, labels ...string) tools.Result {
	st := protocol.ToolSuccess
	if n == 0 {
		st = protocol.ToolEmpty
	}
	return tools.Result{Status: st, Message: msg, Output: out}.Counted(n, labels...)
}

// firstErr returns the first non-nil error.
// fetchAll gets each item's result, at most fanOut at a time, in the items'
// order, or the first error.
func fetchAll[T, R any](items []T, get func(T) (R, error)) ([]R, error) {
	out := make([]R, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	sem := make(chan struct{}, fanOut)
	for i, it := range items {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = get(it)
		})
	}
	wg.Wait()
	return out, firstErr(errs...)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func summarize(xs []float64) stats {
	if len(xs) == 0 {
		return stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stats{Count: len(s), Mean: round1(mean(s)), Median: round1(med), Min: s[0], Max: s[len(s)-1]}
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }
