package awstest

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/searchsvc"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/wire/awswire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The research flow in AWS: the research function under the emulator with
// its events/ samples, and the Research workflow run by both interpreters.
// The web search is the local search service, reached over HTTP with the
// key the function reads from SSM.

const sampleResearchID = "research-sample"

// searchService starts the local search service for testTavilyKey.
func searchService(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	url, done, err := searchsvc.New(testTavilyKey).Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-done })
	return url
}

// researchEnv is the research function's template environment, localised,
// with the search client pointed at the local search service.
func (s *suite) researchEnv(t *testing.T, table, ssmURL, searchURL string) map[string]string {
	t.Helper()
	env := s.functionEnv(t, "ResearchFunction", table, ssmURL)
	env[wire.EnvTavilyBaseURL] = searchURL
	return env
}

// seedResearch does what the edge does before a run starts: the session
// with its proposal, attached by a stream (Executing). It returns the
// Research workflow's execution input.
func seedResearch(t *testing.T, st research.Store, id, topic string) workflow.ResearchState {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	if err := st.CreateResearch(ctx, research.Session{ID: id, TeacherID: "t-001", Topic: topic, Status: research.Created,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	p := research.Proposal{Topic: topic, TimeRange: "1589–1905", FocusPoints: []string{"a"}, ExpectedMilestones: 6,
		SearchPlan: []string{topic}, Language: "zh-CN"}
	if _, err := research.ReadyProposal(ctx, st, id, p, now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := research.Attach(ctx, st, id, "edge", now, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	return workflow.NewResearchState(workflow.Research{SessionID: id, TeacherID: "t-001", TraceID: "trace-sample"})
}

// researchEvents reads a run's stream as a client sees it: name and data,
// the run's duration blanked (it depends on timing).
func researchEvents(t *testing.T, tbl *dynamostore.Table, id string) []any {
	t.Helper()
	evs, err := tbl.Events().Read(context.Background(), research.Stream(id), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, e := range evs {
		var data map[string]any
		if err := json.Unmarshal(e.Data, &data); err != nil {
			t.Fatalf("event %d: %v", e.Seq, err)
		}
		if _, ok := data["duration_seconds"]; ok {
			data["duration_seconds"] = 0
		}
		out = append(out, map[string]any{"event": e.Name, "data": data, "close": e.Close})
	}
	return out
}

func lastEventName(evs []any) string {
	if len(evs) == 0 {
		return ""
	}
	return evs[len(evs)-1].(map[string]any)["event"].(string)
}

// testResearchFunction invokes the research function under the emulator
// with events/research-milestones.json and events/research-finish.json, in
// the order of a run: the milestone agent runs against the offline model
// and the local search service, Finish closes the stream with the skeleton.
func (s *suite) testResearchFunction(t *testing.T) {
	rie := rieBinary(t)
	bins := s.binaries(t)[runtime.GOARCH]
	dyn := s.dynalite(t)
	table := dyn.NewTable(t)
	tbl := dynamostore.New(dyn.Client, table, dynamostore.Options{})
	st := research.NewStore(dynamostore.NewRecords(dyn.Client, table, dynamostore.Options{}))
	ssmURL := fakeSSM(t, testSecrets())
	state := seedResearch(t, st, sampleResearchID, "牛顿力学的发展")

	fn := emulate(t, rie, filepath.Join(bins, "research"), s.researchEnv(t, table, ssmURL, searchService(t)))
	var got workflow.ResearchResult
	in := s.sampleEvent(t, "research-milestones", workflow.ResearchStepInput{Step: workflow.ResearchStepMilestones, Research: state.Research})
	decodeStrict(t, "research milestones", fn.call(t, in), &got)
	if got.Status != workflow.ResearchOK || got.Nodes < 4 {
		t.Fatalf("research milestones: %+v, want ok with the skeleton", got)
	}
	in = s.sampleEvent(t, "research-finish", workflow.ResearchStepInput{Step: workflow.ResearchStepFinish, Research: state.Research,
		Result: &workflow.ResearchResult{Status: workflow.ResearchOK, Nodes: got.Nodes}})
	var fin workflow.ResearchResult
	decodeStrict(t, "research finish", fn.call(t, in), &fin)
	evs := researchEvents(t, tbl, sampleResearchID)
	var names []string
	for _, e := range evs {
		if n := e.(map[string]any)["event"].(string); len(names) == 0 || n != "progress" || names[len(names)-1] != "progress" {
			names = append(names, n)
		}
	}
	if !slices.Equal(names, []string{"progress", "skeleton", "complete"}) || !evs[len(evs)-1].(map[string]any)["close"].(bool) {
		t.Fatalf("the run's stream: %v", names)
	}
	sess, err := st.GetResearch(context.Background(), sampleResearchID)
	if err != nil || sess.Status != research.Completed || len(sess.Skeleton) != got.Nodes {
		t.Fatalf("session after Finish: %s, %d nodes, %v", sess.Status, len(sess.Skeleton), err)
	}
	t.Logf("research cold start (init, this machine, linux/%s): %s", runtime.GOARCH, fn.initDuration())
}

// testResearchWorkflowEquivalence runs the Research workflow with both
// interpreters on the same session: the execution output, the states
// entered and the run's events must be the same.
func (s *suite) testResearchWorkflowEquivalence(t *testing.T) {
	ssmURL := fakeSSM(t, testSecrets())
	searchURL := searchService(t)
	runResearch := func(t *testing.T, id, topic string, interpret func(app *awswire.App, input []byte) run) run {
		t.Helper()
		table := s.dynalite(t).NewTable(t)
		env := s.researchEnv(t, table, ssmURL, searchURL)
		app, err := awswire.FromEnv(context.Background(), func(k string) string { return env[k] }, localAWS(s.dynalite(t).Endpoint, ssmURL, ""))
		if err != nil {
			t.Fatal(err)
		}
		input, _ := json.Marshal(seedResearch(t, research.NewStore(app.Records), id, topic))
		r := interpret(app, input)
		r.Events = researchEvents(t, app.Table, id)
		return r
	}
	for _, sc := range []struct{ name, topic, last string }{
		{"skeleton", "光合作用研究史", "complete"},
		{"nothing found", "宋代瓷器的发展", "error"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			id := "research-" + sc.name
			js := runResearch(t, id, sc.topic, func(app *awswire.App, input []byte) run {
				return s.interpretJS(t, "research.asl.json", app.ResearchTasks(), input)
			})
			goRun := runResearch(t, id, sc.topic, func(app *awswire.App, input []byte) run {
				return interpretGo(t, infra.ResearchASL, app.ResearchTasks(), input, id)
			})
			sameRun(t, js, goRun)
			if lastEventName(goRun.Events) != sc.last {
				t.Errorf("local/asl's run does not end with %s", sc.last)
			}
			sameEvents(t, js.Events, goRun.Events)
			t.Logf("%s: %d events, states entered %v", sc.name, len(goRun.Events), goRun.Entered)
		})
	}
}

// testResearchStream runs the research flow through the stream function's
// handler (lambdaurl.Wrap over the edge, as Lambda runs it), DynamoDB as the
// store and the event log, the Research workflow started through the Step
// Functions API (its stand-in runs research.asl.json over the research
// function's graph): the proposal, the named events relayed from the table,
// resuming, another teacher, a replay.
func (s *suite) testResearchStream(t *testing.T) {
	rig := s.newStreamRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	resp := open(t, ctx, rig.handler, urlRequest(http.MethodPost, "/api/research", rig.token, `{"topic":"the history of the periodic table"}`))
	var p struct {
		SessionID string             `json:"session_id"`
		Proposal  *research.Proposal `json:"proposal"`
	}
	jsonBody(t, resp, &p)
	if resp.Status != http.StatusOK || p.SessionID == "" || p.Proposal == nil || p.Proposal.Language != "en" {
		t.Fatalf("POST /api/research: %d %+v", resp.Status, p)
	}
	path := "/api/research/" + p.SessionID + "/stream"
	if other := open(t, ctx, rig.handler, urlRequest(http.MethodGet, path, sampleToken(t, "t-002"), "")); other.Status != http.StatusNotFound {
		t.Fatalf("another teacher's stream: %d", other.Status)
	}
	run := openStream(t, ctx, rig.handler, urlRequest(http.MethodGet, path, rig.token, ""))
	evs := run.all(t)
	var names []string
	for i, e := range evs {
		if e.ID != int64(i+1) || e.Name == "" {
			t.Fatalf("event %d: %+v", i, e)
		}
		if len(names) == 0 || e.Name != "progress" || names[len(names)-1] != "progress" {
			names = append(names, e.Name)
		}
	}
	if !slices.Equal(names, []string{"progress", "skeleton", "complete"}) {
		t.Fatalf("events %v", names)
	}
	var sk struct{ Nodes []map[string]any }
	if err := json.Unmarshal([]byte(evs[len(evs)-2].Data), &sk); err != nil || len(sk.Nodes) < 4 {
		t.Fatalf("skeleton %s: %v", evs[len(evs)-2].Data, err)
	}
	const seen = 4
	rest := open(t, ctx, rig.handler, urlRequest(http.MethodGet, path, rig.token, "", "last-event-id", strconv.Itoa(seen)))
	if got := rest.all(t); rest.Status != http.StatusOK || !reflect.DeepEqual(got, evs[seen:]) {
		t.Fatalf("resume after %d: %d, %d events, want the %d after it", seen, rest.Status, len(got), len(evs)-seen)
	}
	rig.sfn.mu.Lock()
	starts := slices.Collect(func(yield func(string) bool) {
		for _, n := range rig.sfn.starts {
			if n == p.SessionID && !yield(n) {
				return
			}
		}
	})
	rig.sfn.mu.Unlock()
	if len(starts) != 1 {
		t.Errorf("%d research executions started, want 1", len(starts))
	}
	sess, err := research.NewStore(dynamostore.NewRecords(s.dynalite(t).Client, rig.table, dynamostore.Options{})).GetResearch(ctx, p.SessionID)
	if err != nil || sess.Status != research.Completed || sess.Attached != "" {
		t.Fatalf("session %s attached %q: %v", sess.Status, sess.Attached, err)
	}
}
