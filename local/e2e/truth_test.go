package e2e

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The page and the template report describe one class with one set of
// numbers: for every assignment of Form 1A, the page's breakdown and the
// report's knowledge base (grades.json, what the report cites) give the same
// median and pass rate, at the pass mark both name.
func TestPageAndReportAgree(t *testing.T) {
	s := NewLocal(t, nil)
	b := buildPage(t, s)
	var page struct {
		PassMark float64 `json:"passMark"`
		Groups   []struct {
			Label            string
			Median, PassRate float64
		}
	}
	if err := json.Unmarshal(b.res.ComputeResults["byAssignment"], &page); err != nil || len(page.Groups) == 0 {
		t.Fatalf("the page has no per-assignment breakdown: %v %s", err, b.res.ComputeResults["byAssignment"])
	}
	var grades struct {
		Assignments []struct {
			Title           string
			MedianPercent   float64 `json:"median_percent"`
			PassRate        float64 `json:"pass_rate"`
			PassMarkPercent float64 `json:"pass_mark_percent"`
		}
	}
	if code := GetJSON(t, s.TemplateBackendURL+"/api/knowledge-bases/class-hk-f1a/files/grades.json", &grades); code != 200 {
		t.Fatalf("grades.json: %d", code)
	}
	report := map[string]int{}
	for i, a := range grades.Assignments {
		report[a.Title] = i
	}
	for _, g := range page.Groups {
		i, ok := report[g.Label]
		if !ok {
			t.Errorf("the report has no assignment %q", g.Label)
			continue
		}
		a := grades.Assignments[i]
		if a.PassMarkPercent != page.PassMark {
			t.Errorf("%s: pass mark %g%% in the report, %g%% on the page", g.Label, a.PassMarkPercent, page.PassMark)
		}
		if round1(g.Median) != a.MedianPercent || round1(100*g.PassRate) != a.PassRate {
			t.Errorf("%s: page median %.1f%% pass rate %.1f%%, report %.1f%% and %.1f%%",
				g.Label, g.Median, 100*g.PassRate, a.MedianPercent, a.PassRate)
		}
	}
	if len(page.Groups) != len(grades.Assignments) {
		t.Errorf("the page shows %d assignments, the report %d", len(page.Groups), len(grades.Assignments))
	}
}

// A class that has no results in the subject asked about is analysed in
// its own subject, and the teacher is told so in the answer and by a
// SUBSTITUTED notice; a request in the class's own subject is not.
func TestSubjectSubstitutionIsSaid(t *testing.T) {
	s := NewLocal(t, nil)
	st := postStream(t, s.URL, `{"message":"分析 3C 班数学成绩","language":"zh-CN"}`)
	aiSDK(t, st.Raw)
	notices := st.data(t, "data-notice")
	if len(notices) != 1 || notices[0]["code"] != "SUBSTITUTED" || !strings.Contains(st.text(t), "没有数学科的成绩") ||
		!strings.Contains(st.text(t), "物理") {
		t.Errorf("the substitution is not said: notices %v, text %q", notices, st.text(t))
	}
	same := postStream(t, s.URL, `{"message":"分析 3C 班物理成绩","language":"zh-CN"}`)
	if n := same.data(t, "data-notice"); len(n) != 0 {
		t.Errorf("a notice for the class's own subject: %v", n)
	}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// A question back about an analysis request carries the entity ids, and
// the teacher's pick continues that request in its language: the page is
// planned for the picked class, not a new question answered in another
// language, and no raw hint is shown as the answer.
func TestClarifyContinuesTheRequest(t *testing.T) {
	s := NewLocal(t, nil)
	ask := postStream(t, s.URL, `{"message":"分析 9Z 班英语成绩"}`)
	clarify := ask.last(t, "data-clarify")["data"].(map[string]any)
	var value string
	for _, c := range clarify["choices"].([]any) {
		if ch := c.(map[string]any); ch["label"] != nil && strings.HasPrefix(ch["label"].(string), "Form 1A") {
			value, _ = ch["value"].(string)
		}
	}
	if value != "class-hk-f1a" {
		t.Fatalf("the choices carry no class id: %v", clarify)
	}
	conv := ask.last(t, "start")["messageMetadata"].(map[string]any)["conversationId"].(string)
	next := postStream(t, s.URL, `{"message":"`+value+`","conversationId":"`+conv+`"}`)
	aiSDK(t, next.Raw)
	bps := next.data(t, "data-blueprint")
	if len(bps) != 1 {
		t.Fatalf("the pick did not continue the analysis: %v\n%s", next.types(t), next.text(t))
	}
	raw, _ := json.Marshal(bps[0])
	if !strings.Contains(string(raw), `"value":"class-hk-f1a"`) || !strings.Contains(string(raw), `"sourcePrompt":"分析 9Z 班英语成绩"`) {
		t.Errorf("the plan is not the pending request for the picked class: %s", raw)
	}
	if txt := next.text(t); !strings.Contains(txt, "已为您规划页面") || strings.Contains(txt, "needClassId") {
		t.Errorf("the answer is not in the conversation's language, or shows the hint: %q", txt)
	}
}
