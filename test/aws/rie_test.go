package awstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/golang-jwt/jwt/v5"

	"github.com/insightedge/insightedge/infra/sample"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/syncbuf"
	"github.com/insightedge/insightedge/shared/wire/awswire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// rieBinary finds aws-lambda-rie on PATH or in $(go env GOPATH)/bin.
func rieBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("aws-lambda-rie"); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "aws-lambda-rie")
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return require(t, "aws-lambda-rie") // skips, or fails on CI; .ci/run installs the pinned version
}

// emulated is one function running under the emulator.
type emulated struct {
	name   string
	invoke string
	logs   *syncbuf.Buffer
	pid    int // the emulator's; the function's process is its child
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// emulate starts bin under the emulator with env (and nothing else of the
// test's environment but PATH and HOME), on loopback ports, until t ends.
func emulate(t *testing.T, rie, bin string, env map[string]string) *emulated {
	t.Helper()
	api, rapid := freePort(t), freePort(t)
	cmd := exec.Command(rie, "--runtime-interface-emulator-address", fmt.Sprintf("127.0.0.1:%d", api),
		"--runtime-api-address", fmt.Sprintf("127.0.0.1:%d", rapid), bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	logs := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the emulator: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	e := &emulated{name: filepath.Base(bin), invoke: fmt.Sprintf("http://127.0.0.1:%d/2015-03-31/functions/function/invocations", api), logs: logs, pid: cmd.Process.Pid}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			out := logs.String()
			t.Logf("%s emulator logs (last 4000 bytes):\n%s", e.name, out[max(0, len(out)-4000):])
		}
	})
	// Ready when the emulator accepts connections (about 100 ms).
	deadline := time.Now().Add(testBound)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", api), time.Second)
		if err == nil {
			c.Close()
			return e
		}
		select {
		case <-exited:
			t.Fatalf("the emulator exited: %s", logs.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the emulator did not listen within %s", testBound)
		}
	}
}

// call invokes the function with payload; a function error (which the
// emulator answers with 200 and errorMessage/errorType) fails the test.
func (e *emulated) call(t *testing.T, payload []byte) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.invoke, bytes.NewReader(payload))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("invoke %s: %v", e.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("invoke %s: status %d, %v: %s", e.name, resp.StatusCode, err, body)
	}
	var fe struct{ ErrorMessage, ErrorType string }
	if json.Unmarshal(body, &fe) == nil && fe.ErrorType != "" {
		t.Fatalf("%s returned a function error %s: %s", e.name, fe.ErrorType, fe.ErrorMessage)
	}
	return body
}

// initDuration is the cold start the emulator reported (INIT REPORT), or "".
func (e *emulated) initDuration() string {
	m := regexp.MustCompile(`INIT REPORT\(durationMs: ([0-9.]+)\)`).FindStringSubmatch(e.logs.String())
	if m == nil {
		return ""
	}
	return m[1] + " ms"
}

// peakRSS is the peak resident set of the function's process so far
// (VmHWM of the emulator's child that runs the binary), or "" if it is
// not found (the emulator starts it at the first invoke). Lambda bills
// the memory size set, and reports this figure as "Max Memory Used".
func (e *emulated) peakRSS() string {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range dirs {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after ')'.
		_, rest, ok := strings.Cut(string(b), ") ")
		var state string
		var ppid int
		if !ok || func() bool { _, err := fmt.Sscan(rest, &state, &ppid); return err != nil }() || ppid != e.pid {
			continue
		}
		status, err := os.ReadFile(filepath.Join(filepath.Dir(stat), "status"))
		if err != nil {
			continue
		}
		if m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status); m != nil {
			var kb int
			fmt.Sscan(string(m[1]), &kb)
			// utime and stime, the 14th and 15th fields, in clock ticks (100 a second).
			// After "comm) ": state is the 3rd field, so 11 fields come first.
			var f [11]string
			var utime, stime int
			if n, _ := fmt.Sscan(rest, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &utime, &stime); n == 13 {
				return fmt.Sprintf("%.1f MB, CPU %d ms (init and invocations)", float64(kb)/1024, (utime+stime)*10)
			}
			return fmt.Sprintf("%.1f MB", float64(kb)/1024)
		}
	}
	return ""
}

// decodeStrict decodes data into v, failing on fields v does not have:
// the answer must be exactly the step's output type.
func decodeStrict(t *testing.T, what string, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v in %s", what, err, data)
	}
}

// sampleEvent returns events/<name>.json. With -update it first writes the
// file from want; otherwise, when want is not nil, the file must say the
// same as want (it is a sample of the same real run).
func (s *suite) sampleEvent(t *testing.T, name string, want any) []byte {
	t.Helper()
	path := filepath.Join(s.repo, "events", name+".json")
	if *update && want != nil {
		data, err := json.MarshalIndent(want, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("sample event: %v (run with -update to write it)", err)
	}
	if want != nil {
		wantJSON, _ := json.Marshal(want)
		var a, b any
		if err := json.Unmarshal(data, &a); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		_ = json.Unmarshal(wantJSON, &b)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("events/%s.json is not what this run produces for it:\n got %s\nwant %s\n(run go test ./test/aws -run TestEmulators/Functions -update)", name, data, wantJSON)
		}
	}
	return data
}

// The sample turn of events/*.json.
func sampleTurn() workflow.Turn { return sample.Turn }

// seedTurn does what the edge does before it starts a workflow: the
// session, the running turn, and the start chunk of its stream.
func seedTurn(t *testing.T, tbl *dynamostore.Table, turn workflow.Turn) {
	t.Helper()
	ctx := context.Background()
	ss := tbl.Sessions()
	err := ss.CreateSession(ctx, session.Session{ID: turn.SessionID, TeacherID: turn.TeacherID, Kind: "conversation",
		ExpiresAt: time.Now().Add(24 * time.Hour).Truncate(time.Second)})
	if err != nil && !errors.Is(err, session.ErrExists) {
		t.Fatal(err)
	}
	if _, err := ss.BeginTurn(ctx, session.Turn{SessionID: turn.SessionID, ID: turn.TurnID, Message: turn.Message, MessageID: turn.MessageID}); err != nil {
		t.Fatal(err)
	}
	start, err := protocol.MarshalChunk(protocol.Start{MessageID: turn.MessageID,
		MessageMetadata: &protocol.MessageMetadata{ConversationID: turn.SessionID, TurnID: turn.TurnID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Events().Append(ctx, workflow.TurnStream(turn.TurnID), eventlog.Event{Data: start}); err != nil {
		t.Fatal(err)
	}
}

// functionEnv is the environment of a function of the template, localised:
// the shared dynalite's table and the offline model, the secrets from the
// fake SSM, and the endpoints of both.
func (s *suite) functionEnv(t *testing.T, resource, table, ssmURL string) map[string]string {
	t.Helper()
	fns := openTemplate(t, s.repo).functions(t)
	fn, ok := fns[resource]
	if !ok {
		t.Fatalf("no %s in template.yaml", resource)
	}
	env := localEnv(t, fn.Env, table, s.model(t))
	// The sample events carry a token valid until 2099 (so that `sam local
	// invoke` works with them); a deployment keeps the 24 h default.
	env["AUTH_JWT_MAX_LIFE"] = "876000h"
	env["AWS_ENDPOINT_URL_DYNAMODB"] = s.dynalite(t).Endpoint
	env["AWS_ENDPOINT_URL_SSM"] = ssmURL
	env["AWS_REGION"] = "us-east-1"
	env["AWS_ACCESS_KEY_ID"] = "local"
	env["AWS_SECRET_ACCESS_KEY"] = "local"
	env["AWS_LAMBDA_FUNCTION_NAME"] = strings.TrimSuffix(resource, "Function")
	return env
}

// emulatorRig is what the tests of the function binaries under the
// emulator share: the emulator, the binaries taken out of the function
// images, a fresh table and a fake Parameter Store.
type emulatorRig struct {
	s                        *suite
	rie, bins, table, ssmURL string
	dyn                      *dynamotest.Server
	tbl                      *dynamostore.Table
}

func (s *suite) newEmulatorRig(t *testing.T) *emulatorRig {
	t.Helper()
	r := &emulatorRig{s: s, rie: rieBinary(t), bins: s.imageBinaries(t), dyn: s.dynalite(t)}
	r.table = r.dyn.NewTable(t)
	r.tbl = dynamostore.New(r.dyn.Client, r.table, dynamostore.Options{})
	r.ssmURL = fakeSSM(t, testSecrets())
	return r
}

// env is the environment of the function resource over the rig's table.
func (r *emulatorRig) env(t *testing.T, resource string) map[string]string {
	return r.s.functionEnv(t, resource, r.table, r.ssmURL)
}

// start runs the function binary dir under the emulator.
func (r *emulatorRig) start(t *testing.T, dir string, env map[string]string) *emulated {
	return emulate(t, r.rie, filepath.Join(r.bins, dir), env)
}

// urlEvent reads the sample event name (written from sample under -update)
// as a Function URL request.
func (s *suite) urlEvent(t *testing.T, name string, sample any) events.LambdaFunctionURLRequest {
	t.Helper()
	var req events.LambdaFunctionURLRequest
	if err := json.Unmarshal(s.sampleEvent(t, name, sample), &req); err != nil {
		t.Fatal(err)
	}
	return req
}

// testFunctions invokes every function binary under the emulator with its
// sample event: the task functions in the order of a real turn (the quiz
// scenario), each answering with its step's output type, then the api
// function with an HTTP API event.
func (s *suite) testFunctions(t *testing.T) {
	r := s.newEmulatorRig(t)
	turn := sampleTurn()
	seedTurn(t, r.tbl, turn)

	var started []*emulated
	start := func(dir, resource string) *emulated {
		env := r.env(t, resource)
		env[awswire.EnvLogLevel] = "debug" // every line a step may write, checked by checkStepLogs
		e := r.start(t, dir, env)
		started = append(started, e)
		return e
	}
	defer func() { // before the emulators stop (t.Cleanup)
		for _, e := range started {
			t.Logf("%-9s cold start (init, this machine, linux/%s): %s, peak RSS %s", e.name, runtime.GOARCH, e.initDuration(), e.peakRSS())
		}
	}()

	router := start("router", "RouterFunction")
	var route workflow.RouteOutput
	in := s.sampleEvent(t, "router", workflow.RouteInput{Turn: turn})
	decodeStrict(t, "router", router.call(t, in), &route)
	if route.Path != workflow.PathAgent || route.Result.Intent == "" {
		t.Fatalf("router: %+v, want the agent path with an intent", route)
	}

	agent := start("agentturn", "AgentTurnFunction")
	first := workflow.AgentInput{Turn: turn, Route: route, Attempt: 1, Prev: workflow.AgentOutput{ToolCalls: []workflow.ToolCallRef{}}}
	var round1 workflow.AgentOutput
	decodeStrict(t, "agentturn", agent.call(t, s.sampleEvent(t, "agentturn", first)), &round1)
	if round1.Next != workflow.NextTools || len(round1.ToolCalls) == 0 {
		t.Fatalf("agentturn round 1: %+v, want tool calls", round1)
	}

	tools := start("tool", "ToolFunction")
	var tool workflow.ToolOutput
	in = s.sampleEvent(t, "tool", workflow.ToolInput{Turn: turn, Attempt: 1, Call: round1.ToolCalls[0]})
	decodeStrict(t, "tool", tools.call(t, in), &tool)
	if tool.Status != "success" {
		t.Fatalf("tool: %+v, want success", tool)
	}
	for _, c := range round1.ToolCalls[1:] { // the map's other iterations
		payload, _ := json.Marshal(workflow.ToolInput{Turn: turn, Attempt: 1, Call: c})
		tools.call(t, payload)
	}

	second := first
	second.Prev = round1
	var round2 workflow.AgentOutput
	decodeStrict(t, "agentturn", agent.call(t, s.sampleEvent(t, "agentturn-final", second)), &round2)
	if round2.Next != workflow.NextFinal {
		t.Fatalf("agentturn round 2: %+v, want final", round2)
	}

	var verdict workflow.ValidateOutput
	in = s.sampleEvent(t, "validate", workflow.ValidateInput{Turn: turn, Route: route, Attempt: 1})
	decodeStrict(t, "validate", start("validate", "ValidateFunction").call(t, in), &verdict)
	if verdict.Verdict != workflow.VerdictOK {
		t.Fatalf("validate: %+v, want ok", verdict)
	}

	var fin workflow.FinishOutput
	in = s.sampleEvent(t, "finish", workflow.FinishInput{Turn: turn, Attempt: 1, Route: &route, Agent: &round2, Validation: &verdict})
	decodeStrict(t, "finish", start("finish", "FinishFunction").call(t, in), &fin)
	if fin.Status != string(session.TurnCompleted) {
		t.Fatalf("finish: %+v, want completed", fin)
	}

	// The build path: the router sends an analysis request to PlanBuild,
	// the buildstep function's plan phase.
	build := turn
	build.TurnID, build.MessageID, build.Message = "turn-sample-build", "msg-sample-build", "分析一下 1A 班的成绩"
	var buildRoute workflow.RouteOutput
	payload, _ := json.Marshal(workflow.RouteInput{Turn: build})
	decodeStrict(t, "router", router.call(t, payload), &buildRoute)
	if buildRoute.Path != workflow.PathBuild {
		t.Fatalf("router on %q: %+v, want the build path", build.Message, buildRoute)
	}
	var plan workflow.PlanOutput
	in = s.sampleEvent(t, "buildstep", workflow.PlanInput{Phase: workflow.PhasePlan, Turn: build, Route: buildRoute})
	decodeStrict(t, "buildstep", start("buildstep", "BuildStepFunction").call(t, in), &plan)
	switch plan.Status {
	case workflow.PlanPlanned, workflow.PlanClarify, workflow.PlanFailed:
	default:
		t.Fatalf("buildstep plan: %+v, want a plan status", plan)
	}
	t.Logf("buildstep planned %q: %+v", build.Message, plan)

	// Every log line a step wrote names the turn, as locally (the mains
	// start the steps through wire's task adapter).
	logged := map[string]int{}
	for _, e := range started {
		logged[e.name] += checkStepLogs(t, e, turn)
	}
	if logged["router"] == 0 || logged["buildstep"] == 0 {
		t.Errorf("step log lines checked: %v; the router and buildstep steps log at debug, so the check proved nothing", logged)
	}

	// What the functions did, as the edge will read it.
	ended, err := r.tbl.Sessions().GetTurn(context.Background(), turn.SessionID, turn.TurnID)
	if err != nil || ended.Status != session.TurnCompleted {
		t.Fatalf("turn after finish: %+v, %v", ended, err)
	}
	evs, err := r.tbl.Events().Read(context.Background(), workflow.TurnStream(turn.TurnID), 0, 0)
	if err != nil || len(evs) < 3 || !evs[len(evs)-1].Close {
		t.Fatalf("the turn's stream: %d events, closed %v, %v", len(evs), len(evs) > 0 && evs[len(evs)-1].Close, err)
	}
	types := chunkTypes(t, evs)
	for _, want := range []string{"start", "data-tool-progress", "data-quiz", "text-delta", "finish"} {
		if !strings.Contains(strings.Join(types, " "), want) {
			t.Errorf("the stream lacks %s: %v", want, types)
		}
	}

	// The api function behind the HTTP API: its health route.
	var resp events.APIGatewayV2HTTPResponse
	api := start("api", "ApiFunction")
	health := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "GET /api/health", RawPath: "/api/health",
		Headers: map[string]string{"accept": "application/json"},
		RequestContext: events.APIGatewayV2HTTPRequestContext{Stage: "$default", RequestID: "sample-request",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/api/health", Protocol: "HTTP/1.1", SourceIP: "203.0.113.7"}}}
	decodeStrict(t, "api", api.call(t, s.sampleEvent(t, "api", health)), &resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Body, `"status":"ok"`) {
		t.Fatalf("api GET /api/health: %d %s", resp.StatusCode, resp.Body)
	}
	// And a JSON route that reads the turn the task functions wrote.
	messages := health
	messages.RouteKey = "GET /api/conversation/{id}/messages"
	messages.RawPath = "/api/conversation/" + turn.SessionID + "/messages"
	messages.RequestContext.HTTP.Path = messages.RawPath
	messages.Headers = map[string]string{"authorization": "Bearer " + sampleToken(t, turn.TeacherID)}
	resp = events.APIGatewayV2HTTPResponse{}
	decodeStrict(t, "api", api.call(t, s.sampleEvent(t, "api-messages", messages)), &resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Body, turn.MessageID) {
		t.Fatalf("api GET messages: %d %s", resp.StatusCode, resp.Body)
	}
}

// sampleToken is a JWT for teacher signed with the sample secret, valid
// until 2099 (it appears in events/*.json).
func sampleToken(t *testing.T, teacher string) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": teacher, "exp": 4070908800}).SignedString([]byte(testJWTSecret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// chunkTypes returns the "type" of each event's chunk.
func chunkTypes(t *testing.T, evs []eventlog.Event) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		var c struct{ Type string }
		if err := json.Unmarshal(e.Data, &c); err != nil {
			t.Fatalf("event %d: %v", e.Seq, err)
		}
		out[i] = c.Type
	}
	return out
}

// checkStepLogs checks the JSON log lines (log/slog, with "service") that a
// step function wrote while invoked under the emulator (between INVOKE
// START and RTDONE; the lines of its cold start name no turn): each names its session
// and turn, and carries the trace id attribute. It returns how many lines
// it checked (a step that went well may log nothing).
func checkStepLogs(t *testing.T, e *emulated, turn workflow.Turn) int {
	t.Helper()
	if e.name == "api" {
		return 0 // an HTTP function: its lines name requests, not turns
	}
	n, invoked := 0, false
	for _, line := range strings.Split(e.logs.String(), "\n") {
		switch {
		// The emulator starts the runtime at the first invoke: its INIT
		// comes after START, before INVOKE START.
		case strings.Contains(line, "(rapid) INVOKE START("):
			invoked = true
		case strings.Contains(line, "(rapid) INVOKE RTDONE("):
			invoked = false
		}
		var rec map[string]any
		if !invoked || !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &rec) != nil || rec["service"] == nil || rec["message"] == nil {
			continue // the emulator's own lines, the cold start, obs.EMF's metric lines
		}
		n++
		ids := rec // a line that carries a metric keeps its ids at the top
		if c, ok := rec["context"].(map[string]any); ok {
			ids = c // seed 004 §4.3: the others under "context"
		}
		sid, _ := ids["sessionId"].(string)
		tid, _ := ids["turnId"].(string)
		_, hasTrace := ids["traceId"]
		if sid != turn.SessionID || !strings.HasPrefix(tid, turn.TurnID) || !hasTrace {
			t.Errorf("%s logged a line without its turn's ids (sessionId, turnId, traceId): %s", e.name, line)
		}
	}
	return n
}
