package mockdata_test

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/insightedge/insightedge/shared/golden"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestDeterministic(t *testing.T) {
	a, b := mockdata.Default(), mockdata.Default()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generations with the same seed differ")
	}
	if reflect.DeepEqual(a.Submissions, mockdata.Generate(1).Submissions) {
		t.Fatal("another seed gave the same scores")
	}
}

// TestSummaryGolden pins the data set that tests, demos and the offline
// model rely on: a readable summary plus a digest of everything.
func TestSummaryGolden(t *testing.T) {
	d := mockdata.Default()
	type classSummary struct {
		UID, Name, Subject, Teacher string
		Students                    int
		FirstStudents               []string
		Assignments                 []string
		MeanScores                  []float64
	}
	var sum struct {
		Classes []classSummary
		Digest  string
	}
	for _, c := range d.Classes {
		cs := classSummary{UID: c.UID, Name: c.Name, Subject: c.Subject, Teacher: c.TeacherID, Students: c.StudentCount}
		for _, s := range d.StudentsOf(c.UID)[:3] {
			cs.FirstStudents = append(cs.FirstStudents, s.UID+" "+s.Name)
		}
		for _, a := range d.AssignmentsOf(c.UID) {
			cs.Assignments = append(cs.Assignments, fmt.Sprintf("%s %s (/%g)", a.UID, a.Title, a.MaxScore))
			total := 0.0
			subs := d.SubmissionsOf(a.UID)
			for _, s := range subs {
				total += s.Score
			}
			cs.MeanScores = append(cs.MeanScores, math.Round(total/float64(len(subs))*10)/10)
		}
		sum.Classes = append(sum.Classes, cs)
	}
	all, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	pats, _ := json.Marshal(d.ErrorPatterns)
	sum.Digest = fmt.Sprintf("%x", sha256.Sum256(append(all, pats...)))
	got, _ := json.MarshalIndent(sum, "", "  ")
	// A change here is a change of the mock data set: if on purpose, run
	// with -update and tell the offline model's owner.
	golden.Check(t, filepath.Join("testdata", "summary.json"), got, *update)
}

func TestInvariants(t *testing.T) {
	d := mockdata.Default()
	ids := map[string]bool{}
	unique := func(id string) {
		t.Helper()
		if id == "" || ids[id] {
			t.Errorf("id %q empty or repeated", id)
		}
		ids[id] = true
	}
	for _, c := range d.Classes {
		unique(c.UID)
		students := d.StudentsOf(c.UID)
		if len(students) != c.StudentCount || c.StudentCount < 30 || c.StudentCount > 40 {
			t.Errorf("%s: %d students, student_count %d", c.UID, len(students), c.StudentCount)
		}
		names := map[string]bool{}
		for _, s := range students {
			unique(s.UID)
			if names[s.Name] {
				t.Errorf("%s: two students named %q", c.UID, s.Name)
			}
			names[s.Name] = true
		}
		as := d.AssignmentsOf(c.UID)
		if len(as) < 3 {
			t.Errorf("%s: %d assignments", c.UID, len(as))
		}
		for _, a := range as {
			unique(a.UID)
			subs := d.SubmissionsOf(a.UID)
			if len(subs) != len(students) {
				t.Errorf("%s: %d submissions for %d students", a.UID, len(subs), len(students))
			}
			for _, s := range subs {
				if s.Score < 0 || s.Score > s.MaxScore || s.MaxScore != a.MaxScore || s.Feedback == "" || s.SubmittedAt == "" {
					t.Errorf("%s/%s: bad submission %+v", a.UID, s.StudentID, s)
				}
				if (c.Subject == "English") != (s.Skills != nil) {
					t.Errorf("%s/%s: skills %v for subject %s", a.UID, s.StudentID, s.Skills, c.Subject)
				}
			}
		}
		for _, s := range students {
			if len(d.ErrorPatternsOf(s.UID)) > 5 {
				t.Errorf("%s: more than 5 error patterns", s.UID)
			}
		}
	}
	// The classes the brief and the demos name.
	mine := map[string]string{}
	for _, c := range d.ClassesOf("t-001") {
		mine[c.UID] = c.Name + "/" + c.Subject
	}
	if mine["class-hk-f1a"] != "Form 1A/English" || mine["class-hk-f1b"] != "Form 1B/English" || mine["class-hk-f3c"] != "Form 3C/Physics" {
		t.Errorf("t-001 owns %v", mine)
	}
	if c, _ := d.Class("class-hk-f1a"); c.StudentCount != 35 {
		t.Errorf("Form 1A has %d students, want 35", c.StudentCount)
	}
	if len(d.ClassesOf("t-002")) == 0 || len(d.ClassesOf("t-404")) != 0 {
		t.Error("teacher scoping of classes is wrong")
	}
}

func TestSearchDocuments(t *testing.T) {
	d := mockdata.Default()
	tests := []struct {
		teacher, query string
		wantFirst      string
		wantN          int
	}{
		{"t-001", "pendulum", "d-006", 1},
		{"t-001", "PENDULUM", "d-006", 1},
		{"t-001", "複習", "d-005", 1},
		{"t-001", "nothing-like-this", "", 0},
		{"t-002", "pendulum", "", 0},
		{"t-001", "", "d-005", 6}, // most recent first
	}
	for _, tt := range tests {
		t.Run(tt.teacher+"/"+tt.query, func(t *testing.T) {
			hits := d.SearchDocuments(tt.teacher, tt.query)
			if len(hits) != tt.wantN || (tt.wantN > 0 && hits[0].UID != tt.wantFirst) {
				t.Fatalf("hits = %+v", hits)
			}
			for _, h := range hits {
				if h.Snippet == "" || len([]rune(h.Snippet)) > 122 {
					t.Errorf("snippet %q", h.Snippet)
				}
			}
		})
	}
}
