package javaapi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/javaapi"
)

func teacherClasses() []javaapi.ClassInfo {
	return []javaapi.ClassInfo{
		{ClassID: "class-hk-f1a", Name: "Form 1A", Grade: "Form 1", Subject: "English", StudentCount: new(35), TeacherID: "t-001"},
		{ClassID: "class-hk-f1b", Name: "Form 1B", Grade: "Form 1", Subject: "English", StudentCount: new(33), TeacherID: "t-001"},
		{ClassID: "class-hk-f3c", Name: "Form 3C", Grade: "Form 3", Subject: "Physics", StudentCount: new(32), TeacherID: "t-001"},
	}
}

func TestResolveClass(t *testing.T) {
	tests := []struct {
		mention   string
		want      string   // resolved class id
		ambiguous []string // candidates when ambiguous
		suggest   []string // suggestions when unknown (in order)
	}{
		{mention: "class-hk-f1a", want: "class-hk-f1a"},
		{mention: "CLASS-HK-F1B", want: "class-hk-f1b"},
		{mention: "1A", want: "class-hk-f1a"},
		{mention: "1a", want: "class-hk-f1a"},
		{mention: "1A班", want: "class-hk-f1a"},
		{mention: "Form 1A", want: "class-hk-f1a"},
		{mention: "form1a", want: "class-hk-f1a"},
		{mention: "F.1A", want: "class-hk-f1a"},
		{mention: "S1A", want: "class-hk-f1a"},
		{mention: "Secondary 1A", want: "class-hk-f1a"},
		{mention: "中一甲", want: "class-hk-f1a"},
		{mention: "中一甲班", want: "class-hk-f1a"},
		{mention: "中一乙", want: "class-hk-f1b"},
		{mention: "中一A班", want: "class-hk-f1a"},
		{mention: "１Ａ", want: "class-hk-f1a"},
		{mention: " 1B ", want: "class-hk-f1b"},
		{mention: "1A English", want: "class-hk-f1a"},
		{mention: "1A班英文", want: "class-hk-f1a"},
		{mention: "3C", want: "class-hk-f3c"},
		{mention: "中三丙", want: "class-hk-f3c"},
		{mention: "Physics", want: "class-hk-f3c"},
		{mention: "物理班", want: "class-hk-f3c"},
		{mention: "Form 1", ambiguous: []string{"class-hk-f1a", "class-hk-f1b"}},
		{mention: "中一", ambiguous: []string{"class-hk-f1a", "class-hk-f1b"}},
		{mention: "English", ambiguous: []string{"class-hk-f1a", "class-hk-f1b"}},
		{mention: "1C", suggest: []string{"class-hk-f1a", "class-hk-f1b", "class-hk-f3c"}},
		{mention: "3A", suggest: []string{"class-hk-f3c", "class-hk-f1a", "class-hk-f1b"}},
		{mention: "1A Physics", suggest: []string{"class-hk-f1a", "class-hk-f1b", "class-hk-f3c"}},
		{mention: "", suggest: []string{"class-hk-f1a", "class-hk-f1b", "class-hk-f3c"}},
		{mention: "Form 2A", suggest: []string{"class-hk-f1a", "class-hk-f1b", "class-hk-f3c"}},
	}
	for _, tt := range tests {
		t.Run(tt.mention, func(t *testing.T) {
			got, err := javaapi.ResolveClass(tt.mention, teacherClasses())
			if tt.want != "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if got.ClassID != tt.want {
					t.Fatalf("resolved %q, want %q", got.ClassID, tt.want)
				}
				return
			}
			ae := wantCode(t, err, apperr.EntityNotFound)
			nf, ok := ae.Details.(javaapi.NotFound)
			if !ok {
				t.Fatalf("details = %#v", ae.Details)
			}
			var values []string
			for _, s := range nf.Suggestions {
				values = append(values, s.Value)
				if !strings.Contains(ae.Message, s.Value) || s.Label == "" {
					t.Errorf("message %q does not list suggestion %+v", ae.Message, s)
				}
			}
			want := tt.suggest
			if tt.ambiguous != nil {
				want = tt.ambiguous
			}
			if nf.Ambiguous != (tt.ambiguous != nil) || !slices.Equal(values, want) {
				t.Errorf("ambiguous=%v suggestions=%v, want ambiguous=%v %v", nf.Ambiguous, values, tt.ambiguous != nil, want)
			}
		})
	}
}

func TestResolveClassSuggestionLabel(t *testing.T) {
	_, err := javaapi.ResolveClass("1C", teacherClasses())
	ae := apperr.As(err)
	nf := ae.Details.(javaapi.NotFound)
	if nf.Suggestions[0] != (javaapi.Suggestion{Label: "Form 1A · English", Value: "class-hk-f1a"}) {
		t.Errorf("suggestion = %+v", nf.Suggestions[0])
	}
	if !strings.Contains(ae.Message, `no class of this teacher matches "1C"; did you mean: Form 1A · English (class-hk-f1a)`) {
		t.Errorf("message = %q", ae.Message)
	}
}

func TestResolveStudent(t *testing.T) {
	students := []javaapi.Student{
		{StudentID: "s-1", Name: "Wong Ka Ho"},
		{StudentID: "s-2", Name: "Peter Wong"},
		{StudentID: "s-3", Name: "Chan Mei Ling"},
		{StudentID: "s-4", Name: "黃家豪"},
		{StudentID: "s-5", Name: "陳美玲"},
	}
	tests := []struct {
		mention   string
		want      string
		ambiguous bool
	}{
		{mention: "s-3", want: "s-3"},
		{mention: "Wong Ka Ho", want: "s-1"},
		{mention: "wong ka ho", want: "s-1"},
		{mention: "Ka Ho Wong", want: "s-1"},
		{mention: "Wong Ka-Ho", want: "s-1"},
		{mention: "Peter", want: "s-2"},
		{mention: "Mei Ling", want: "s-3"},
		{mention: "黃家豪", want: "s-4"},
		{mention: "美玲", want: "s-5"},
		{mention: "Wong", ambiguous: true},
		{mention: "Nobody", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.mention, func(t *testing.T) {
			got, err := javaapi.ResolveStudent(tt.mention, students)
			if tt.want != "" {
				if err != nil || got.StudentID != tt.want {
					t.Fatalf("resolved %q, %v; want %q", got.StudentID, err, tt.want)
				}
				return
			}
			ae := wantCode(t, err, apperr.EntityNotFound)
			nf := ae.Details.(javaapi.NotFound)
			if nf.Ambiguous != tt.ambiguous || len(nf.Suggestions) == 0 {
				t.Errorf("details = %+v", nf)
			}
		})
	}
}
