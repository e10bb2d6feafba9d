package build_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/blueprint/build"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/boltstore/bolttest"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/datatools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// scriptedModel is the model seam: it answers every slot writer with a
// text naming the block and slot, streamed in small pieces, or fails the
// blocks listed in fail.
type scriptedModel struct {
	mu    sync.Mutex
	calls []llm.Request
	fail  map[string]bool
}

func (m *scriptedModel) Stream(ctx context.Context, req llm.Request, h llm.Handler) (llm.Response, error) {
	m.mu.Lock()
	m.calls = append(m.calls, req)
	m.mu.Unlock()
	var wr struct {
		Block struct {
			ID, Type string
		}
		Slot   string
		Change string
	}
	if err := json.Unmarshal([]byte(req.Messages[1].Content), &wr); err != nil {
		return llm.Response{}, err
	}
	if m.fail[wr.Block.ID] {
		return llm.Response{}, errors.New("model unavailable")
	}
	text := "Text of " + wr.Block.ID + "/" + wr.Slot + "."
	if wr.Change != "" {
		text = "Rewritten: " + wr.Change
	}
	if wr.Block.Type == blueprint.SuggestionList {
		text = "- [high] Grammar drills: practise tenses.\n- [low] Reading circle: weekly."
	}
	if wr.Block.Type == blueprint.InsightList {
		text = "Findings\n- Grammar is weakest: lowest skill mean.\n- Top students: steady."
	}
	for r := []rune(text); len(r) > 0; {
		n := min(4, len(r))
		if h.OnContent != nil {
			if err := h.OnContent(string(r[:n])); err != nil {
				return llm.Response{}, err
			}
		}
		r = r[n:]
	}
	return llm.Response{}, nil
}

func (m *scriptedModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls)
}

type env struct {
	b       *build.Builder
	model   *scriptedModel
	log     *eventlog.Memory
	records *boltstore.SessionStore
	mock    *mockserver.Server
}

func newEnv(t *testing.T, opts ...build.Options) *env {
	t.Helper()
	mock := mockserver.New(mockdata.Default(), mockserver.Options{Token: "tok"})
	hs := httptest.NewServer(mock)
	t.Cleanup(hs.Close)
	cfg := javaapi.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.FallbackToMock, cfg.Attempts = hs.URL, "tok", false, 1
	client, err := javaapi.New(cfg, javaapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := bolttest.Open(t)
	e := &env{model: &scriptedModel{fail: map[string]bool{}}, log: eventlog.NewMemory(), records: db.Sessions(), mock: mock}
	// A fixed clock: every delta is due at once, so coalescing is by size only.
	clock := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	o := build.Options{Now: func() time.Time { return clock }, FlushSize: 1 << 20}
	if len(opts) > 0 {
		o.DataBound = opts[0].DataBound
	}
	e.b = build.New(tools.NewRegistry(datatools.New(client, nil)...), e.model, e.records, e.log, o)
	return e
}

func (e *env) start(t *testing.T, id string, req blueprint.Request) workflow.Build {
	t.Helper()
	raw, _ := json.Marshal(req)
	if err := e.records.PutRecord(context.Background(), id, blueprint.RecordRequest, raw); err != nil {
		t.Fatal(err)
	}
	return workflow.Build{BuildID: id, TeacherID: "t-001", Mode: req.Mode}
}

// run plays the workflow: the phases in order, stopping at a failed one.
func (e *env) run(t *testing.T, b workflow.Build) {
	t.Helper()
	ctx := context.Background()
	phases := []string{workflow.PhaseData, workflow.PhaseCompute, workflow.PhaseCompose}
	if b.Mode == blueprint.ModePatch {
		phases = phases[2:]
	}
	for _, p := range phases {
		out, err := e.b.Step(ctx, workflow.BuildStepInput{Phase: p, Build: b})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if out.Status != workflow.BuildOK {
			break
		}
	}
	if _, err := e.b.Step(ctx, workflow.BuildStepInput{Phase: workflow.PhaseFinish, Build: b}); err != nil {
		t.Fatalf("finish: %v", err)
	}
}

type event struct {
	Type string `json:"type"`
	raw  json.RawMessage
}

func (e *env) events(t *testing.T, id string) []event {
	t.Helper()
	return e.read(t, id, true)
}

// read returns a stream's events; closed checks that exactly the last one
// closes it.
func (e *env) read(t *testing.T, id string, closed bool) []event {
	t.Helper()
	evs, err := e.log.Read(context.Background(), workflow.BuildStream(id), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]event, len(evs))
	for i, ev := range evs {
		if err := json.Unmarshal(ev.Data, &out[i]); err != nil {
			t.Fatal(err)
		}
		out[i].raw = ev.Data
		if closed && ev.Close != (i == len(evs)-1) {
			t.Errorf("event %d close=%v: only the last event closes the stream", i, ev.Close)
		}
	}
	return out
}

// types returns the event types with consecutive SLOT_DELTAs of a slot
// folded into one (how many there are depends on the coalescing).
func types(evs []event) []string {
	var out []string
	for i, e := range evs {
		if e.Type == "SLOT_DELTA" && i > 0 && evs[i-1].Type == "SLOT_DELTA" {
			continue
		}
		out = append(out, e.Type)
	}
	return out
}

func analysisRequest(class string) blueprint.Request {
	return blueprint.Request{Mode: blueprint.ModeBuild, Blueprint: blueprinttest.Analysis(class), Inputs: map[string]string{"class": class}}
}

type complete struct {
	Result struct {
		Page           blueprint.Page           `json:"page"`
		DataContext    blueprint.DataContext    `json:"dataContext"`
		ComputeResults blueprint.ComputeResults `json:"computeResults"`
	} `json:"result"`
}

func TestBuild(t *testing.T) {
	e := newEnv(t)
	b := e.start(t, "build-1", analysisRequest("1A"))
	e.run(t, b)
	evs := e.events(t, "build-1")
	want := []string{"PHASE", "TOOL_CALL", "TOOL_RESULT"}
	for range 4 { // one get_assignment_submissions per assignment of Form 1A
		want = append(want, "TOOL_CALL", "TOOL_RESULT")
	}
	want = append(want, "PHASE", "PHASE")
	for _, bl := range blueprinttest.Analysis("1A").Blocks() {
		want = append(want, "BLOCK_START")
		for range bl.Slots {
			want = append(want, "SLOT_DELTA")
		}
		want = append(want, "BLOCK_COMPLETE")
	}
	want = append(want, "COMPLETE")
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	var c complete
	if err := json.Unmarshal(evs[len(evs)-1].raw, &c); err != nil {
		t.Fatal(err)
	}
	page := c.Result.Page
	if page.Meta.PageTitle != "班级成绩分析" || page.Meta.DataSource != "Form 1A · English" || page.Meta.GeneratedAt != "2026-03-01T08:00:00Z" {
		t.Errorf("meta %+v", page.Meta)
	}
	if len(c.Result.DataContext) != 2 || len(c.Result.ComputeResults) != 5 {
		t.Errorf("dataContext %v computeResults %v", blueprint.Keys(c.Result.DataContext), blueprint.Keys(c.Result.ComputeResults))
	}
	if kp := page.FindBlock("kpis"); len(kp.Data) != 4 || !strings.HasSuffix(kp.Data[0].Value, "%") {
		t.Errorf("kpis %+v", kp)
	}
	if d := page.FindBlock("distribution"); len(d.XAxis) != 5 || len(d.Series) != 1 || d.Caption != "Text of distribution/caption." {
		t.Errorf("distribution %+v", d)
	}
	if s := page.FindBlock("students"); len(s.Rows) != 10 || s.Rows[0].Status != "success" || s.Rows[9].Status != "warning" {
		t.Errorf("ranking table %+v", s.Rows)
	}
	sug := page.FindBlock("actions")
	if len(sug.Items) != 2 || sug.Items[0] != (blueprint.ListItem{Title: "Grammar drills", Description: "practise tenses.", Priority: "high"}) {
		t.Errorf("suggestions %+v", sug.Items)
	}
	if ins := page.FindBlock("insights"); len(ins.Items) != 2 || ins.Items[0].Title != "Grammar is weakest" {
		t.Errorf("insights %+v (the heading line is not an item)", ins.Items)
	}
	// What the client concatenated from the deltas is what the page holds.
	streamed := map[string]string{}
	for _, ev := range evs {
		if ev.Type != "SLOT_DELTA" {
			continue
		}
		var d struct{ BlockID, SlotKey, DeltaText string }
		_ = json.Unmarshal(ev.raw, &d)
		streamed[d.BlockID+"/"+d.SlotKey] += d.DeltaText
	}
	for k, text := range streamed {
		id, key, _ := strings.Cut(k, "/")
		if got := page.FindBlock(id).Slot(key); got != text {
			t.Errorf("%s: page %q, stream %q", k, got, text)
		}
	}
	if len(streamed) != 4 {
		t.Errorf("%d slots streamed, want 4", len(streamed))
	}
	// Each writer got the numbers of its block and the writer prompt.
	for _, call := range e.model.calls {
		if !strings.HasPrefix(call.Messages[0].Content, prompts.WriterHeader) || !strings.Contains(call.Messages[1].Content, `"data":{"`) {
			t.Errorf("writer request %v", call.Messages)
		}
	}
}

func TestUnknownClassIsDataError(t *testing.T) {
	e := newEnv(t)
	e.run(t, e.start(t, "build-2", analysisRequest("1X")))
	evs := e.events(t, "build-2")
	// DATA_ERROR is terminal (PROTOCOL.md §2): the seed's frontend opens a
	// dialog for it and a toast for ERROR, so nothing follows it.
	if got := types(evs); !slices.Equal(got, []string{"PHASE", "TOOL_CALL", "TOOL_RESULT", "DATA_ERROR"}) {
		t.Fatalf("events %v", got)
	}
	var de struct {
		Entity, EntityType string
		Suggestions        []struct{ Label, Value string }
	}
	_ = json.Unmarshal(evs[3].raw, &de)
	if de.Entity != "1X" || de.EntityType != "class" || len(de.Suggestions) == 0 || !strings.HasPrefix(de.Suggestions[0].Value, "class-") {
		t.Errorf("DATA_ERROR %s", evs[3].raw)
	}
	if e.model.count() != 0 {
		t.Error("no page is composed for a failed build")
	}
}

func TestDataServiceDownIsDataError(t *testing.T) {
	e := newEnv(t)
	e.mock.SetFault(mockserver.Fault{Status: 503})
	e.run(t, e.start(t, "build-3", analysisRequest("class-hk-f1a")))
	evs := e.events(t, "build-3")
	last := evs[len(evs)-1]
	var er struct{ Code string }
	_ = json.Unmarshal(last.raw, &er)
	if last.Type != "ERROR" || er.Code != "DATA_ERROR" || slices.Contains(types(evs), "DATA_ERROR") {
		t.Errorf("events %v, last %s (an outage is an ERROR, not an unknown entity)", types(evs), last.raw)
	}
}

func TestPatchReusesTheData(t *testing.T) {
	e := newEnv(t)
	e.run(t, e.start(t, "build-4", analysisRequest("class-hk-f1a")))
	evs := e.events(t, "build-4")
	var c complete
	_ = json.Unmarshal(evs[len(evs)-1].raw, &c)
	requests, calls := e.mock.RequestCount(), e.model.count()

	plan := &blueprint.PatchPlan{Scope: blueprint.ScopePatch, Instructions: []blueprint.PatchInstruction{
		{Op: blueprint.OpRecompose, BlockID: "summary", Prompt: "shorter, for parents"},
		{Op: blueprint.OpRestyle, BlockID: "distribution", Variant: "line", Title: "Distribution"},
	}}
	page := c.Result.Page
	req := blueprint.Request{Mode: blueprint.ModePatch, Blueprint: blueprinttest.Analysis("class-hk-f1a"), Page: &page,
		DataContext: c.Result.DataContext, ComputeResults: c.Result.ComputeResults, Patch: plan}
	e.run(t, e.start(t, "patch-1", req))
	pe := e.events(t, "patch-1")
	want := []string{"PHASE", "BLOCK_START", "BLOCK_COMPLETE", "BLOCK_START", "SLOT_DELTA", "BLOCK_COMPLETE", "COMPLETE"}
	if got := types(pe); !slices.Equal(got, want) {
		t.Fatalf("patch events\n got %v\nwant %v", got, want)
	}
	if n := e.mock.RequestCount(); n != requests {
		t.Errorf("the data service saw %d requests during the patch", n-requests)
	}
	if n := e.model.count() - calls; n != 1 {
		t.Errorf("%d model calls for one recompose and one restyle", n)
	}
	var pc complete
	_ = json.Unmarshal(pe[len(pe)-1].raw, &pc)
	p := pc.Result.Page
	if s := p.FindBlock("summary"); s.Content != "Rewritten: shorter, for parents" {
		t.Errorf("summary %q", s.Content)
	}
	d := p.FindBlock("distribution")
	if d.Variant != "line" || d.Title != "Distribution" || len(d.Series) != 1 || d.Caption != page.FindBlock("distribution").Caption {
		t.Errorf("restyled block %+v", d)
	}
	if k := p.FindBlock("kpis"); k.Data[0] != page.FindBlock("kpis").Data[0] {
		t.Error("an untouched block changed")
	}
	if string(pc.Result.ComputeResults["scoreStats"]) != string(c.Result.ComputeResults["scoreStats"]) {
		t.Error("the patch must hand back the client's compute results")
	}
}

func TestWriterFailureLeavesANote(t *testing.T) {
	e := newEnv(t)
	e.model.fail["summary"] = true
	e.run(t, e.start(t, "build-5", analysisRequest("class-hk-f1a")))
	evs := e.events(t, "build-5")
	var c complete
	if err := json.Unmarshal(evs[len(evs)-1].raw, &c); err != nil || evs[len(evs)-1].Type != "COMPLETE" {
		t.Fatalf("last event %s", evs[len(evs)-1].raw)
	}
	if s := c.Result.Page.FindBlock("summary").Content; !strings.Contains(s, "AI") {
		t.Errorf("summary %q", s)
	}
}

func TestRetriedPhasesDoNotRepeat(t *testing.T) {
	e := newEnv(t)
	b := e.start(t, "build-6", analysisRequest("class-hk-f1a"))
	ctx := context.Background()
	for _, p := range []string{workflow.PhaseData, workflow.PhaseData, workflow.PhaseCompute, workflow.PhaseCompute, workflow.PhaseCompose, workflow.PhaseCompose} {
		if _, err := e.b.Step(ctx, workflow.BuildStepInput{Phase: p, Build: b}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(strings.Join(types(e.read(t, "build-6", false)), ","), "PHASE"); n != 3 {
		t.Errorf("%d PHASE events for three phases each run twice", n)
	}
}

func TestFinishAfterAFault(t *testing.T) {
	e := newEnv(t)
	b := e.start(t, "build-7", analysisRequest("class-hk-f1a"))
	ctx := context.Background()
	in := workflow.BuildStepInput{Phase: workflow.PhaseFinish, Build: b,
		Error: &workflow.ErrorInfo{Error: "States.Timeout", Cause: "Task timed out"}}
	if _, err := e.b.Step(ctx, in); err != nil {
		t.Fatal(err)
	}
	evs := e.events(t, "build-7")
	var er struct{ Code string }
	_ = json.Unmarshal(evs[0].raw, &er)
	if len(evs) != 1 || evs[0].Type != "ERROR" || er.Code != "AI_ERROR" {
		t.Errorf("events %s", evs[0].raw)
	}
	// A second Finish (a retry) leaves the closed stream alone.
	if _, err := e.b.Step(ctx, in); err != nil {
		t.Errorf("finish again: %v", err)
	}
	if _, err := e.b.Step(ctx, workflow.BuildStepInput{Phase: "dance", Build: b}); err == nil {
		t.Error("an unknown phase must be an error")
	}
}

// TestSlowDataServiceIsDataError: a data service slower than the data
// phase's bound ends the build in DATA_ERROR at the bound, with the
// catalogue's words and no internals (not an AI_ERROR after the workflow's
// timeout).
func TestSlowDataServiceIsDataError(t *testing.T) {
	e := newEnv(t, build.Options{DataBound: 200 * time.Millisecond})
	e.mock.SetFault(mockserver.Fault{Latency: 5 * time.Second})
	e.run(t, e.start(t, "build-slow", analysisRequest("class-hk-f1a")))
	evs := e.events(t, "build-slow")
	last := evs[len(evs)-1]
	var er struct{ Code, Message string }
	_ = json.Unmarshal(last.raw, &er)
	if last.Type != "ERROR" || er.Code != "DATA_ERROR" || er.Message != "数据获取失败，请稍后再试。" {
		t.Errorf("last event %s", last.raw)
	}
}

// TestTeacherReadsNoInternals: a data service's broken answer ends the
// build with the catalogue's words, not the decoder's error.
func TestTeacherReadsNoInternals(t *testing.T) {
	for _, f := range []mockserver.Fault{{Malformed: true}, {Status: 401}, {Code: 500, Message: "java.sql.SQLException: db down"}} {
		e := newEnv(t)
		e.mock.SetFault(f)
		e.run(t, e.start(t, "build-x", analysisRequest("class-hk-f1a")))
		evs := e.events(t, "build-x")
		var er struct{ Code, Message string }
		_ = json.Unmarshal(evs[len(evs)-1].raw, &er)
		// A rejected service token is SERVICE_UNAVAILABLE (shared/javaapi),
		// the others DATA_ERROR; the teacher reads the same words.
		if (er.Code != "DATA_ERROR" && er.Code != "SERVICE_UNAVAILABLE") || er.Message != "数据获取失败，请稍后再试。" {
			t.Errorf("fault %+v: ERROR %s %q", f, er.Code, er.Message)
		}
	}
}
