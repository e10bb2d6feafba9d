package awstest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/wire/awswire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The Build runtime in AWS: the buildstep and replay functions under the
// emulator, page streams and saved apps through the stream function's
// handler, and the Build workflow run by both interpreters.

// The sample build of events/buildstep-*.json: the analysis of class 1A
// of the mock data set (four assignments).
const (
	sampleBuildID = "build-sample"
	sampleClass   = "class-hk-f1a"
	unknownClass  = "1X" // a class the data service does not know
	sampleAppID   = "app-sample"
)

// captured is a launch.Starter that starts nothing and keeps the input.
type captured struct{ in workflow.BuildState }

func (c *captured) Start(_ context.Context, _ string, in workflow.BuildState) error {
	c.in = in
	return nil
}

// seedBuild does what the edge does before it starts a build, with a
// fixed build id: the build's session and its request record. It returns
// the Build workflow's execution input.
func seedBuild(t *testing.T, tbl *dynamostore.Table, buildID, class string) workflow.BuildState {
	t.Helper()
	var c captured
	l := launch.New(tbl.Sessions(), tbl.Events(), &c, launch.Options{NewID: func() string { return buildID }})
	bp := blueprinttest.Analysis(class)
	inputs, err := blueprint.ResolveInputs(bp, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := blueprint.Request{Mode: blueprint.ModeBuild, Blueprint: bp, Inputs: inputs, Language: bp.Language}
	if _, err := l.Begin(context.Background(), "t-001", "trace-sample", req); err != nil {
		t.Fatal(err)
	}
	return c.in
}

// taskApp is the graph of a task function of the template (its
// environment, localised), as the function builds it.
func (s *suite) taskApp(t *testing.T, resource, table, ssmURL string) *awswire.App {
	t.Helper()
	env := s.functionEnv(t, resource, table, ssmURL)
	app, err := awswire.FromEnv(context.Background(), func(k string) string { return env[k] },
		localAWS(s.dynalite(t).Endpoint, ssmURL, ""))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// pageEvents decodes a build's stream as a client assembles it:
// consecutive SLOT_DELTAs of a slot joined (how text is cut depends on
// timing), and the page's generation time blanked.
func pageEvents(t *testing.T, evs []eventlog.Event) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range evs {
		var c map[string]any
		if err := json.Unmarshal(e.Data, &c); err != nil {
			t.Fatalf("event %d: %v", e.Seq, err)
		}
		if n := len(out); c["type"] == "SLOT_DELTA" && n > 0 && out[n-1]["type"] == "SLOT_DELTA" &&
			out[n-1]["blockId"] == c["blockId"] && out[n-1]["slotKey"] == c["slotKey"] {
			out[n-1]["deltaText"] = fmt.Sprint(out[n-1]["deltaText"]) + fmt.Sprint(c["deltaText"])
			continue
		}
		if res, ok := c["result"].(map[string]any); ok {
			if page, ok := res["page"].(map[string]any); ok {
				if meta, ok := page["meta"].(map[string]any); ok {
					meta["generatedAt"] = ""
				}
			}
		}
		out = append(out, c)
	}
	return out
}

func eventTypes(evs []map[string]any) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = fmt.Sprint(e["type"])
	}
	return out
}

// wantAnalysis is the order of the sample build's events: the data phase
// (the class, then its four assignments), compute, compose block by block,
// COMPLETE.
func wantAnalysis() []string {
	want := []string{"PHASE", "TOOL_CALL", "TOOL_RESULT"}
	for range 4 {
		want = append(want, "TOOL_CALL", "TOOL_RESULT")
	}
	// The functions run with USE_MOCK_DATA=true: the data phase says so
	// (a PHASE with the MOCK_DATA notice), then compute and compose.
	want = append(want, "PHASE", "PHASE", "PHASE")
	for _, b := range blueprinttest.Analysis(sampleClass).Blocks() {
		want = append(want, "BLOCK_START")
		for range b.Slots {
			want = append(want, "SLOT_DELTA")
		}
		want = append(want, "BLOCK_COMPLETE")
	}
	return append(want, "COMPLETE")
}

// testBuildFunctions invokes the buildstep function under the emulator for
// each phase of a build, in order, with events/buildstep-<phase>.json, and
// the replay function with events/replay.json: a run that succeeds and one
// that fails, each recorded as a snapshot.
func (s *suite) testBuildFunctions(t *testing.T) {
	r := s.newEmulatorRig(t)
	ctx := context.Background()

	state := seedBuild(t, r.tbl, sampleBuildID, sampleClass)
	step := r.start(t, "buildstep", r.env(t, "BuildStepFunction"))
	for _, phase := range []string{workflow.PhaseData, workflow.PhaseCompute, workflow.PhaseCompose, workflow.PhaseFinish} {
		var out workflow.BuildStepOutput
		in := s.sampleEvent(t, "buildstep-"+phase, workflow.BuildStepInput{Phase: phase, Build: state.Build})
		decodeStrict(t, "buildstep "+phase, step.call(t, in), &out)
		if out.Status != workflow.BuildOK {
			t.Fatalf("buildstep %s: %+v, want ok", phase, out)
		}
	}
	evs, err := r.tbl.Events().Read(ctx, workflow.BuildStream(sampleBuildID), 0, 0)
	if err != nil || len(evs) == 0 || !evs[len(evs)-1].Close {
		t.Fatalf("the build's stream: %d events, %v", len(evs), err)
	}
	if got := eventTypes(pageEvents(t, evs)); !slices.Equal(got, wantAnalysis()) {
		t.Fatalf("the build's events\n got %v\nwant %v", got, wantAnalysis())
	}
	t.Logf("buildstep cold start (init, this machine, linux/%s): %s, peak RSS over the four phases %s", runtime.GOARCH, step.initDuration(), step.peakRSS())

	// The replay function starts builds on Step Functions (here the stand-in
	// running build.asl.json over the buildstep function's graph).
	steps := s.taskApp(t, "BuildStepFunction", r.table, r.ssmURL)
	iv := &invocations{count: map[string]int{}, dur: map[string]time.Duration{}}
	sf := newStepFunctions(t, iv, sfnMachine{testBuildARN, infra.BuildASL, steps.BuildTasks()})
	sfnSrv := httptest.NewServer(sf)
	t.Cleanup(func() {
		sf.wg.Wait()
		sfnSrv.Close()
	})
	env := r.env(t, "ReplayFunction")
	env["AWS_ENDPOINT_URL_SFN"] = sfnSrv.URL
	replay := r.start(t, "replay", env)

	store := dynamostore.NewAppStore(r.dyn.Client, r.table, dynamostore.Options{})
	due := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	saveSampleApp(t, store, sampleAppID, sampleClass, due)
	saveSampleApp(t, store, "app-sample-unknown-class", unknownClass, due)

	tests := []struct {
		name, app  string
		event      bool // the run of events/replay.json
		wantStatus string
		wantCode   string
	}{
		{"succeeds", sampleAppID, true, apps.StatusSucceeded, ""},
		{"fails and is recorded", "app-sample-unknown-class", false, apps.StatusFailed, "ENTITY_NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := json.Marshal(apps.ReplayInput{AppID: tt.app, Trigger: apps.TriggerSchedule})
			if tt.event {
				in = s.sampleEvent(t, "replay", apps.ReplayInput{AppID: tt.app, Trigger: apps.TriggerSchedule})
			}
			var out apps.ReplayOutput
			decodeStrict(t, "replay", replay.call(t, in), &out)
			if out.Status != tt.wantStatus || out.RunID == "" || out.BuildID == "" {
				t.Fatalf("replay: %+v, want %s", out, tt.wantStatus)
			}
			snap, err := store.GetSnapshot(ctx, tt.app, out.RunID)
			if err != nil || snap.Status != tt.wantStatus || snap.ErrorCode != tt.wantCode || snap.Trigger != apps.TriggerSchedule ||
				snap.BuildID != out.BuildID || snap.EndedAt.IsZero() {
				t.Fatalf("snapshot = %+v, %v; want %s %s", snap, err, tt.wantStatus, tt.wantCode)
			}
			if (len(snap.Page) > 0) != (tt.wantStatus == apps.StatusSucceeded) {
				t.Errorf("snapshot page: %d bytes", len(snap.Page))
			}
			// The run moved the app's next run to the schedule's next one.
			a, err := store.GetApp(ctx, tt.app)
			if err != nil || !a.NextRunAt.Equal(due.Add(24*time.Hour)) {
				t.Errorf("next run = %v, %v; want %v", a.NextRunAt, err, due.Add(24*time.Hour))
			}
		})
	}
	// A build that does not end within the invocation (here: its execution
	// held, and a 17 s function timeout) is recorded as failed before the
	// deadline, awswire.ReplayMargin ahead of it.
	t.Run("outlives the invocation", func(t *testing.T) {
		release := sf.hold()
		defer release()
		env := maps.Clone(env)
		env["AWS_LAMBDA_FUNCTION_TIMEOUT"] = strconv.Itoa(int((awswire.ReplayMargin + 2*time.Second).Seconds()))
		short := r.start(t, "replay", env)
		in, _ := json.Marshal(apps.ReplayInput{AppID: sampleAppID, Trigger: apps.TriggerManual})
		var out apps.ReplayOutput
		decodeStrict(t, "replay", short.call(t, in), &out)
		snap, err := store.GetSnapshot(ctx, sampleAppID, out.RunID)
		if out.Status != apps.StatusFailed || err != nil || snap.Status != apps.StatusFailed || snap.ErrorCode != "SERVICE_UNAVAILABLE" {
			t.Fatalf("replay = %+v, snapshot %+v, %v; want failed, SERVICE_UNAVAILABLE", out, snap, err)
		}
	})
	sf.wg.Wait()
	if len(sf.failures) > 0 {
		t.Errorf("executions failed: %v", sf.failures)
	}
	t.Logf("replay cold start (init, this machine, linux/%s): %s, peak RSS %s", runtime.GOARCH, replay.initDuration(), replay.peakRSS())
}

// pageRequest is a POST /api/page/generate of the sample blueprint on class.
func pageRequest(t *testing.T, token, class string) events.LambdaFunctionURLRequest {
	t.Helper()
	bp, err := json.Marshal(blueprinttest.Analysis(class))
	if err != nil {
		t.Fatal(err)
	}
	return urlRequest(http.MethodPost, "/api/page/generate", token, fmt.Sprintf(`{"blueprint":%s,"context":{"classId":%q}}`, bp, class))
}

// checkPageStream checks a page build's stream as a client reads it: ids
// 1..n without a gap, no [DONE]; it returns the events decoded.
func checkPageStream(t *testing.T, evs []sse) []map[string]any {
	t.Helper()
	var out []eventlog.Event
	for i, ev := range evs {
		if ev.ID != int64(i+1) {
			t.Fatalf("event %d has id %d, want %d", i, ev.ID, i+1)
		}
		out = append(out, eventlog.Event{Seq: ev.ID, Data: json.RawMessage(ev.Data)})
	}
	return pageEvents(t, out)
}

// jsonBody decodes a JSON response.
func jsonBody(t *testing.T, r *response, v any) {
	t.Helper()
	text := r.text(t)
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("status %d: %q is not JSON: %v", r.Status, text, err)
	}
}

// testPageStream runs page builds through the stream function's handler
// (lambdaurl.Wrap over the edge, as Lambda runs it) with DynamoDB as the
// store and the event log and the Build workflow started through the Step
// Functions API: a build streamed to its end, a resume with Last-Event-ID,
// a bad blueprint (422 before any streaming), an unknown class (the
// stream's closing DATA_ERROR), and a saved app with a schedule: its
// EventBridge Scheduler schedule, a run now, its snapshots, its deletion.
// It prints the counts and the cost model of a build and of a replay.
func (s *suite) testPageStream(t *testing.T) {
	rig := s.newStreamRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	req := s.urlEvent(t, "stream-page", pageRequest(t, rig.token, sampleClass))

	var reports []turnReport
	var page []sse
	var buildID string
	t.Run("generate", func(t *testing.T) {
		rig.reset()
		start := time.Now()
		resp := openStream(t, ctx, rig.handler, req)
		buildID = resp.Headers["X-Build-Id"]
		page = resp.all(t)
		evs := checkPageStream(t, page)
		if got := eventTypes(evs); !slices.Equal(got, wantAnalysis()) {
			t.Fatalf("events\n got %v\nwant %v", got, wantAnalysis())
		}
		if msg := fmt.Sprint(evs[11]["message"]); !strings.Contains(msg, "示例数据") && !strings.Contains(msg, "sample data") {
			t.Errorf("the page stream does not say its data is sample data: %v", evs[11])
		}
		res, _ := evs[len(evs)-1]["result"].(map[string]any)
		if res["page"] == nil || res["dataContext"] == nil || res["computeResults"] == nil {
			t.Errorf("COMPLETE lacks the page or what it was built from: %v", evs[len(evs)-1])
		}
		reports = append(reports, rig.report(t, "build", time.Since(start)))
	})
	if buildID == "" {
		t.Fatal("no X-Build-Id")
	}

	t.Run("resume", func(t *testing.T) {
		// events/stream-page-resume.json names the sample build; the
		// request goes to the build just streamed.
		const seen = 3
		sample := urlRequest(http.MethodGet, "/api/page/"+sampleBuildID+"/stream", rig.token, "", "last-event-id", strconv.Itoa(seen))
		req := s.urlEvent(t, "stream-page-resume", sample)
		req.RawPath = strings.Replace(req.RawPath, sampleBuildID, buildID, 1)
		req.RequestContext.HTTP.Path = req.RawPath
		resp := open(t, ctx, rig.handler, req)
		if resp.Status != http.StatusOK {
			t.Fatalf("resume: status %d: %s", resp.Status, resp.text(t))
		}
		if got := resp.all(t); !reflect.DeepEqual(got, page[seen:]) {
			t.Fatalf("resume after %d: %d events, want the %d after it", seen, len(got), len(page)-seen)
		}
		other := open(t, ctx, rig.handler, urlRequest(http.MethodGet, "/api/page/"+buildID+"/stream", sampleToken(t, "t-002"), ""))
		if other.Status != http.StatusNotFound {
			t.Errorf("another teacher's resume: status %d, want 404", other.Status)
		}
	})

	t.Run("bad blueprint", func(t *testing.T) {
		resp := open(t, ctx, rig.handler, urlRequest(http.MethodPost, "/api/page/generate", rig.token, `{"blueprint":{"name":"x"}}`))
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		jsonBody(t, resp, &e)
		if resp.Status != http.StatusUnprocessableEntity || e.Error.Code != "BLUEPRINT_ERROR" {
			t.Fatalf("status %d %+v, want 422 BLUEPRINT_ERROR", resp.Status, e)
		}
	})

	t.Run("unknown class", func(t *testing.T) {
		resp := open(t, ctx, rig.handler, pageRequest(t, rig.token, unknownClass))
		if resp.Status != http.StatusOK {
			t.Fatalf("status %d: %s", resp.Status, resp.text(t))
		}
		evs := checkPageStream(t, resp.all(t))
		got := eventTypes(evs)
		last := evs[len(evs)-1]
		// DATA_ERROR is terminal (PROTOCOL.md §2): no ERROR after it.
		if last["type"] != "DATA_ERROR" || last["entity"] == "" || slices.Contains(got, "ERROR") {
			t.Fatalf("events %v, last %v; want a closing DATA_ERROR and no ERROR", got, last)
		}
	})

	t.Run("saved app", func(t *testing.T) {
		bp, _ := json.Marshal(blueprinttest.Analysis(sampleClass))
		body := fmt.Sprintf(`{"name":"1A daily","blueprint":%s,"context":{"classId":%q},"schedule":{"every":"24h"}}`, bp, sampleClass)
		resp := open(t, ctx, rig.handler, urlRequest(http.MethodPost, "/api/apps", rig.token, body))
		var app apps.App
		jsonBody(t, resp, &app)
		if resp.Status != http.StatusCreated || app.ID == "" || app.NextRunAt.IsZero() {
			t.Fatalf("save: status %d %+v", resp.Status, app)
		}
		sched, ok := rig.schedules.Schedule(testScheduleGroup, app.ID)
		target, _ := sched["Target"].(map[string]any)
		if !ok || sched["ScheduleExpression"] != "rate(1 day)" || sched["StartDate"] != float64(app.NextRunAt.Unix()) ||
			target["Arn"] != testReplayARN || target["RoleArn"] != testScheduleRole ||
			target["Input"] != fmt.Sprintf(`{"appId":%q,"trigger":"schedule"}`, app.ID) {
			t.Fatalf("the app's schedule = %v (exists %v)", sched, ok)
		}

		var list struct{ Apps []apps.App }
		jsonBody(t, open(t, ctx, rig.handler, urlRequest(http.MethodGet, "/api/apps", rig.token, "")), &list)
		if len(list.Apps) != 1 || list.Apps[0].ID != app.ID {
			t.Fatalf("list = %+v", list)
		}

		// Run now: the replay, measured as the replay function runs it.
		rig.reset()
		start := time.Now()
		resp = open(t, ctx, rig.handler, urlRequest(http.MethodPost, "/api/apps/"+app.ID+"/run", rig.token, `{}`))
		var out apps.ReplayOutput
		jsonBody(t, resp, &out)
		if resp.Status != http.StatusOK || out.Status != apps.StatusSucceeded {
			t.Fatalf("run: status %d %+v", resp.Status, out)
		}
		reports = append(reports, rig.report(t, "replay", time.Since(start)))

		var snaps struct{ Snapshots []apps.Snapshot }
		jsonBody(t, open(t, ctx, rig.handler, urlRequest(http.MethodGet, "/api/apps/"+app.ID+"/snapshots", rig.token, "")), &snaps)
		if len(snaps.Snapshots) != 1 || snaps.Snapshots[0].RunID != out.RunID || snaps.Snapshots[0].Trigger != apps.TriggerManual {
			t.Fatalf("snapshots = %+v", snaps)
		}
		var snap apps.Snapshot
		jsonBody(t, open(t, ctx, rig.handler, urlRequest(http.MethodGet, "/api/apps/"+app.ID+"/snapshots/"+out.RunID, rig.token, "")), &snap)
		if snap.Status != apps.StatusSucceeded || len(snap.Page) == 0 {
			t.Fatalf("snapshot = %+v", snap)
		}

		resp = open(t, ctx, rig.handler, urlRequest(http.MethodDelete, "/api/apps/"+app.ID, rig.token, ""))
		if resp.Status != http.StatusNoContent {
			t.Fatalf("delete: status %d: %s", resp.Status, resp.text(t))
		}
		if _, ok := rig.schedules.Schedule(testScheduleGroup, app.ID); ok {
			t.Error("the deleted app's schedule remains")
		}
		if resp := open(t, ctx, rig.handler, urlRequest(http.MethodGet, "/api/apps/"+app.ID, rig.token, "")); resp.Status != http.StatusNotFound {
			t.Errorf("the deleted app: status %d, want 404", resp.Status)
		}
	})

	rig.sfn.wg.Wait()
	if len(rig.sfn.failures) > 0 {
		t.Errorf("executions failed: %v", rig.sfn.failures)
	}
	if len(reports) == 2 {
		t.Logf("measured per build (offline model: durations are not the model's):\n%s", measuredTable("build", reports))
		t.Logf("cost model:\n%s", buildCostTable(reports, rig.textBlockBytes(t)))
	}
}

// testBuildWorkflowEquivalence runs the Build workflow with both
// interpreters on the same build: the execution output, the states entered
// and the build's events (as a client assembles them) must be the same.
func (s *suite) testBuildWorkflowEquivalence(t *testing.T) {
	ssmURL := fakeSSM(t, testSecrets())
	runBuild := func(t *testing.T, class string, interpret func(app *awswire.App, input []byte) run) run {
		t.Helper()
		app := s.taskApp(t, "BuildStepFunction", s.dynalite(t).NewTable(t), ssmURL)
		in := seedBuild(t, app.Table, "build-"+strings.ToLower(class), class)
		input, _ := json.Marshal(in)
		r := interpret(app, input)
		evs, err := app.Table.Events().Read(context.Background(), workflow.BuildStream(in.Build.BuildID), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range pageEvents(t, evs) {
			r.Events = append(r.Events, e)
		}
		return r
	}
	for _, sc := range []struct{ name, class, last string }{
		{"analysis", sampleClass, "COMPLETE"},
		{"unknown class", unknownClass, "DATA_ERROR"}, // terminal: no ERROR after it
	} {
		t.Run(sc.name, func(t *testing.T) {
			js := runBuild(t, sc.class, func(app *awswire.App, input []byte) run {
				return s.interpretJS(t, "build.asl.json", app.BuildTasks(), input)
			})
			goRun := runBuild(t, sc.class, func(app *awswire.App, input []byte) run {
				return interpretGo(t, infra.BuildASL, app.BuildTasks(), input, "build-"+sc.class)
			})
			sameRun(t, js, goRun)
			if len(goRun.Events) == 0 || goRun.Events[len(goRun.Events)-1].(map[string]any)["type"] != sc.last {
				t.Errorf("local/asl's build does not end with %s", sc.last)
			}
			sameEvents(t, js.Events, goRun.Events)
			t.Logf("%s: %d events, states entered %v", sc.name, len(goRun.Events), goRun.Entered)
		})
	}
}

// saveSampleApp saves the sample analysis of class as app id, scheduled
// daily and due at due.
func saveSampleApp(t *testing.T, store *dynamostore.AppStore, id, class string, due time.Time) {
	t.Helper()
	bp, _ := json.Marshal(blueprinttest.Analysis(class))
	err := store.PutApp(context.Background(), apps.App{ID: id, TeacherID: "t-001", Name: "1A 班成绩", Blueprint: bp,
		Context: map[string]any{"classId": class}, Schedule: &apps.Schedule{Every: "24h"}, NextRunAt: due,
		CreatedAt: due.Add(-24 * time.Hour), UpdatedAt: due.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
}
