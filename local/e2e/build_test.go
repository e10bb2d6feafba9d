package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/asl"
	"github.com/insightedge/insightedge/local/server"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The Build runtime end to end, over real HTTP: the conversation plans a
// blueprint, /api/page/generate streams the page, /api/page/patch changes
// it, saved apps are replayed by the local scheduler.

// classRef is the reference for a mock class, computed here from the mock
// data set with plain arithmetic, not by the code under test: each
// student's mean percentage over the class's assignments, sorted.
type classRef struct {
	perStudent  []float64 // ascending
	names       map[float64]string
	mean        float64
	median      float64
	std         float64 // population
	passCount   int     // ≥ 60 %
	binCounts   []int   // 0–59, 60–69, 70–79, 80–89, 90–100
	assignments []struct {
		title string
		mean  float64
	}
}

func referenceFor(classUID string) classRef {
	ds := mockdata.Default()
	sum, n := map[string]float64{}, map[string]int{}
	name := map[string]string{}
	var ref classRef
	for _, a := range ds.Assignments {
		if a.ClassID != classUID {
			continue
		}
		total, count := 0.0, 0
		for _, s := range ds.Submissions {
			if s.AssignmentID != a.UID {
				continue
			}
			p := s.Score / s.MaxScore * 100
			sum[s.StudentID] += p
			n[s.StudentID]++
			name[s.StudentID] = s.StudentName
			total += p
			count++
		}
		ref.assignments = append(ref.assignments, struct {
			title string
			mean  float64
		}{a.Title, total / float64(count)})
	}
	ref.names = map[float64]string{}
	for id := range sum {
		v := sum[id] / float64(n[id])
		ref.perStudent = append(ref.perStudent, v)
		ref.names[v] = name[id]
	}
	sort.Float64s(ref.perStudent)
	xs := ref.perStudent
	total := 0.0
	for _, x := range xs {
		total += x
	}
	ref.mean = total / float64(len(xs))
	if len(xs)%2 == 1 {
		ref.median = xs[len(xs)/2]
	} else {
		ref.median = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - ref.mean) * (x - ref.mean)
	}
	ref.std = math.Sqrt(ss / float64(len(xs)))
	ref.binCounts = make([]int, 5)
	for _, x := range xs {
		if x >= 60 {
			ref.passCount++
		}
		switch {
		case x < 60:
			ref.binCounts[0]++
		case x < 70:
			ref.binCounts[1]++
		case x < 80:
			ref.binCounts[2]++
		case x < 90:
			ref.binCounts[3]++
		default:
			ref.binCounts[4]++
		}
	}
	return ref
}

// oneDecimal is how the page shows a number.
func oneDecimal(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', 1, 64) }

func postSSE(t *testing.T, url, body string, headers ...string) stream {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return do(t, req)
}

// pageTypes returns the event types with consecutive SLOT_DELTAs folded
// into "SLOT_DELTA+" (how many there are depends on coalescing timing).
func pageTypes(t *testing.T, st stream) []string { return st.folded(t, "SLOT_DELTA") }

type builtPage struct {
	Meta struct {
		PageTitle, DataSource, GeneratedAt string
	}
	Layout string
	Tabs   []struct {
		ID     string
		Blocks []pageBlock
	}
}

type pageBlock struct {
	ID, Type, Title, Variant, Content, Caption string
	Data                                       []struct{ Label, Value, Status, Subtext string }
	XAxis                                      []string
	Series                                     []struct {
		Name string
		Data []float64
	}
	Headers []string
	Rows    []struct {
		Cells  []any
		Status string
	}
	Items []struct{ Title, Description, Priority string }
}

type pageResult struct {
	Page           json.RawMessage            `json:"page"`
	DataContext    map[string]json.RawMessage `json:"dataContext"`
	ComputeResults map[string]json.RawMessage `json:"computeResults"`
}

func (p builtPage) block(t *testing.T, id string) pageBlock {
	t.Helper()
	for _, tab := range p.Tabs {
		for _, bl := range tab.Blocks {
			if bl.ID == id {
				return bl
			}
		}
	}
	t.Fatalf("the page has no block %q", id)
	return pageBlock{}
}

// completeOf decodes the stream's COMPLETE event.
func completeOf(t *testing.T, st stream) (pageResult, builtPage) {
	t.Helper()
	var c struct {
		Message  string     `json:"message"`
		Progress int        `json:"progress"`
		Result   pageResult `json:"result"`
	}
	for _, e := range st.Events {
		if e.typ(t) == "COMPLETE" {
			if err := json.Unmarshal([]byte(e.Data), &c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if c.Progress != 100 || c.Message == "" {
		t.Errorf("COMPLETE %+v", c)
	}
	var p builtPage
	if err := json.Unmarshal(c.Result.Page, &p); err != nil {
		t.Fatal(err)
	}
	return c.Result, p
}

func TestPageStreamEndToEnd(t *testing.T) {
	s := NewLocal(t, nil)
	bp, ents := PlanViaConversation(t, s, "分析 1A 班英语成绩")
	if len(ents) != 1 || ents[0]["entityId"] != "class-hk-f1a" || ents[0]["mention"] != "1A" || ents[0]["entityType"] != "class" {
		t.Fatalf("resolvedEntities %v", ents)
	}
	var plan struct {
		DataContract struct {
			Inputs []struct{ ID, Value string }
		} `json:"dataContract"`
		UIComposition struct {
			Tabs []struct {
				Blocks []struct {
					ID    string
					Slots []struct{ Key string }
				}
			}
		} `json:"uiComposition"`
	}
	if err := json.Unmarshal(bp, &plan); err != nil || plan.DataContract.Inputs[0].Value != "class-hk-f1a" {
		t.Fatalf("the planned class input is not resolved: %s", bp)
	}
	before := s.Java.RequestCount()
	st := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s,"context":{"teacherId":"t-001"}}`, bp))
	if st.Status != 200 || st.Header.Get("Content-Type") != "text/event-stream" || st.Header.Get("X-Build-Id") == "" {
		t.Fatalf("status %d headers %v: %s", st.Status, st.Header, st.Raw)
	}
	st.checkIDs(t, 0)

	// The exact order: the data phase (the class, then each of its four
	// assignments), compute, compose block by block, COMPLETE last.
	want := []string{"PHASE", "TOOL_CALL", "TOOL_RESULT"}
	for range 4 {
		want = append(want, "TOOL_CALL", "TOOL_RESULT")
	}
	want = append(want, "PHASE", "PHASE")
	var blockIDs []string
	for _, tab := range plan.UIComposition.Tabs {
		for _, b := range tab.Blocks {
			blockIDs = append(blockIDs, b.ID)
			want = append(want, "BLOCK_START")
			for range b.Slots {
				want = append(want, "SLOT_DELTA+")
			}
			want = append(want, "BLOCK_COMPLETE")
		}
	}
	want = append(want, "COMPLETE")
	if got := pageTypes(t, st); !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	var phases, tools, started, completed []string
	for _, e := range st.Events {
		c := e.chunk(t)
		switch c["type"] {
		case "PHASE":
			phases = append(phases, c["phase"].(string))
		case "TOOL_CALL":
			tools = append(tools, c["tool"].(string))
		case "TOOL_RESULT":
			if c["status"] != "success" {
				t.Errorf("tool result %v", c)
			}
		case "BLOCK_START":
			started = append(started, c["blockId"].(string))
		case "BLOCK_COMPLETE":
			completed = append(completed, c["blockId"].(string))
		}
	}
	if !slices.Equal(phases, []string{"data", "compute", "compose"}) || tools[0] != "get_class_detail" ||
		!slices.Equal(started, blockIDs) || !slices.Equal(completed, blockIDs) {
		t.Errorf("phases %v tools %v started %v completed %v", phases, tools, started, completed)
	}
	if s.Java.RequestCount() == before {
		t.Error("the data phase made no request to the mock data service")
	}

	res, page := completeOf(t, st)
	ref := referenceFor("class-hk-f1a")
	if page.Meta.PageTitle == "" || page.Meta.DataSource != "Form 1A · English" || len(res.DataContext) != 2 {
		t.Errorf("meta %+v, dataContext %d", page.Meta, len(res.DataContext))
	}
	// The numbers on the page are the reference's.
	kpis := page.block(t, "kpis").Data
	if len(kpis) != 4 || kpis[0].Value != oneDecimal(ref.mean)+"%" || kpis[0].Subtext != "中位数 "+oneDecimal(ref.median)+"%" ||
		kpis[1].Value != oneDecimal(float64(ref.passCount)/float64(len(ref.perStudent))*100)+"%" ||
		kpis[2].Value != oneDecimal(ref.perStudent[len(ref.perStudent)-1])+"% / "+oneDecimal(ref.perStudent[0])+"%" ||
		kpis[2].Subtext != "标准差 "+oneDecimal(ref.std) || kpis[3].Value != strconv.Itoa(len(ref.perStudent)) {
		t.Errorf("kpis %+v\nreference mean %v median %v pass %d/%d std %v", kpis, ref.mean, ref.median, ref.passCount, len(ref.perStudent), ref.std)
	}
	var stats struct{ Mean, Median, StdDev, PassRate float64 }
	_ = json.Unmarshal(res.ComputeResults["scoreStats"], &stats)
	if math.Abs(stats.Mean-ref.mean) > 1e-9 || math.Abs(stats.Median-ref.median) > 1e-9 || math.Abs(stats.StdDev-ref.std) > 1e-9 {
		t.Errorf("computeResults.scoreStats %+v", stats)
	}
	dist := page.block(t, "distribution")
	for i, c := range ref.binCounts {
		if int(dist.Series[0].Data[i]) != c {
			t.Errorf("bin %s: %v, want %d", dist.XAxis[i], dist.Series[0].Data[i], c)
		}
	}
	table := page.block(t, "assignmentTable")
	for i, a := range ref.assignments {
		if table.Rows[i].Cells[0] != a.title || oneDecimal(table.Rows[i].Cells[2].(float64)) != oneDecimal(a.mean) {
			t.Errorf("assignment row %v, want %s %s", table.Rows[i].Cells, a.title, oneDecimal(a.mean))
		}
	}
	rank := page.block(t, "ranking")
	best := ref.perStudent[len(ref.perStudent)-1]
	if rank.Rows[0].Cells[1] != ref.names[best] || oneDecimal(rank.Rows[0].Cells[2].(float64)) != oneDecimal(best) {
		t.Errorf("top of the ranking %v, want %s %s", rank.Rows[0].Cells, ref.names[best], oneDecimal(best))
	}
	// The written text is what was streamed, and quotes the numbers.
	streamed := map[string]string{}
	for _, e := range st.Events {
		if c := e.chunk(t); c["type"] == "SLOT_DELTA" {
			streamed[c["blockId"].(string)+"/"+c["slotKey"].(string)] += c["deltaText"].(string)
		}
	}
	if summary := page.block(t, "summary").Content; summary != streamed["summary/content"] || !strings.Contains(summary, oneDecimal(ref.mean)+"%") {
		t.Errorf("summary %q (streamed %q) should quote the mean %s%%", summary, streamed["summary/content"], oneDecimal(ref.mean))
	}
	if items := page.block(t, "actions").Items; len(items) < 3 || items[0].Priority != "high" {
		t.Errorf("suggestions %+v", items)
	}
	if s.Offline != nil && len(requests(s, "writer")) != len(streamed) {
		t.Errorf("%d writer calls for %d slots", len(requests(s, "writer")), len(streamed))
	}

	// Resume: the same events after a given id.
	buildID := st.Header.Get("X-Build-Id")
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/page/"+buildID+"/stream", nil)
	req.Header.Set("Last-Event-ID", "3")
	again := do(t, req)
	if again.Status != 200 || len(again.Events) != len(st.Events)-3 || again.Events[0].ID != 4 || again.Events[0].Data != st.Events[3].Data {
		t.Errorf("resume after 3: %d events from id %v", len(again.Events), again.Events)
	}
	req, _ = http.NewRequest(http.MethodGet, s.URL+"/api/page/"+buildID+"/stream", nil)
	req.Header.Set("X-Teacher-Id", "t-002")
	if other := do(t, req); other.Status != 404 {
		t.Errorf("another teacher's build: %d", other.Status)
	}

	t.Run("patch reuses the data", func(t *testing.T) {
		before := s.Java.RequestCount()
		plan := `{"scope":"patch","instructions":[{"op":"recompose","blockId":"summary","prompt":"更简短一些"},` +
			`{"op":"restyle","blockId":"distribution","variant":"line"}]}`
		body := fmt.Sprintf(`{"blueprint":%s,"page":%s,"dataContext":%s,"computeResults":%s,"patchPlan":%s}`,
			bp, res.Page, mustJSON(t, res.DataContext), mustJSON(t, res.ComputeResults), plan)
		pt := postSSE(t, s.URL+"/api/page/patch", body)
		want := []string{"PHASE", "BLOCK_START", "BLOCK_COMPLETE", "BLOCK_START", "SLOT_DELTA+", "BLOCK_COMPLETE", "COMPLETE"}
		if got := pageTypes(t, pt); pt.Status != 200 || !slices.Equal(got, want) || pt.Header.Get("X-Build-Mode") != "patch" {
			t.Fatalf("patch %d %s\n got %v\nwant %v", pt.Status, pt.Header.Get("X-Build-Mode"), got, want)
		}
		pt.checkIDs(t, 0)
		if n := s.Java.RequestCount() - before; n != 0 {
			t.Errorf("the mock data service saw %d requests during the patch", n)
		}
		pres, ppage := completeOf(t, pt)
		if d := ppage.block(t, "distribution"); d.Variant != "line" || len(d.Series) != 1 {
			t.Errorf("restyle: %+v", d)
		}
		if sum := ppage.block(t, "summary").Content; sum == page.block(t, "summary").Content || len(sum) >= len(page.block(t, "summary").Content) {
			t.Errorf("recomposed summary %q", sum)
		}
		var was, is any
		_ = json.Unmarshal(res.ComputeResults["scoreStats"], &was)
		_ = json.Unmarshal(pres.ComputeResults["scoreStats"], &is)
		if !reflect.DeepEqual(was, is) || ppage.block(t, "kpis").Data[0] != page.block(t, "kpis").Data[0] {
			t.Errorf("a patch must keep the data and the untouched blocks: %v / %v", is, was)
		}
		// A structural change is a rebuild: the data service is asked again.
		body = strings.Replace(body, `"scope":"patch"`, `"scope":"rebuild"`, 1)
		rb := postSSE(t, s.URL+"/api/page/patch", body)
		if rb.Header.Get("X-Build-Mode") != "build" || pageTypes(t, rb)[1] != "TOOL_CALL" || s.Java.RequestCount() == before {
			t.Errorf("rebuild: mode %q, events %v", rb.Header.Get("X-Build-Mode"), pageTypes(t, rb))
		}
	})
}

func TestPageErrors(t *testing.T) {
	s := NewLocal(t, nil)
	bp, _ := PlanViaConversation(t, s, "分析 1A 班英语成绩")

	t.Run("unknown class", func(t *testing.T) {
		st := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s,"context":{"classId":"1X"}}`, bp))
		// DATA_ERROR is terminal: no ERROR (a toast) after its dialog.
		if got := pageTypes(t, st); st.Status != 200 || !slices.Equal(got, []string{"PHASE", "TOOL_CALL", "TOOL_RESULT", "DATA_ERROR"}) {
			t.Fatalf("%d %v", st.Status, got)
		}
		de := st.last(t, "DATA_ERROR")
		sugg, _ := de["suggestions"].([]any)
		if de["entity"] != "1X" || de["entityType"] != "class" || len(sugg) == 0 {
			t.Errorf("DATA_ERROR %v", de)
		}
		if first, _ := sugg[0].(map[string]any); !strings.HasPrefix(fmt.Sprint(first["value"]), "class-hk-") || first["label"] == "" {
			t.Errorf("suggestion %v", sugg[0])
		}
	})

	bad := []struct {
		name, body string
		status     int
		code       string
	}{
		{"malformed blueprint", `{"blueprint":{"name":`, 400, "VALIDATION_ERROR"},
		{"no blueprint", `{"context":{}}`, 422, "BLUEPRINT_ERROR"},
		{"unknown field", `{"blueprint":{"name":"x","colour":"red"}}`, 422, "BLUEPRINT_ERROR"},
		{"unknown component", fmt.Sprintf(`{"blueprint":%s}`, strings.Replace(string(bp), `"kpi_grid"`, `"iframe"`, 1)), 422, "BLUEPRINT_ERROR"},
		{"unknown tool", fmt.Sprintf(`{"blueprint":%s}`, strings.Replace(string(bp), `"get_class_detail"`, `"drop_database"`, 1)), 422, "BLUEPRINT_ERROR"},
		{"missing input", fmt.Sprintf(`{"blueprint":%s}`, strings.Replace(string(bp), `"value":"class-hk-f1a"`, `"value":""`, 1)), 400, "VALIDATION_ERROR"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			var body map[string]map[string]any
			code := PostJSON(t, s.URL+"/api/page/generate", c.body, &body)
			if code != c.status || body["error"]["code"] != c.code || body["error"]["message"] == "" {
				t.Errorf("%d %v, want %d %s", code, body, c.status, c.code)
			}
		})
	}
	t.Run("bad patch plan", func(t *testing.T) {
		var body map[string]map[string]any
		code := PostJSON(t, s.URL+"/api/page/patch", fmt.Sprintf(`{"blueprint":%s,"patchPlan":{"scope":"patch","instructions":[{"op":"explode","blockId":"kpis"}]}}`, bp), &body)
		if code != 422 || body["error"]["code"] != "BLUEPRINT_ERROR" {
			t.Errorf("%d %v", code, body)
		}
	})
	t.Run("workflow generate", func(t *testing.T) {
		var got map[string]any
		if code := PostJSON(t, s.URL+"/api/workflow/generate", `{"message":"分析 1A 班英语成绩"}`, &got); code != 200 || got["dataContract"] == nil {
			t.Fatalf("%d %v", code, got)
		}
		var body map[string]map[string]any
		code := PostJSON(t, s.URL+"/api/workflow/generate", `{"message":"分析 1X 班英语成绩"}`, &body)
		details, _ := body["error"]["details"].(map[string]any)
		if code != 404 || body["error"]["code"] != "ENTITY_NOT_FOUND" || len(details["suggestions"].([]any)) == 0 {
			t.Errorf("unknown class: %d %v", code, body)
		}
	})
	t.Run("conversation asks about an unknown class", func(t *testing.T) {
		var resp map[string]any
		code := PostJSON(t, s.URL+"/api/conversation", `{"message":"分析 1X 班英语成绩"}`, &resp)
		opts, _ := resp["clarifyOptions"].(map[string]any)
		if code != 200 || resp["action"] != "clarify" || opts == nil || len(opts["choices"].([]any)) == 0 {
			t.Errorf("%d %v", code, resp)
		}
	})
}

func TestSavedAppReplay(t *testing.T) {
	s := NewLocal(t, map[string]string{server.SchedulerEveryEnv: "off"})
	bp, _ := PlanViaConversation(t, s, "分析 1A 班英语成绩")
	var app struct {
		ID        string
		NextRunAt time.Time
	}
	body := fmt.Sprintf(`{"name":"1A weekly","blueprint":%s,"context":{"classId":"class-hk-f1a"},"schedule":{"every":"1h"}}`, bp)
	if code := PostJSON(t, s.URL+"/api/apps", body, &app); code != 201 || app.ID == "" || app.NextRunAt.IsZero() {
		t.Fatalf("save: %d %+v", code, app)
	}
	var bad map[string]map[string]any
	if code := PostJSON(t, s.URL+"/api/apps", `{"name":"x","blueprint":{"name":"x"}}`, &bad); code != 422 || bad["error"]["code"] != "BLUEPRINT_ERROR" {
		t.Errorf("a bad blueprint is not saved: %d %v", code, bad)
	}
	var list struct{ Apps []struct{ ID string } }
	if GetJSON(t, s.URL+"/api/apps", &list); len(list.Apps) != 1 || list.Apps[0].ID != app.ID {
		t.Fatalf("list %+v", list)
	}
	ctx := context.Background()
	runAt := func(at time.Time) {
		t.Helper()
		if n, err := s.Build.Scheduler.RunDue(ctx, at); err != nil || n != 1 {
			t.Fatalf("RunDue(%v) = %d, %v", at, n, err)
		}
	}
	snapshots := func() []struct {
		RunID, Status, ErrorCode, BuildID string
		Page                              json.RawMessage
	} {
		t.Helper()
		var out struct {
			Snapshots []struct {
				RunID, Status, ErrorCode, BuildID string
				Page                              json.RawMessage
			}
		}
		if code := GetJSON(t, s.URL+"/api/apps/"+app.ID+"/snapshots", &out); code != 200 {
			t.Fatalf("snapshots: %d", code)
		}
		return out.Snapshots
	}

	// Not yet due: nothing runs.
	if n, err := s.Build.Scheduler.RunDue(ctx, app.NextRunAt.Add(-time.Minute)); err != nil || n != 0 {
		t.Fatalf("early RunDue = %d, %v", n, err)
	}
	runAt(app.NextRunAt)
	runAt(app.NextRunAt.Add(time.Hour))
	snaps := snapshots()
	if len(snaps) != 2 || snaps[0].Status != "succeeded" || snaps[1].Status != "succeeded" || snaps[0].BuildID == snaps[1].BuildID {
		t.Fatalf("two scheduled runs: %+v", snaps)
	}
	if len(snaps[0].Page) != 0 {
		t.Error("the snapshot list leaves the pages out")
	}
	var one struct {
		Status string
		Page   builtPage
	}
	if code := GetJSON(t, s.URL+"/api/apps/"+app.ID+"/snapshots/"+snaps[1].RunID, &one); code != 200 || one.Status != "succeeded" {
		t.Fatalf("snapshot: %d", code)
	}
	ref := referenceFor("class-hk-f1a")
	if v := one.Page.block(t, "kpis").Data[0].Value; v != oneDecimal(ref.mean)+"%" {
		t.Errorf("replayed page mean %s, want %s%%", v, oneDecimal(ref.mean))
	}

	// A failing run is recorded as failed, and the next run still happens.
	s.Java.SetFault(mockserver.Fault{Code: 500, Message: "database down"})
	runAt(app.NextRunAt.Add(2 * time.Hour))
	s.Java.ClearFault()
	runAt(app.NextRunAt.Add(3 * time.Hour))
	snaps = snapshots()
	if len(snaps) != 4 || snaps[2].Status != "failed" || snaps[2].ErrorCode != "DATA_ERROR" || snaps[3].Status != "succeeded" {
		t.Fatalf("runs after a failure: %+v", snaps)
	}

	// Run now by hand; another teacher sees nothing.
	var out struct{ RunID, Status string }
	if code := PostJSON(t, s.URL+"/api/apps/"+app.ID+"/run", `{}`, &out); code != 200 || out.Status != "succeeded" {
		t.Errorf("manual run: %d %+v", code, out)
	}
	if code := GetJSON(t, s.URL+"/api/apps/"+app.ID, nil, "X-Teacher-Id", "t-002"); code != 404 {
		t.Errorf("another teacher's app: %d", code)
	}
}

// TestBuildWorkflowPaths runs infra/statemachines/build.asl.json against
// scripted phases: which states each outcome visits, and what Finish gets.
func TestBuildWorkflowPaths(t *testing.T) {
	cases := []struct {
		name    string
		mode    string
		status  map[string]string // phase → status returned
		fail    map[string]bool   // phase → returns an error
		visited []string
		errSet  bool
	}{
		{"build", "build", nil, nil, []string{"Mode", "Data", "AfterData", "Compute", "AfterCompute", "Compose", "Finish"}, false},
		{"patch", "patch", nil, nil, []string{"Mode", "Compose", "Finish"}, false},
		{"data failed", "build", map[string]string{"data": "failed"}, nil, []string{"Mode", "Data", "AfterData", "Finish"}, false},
		{"compute failed", "build", map[string]string{"compute": "failed"}, nil, []string{"Mode", "Data", "AfterData", "Compute", "AfterCompute", "Finish"}, false},
		{"compose fault", "build", nil, map[string]bool{"compose": true}, []string{"Mode", "Data", "AfterData", "Compute", "AfterCompute", "Compose", "Finish"}, true},
		{"finish fault", "build", nil, map[string]bool{"finish": true}, []string{"Mode", "Data", "AfterData", "Compute", "AfterCompute", "Compose", "Finish", "BuildFailed"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := asl.Parse(infra.BuildASL, map[string]string{"BuildStepFunctionArn": "arn:local:buildstep"})
			if err != nil {
				t.Fatal(err)
			}
			var finish workflow.BuildStepInput
			step := asl.Handler(wire.Typed(func(_ context.Context, in workflow.BuildStepInput) (workflow.BuildStepOutput, error) {
				if in.Build.BuildID != "b-1" {
					return workflow.BuildStepOutput{}, fmt.Errorf("phase %s lost the build: %+v", in.Phase, in.Build)
				}
				if in.Phase == "finish" {
					finish = in
				}
				if c.fail[in.Phase] {
					return workflow.BuildStepOutput{}, fmt.Errorf("DATA_ERROR: %s broke", in.Phase)
				}
				return workflow.BuildStepOutput{Status: cmp.Or(c.status[in.Phase], "ok")}, nil
			}))
			var visited []string
			raw, _ := json.Marshal(workflow.NewBuildState(workflow.Build{BuildID: "b-1", TeacherID: "t-001", Mode: c.mode}))
			_, err = m.Run(context.Background(), raw, asl.Options{Handlers: map[string]asl.Handler{"arn:local:buildstep": step},
				OnTransition: func(state, _ string) { visited = append(visited, state) }})
			if (err != nil) != (c.name == "finish fault") {
				t.Errorf("run: %v", err)
			}
			if !slices.Equal(visited, c.visited) {
				t.Errorf("visited %v, want %v", visited, c.visited)
			}
			if (finish.Error != nil) != c.errSet || (c.errSet && !strings.Contains(finish.Error.Cause, "compose broke")) {
				t.Errorf("Finish got error %+v", finish.Error)
			}
		})
	}
}

// BenchmarkPageBuild is a whole page build through the local product over
// HTTP: the mock data service (35 students, 4 assignments) over loopback,
// the interpreter, bbolt, the offline model's writers.
func BenchmarkPageBuild(b *testing.B) {
	s := NewLocal(b, map[string]string{server.SchedulerEveryEnv: "off"})
	var resp struct {
		Blueprint json.RawMessage `json:"blueprint"`
	}
	if code := PostJSON(b, s.URL+"/api/conversation", `{"message":"分析 1A 班英语成绩"}`, &resp); code != 200 {
		b.Fatalf("plan: %d", code)
	}
	body := `{"blueprint":` + string(resp.Blueprint) + `}`
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/page/generate", strings.NewReader(body))
		st := do(b, req)
		if last := st.Events[len(st.Events)-1].typ(b); last != "COMPLETE" {
			b.Fatalf("build ended with %s", last)
		}
	}
}
