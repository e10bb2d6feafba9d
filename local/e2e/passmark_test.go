package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/report/vfs"
)

// issue 23: one pass mark per school, set by an operator without a deploy.

// pageAt builds the page of Form 1A for the teacher of headers from a
// blueprint whose nodes set no pass mark, and returns its per-assignment
// breakdown's pass mark and pass rates.
func pageAt(t *testing.T, s Local, headers ...string) (float64, map[string]float64) {
	t.Helper()
	code, a := askJSON(t, s, `{"message":"分析 1A 班英语成绩","language":"zh-CN"}`, headers...)
	if code != http.StatusOK || a.Action != "build" {
		t.Fatalf("plan: %d %+v", code, a)
	}
	var bp map[string]any
	if err := json.Unmarshal(a.Blueprint, &bp); err != nil {
		t.Fatal(err)
	}
	for _, n := range bp["computeGraph"].(map[string]any)["nodes"].([]any) {
		delete(n.(map[string]any), "passMark") // the school's mark applies where a node sets none
	}
	raw, _ := json.Marshal(bp)
	res, _ := completeOf(t, postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, raw), headers...))
	var by struct {
		PassMark float64 `json:"passMark"`
		Groups   []struct {
			Label    string
			PassRate float64
		}
	}
	if err := json.Unmarshal(res.ComputeResults["byAssignment"], &by); err != nil || len(by.Groups) == 0 {
		t.Fatalf("no per-assignment breakdown: %v %s", err, res.ComputeResults["byAssignment"])
	}
	rates := map[string]float64{}
	for _, g := range by.Groups {
		rates[g.Label] = g.PassRate
	}
	return by.PassMark, rates
}

// TestPageAndReportAgreeAtSchoolPassMark: an operator sets school s-50's
// pass mark to 50 (the limits' admin route, with no LIMIT_* set); the
// teacher, as one of s-50, gets the page's pass rates at 50 % and the
// template report's data (its knowledge base's grades.json, what the report
// cites) at the same mark with the same rates; without a school claim the
// page is at 60 %; each names the mark it used.
func TestPageAndReportAgreeAtSchoolPassMark(t *testing.T) {
	s := NewLocal(t, templateEnv())
	resp := send(t, http.MethodPut, s.URL+"/api/admin/limits/school/s-50", strings.NewReader(`{"limit":"passMark","value":50}`),
		[]string{"X-Role", "operator", "Content-Type", "application/json"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the operator's setting: %d", resp.StatusCode)
	}
	for _, bad := range []string{`{"limit":"passMark","value":0}`, `{"limit":"passMark","value":101}`} {
		resp := send(t, http.MethodPut, s.URL+"/api/admin/limits/school/s-50", strings.NewReader(bad), []string{"X-Role", "operator"})
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, resp.StatusCode)
		}
	}

	// The mock school's classes are t-001's: first as a teacher of s-50,
	// then without a school claim (their own school, the default).
	mark50, at50 := pageAt(t, s, "X-School-Id", "s-50")
	reportMark, reportRates := reportAt(t, s, http.Header{"X-School-Id": {"s-50"}})
	if reportMark != 50 {
		t.Errorf("the report's data at %v %%, want 50", reportMark)
	}
	for title, r := range at50 {
		if got, ok := reportRates[title]; !ok || got != round1(100*r) {
			t.Errorf("%s: page %.1f %% at 50, report %.1f %%", title, 100*r, got)
		}
	}
	mark60, at60 := pageAt(t, s)
	if mark50 != 50 || mark60 != 60 {
		t.Fatalf("pass marks %v and %v, want 50 for s-50 and 60 without a school", mark50, mark60)
	}
	higher := 0
	for title, r := range at60 {
		if at50[title] < r {
			t.Errorf("%s: %.3f at 50 %% below %.3f at 60 %%", title, at50[title], r)
		}
		if at50[title] > r {
			higher++
		}
	}
	if higher == 0 {
		t.Errorf("no pass rate differs between 50 %% and 60 %%: %v %v", at50, at60)
	}
}

// reportAt plans a template report of Form 1A on the socket as the caller
// of header and returns the pass mark and pass rates (percent) of the data
// it loaded (datasets/grades.json in its VFS).
func reportAt(t *testing.T, s Local, header http.Header) (float64, map[string]float64) {
	t.Helper()
	c := dialTemplate(t, wsURL(s), header)
	sid, _, _ := planned(t, c, "请基于指定模版与知识库生成报告")
	f, err := vfs.Open(s.Files, "t-001", sid)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := f.Read(context.Background(), "datasets/grades.json")
	if err != nil {
		t.Fatal(err)
	}
	var grades struct {
		Assignments []struct {
			Title           string
			PassRate        float64 `json:"pass_rate"`
			PassMarkPercent float64 `json:"pass_mark_percent"`
		}
	}
	if err := json.Unmarshal(raw, &grades); err != nil || len(grades.Assignments) == 0 {
		t.Fatalf("grades.json: %v %s", err, raw)
	}
	rates := map[string]float64{}
	mark := grades.Assignments[0].PassMarkPercent
	for _, a := range grades.Assignments {
		rates[a.Title] = a.PassRate
		if a.PassMarkPercent != mark {
			t.Errorf("%s at %v %%, another row at %v %%", a.Title, a.PassMarkPercent, mark)
		}
	}
	return mark, rates
}
