package datatools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/golden"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/datatools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// newRegistry wires the tools to the real client and the mock service over
// loopback HTTP: the only fake is the service at the edge.
func newRegistry(t *testing.T) (*tools.Registry, *mockserver.Server) {
	t.Helper()
	srv := mockserver.New(mockdata.Default(), mockserver.Options{Token: "tok"})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	cfg := javaapi.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.FallbackToMock = hs.URL, "tok", false
	c, err := javaapi.New(cfg, javaapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tools.NewRegistry(datatools.New(c, nil)...), srv
}

func run(t *testing.T, reg *tools.Registry, teacher, name, args string) (tools.Result, error) {
	t.Helper()
	tool, ok := reg.Get(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tool.Run(context.Background(), tools.Call{TeacherID: teacher, TraceID: "trace-" + name}, json.RawMessage(args))
}

func TestRegistersEveryBaseTool(t *testing.T) {
	reg, _ := newRegistry(t)
	want := []string{
		"analyze_student_weakness", "get_assignment_submissions", "get_class_detail", "get_rubric",
		"get_student_error_patterns", "get_student_grades", "get_teacher_classes",
		"list_available_rubrics", "search_teacher_documents",
	}
	if got := reg.Names(tools.Base); !slices.Equal(got, want) {
		t.Fatalf("base tools = %v, want %v", got, want)
	}
	for _, n := range want {
		tool, _ := reg.Get(n)
		if i18n.Chinese.Text(tool.Running) == "" || i18n.English.Text(tool.Running) == "" || tool.Description == "" {
			t.Errorf("%s: running %d, description %q", n, tool.Running, tool.Description)
		}
		if tool.Artifact() {
			t.Errorf("%s is a data tool, yet declares an artifact part: %v", n, tool.Emits)
		}
		for _, p := range tool.Schema.Properties {
			if p.Description == "" {
				t.Errorf("%s: a parameter has no description", n)
			}
		}
	}
	detail, _ := reg.Get("get_class_detail")
	if !slices.Equal(detail.Schema.Required, []string{"classId"}) {
		t.Errorf("get_class_detail requires %v", detail.Schema.Required)
	}
}

// TestOutputsGolden pins what the model reads: status, message and output.
func TestOutputsGolden(t *testing.T) {
	reg, _ := newRegistry(t)
	tests := []struct {
		golden, teacher, tool, args string
		status                      protocol.ToolStatus
	}{
		{"teacher_classes", "t-001", "get_teacher_classes", `{}`, protocol.ToolSuccess},
		{"teacher_classes_none", "t-404", "get_teacher_classes", `{}`, protocol.ToolEmpty},
		{"class_detail_1A", "t-001", "get_class_detail", `{"classId":"1A"}`, protocol.ToolSuccess},
		{"assignment_submissions", "t-001", "get_assignment_submissions", `{"assignmentId":"a-f1a-01"}`, protocol.ToolSuccess},
		{"student_grades", "t-001", "get_student_grades", `{"studentId":"s-f1a-01"}`, protocol.ToolSuccess},
		{"weakness_1A_grammar", "t-001", "analyze_student_weakness", `{"classId":"1A","skill":"grammar"}`, protocol.ToolSuccess},
		{"weakness_1A_overall", "t-001", "analyze_student_weakness", `{"classId":"Form 1A"}`, protocol.ToolSuccess},
		{"weakness_3C_physics", "t-001", "analyze_student_weakness", `{"classId":"3C"}`, protocol.ToolSuccess},
		{"error_patterns", "t-001", "get_student_error_patterns", `{"studentId":"s-f1a-01"}`, protocol.ToolSuccess},
		{"search_documents", "t-001", "search_teacher_documents", `{"query":"subject-verb agreement"}`, protocol.ToolSuccess},
		{"search_documents_none", "t-001", "search_teacher_documents", `{"query":"volcano"}`, protocol.ToolEmpty},
		{"rubrics", "t-001", "list_available_rubrics", `{}`, protocol.ToolSuccess},
		{"rubric", "t-001", "get_rubric", `{"rubricId":"r-eng-writing"}`, protocol.ToolSuccess},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			res, err := run(t, reg, tt.teacher, tt.tool, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.status || res.Message == "" {
				t.Errorf("status %q message %q, want status %q", res.Status, res.Message, tt.status)
			}
			got := golden.JSON(t, map[string]any{"status": res.Status, "message": res.Message, "output": res.Output})
			golden.Check(t, filepath.Join("testdata", tt.golden+".json"), got, *update)
		})
	}
}

func TestWeakestInGrammarIsReal(t *testing.T) {
	reg, _ := newRegistry(t)
	res, err := run(t, reg, "t-001", "analyze_student_weakness", `{"classId":"中一甲","skill":"grammar"}`)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		ClassID  string
		Skill    string
		Students []struct {
			StudentID    string
			StudentName  string
			Average      float64
			WeakestSkill string
		}
	}
	if err := json.Unmarshal(golden.JSON(t, res.Output), &out); err != nil {
		t.Fatal(err)
	}
	if out.ClassID != "class-hk-f1a" || out.Skill != "grammar" || len(out.Students) != 35 {
		t.Fatalf("out = %s %s %d students", out.ClassID, out.Skill, len(out.Students))
	}
	if !slices.IsSortedFunc(out.Students, func(a, b struct {
		StudentID    string
		StudentName  string
		Average      float64
		WeakestSkill string
	}) int {
		return int(a.Average*10 - b.Average*10)
	}) {
		t.Error("students are not sorted weakest first")
	}
	// The data set makes Wong Ka Ho weak in grammar (seed 004 §2.4.2).
	top := out.Students[:3]
	if !slices.ContainsFunc(top, func(s struct {
		StudentID    string
		StudentName  string
		Average      float64
		WeakestSkill string
	}) bool {
		return s.StudentName == "Wong Ka Ho" && s.WeakestSkill == "grammar"
	}) || top[0].WeakestSkill != "grammar" {
		t.Errorf("three weakest in grammar = %+v, want Wong Ka Ho among them", top)
	}
}

func TestStudentByName(t *testing.T) {
	reg, srv := newRegistry(t)
	defer func() {
		// A pupil's name is never tried as an id: no path carries it.
		for _, r := range srv.Requests() {
			if strings.Contains(strings.ToLower(r.Path), "wong") || strings.Contains(strings.ToLower(r.Path), "ka%20ho") {
				t.Errorf("a request named the pupil in its path: %s", r.Path)
			}
		}
	}()
	byID, err := run(t, reg, "t-001", "get_student_grades", `{"studentId":"s-f1a-01"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"studentId":"Wong Ka Ho"}`, `{"studentId":"ka ho wong","classId":"1A"}`} {
		byName, err := run(t, reg, "t-001", "get_student_grades", args)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if !bytes.Equal(golden.JSON(t, byName.Output), golden.JSON(t, byID.Output)) {
			t.Errorf("%s: by name differs from by id", args)
		}
	}
	res, err := run(t, reg, "t-001", "get_student_error_patterns", `{"studentId":"Wong Ka Ho"}`)
	if err != nil || !strings.Contains(string(golden.JSON(t, res.Output)), `"studentId": "s-f1a-01"`) {
		t.Errorf("error patterns by name: %v %s", err, golden.JSON(t, res.Output))
	}
}

func TestErrors(t *testing.T) {
	reg, _ := newRegistry(t)
	tests := []struct {
		name, teacher, tool, args string
		code                      apperr.Code
		msgHas                    []string
	}{
		{"unknown class lists suggestions", "t-001", "get_class_detail", `{"classId":"1C"}`, apperr.EntityNotFound,
			[]string{`"1C"`, "Form 1A · English (class-hk-f1a)", "Form 1B · English (class-hk-f1b)"}},
		{"ambiguous class", "t-001", "analyze_student_weakness", `{"classId":"Form 1"}`, apperr.EntityNotFound,
			[]string{"matches several classes", "class-hk-f1a", "class-hk-f1b"}},
		{"another teacher's class is not found", "t-001", "get_class_detail", `{"classId":"class-hk-f2a"}`, apperr.EntityNotFound,
			[]string{"did you mean"}},
		// Resolved among the teacher's own students first: no request names
		// another teacher's pupil at all.
		{"another teacher's student is not found", "t-001", "get_student_grades", `{"studentId":"s-f2a-01"}`, apperr.EntityNotFound,
			[]string{"no student of this teacher matches"}},
		{"unknown student", "t-001", "get_student_grades", `{"studentId":"Zhang Nobody"}`, apperr.EntityNotFound,
			[]string{"no student of this teacher matches"}},
		{"skill for a physics class", "t-001", "analyze_student_weakness", `{"classId":"3C","skill":"grammar"}`, apperr.ValidationError,
			[]string{"no per-skill sub-scores"}},
		{"unknown rubric lists rubrics", "t-001", "get_rubric", `{"rubricId":"writing"}`, apperr.EntityNotFound,
			[]string{"r-eng-writing", "r-phy-lab"}},
		{"unknown assignment", "t-001", "get_assignment_submissions", `{"assignmentId":"a-none"}`, apperr.EntityNotFound,
			[]string{"get_class_detail"}},
		{"no teacher", "", "get_teacher_classes", `{}`, apperr.AuthError, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, reg, tt.teacher, tt.tool, tt.args)
			if got := apperr.CodeOf(err); got != tt.code {
				t.Fatalf("code = %q, want %s (err %v)", got, tt.code, err)
			}
			for _, s := range tt.msgHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestArguments(t *testing.T) {
	reg, srv := newRegistry(t)
	_, err := run(t, reg, "t-001", "analyze_student_weakness", `{"classId":"1A","skill":"spelling"}`)
	if apperr.CodeOf(err) != apperr.ValidationError || !strings.Contains(err.Error(), "grammar, vocabulary, reading, writing") {
		t.Fatalf("err = %v, want a VALIDATION_ERROR listing the skills", err)
	}
	if srv.RequestCount() != 0 {
		t.Error("a bad skill reached the service")
	}
	res, err := run(t, reg, "t-001", "analyze_student_weakness", `{"classId":"1A","skill":""}`)
	if err != nil {
		t.Fatal(err)
	}
	if out := string(golden.JSON(t, res.Output)); !strings.Contains(out, `"skill": "overall"`) {
		t.Errorf("empty skill did not rank overall: %.80s", out)
	}
	_, err = run(t, reg, "t-001", "get_class_detail", `{}`)
	var ae *tools.ArgumentError
	if !errors.As(err, &ae) {
		t.Errorf("missing classId: err = %v, want an ArgumentError", err)
	}
}

func TestTraceIDFromCall(t *testing.T) {
	reg, srv := newRegistry(t)
	if _, err := run(t, reg, "t-001", "list_available_rubrics", `{}`); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].TraceID; got != "trace-list_available_rubrics" {
		t.Errorf("X-Trace-ID = %q", got)
	}
}

// Sample data is marked, for the teacher (Notices) and inside the output
// the model reads (dataNotices first).
func TestMockDataIsMarked(t *testing.T) {
	for _, tt := range []struct {
		name    string
		useMock bool
		want    string
	}{
		{"USE_MOCK_DATA", true, "未连接数据服务"},
		{"fallback", false, "数据服务暂时不可用"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := javaapi.DefaultConfig()
			cfg.UseMock = tt.useMock
			if !tt.useMock {
				srv := mockserver.New(mockdata.Default(), mockserver.Options{Token: "tok"})
				srv.SetFault(mockserver.Fault{Status: 503})
				hs := httptest.NewServer(srv)
				t.Cleanup(hs.Close)
				cfg.BaseURL, cfg.Token, cfg.Attempts = hs.URL, "tok", 1
			}
			c, err := javaapi.New(cfg, javaapi.Options{Fallback: mockserver.Fallback(cfg)})
			if err != nil {
				t.Fatal(err)
			}
			reg := tools.NewRegistry(datatools.New(c, nil)...)
			res, err := run(t, reg, "t-001", "get_class_detail", `{"classId":"1A"}`)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Notices) != 1 || res.Notices[0].Code != protocol.NoticeMockData || !strings.Contains(res.Notices[0].Message, tt.want) {
				t.Errorf("notices %+v", res.Notices)
			}
			out := golden.JSON(t, res.Output)
			if !bytes.HasPrefix(bytes.TrimSpace(out), []byte("{\n  \"dataNotices\": [")) || !bytes.Contains(out, []byte(`"students"`)) {
				t.Errorf("the model's output does not start with the notice:\n%.300s", out)
			}
		})
	}
}
