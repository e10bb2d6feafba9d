package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/javaapi/javaapitest/seedjava"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

// The tests below put the product in front of a Java data service written
// from seed 004 §2 alone (seedjava), with one defect at a time, and check
// what the teacher sees in the conversation stream, the JSON answer and the
// page. Figures are checked against a recomputation here, from the
// stand-in's own data, never against the product's output.

// newSeedLocal is the product over a seed stand-in with defects d.
func newSeedLocal(t *testing.T, d seedjava.Defects, env map[string]string) (Local, *seedjava.Server) {
	t.Helper()
	srv := seedjava.New()
	srv.SetDefects(d)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	e := map[string]string{"JAVA_API_BASE_URL": hs.URL, "JAVA_API_TOKEN": seedjava.Token, "JAVA_API_RETRY_BASE": "10ms"}
	for k, v := range env {
		e[k] = v
	}
	return NewLocal(t, e), srv
}

const seedTeacher = "t-100"

// reference3B recomputes 3B's figures from the stand-in's data under d:
// each student's mean percentage over the work that is graded and has a
// max score, then the class's mean, median and pass count (≥ 60), and the
// submissions left out.
type seedRef struct {
	perStudent         []float64
	mean, median       float64
	pass               int
	ungraded, unusable int
	latestMean         float64 // a-7001's mean raw score over graded work
}

func reference3B(d seedjava.Defects) seedRef {
	var ref seedRef
	var latest []float64
	for _, st := range seedjava.Students("class-4471") {
		var pcts []float64
		for _, a := range []string{"a-7001", "a-7002"} {
			score, max, ok := seedjava.Score(a, st, d)
			switch {
			case ok:
				pcts = append(pcts, score/max*100)
				if a == "a-7001" {
					latest = append(latest, score)
				}
			case max == 0:
				ref.unusable++
			default:
				ref.ungraded++
			}
		}
		if len(pcts) > 0 {
			sum := 0.0
			for _, p := range pcts {
				sum += p
			}
			ref.perStudent = append(ref.perStudent, sum/float64(len(pcts)))
		}
	}
	sort.Float64s(ref.perStudent)
	sum := 0.0
	for _, x := range ref.perStudent {
		sum += x
		if x >= 60 {
			ref.pass++
		}
	}
	n := len(ref.perStudent)
	ref.mean = sum / float64(n)
	ref.median = ref.perStudent[n/2]
	if n%2 == 0 {
		ref.median = (ref.perStudent[n/2-1] + ref.perStudent[n/2]) / 2
	}
	t := 0.0
	for _, x := range latest {
		t += x
	}
	ref.latestMean = t / float64(len(latest))
	return ref
}

// Ungraded work in the conversation stream: counted apart, never as 0, and
// the teacher is told.
func TestSeedServiceUngradedInStream(t *testing.T) {
	d := seedjava.Defects{Ungraded: true}
	s, srv := newSeedLocal(t, d, nil)
	st := postStream(t, s.URL, `{"message":"3B 班最近一次作业的成绩怎么样？"}`, "X-Teacher-Id", seedTeacher, "X-Trace-ID", "trace-seed-1")
	if slices.Contains(st.types(t), "error") {
		t.Fatalf("turn failed: %v", st.types(t))
	}
	ref := reference3B(d)
	var progress string
	for _, p := range st.data(t, "data-tool-progress") {
		if p["tool"] == "get_assignment_submissions" && p["status"] == "success" {
			progress = fmt.Sprint(p["message"])
		}
	}
	if !strings.Contains(progress, "2 份未评分") {
		t.Errorf("progress %q does not say that 2 are ungraded", progress)
	}
	notice := st.last(t, "data-notice")["data"].(map[string]any)
	if notice["code"] != "UNGRADED_WORK" || !strings.Contains(fmt.Sprint(notice["message"]), "2 份未评分") {
		t.Errorf("notice %v", notice)
	}
	text := st.text(t)
	wantMean := strings.TrimSuffix(strings.TrimSuffix(oneDecimal(ref.latestMean), "0"), ".")
	wrong := oneDecimal((ref.latestMean * 4) / 6) // the ungraded counted as 0
	if !strings.Contains(text, "平均分 **"+wantMean+"**") || strings.Contains(text, wrong) || !strings.Contains(text, "2 份未评分") {
		t.Errorf("answer (want mean %s over 4 graded, not %s):\n%s", wantMean, wrong, text)
	}
	for _, r := range srv.Requests() {
		if r.TraceID != "trace-seed-1" {
			t.Errorf("%s without the trace id", r.Path)
		}
	}
	aiSDK(t, st.Raw)
}

// Broken answers and outages read as what they are, in the JSON answer
// too: never "no classes", never another class "not found".
func TestSeedServiceFailuresInJSON(t *testing.T) {
	for _, tt := range []struct {
		name    string
		defects seedjava.Defects
		code    string
	}{
		{"malformed JSON", seedjava.Defects{Malformed: true}, "DATA_ERROR"},
		{`code as "200"`, seedjava.Defects{CodeAsString: true}, "DATA_ERROR"},
		{"down", seedjava.Defects{Down: true}, "SERVICE_UNAVAILABLE"},
		{"token expired", seedjava.Defects{ExpiredToken: true}, "SERVICE_UNAVAILABLE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newSeedLocal(t, tt.defects, nil)
			var resp struct {
				ChatResponse string           `json:"chatResponse"`
				Notices      []map[string]any `json:"notices"`
			}
			if code := PostJSON(t, s.URL+"/api/conversation", `{"message":"我有哪些班？"}`, &resp, "X-Teacher-Id", seedTeacher); code != 200 {
				t.Fatalf("status %d", code)
			}
			for _, bad := range []string{"暂时没有查到你名下的班级", "not found", "http://", "127.0.0.1", "/dify/", "AUTH_ERROR", "permission denied"} {
				if strings.Contains(resp.ChatResponse, bad) {
					t.Errorf("answer contains %q:\n%s", bad, resp.ChatResponse)
				}
			}
			want := map[string]string{"DATA_ERROR": "数据获取失败", "SERVICE_UNAVAILABLE": "数据服务暂时不可用"}[tt.code]
			if !strings.Contains(resp.ChatResponse, want) {
				t.Errorf("the answer does not say %q (%s):\n%s", want, tt.code, resp.ChatResponse)
			}
			if len(resp.Notices) != 0 {
				t.Errorf("notices %v for an answer with no data", resp.Notices)
			}
		})
	}
	t.Run("token expired, refresh token set", func(t *testing.T) {
		s, _ := newSeedLocal(t, seedjava.Defects{ExpiredToken: true}, map[string]string{"SPRING_BOOT_REFRESH_TOKEN": seedjava.RefreshToken})
		var resp struct {
			ChatResponse string `json:"chatResponse"`
		}
		PostJSON(t, s.URL+"/api/conversation", `{"message":"我有哪些班？"}`, &resp, "X-Teacher-Id", seedTeacher)
		if !strings.Contains(resp.ChatResponse, "3B") || !strings.Contains(resp.ChatResponse, "3D") {
			t.Errorf("after a refresh the classes are shown:\n%s", resp.ChatResponse)
		}
	})
}

// Sample data, where the fallback serves it, is marked to the model and to
// the teacher, in the stream and the JSON answer.
func TestMockDataIsMarked(t *testing.T) {
	s := NewLocal(t, map[string]string{"JAVA_API_RETRY_BASE": "10ms"})
	s.Java.SetFault(mockserver.Fault{Status: http.StatusServiceUnavailable})
	st := postStream(t, s.URL, `{"message":"我有哪些班？"}`)
	n := st.last(t, "data-notice")
	if n["id"] != "notice-MOCK_DATA" || n["data"].(map[string]any)["code"] != "MOCK_DATA" {
		t.Fatalf("notice %v", n)
	}
	if !strings.Contains(st.text(t), "示例数据") {
		t.Errorf("the answer does not say it is sample data:\n%s", st.text(t))
	}
	var resp struct {
		ChatResponse string `json:"chatResponse"`
		Notices      []struct{ Code, Message string }
	}
	PostJSON(t, s.URL+"/api/conversation", `{"message":"我有哪些班？"}`, &resp)
	if len(resp.Notices) != 1 || resp.Notices[0].Code != "MOCK_DATA" || !strings.Contains(resp.ChatResponse, "示例数据") {
		t.Errorf("JSON answer %+v", resp)
	}
	aiSDK(t, st.Raw)
}

// The page over the stand-in with ungraded work and a missing max score:
// the statistics leave both out, count them, and the page says so.
func TestSeedServicePageStatistics(t *testing.T) {
	d := seedjava.Defects{Ungraded: true, NoMaxScore: true}
	s, _ := newSeedLocal(t, d, nil)
	var plan struct {
		Action    string          `json:"action"`
		Blueprint json.RawMessage `json:"blueprint"`
	}
	if code := PostJSON(t, s.URL+"/api/conversation", `{"message":"分析 3B 班英语成绩","language":"zh-CN"}`, &plan, "X-Teacher-Id", seedTeacher); code != 200 || plan.Action != "build" {
		t.Fatalf("plan: %d %+v", code, plan)
	}
	st := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s,"context":{"teacherId":%q}}`, plan.Blueprint, seedTeacher),
		"X-Teacher-Id", seedTeacher)
	if got := pageTypes(t, st); got[len(got)-1] != "COMPLETE" {
		t.Fatalf("events %v", got)
	}
	ref := reference3B(d)
	res, page := completeOf(t, st)
	var stats struct {
		Count              int
		Mean, Median       float64
		PassCount          int
		Ungraded, Unusable int
	}
	if err := json.Unmarshal(res.ComputeResults["scoreStats"], &stats); err != nil {
		t.Fatalf("scoreStats: %v (%s)", err, res.ComputeResults["scoreStats"])
	}
	if stats.Count != len(ref.perStudent) || math.Abs(stats.Mean-ref.mean) > 1e-9 || math.Abs(stats.Median-ref.median) > 1e-9 ||
		stats.PassCount != ref.pass || stats.Ungraded != ref.ungraded || stats.Unusable != ref.unusable {
		t.Errorf("scoreStats %+v\nreference count %d mean %v median %v pass %d ungraded %d unusable %d",
			stats, len(ref.perStudent), ref.mean, ref.median, ref.pass, ref.ungraded, ref.unusable)
	}
	kpis := page.block(t, "kpis").Data
	if kpis[0].Value != oneDecimal(ref.mean)+"%" || !strings.Contains(kpis[3].Subtext, "2 份未评分") || !strings.Contains(kpis[3].Subtext, "1 份缺少满分") {
		t.Errorf("kpis %+v, reference mean %s", kpis, oneDecimal(ref.mean))
	}
	var meta struct {
		Meta struct {
			Notices []struct{ Code, Message string }
		}
	}
	_ = json.Unmarshal(res.Page, &meta)
	var codes []string
	for _, n := range meta.Meta.Notices {
		codes = append(codes, n.Code)
	}
	if !slices.Contains(codes, "UNGRADED_WORK") || !slices.Contains(codes, "INCOMPLETE_DATA") {
		t.Errorf("page notices %v", meta.Meta.Notices)
	}
	var phaseMsgs []string
	for _, e := range st.Events {
		if c := e.chunk(t); c["type"] == "PHASE" {
			phaseMsgs = append(phaseMsgs, fmt.Sprint(c["message"]))
		}
	}
	if !slices.ContainsFunc(phaseMsgs, func(m string) bool { return strings.Contains(m, "未评分") }) {
		t.Errorf("the stream does not tell the teacher: %v", phaseMsgs)
	}
}

// A partial outage never blends sample rows into a real page: the service
// answers the class, fails the submissions, and the page fails with a data
// error although the fallback has the same class.
func TestPartialOutageFailsThePage(t *testing.T) {
	s := NewLocal(t, map[string]string{"JAVA_API_RETRY_BASE": "10ms"})
	bp, _ := PlanViaConversation(t, s, "分析 1A 班英语成绩")
	s.Java.SetFault(mockserver.Fault{Status: http.StatusServiceUnavailable, Path: "/submissions/"})
	st := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s,"context":{"teacherId":"t-001"}}`, bp))
	got := pageTypes(t, st)
	if slices.Contains(got, "COMPLETE") {
		t.Fatalf("a page was built from blended data: %v", got)
	}
	if e := st.last(t, "ERROR"); e["code"] != "DATA_ERROR" {
		t.Errorf("ERROR %v", e)
	}
	if strings.Contains(s.Logs.String(), "falling back to mock") {
		t.Error("the build fell back to mock data")
	}
}

// The same page with the service down everywhere is built from sample data
// and says so, in the stream and on the page.
func TestMockPageIsMarked(t *testing.T) {
	s := NewLocal(t, map[string]string{"JAVA_API_RETRY_BASE": "10ms"})
	bp, _ := PlanViaConversation(t, s, "分析 1A 班英语成绩")
	s.Java.SetFault(mockserver.Fault{Status: http.StatusServiceUnavailable})
	st := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s,"context":{"teacherId":"t-001"}}`, bp))
	got := pageTypes(t, st)
	if got[len(got)-1] != "COMPLETE" {
		t.Fatalf("events %v", got)
	}
	res, _ := completeOf(t, st)
	var meta struct {
		Meta struct {
			Notices []struct{ Code, Message string }
		}
	}
	_ = json.Unmarshal(res.Page, &meta)
	if len(meta.Meta.Notices) == 0 || meta.Meta.Notices[0].Code != "MOCK_DATA" {
		t.Errorf("page notices %v", meta.Meta.Notices)
	}
	marked := false
	for _, e := range st.Events {
		if c := e.chunk(t); c["type"] == "PHASE" && strings.Contains(fmt.Sprint(c["message"]), "示例数据") {
			marked = true
		}
	}
	if !marked {
		t.Error("the page stream does not say the data is sample data")
	}
}

// Records missing required fields reach the teacher as incomplete, never
// as defaults ("0 名学生", "「」").
func TestSeedServiceIncompleteRecords(t *testing.T) {
	s, _ := newSeedLocal(t, seedjava.Defects{ClassFieldsMissing: true, NamelessStudent: true}, nil)
	var resp struct {
		ChatResponse string
		Notices      []struct{ Code, Message string }
	}
	PostJSON(t, s.URL+"/api/conversation", `{"message":"我有哪些班？"}`, &resp, "X-Teacher-Id", seedTeacher)
	if strings.Contains(resp.ChatResponse, "0 名学生") || !strings.Contains(resp.ChatResponse, "学生人数未知") {
		t.Errorf("3B's unknown student count:\n%s", resp.ChatResponse)
	}
	if len(resp.Notices) != 1 || resp.Notices[0].Code != "INCOMPLETE_DATA" || !strings.Contains(resp.Notices[0].Message, "学生人数") ||
		!strings.Contains(resp.Notices[0].Message, "1 条记录无法使用") {
		t.Errorf("notices %+v", resp.Notices)
	}
	st := postStream(t, s.URL, `{"message":"3B 班有哪些学生？"}`, "X-Teacher-Id", seedTeacher)
	text := st.text(t)
	if strings.Contains(text, "「」") || strings.Contains(text, "、、") || !strings.Contains(text, "Chan Tai Man") {
		t.Errorf("roster with a nameless student:\n%s", text)
	}
	if n := st.last(t, "data-notice")["data"].(map[string]any); n["code"] != "INCOMPLETE_DATA" || !strings.Contains(fmt.Sprint(n["message"]), "学生姓名") {
		t.Errorf("notice %v", n)
	}
	aiSDK(t, st.Raw)
}

// /api/health proves that the service answers and takes the token, asking
// JAVA_API_HEALTH_PATH; without one it reports "configured" and calls
// nothing. Never, in any case, does a probe ask as a teacher (issue 28:
// the old probe's teacher health-check was a forbidden request in the
// service's logs).
func TestSeedServiceHealth(t *testing.T) {
	for _, tt := range []struct {
		name     string
		defects  seedjava.Defects
		path     string
		code     int
		status   string
		requests int
	}{
		{"up", seedjava.Defects{}, seedjava.HealthPath, 200, "ok", 1},
		{"down", seedjava.Defects{Down: true}, seedjava.HealthPath, 503, "down", 1},
		{"token refused", seedjava.Defects{ExpiredToken: true}, seedjava.HealthPath, 503, "unauthorized", 1},
		{"no health path", seedjava.Defects{Down: true}, "", 200, "configured", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, srv := newSeedLocal(t, tt.defects, map[string]string{"JAVA_API_HEALTH_PATH": tt.path})
			before := len(srv.Requests())
			var h struct {
				Status       string
				Dependencies map[string]map[string]string
			}
			req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/health", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			_ = json.NewDecoder(resp.Body).Decode(&h)
			ds := h.Dependencies["dataService"]
			healthy := tt.code == 200
			if resp.StatusCode != tt.code || healthy && ds["status"] != tt.status ||
				!healthy && (ds["status"] != "error" || !strings.HasPrefix(ds["detail"], tt.status)) {
				t.Errorf("health %d %+v, want %d %s", resp.StatusCode, h, tt.code, tt.status)
			}
			if strings.Contains(ds["detail"], "127.0.0.1") {
				t.Errorf("health detail names the service: %s", ds["detail"])
			}
			probes := srv.Requests()[before:]
			if len(probes) != tt.requests {
				t.Errorf("the probe made %d requests %v, want %d", len(probes), probes, tt.requests)
			}
			for _, r := range probes {
				if strings.Contains(r.Path, "/teacher/") || r.Path != tt.path {
					t.Errorf("the probe asked %s, want only %q (no teacher)", r.Path, tt.path)
				}
			}
		})
	}
}
