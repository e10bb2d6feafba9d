package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/e2e"
	"github.com/insightedge/insightedge/local/eval"
)

var updateEval = flag.Bool("update-eval", false, "rewrite testdata/eval_offline.golden.json")

// evalRun runs the eval command's code path in process and returns its
// report and what it printed.
func evalRun(t *testing.T, o evalOptions) (eval.Report, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	o.Out1, o.Err = &out, &errOut
	if o.Getenv == nil {
		o.Getenv = func(k string) string {
			if k == "CI" {
				return os.Getenv("CI")
			}
			return ""
		}
	}
	if o.Out == "" {
		o.Out = t.TempDir()
	}
	if o.Parallel == 0 {
		o.Parallel = 4
	}
	o.Logger = discardLogger()
	rep, err := runEval(context.Background(), o)
	return rep, out.String(), err
}

// TestEvalSuite is the offline run of the built-in suite: its figures are
// pinned (a regression in the agent machinery changes them), and the
// baseline comparison passes for an unchanged product and fails when the
// model is made to skip its tools.
func TestEvalSuite(t *testing.T) {
	requireSDKInCI(t)
	dir := t.TempDir()
	rep, out, err := evalRun(t, evalOptions{Out: dir})
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	t.Run("suite", func(t *testing.T) { checkSuite(t, rep) })
	t.Run("pinned summary", func(t *testing.T) {
		got, _ := json.MarshalIndent(rep.Pin(), "", "  ")
		golden := filepath.Join("testdata", "eval_offline.golden.json")
		if *updateEval {
			if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test ./local -run TestEvalSuite -update-eval writes it)", err)
		}
		if string(bytes.TrimSpace(want)) != string(got) {
			t.Errorf("the offline run's figures changed (if intended: -update-eval)\n got %s\nwant %s\n%s", got, want, out)
		}
	})
	t.Run("reports", func(t *testing.T) { checkReports(t, dir, rep, out) })
	baseline := filepath.Join(dir, "eval.json")
	t.Run("unchanged product passes the baseline", func(t *testing.T) {
		_, out, err := evalRun(t, evalOptions{Scene: "quiz", Baseline: baseline, LatencySlackMS: 5000})
		if err != nil {
			t.Fatalf("an unchanged run fails its own baseline: %v\n%s", err, out)
		}
		if !strings.Contains(out, "pass  quiz success rate ≥ baseline") {
			t.Errorf("the quiz rule was not applied:\n%s", out)
		}
	})
	t.Run("a model that skips tools fails the baseline", func(t *testing.T) {
		rep, out, err := evalRun(t, evalOptions{Scene: "quiz", Baseline: baseline, LatencySlackMS: 5000,
			Rewrite: eval.AppendToUser(" [[offline:skip-tools]]")})
		if !errors.Is(err, errBaselineFailed) {
			t.Fatalf("err = %v, want errBaselineFailed\n%s", err, out)
		}
		if !strings.Contains(out, "FAIL  quiz success rate ≥ baseline") {
			t.Errorf("the quiz success rule did not fail:\n%s", out)
		}
		quiz := rep.Rows[0]
		if quiz.Name != "quiz" || quiz.SuccessRate > 0.2 {
			t.Errorf("with tools skipped the quiz success rate is %v", quiz.SuccessRate)
		}
	})
}

func checkSuite(t *testing.T, rep eval.Report) {
	if len(rep.Cases) < 150 {
		t.Errorf("%d cases, want at least 150", len(rep.Cases))
	}
	langs := map[string]map[string]bool{}
	for _, c := range rep.Cases {
		if langs[c.Scene] == nil {
			langs[c.Scene] = map[string]bool{}
		}
		langs[c.Scene][c.Language] = true
	}
	for _, s := range eval.Scenes {
		if !langs[s]["zh"] || !langs[s]["en"] {
			t.Errorf("scene %s lacks Chinese or English cases: %v", s, langs[s])
		}
	}
	rows := map[string]eval.Row{}
	for _, r := range rep.Rows {
		rows[r.Name] = r
	}
	for _, tag := range []string{"adversarial", "misbehaviour", "false-promise-temptation", "ambiguous", "unknown-entity", "prompt-injection", "multi-turn"} {
		if rows["tag:"+tag].Cases == 0 {
			t.Errorf("no %s cases", tag)
		}
	}
	all := rows["all"]
	if all.ProtocolBreaks != 0 || all.FalsePromises != 0 {
		t.Errorf("offline: %d protocol breaks, %d false promises", all.ProtocolBreaks, all.FalsePromises)
	}
	if all.TokensPerTurn == 0 || rep.Tokens.Calls == 0 {
		t.Errorf("no tokens metered: %+v", rep.Tokens)
	}
	if rows["tag:misbehaviour"].ValidateRetries == 0 {
		t.Error("the misbehaving cases caused no validate retry")
	}
}

func checkReports(t *testing.T, dir string, rep eval.Report, out string) {
	for _, scene := range eval.Scenes {
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(scene) + `\s+\d+\s+\d`).MatchString(out) {
			t.Errorf("no table row for %s:\n%s", scene, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := eval.LoadReport(filepath.Join(dir, "eval.json"))
	if err != nil || len(back.Cases) != len(rep.Cases) || len(back.Rows) != len(rep.Rows) {
		t.Fatalf("eval.json does not read back (%d bytes): %v", len(b), err)
	}
	h, err := os.ReadFile(filepath.Join(dir, "eval.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(h)
	for _, want := range []string{"<svg", "success rate per scene", "total time per turn", "rates per scene", rep.Cases[0].ID} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	// Self-contained: nothing is loaded from elsewhere.
	if m := regexp.MustCompile(`(?i)<script|<link|\ssrc=|url\(|@import`).FindString(page); m != "" {
		t.Errorf("the HTML report loads something: %q", m)
	}
}

// TestEvalAgainstURL runs a team's own cases against a running server by
// its URL, as against a deployed stack.
func TestEvalAgainstURL(t *testing.T) {
	requireSDKInCI(t)
	s := e2e.NewLocal(t, nil)
	cases := filepath.Join(t.TempDir(), "mine.json")
	os.WriteFile(cases, []byte(`{"cases": [
	  {"id": "q", "scene": "quiz", "language": "en", "mode": "natural", "turns": [
	    {"message": "Create 5 multiple-choice questions on Newton's first law", "expect": {"path": "artifact", "quizCount": 5}},
	    {"message": "What is photosynthesis?", "expect": {"path": "answer", "anyText": ["light"]}}]},
	  {"id": "wrong", "scene": "smalltalk", "language": "zh", "turns": [{"message": "你好", "expect": {"path": "artifact"}}]}
	]}`), 0o644)
	rep, out, err := evalRun(t, evalOptions{URL: s.URL, Cases: cases, Parallel: 2})
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	if rep.Target != s.URL || len(rep.Cases) != 2 {
		t.Fatalf("target %q, %d cases", rep.Target, len(rep.Cases))
	}
	if !slices.ContainsFunc(rep.Rows, func(r eval.Row) bool { return r.Name == "mode:natural" && r.Cases == 1 }) {
		t.Errorf("no row for the mode the case names: %+v", rep.Rows)
	}
	if !rep.Cases[0].Pass || len(rep.Cases[0].Turns) != 2 {
		t.Errorf("the good case failed: %+v", rep.Cases[0])
	}
	if rep.Cases[1].Pass || !strings.Contains(out, "wrong (smalltalk): turn 1: path answer, want artifact") {
		t.Errorf("a wrong expectation was not reported:\n%s", out)
	}
	if strings.Contains(out, "offline stand-in") {
		t.Errorf("a deployed stack's failure blamed on the offline model:\n%s", out)
	}
	t.Run("bad case file", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.json")
		os.WriteFile(bad, []byte(`[{"id": "x", "scene": "quiz", "language": "fr", "turns": [{"message": "", "expect": {"paht": "answer"}}]}]`), 0o644)
		_, _, err := evalRun(t, evalOptions{URL: s.URL, Cases: bad})
		if err == nil || !strings.Contains(err.Error(), `unknown field "paht"`) {
			t.Errorf("err = %v, want the unknown field named", err)
		}
	})
}

// A failure of one's own case against the offline model says that the
// stand-in answers the built-in scenarios only.
func TestEvalOfflineFailureSaysWhy(t *testing.T) {
	requireSDKInCI(t)
	cases := filepath.Join(t.TempDir(), "mine.json")
	os.WriteFile(cases, []byte(`[{"id": "wrong", "scene": "smalltalk", "language": "zh", "turns": [{"message": "你好", "expect": {"path": "artifact"}}]}]`), 0o644)
	_, out, err := evalRun(t, evalOptions{Cases: cases})
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	if !strings.Contains(out, "1 of 1 cases failed against the offline stand-in model") || !strings.Contains(out, "OPENAI_BASE_URL") {
		t.Errorf("the failure does not say the stand-in's limit:\n%s", out)
	}
}

// TestEvalModels checks every model of each chain: the offline model's are
// usable; a provider whose tool calls do not stream and whose JSON mode
// answers prose is reported unusable, and the command fails.
func TestEvalModels(t *testing.T) {
	_, out, err := evalRun(t, evalOptions{Models: true})
	if err != nil {
		t.Fatalf("offline models: %v\n%s", err, out)
	}
	for _, m := range []string{"offline-fast", "offline-standard", "offline-strong"} {
		if !regexp.MustCompile(m + `\s+yes\s+yes\s+yes\s+yes\s+no\s+yes`).MatchString(out) {
			t.Errorf("%s not reported usable:\n%s", m, out)
		}
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ResponseFormat *struct{ Type string } `json:"response_format"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Sure! Here is the answer."},"finish_reason":"stop"}]}`
		if req.ResponseFormat == nil {
			args, _ := json.Marshal(`{"status":"answer_ready","message":"Plants make food from light."}`)
			chunk = fmt.Sprintf(`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"final_result","arguments":%s}}]},"finish_reason":"tool_calls"}]}`, args)
		}
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", chunk)
	}))
	defer bad.Close()
	env := map[string]string{"OPENAI_BASE_URL": bad.URL + "/v1", "OPENAI_API_KEY": "k", "LLM_MODEL_STANDARD": "lumpy-1"}
	_, out, err = evalRun(t, evalOptions{Models: true, Getenv: func(k string) string { return env[k] }})
	if err == nil || !strings.Contains(err.Error(), "no usable model in the fast, standard, strong chain") {
		t.Fatalf("err = %v\n%s", err, out)
	}
	for _, want := range []string{"lumpy-1", "not one JSON object", "arrived in one piece"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not say %q:\n%s", want, out)
		}
	}
}

// requireSDKInCI: in CI the AI SDK checker must be there (runEval fails
// without it); elsewhere the run falls back to checking the framing.
func requireSDKInCI(t *testing.T) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		e2e.RequireTool(t, "node")
	}
}
