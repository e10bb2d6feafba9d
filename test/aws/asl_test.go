package awstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/asl"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/wire/awswire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// nodeTool returns the path of a command installed in test/js.
func (s *suite) nodeTool(t *testing.T, name string) string {
	t.Helper()
	require(t, "node")
	return require(t, filepath.Join(s.repo, "test", "js", "node_modules", ".bin", name))
}

// testASLValidator validates every state machine definition with the npm
// asl-validator, and checks that the validator rejects a broken one.
func (s *suite) testASLValidator(t *testing.T) {
	validator := s.nodeTool(t, "asl-validator")
	files, err := filepath.Glob(filepath.Join(s.repo, "infra", "statemachines", "*.asl.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no infra/statemachines/*.asl.json: %v", err)
	}
	validate := func(path string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), testBound)
		defer cancel()
		out, err := exec.CommandContext(ctx, validator, "--json-path", path).CombinedOutput()
		return string(out), err
	}
	for _, f := range files {
		if out, err := validate(f); err != nil {
			t.Errorf("%s: %v\n%s", filepath.Base(f), err, out)
		}
	}
	// The validator can fail: a transition to a missing state in each.
	for _, b := range []struct {
		name string
		def  []byte
		next string
	}{
		{"conversation", infra.ConversationASL, `"Next": "RoutePath"`},
		{"build", infra.BuildASL, `"Next": "AfterData"`},
		{"research", infra.ResearchASL, `"Next": "Finish"`},
	} {
		broken := filepath.Join(t.TempDir(), b.name+".broken.asl.json")
		def := strings.Replace(string(b.def), b.next, `"Next": "NoSuchState"`, 1)
		if def == string(b.def) {
			t.Fatalf("%s: no %s to break", b.name, b.next)
		}
		if err := os.WriteFile(broken, []byte(def), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := validate(broken); err == nil {
			t.Errorf("asl-validator accepted a transition to a missing state in %s:\n%s", b.name, out)
		}
	}
}

// taskShim serves a graph's workflow tasks over HTTP (POST /task/<name>)
// for the JavaScript interpreter's task handlers.
func taskShim(t *testing.T, tasks map[string]wire.Task) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /task/{name}", func(w http.ResponseWriter, r *http.Request) {
		task, ok := tasks[r.PathValue("name")]
		if !ok {
			http.Error(w, "no such task", http.StatusNotFound)
			return
		}
		in, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, err := task(r.Context(), in)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			// As Lambda reports a Go error: its type's name and message, or
			// an InvokeResponse_Error's own type and message (wire.Typed).
			typ, msg := errorType(err), err.Error()
			if ire, ok := err.(messages.InvokeResponse_Error); ok {
				typ, msg = ire.Type, ire.Message
			}
			w.WriteHeader(http.StatusInternalServerError)
			_ = json.NewEncoder(w).Encode(map[string]string{"errorType": typ, "errorMessage": msg})
			return
		}
		_, _ = w.Write(out)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func errorType(err error) string {
	typ := reflect.TypeOf(err)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	return typ.Name()
}

// run is what one execution of the conversation workflow produced.
type run struct {
	Status  string
	Output  json.RawMessage
	Entered map[string]int
	Events  []any
	Turn    any
}

// stepsApp is the graph of the task functions on table, built the way the
// functions build it (awswire.FromEnv) with local endpoints.
func (s *suite) stepsApp(t *testing.T, table string) *awswire.App {
	t.Helper()
	env := map[string]string{awswire.EnvTable: table, "OPENAI_BASE_URL": s.model(t), "OPENAI_API_KEY": "offline",
		"LLM_MODEL_FAST": "offline-fast", "LLM_MODEL_STANDARD": offlineModelName, "LLM_MODEL_STRONG": "offline-strong"}
	app, err := awswire.FromEnv(context.Background(), func(k string) string { return env[k] }, localAWS(s.dynalite(t).Endpoint, "", ""))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// result reads what a run left in the table: the turn's events, merged as
// a client sees them, and the turn's outcome.
func result(t *testing.T, tbl *dynamostore.Table, turn workflow.Turn) ([]any, any) {
	t.Helper()
	evs, err := tbl.Events().Read(context.Background(), workflow.TurnStream(turn.TurnID), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ended, err := tbl.Sessions().GetTurn(context.Background(), turn.SessionID, turn.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	return mergeDeltas(t, evs), map[string]any{"status": ended.Status, "outcome": ended.Outcome}
}

// mergeDeltas decodes the events' chunks and joins consecutive text-delta
// chunks of one part: how an answer is cut into deltas depends on timing
// (the agent coalesces them every 50 ms), what the client assembles does not.
func mergeDeltas(t *testing.T, evs []eventlog.Event) []any {
	t.Helper()
	var out []any
	for _, e := range evs {
		var c map[string]any
		if err := json.Unmarshal(e.Data, &c); err != nil {
			t.Fatalf("event %d: %v", e.Seq, err)
		}
		if c["type"] == "text-delta" && len(out) > 0 {
			if prev, ok := out[len(out)-1].(map[string]any); ok && prev["type"] == "text-delta" && prev["id"] == c["id"] {
				prev["delta"] = fmt.Sprint(prev["delta"]) + fmt.Sprint(c["delta"])
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// interpretGo runs the definition def on input with our interpreter
// (local/asl), its tasks being tasks; it returns the status, the output
// and the states entered.
func interpretGo(t *testing.T, def []byte, tasks map[string]wire.Task, input []byte, execution string) run {
	t.Helper()
	subs, handlers := map[string]string{}, map[string]asl.Handler{}
	for _, m := range regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`).FindAllStringSubmatch(string(def), -1) {
		// A state whose task the graph does not have yet fails if entered
		// (TestTemplateWorkflow reports the missing task).
		subs[m[1]] = "arn:local:lambda:" + m[1]
		handlers[subs[m[1]]] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return nil, fmt.Errorf("no task %s in wire.App", m[1])
		}
	}
	for name, task := range tasks {
		subs[name] = "arn:local:lambda:" + name
		handlers[subs[name]] = asl.Handler(task)
	}
	// The emulator compared with has no task tokens: a differential
	// scenario must not enter a .waitForTaskToken state.
	handlers["arn:aws:states:::lambda:invoke.waitForTaskToken"] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("a .waitForTaskToken state was entered: the differential cannot compare it")
	}
	m, err := asl.Parse(def, subs)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	entered := map[string]int{}
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	out, err := m.Run(ctx, input, asl.Options{Handlers: handlers, Logger: discardLogger(), ExecutionID: execution,
		OnTransition: func(state, _ string) {
			mu.Lock()
			entered[state]++
			mu.Unlock()
		}})
	r := run{Status: "SUCCEEDED", Output: out, Entered: entered}
	if err != nil {
		r.Status, r.Output = "FAILED", json.RawMessage(fmt.Sprintf("%q", err.Error()))
	}
	return r
}

// interpretJS runs the ASL file (under infra/statemachines) on input with
// the npm aws-local-stepfunctions, its tasks calling the same steps through
// the HTTP shim.
func (s *suite) interpretJS(t *testing.T, file string, tasks map[string]wire.Task, input []byte) run {
	t.Helper()
	require(t, "node")
	script := require(t, filepath.Join(s.repo, "test", "js", "run-workflow.mjs"))
	s.nodeTool(t, "local-sfn") // aws-local-stepfunctions is installed
	shim := taskShim(t, tasks)
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, filepath.Join(s.repo, "infra", "statemachines", file), shim)
	cmd.Dir = filepath.Join(s.repo, "test", "js")
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node run-workflow.mjs: %v\n%s", err, stderr.String())
	}
	var rep struct {
		Status  string          `json:"status"`
		Output  json.RawMessage `json:"output"`
		Error   string          `json:"error"`
		Cause   string          `json:"cause"`
		Entered map[string]int  `json:"entered"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("run-workflow.mjs printed %q: %v", out, err)
	}
	r := run{Status: rep.Status, Output: rep.Output, Entered: rep.Entered}
	if rep.Status != "SUCCEEDED" {
		r.Output = json.RawMessage(fmt.Sprintf("%q", rep.Error+": "+rep.Cause))
	}
	return r
}

// runTurn runs the conversation workflow for turn, on a table of its own,
// with the interpreter that interpret calls: local/asl (interpretGo) or the
// npm aws-local-stepfunctions (interpretJS).
func (s *suite) runTurn(t *testing.T, turn workflow.Turn, interpret func(tasks map[string]wire.Task, input []byte) run) run {
	t.Helper()
	app := s.stepsApp(t, s.dynalite(t).NewTable(t))
	seedTurn(t, app.Table, turn)
	input, _ := json.Marshal(workflow.NewConversationState(turn))
	r := interpret(app.ConversationTasks(), input)
	r.Events, r.Turn = result(t, app.Table, turn)
	return r
}

// testWorkflowEquivalence runs the conversation workflow with both
// interpreters on the same inputs, with the offline model: the execution
// output, the states entered, the turn's events and its outcome must be the
// same.
func (s *suite) testWorkflowEquivalence(t *testing.T) {
	scenarios := []struct{ name, message string }{
		{"quiz", "出 5 道牛顿第一定律的选择题"},
		{"chat", "What is photosynthesis?"},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			turn := workflow.Turn{SessionID: "conv-" + sc.name, TurnID: "turn-" + sc.name, TeacherID: "t-001",
				MessageID: "msg-" + sc.name, Message: sc.message}
			js := s.runTurn(t, turn, func(tasks map[string]wire.Task, input []byte) run {
				return s.interpretJS(t, "conversation.asl.json", tasks, input)
			})
			goRun := s.runTurn(t, turn, func(tasks map[string]wire.Task, input []byte) run {
				return interpretGo(t, infra.ConversationASL, tasks, input, turn.TurnID)
			})
			sameRun(t, js, goRun)
			if !reflect.DeepEqual(js.Turn, goRun.Turn) {
				t.Errorf("turn: aws-local-stepfunctions %v, local/asl %v", js.Turn, goRun.Turn)
			}
			sameEvents(t, js.Events, goRun.Events)
			t.Logf("%s: %d events, states entered %v", sc.name, len(goRun.Events), goRun.Entered)
		})
	}
}

// sameRun checks that aws-local-stepfunctions (js) and local/asl (goRun)
// ran a definition alike: both succeeded, with the same output and the
// same states entered.
func sameRun(t *testing.T, js, goRun run) {
	t.Helper()
	if js.Status != "SUCCEEDED" || goRun.Status != "SUCCEEDED" {
		t.Fatalf("status: aws-local-stepfunctions %s %s, local/asl %s %s", js.Status, js.Output, goRun.Status, goRun.Output)
	}
	if !jsonEqual(js.Output, goRun.Output) {
		t.Errorf("output: aws-local-stepfunctions %s, local/asl %s", js.Output, goRun.Output)
	}
	if !reflect.DeepEqual(js.Entered, goRun.Entered) {
		t.Errorf("states entered: aws-local-stepfunctions %v, local/asl %v", js.Entered, goRun.Entered)
	}
}

// sameEvents checks that the two interpreters' runs sent the same events,
// showing both lists when not.
func sameEvents[E any](t *testing.T, js, goRun []E) {
	t.Helper()
	if !reflect.DeepEqual(js, goRun) {
		a, _ := json.MarshalIndent(js, "", " ")
		b, _ := json.MarshalIndent(goRun, "", " ")
		t.Errorf("events differ:\naws-local-stepfunctions %s\nlocal/asl %s", a, b)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
