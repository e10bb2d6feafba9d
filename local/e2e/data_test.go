package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

// weakestInGrammar computes, straight from the mock's data set and not
// through the product, the students of a class ranked by their average
// grammar sub-score, weakest first.
func weakestInGrammar(classUID string) []string {
	ds := mockdata.Default()
	inClass := map[string]bool{}
	for _, st := range ds.Students {
		if st.ClassID == classUID {
			inClass[st.UID] = true
		}
	}
	sum, n, name := map[string]float64{}, map[string]float64{}, map[string]string{}
	for _, sub := range ds.Submissions {
		if inClass[sub.StudentID] && sub.Skills != nil {
			sum[sub.StudentID] += sub.Skills.Grammar
			n[sub.StudentID]++
			name[sub.StudentID] = sub.StudentName
		}
	}
	var ids []string
	for id := range sum {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return sum[ids[i]]/n[ids[i]] < sum[ids[j]]/n[ids[j]] })
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = name[id]
	}
	return out
}

func TestDataQuestions(t *testing.T) {
	s := NewLocal(t, nil)
	weakest := weakestInGrammar("class-hk-f1a")
	if len(weakest) < 30 {
		t.Fatalf("mock class 1A has %d students with grammar scores", len(weakest))
	}
	for _, msg := range []string{"which students in 1A are weakest in grammar?", "1A 班哪些学生语法最弱？"} {
		t.Run(msg, func(t *testing.T) {
			before := len(s.Java.Requests())
			st := postStream(t, s.URL, fmt.Sprintf(`{"message":%q}`, msg))
			want := []string{"start", "start-step", "data-tool-progress", "data-tool-progress", "finish-step",
				"start-step", "text-start", "text-delta+", "text-end", "finish-step", "finish", "[DONE]"}
			if types := st.types(t); st.Status != http.StatusOK || !slices.Equal(types, want) {
				t.Fatalf("turn: %d\n got %v\nwant %v", st.Status, types, want)
			}
			var tools []string
			for _, p := range st.data(t, "data-tool-progress") {
				if p["status"] != "running" {
					tools = append(tools, fmt.Sprint(p["tool"], ":", p["status"]))
				}
			}
			if !slices.Contains(tools, "analyze_student_weakness:success") {
				t.Fatalf("tools %v", tools)
			}
			answer := st.text(t)
			for _, name := range weakest[:3] {
				if !strings.Contains(answer, name) {
					t.Errorf("the answer does not name %s (one of the three weakest):\n%s", name, answer)
				}
			}
			if len(s.Java.Requests()) == before {
				t.Error("the answer did not come through the data service over HTTP")
			}
			aiSDK(t, st.Raw)
		})
	}
	t.Run("another teacher's class", func(t *testing.T) {
		st := postStream(t, s.URL, `{"message":"which students in 1A are weakest in grammar?"}`, "X-Teacher-Id", "t-002")
		for _, p := range st.data(t, "data-tool-progress") {
			if p["status"] == "success" && p["tool"] == "analyze_student_weakness" {
				t.Fatalf("t-002 read 1A: %v", p)
			}
		}
		if strings.Contains(st.text(t), weakest[0]) {
			t.Fatalf("another teacher's students leaked: %s", st.text(t))
		}
	})
}

func TestAmbiguousRequestEndsInClarify(t *testing.T) {
	s := NewLocal(t, nil)
	st := postStream(t, s.URL, `{"message":"make a worksheet for my class"}`)
	// clarify_needed comes from the agent after it looked at the classes;
	// the question is shown with its options once validated.
	want := []string{"start", "start-step", "data-tool-progress", "data-tool-progress", "finish-step",
		"start-step", "finish-step", "data-clarify", "finish", "[DONE]"}
	if types := st.types(t); !slices.Equal(types, want) {
		t.Fatalf("chunks\n got %v\nwant %v", types, want)
	}
	c := st.last(t, "data-clarify")["data"].(map[string]any)
	opts, _ := c["options"].([]any)
	if c["question"] == "" || len(opts) < 2 {
		t.Fatalf("clarify payload %v", c)
	}
	aiSDK(t, st.Raw)
}

// TestTraceIDReachesDataService: the X-Trace-ID of the teacher's request is
// the X-Trace-ID of every data-service call the turn makes.
func TestTraceIDReachesDataService(t *testing.T) {
	s := NewLocal(t, nil)
	st := postStream(t, s.URL, `{"message":"which students in 1A are weakest in grammar?"}`, "X-Trace-ID", "trace-e2e-42")
	if st.Header.Get("X-Trace-ID") != "trace-e2e-42" {
		t.Fatalf("response trace id %q", st.Header.Get("X-Trace-ID"))
	}
	reqs := s.Java.Requests()
	if len(reqs) == 0 {
		t.Fatal("no data-service request")
	}
	for _, r := range reqs {
		if r.TraceID != "trace-e2e-42" {
			t.Errorf("%s %s carried trace id %q", r.Method, r.Path, r.TraceID)
		}
		if !strings.HasPrefix(r.Authorization, "Bearer ") {
			t.Errorf("%s without the bearer token", r.Path)
		}
	}
}

// TestDataServiceDownFallsBackToMock: with the data service failing, the turn
// still answers from mock data (seed 004 §2.5.3) and says so in the logs.
func TestDataServiceDownFallsBackToMock(t *testing.T) {
	s := NewLocal(t, map[string]string{"JAVA_API_RETRY_BASE": "10ms"})
	s.Java.SetFault(mockserver.Fault{Status: http.StatusServiceUnavailable})
	st := postStream(t, s.URL, `{"message":"which students in 1A are weakest in grammar?"}`)
	if slices.Contains(st.types(t), "error") {
		t.Fatalf("turn failed: %v", st.types(t))
	}
	if !strings.Contains(st.text(t), weakestInGrammar("class-hk-f1a")[0]) {
		t.Fatalf("no answer from the fallback data: %s", st.text(t))
	}
	if !strings.Contains(s.Logs.String(), "falling back to mock") {
		t.Fatal("no 'falling back to mock' log line")
	}
}
