package awstest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/flags"
	"github.com/insightedge/insightedge/shared/limits"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/wire/awswire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// TestCfnLint runs cfn-lint on the templates with the informational checks
// included: it must find nothing (each informational finding is answered
// in the template, e.g. DeletionPolicy on every stateful resource).
func TestCfnLint(t *testing.T) {
	lint := require(t, "cfn-lint") // .ci/run installs cfn-lint==1.51.0
	repo := repoRoot(t)
	for _, file := range []string{"template.yaml", "template-image.yaml"} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		out, err := exec.CommandContext(ctx, lint, "--include-checks", "I", "--", filepath.Join(repo, file)).CombinedOutput()
		cancel()
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("cfn-lint --include-checks I %s: %v\n%s", file, err, out)
		}
	}
}

// TestTemplateRetain checks that the data outlives the stack: the table
// (and the bucket of teachers' files) are kept when the stack is deleted
// or the resource replaced.
func TestTemplateRetain(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	res, _ := tp.raw["Resources"].(map[string]any)
	for _, name := range []string{"Table", "FilesBucket"} {
		r, _ := res[name].(map[string]any)
		if r["DeletionPolicy"] != "Retain" || r["UpdateReplacePolicy"] != "Retain" {
			t.Errorf("%s: DeletionPolicy %v, UpdateReplacePolicy %v; want Retain for both", name, r["DeletionPolicy"], r["UpdateReplacePolicy"])
		}
	}
}

// TestTemplateNoSilentMockData checks that in AWS no function falls back to
// the mock data set unless the operator says so: every function with the
// data tools sets JAVA_API_FALLBACK_TO_MOCK from a parameter whose default
// is false (javaapi's own default is true, for the local run), and neither
// stage of samconfig.toml turns it on.
func TestTemplateNoSilentMockData(t *testing.T) {
	repo := repoRoot(t)
	tp := openTemplate(t, repo)
	n := 0
	for name, fn := range tp.functions(t) {
		if _, data := fn.Env[awswire.EnvJavaBaseURL]; !data {
			continue
		}
		n++
		ref, ok := strings.CutPrefix(fn.Env["JAVA_API_FALLBACK_TO_MOCK"], "ref:")
		if !ok {
			t.Errorf("%s has the data tools but does not set JAVA_API_FALLBACK_TO_MOCK (the client's default is true)", name)
			continue
		}
		if p, ok := tp.Parameters[ref]; !ok || p.Default != "false" {
			t.Errorf("%s: JAVA_API_FALLBACK_TO_MOCK=%s defaults to %v, want false", name, ref, p.Default)
		}
	}
	if n == 0 {
		t.Fatal("no function has the data tools")
	}
	for env, kv := range samconfigOverrides(t, repo) {
		if kv["DataFallbackToMock"] == "true" {
			t.Errorf("samconfig.toml [%s] turns the mock fallback on", env)
		}
		if env == "prod" && kv["UseMockData"] != "false" {
			t.Errorf("samconfig.toml [prod] UseMockData=%q, want false", kv["UseMockData"])
		}
	}
}

// samconfigOverrides is each samconfig.toml environment's
// parameter_overrides, as key → value.
func samconfigOverrides(t *testing.T, repo string) map[string]map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "samconfig.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	env := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if m := regexp.MustCompile(`^\[([a-z]+)\.deploy\.parameters\]$`).FindStringSubmatch(line); m != nil {
			env = m[1]
		} else if strings.HasPrefix(line, "[") {
			env = ""
		}
		if v, ok := strings.CutPrefix(line, "parameter_overrides = "); ok && env != "" {
			out[env] = map[string]string{}
			for _, f := range strings.Fields(strings.Trim(v, `"`)) {
				k, v, _ := strings.Cut(f, "=")
				out[env][k] = v
			}
		}
	}
	return out
}

// TestSamconfigBuild checks that no build is cached: SAM's cache hashes
// each function's CodeUri folder (functions/<name>), not shared/, so a
// cached build deploys stale code after a change in shared/.
func TestSamconfigBuild(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "samconfig.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if regexp.MustCompile(`^\s*cached\s*=\s*true`).MatchString(line) {
			t.Errorf("samconfig.toml:%d: %s (SAM would skip rebuilding a function whose folder did not change)", i+1, line)
		}
	}
}

// TestNoPlaceholders checks that nothing deployable or documented points
// at example domains: a placeholder deployed as-is is a broken prod.
func TestNoPlaceholders(t *testing.T) {
	repo := repoRoot(t)
	for _, f := range []string{"samconfig.toml", "template.yaml", "template-image.yaml", "docs/deploy.md", "README.md"} {
		data, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if regexp.MustCompile(`(?i)\bexample\.(com|org|net)\b`).MatchString(line) {
				t.Errorf("%s:%d has a placeholder domain: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestTemplateImage checks the PackageType: Image option
// (template-image.yaml): the same functions as template.yaml, each running
// the image build-images pushes for its directory, arm64 like the images,
// with neither a zip runtime nor a handler.
func TestTemplateImage(t *testing.T) {
	repo := repoRoot(t)
	zip := openTemplate(t, repo).functions(t)
	img := openTemplateFile(t, repo, "template-image.yaml")
	fns := img.functions(t)
	if len(fns) != len(zip) {
		t.Fatalf("%d functions in template-image.yaml, %d in template.yaml", len(fns), len(zip))
	}
	for name, fn := range fns {
		z, ok := zip[name]
		if !ok {
			t.Errorf("%s is not in template.yaml", name)
			continue
		}
		dir := strings.TrimPrefix(z.CodeUri, "functions/")
		if fn.Props["PackageType"] != "Image" || fn.Props["ImageUri"] != "sub:${ImageRepository}:"+dir+"-${ImageTag}" {
			t.Errorf("%s: PackageType %v ImageUri %v, want the image of functions/%s", name, fn.Props["PackageType"], fn.Props["ImageUri"], dir)
		}
		if fn.CodeUri != "" || fn.Runtime != "" || fn.Handler != "" || fn.BuildMethod != "" {
			t.Errorf("%s: an image function with zip settings: %+v", name, fn)
		}
		if strings.Join(fn.Architectures, ",") != "arm64" {
			t.Errorf("%s: architectures %v, want arm64 (the images')", name, fn.Architectures)
		}
		if len(fn.Env) != len(z.Env) {
			t.Errorf("%s: environment differs from template.yaml's", name)
		}
	}
}

// emittedMetrics are the metric names the code writes in the InsightEdge
// namespace: every Count("…") in shared/, the edge's latencies, and the
// metric constants of the model and data-service clients and the relay.
func emittedMetrics(t *testing.T, repo string) map[string]bool {
	t.Helper()
	out := map[string]bool{edge.MetricTurnTime: true, edge.MetricTimeToFirstText: true}
	for _, m := range issue28Metrics { // issue 28: the constants the code's EMF lines use
		out[m] = true
	}
	re := regexp.MustCompile(`\.Count\("([A-Za-z]+)"`)
	err := filepath.WalkDir(filepath.Join(repo, "shared"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := os.ReadFile(p)
		for _, m := range re.FindAllSubmatch(data, -1) {
			out[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTemplateOperatorView checks the dashboard and the alarms: they read
// only metrics the code emits, with dimension values the code uses; the
// dashboard shows P50, P90 and P99 of the turn time and of the time to
// first text and the seed's acceptance rates; the false-promise and error
// rate alarms notify the alarm topic.
func TestTemplateOperatorView(t *testing.T) {
	repo := repoRoot(t)
	tp := openTemplate(t, repo)
	emitted := emittedMetrics(t, repo)
	for _, m := range []string{"Turn", "ToolCall", "Validation", "FalsePromise"} {
		if !emitted[m] {
			t.Fatalf("the code no longer emits %s: %v", m, emitted)
		}
	}
	dimValues := map[string][]string{
		"status":  {string(session.TurnCompleted), string(session.TurnFailed), string(session.TurnStopped), "success"},
		"verdict": {workflow.VerdictOK, workflow.VerdictRetry, workflow.VerdictAccept, workflow.VerdictGiveUp},
	}
	for _, l := range limits.All { // issue 26: LimitRefused's limit
		dimValues["limit"] = append(dimValues["limit"], string(l.Limit))
	}
	// issue 28: the safety flags, the paused capabilities, the rollout's
	// artifact intents; issue 29: the speculative round's outcome.
	dimValues["flag"] = []string{prompts.SafetyHarmful, prompts.SafetyPrivacy}
	for _, c := range flags.Capabilities {
		dimValues["capability"] = append(dimValues["capability"], string(c))
	}
	dimValues["intent"] = []string{string(workflow.IntentQuiz), string(workflow.IntentContent)}
	dimValues["outcome"] = []string{"kept", "discarded"}

	body, _ := tp.properties("Dashboard")["DashboardBody"].(string)
	body = regexp.MustCompile(`\$\{[^}]+\}`).ReplaceAllString(strings.TrimPrefix(body, "sub:"), "1")
	var dash struct {
		Widgets []struct {
			Properties struct {
				Title   string
				Metrics [][]any
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &dash); err != nil {
		t.Fatalf("DashboardBody is not JSON: %v", err)
	}
	stats := map[string][]string{}
	var labels []string
	for _, w := range dash.Widgets {
		for _, row := range w.Properties.Metrics {
			if opts, ok := row[len(row)-1].(map[string]any); ok {
				if l, ok := opts["label"].(string); ok && opts["expression"] != nil {
					labels = append(labels, l)
				}
				if len(row) > 1 && row[0] == "InsightEdge" {
					if st, ok := opts["stat"].(string); ok {
						stats[row[1].(string)] = append(stats[row[1].(string)], st)
					}
				}
			}
			if len(row) < 2 || row[0] != "InsightEdge" {
				continue
			}
			name, _ := row[1].(string)
			if !emitted[name] {
				t.Errorf("dashboard %q reads InsightEdge/%s, which no code emits", w.Properties.Title, name)
			}
			for i := 2; i+1 < len(row); i += 2 {
				k, _ := row[i].(string)
				v, _ := row[i+1].(string)
				if !slices.Contains(dimValues[k], v) {
					t.Errorf("dashboard %q reads %s %s=%s, a value the code does not write", w.Properties.Title, name, k, v)
				}
			}
		}
	}
	for _, m := range []string{edge.MetricTurnTime, edge.MetricTimeToFirstText} {
		for _, p := range []string{"p50", "p90", "p99"} {
			if !slices.Contains(stats[m], p) {
				t.Errorf("the dashboard has no %s of %s (has %v)", p, m, stats[m])
			}
		}
	}
	for _, l := range []string{"False-promise rate", "Validate retry rate", "Tool success rate", "Error rate"} {
		if !slices.Contains(labels, l) {
			t.Errorf("the dashboard has no %q (has %v)", l, labels)
		}
	}

	for _, name := range []string{"FalsePromiseRateAlarm", "ErrorRateAlarm"} {
		a := tp.properties(name)
		if a == nil {
			t.Errorf("no %s", name)
			continue
		}
		if !slices.Equal(strs(a["AlarmActions"]), []string{"ref:AlarmTopic"}) {
			t.Errorf("%s notifies %v, want the alarm topic", name, a["AlarmActions"])
		}
		ms, _ := a["Metrics"].([]any)
		var read []string
		for _, x := range ms {
			m, _ := x.(map[string]any)
			stat, _ := m["MetricStat"].(map[string]any)
			metric, _ := stat["Metric"].(map[string]any)
			if metric["Namespace"] == "InsightEdge" {
				read = append(read, fmt.Sprint(metric["MetricName"]))
				if !emitted[fmt.Sprint(metric["MetricName"])] {
					t.Errorf("%s reads %v, which no code emits", name, metric["MetricName"])
				}
			}
		}
		if len(read) != 2 {
			t.Errorf("%s reads %v, want a numerator and a denominator", name, read)
		}
	}
}

// docBlock returns the fenced code block that follows the marker
// <!-- test: name --> in a document.
func docBlock(t *testing.T, doc, name string) string {
	t.Helper()
	i := strings.Index(doc, "<!-- test: "+name+" -->")
	if i < 0 {
		t.Fatalf("no <!-- test: %s --> block", name)
	}
	rest := doc[i:]
	start := strings.Index(rest, "```sh\n")
	end := strings.Index(rest[start+6:], "```")
	if start < 0 || end < 0 {
		t.Fatalf("the %s block is not a ```sh block", name)
	}
	return rest[start+6 : start+6+end]
}

// fakeSAM runs a documented block with a stand-in `sam` on PATH and
// returns, for each call, the Go build flags it got ("ENV:…") and its
// arguments ("ARG:…").
func fakeSAM(t *testing.T, repo, block string, env map[string]string) [][]string {
	t.Helper()
	var calls [][]string
	for _, c := range runDocBlock(t, repo, block, env, "sam") {
		lines := []string{c.env}
		for _, a := range c.args {
			lines = append(lines, "ARG:"+a)
		}
		calls = append(calls, lines)
	}
	return calls
}

const goFlags = "ENV:CGO_ENABLED=0 GOFLAGS=-tags=lambda.norpc"

// TestDeployDocs checks what docs/deploy.md tells an operator to run:
// every build command in the repository's documents carries the Go
// flags; every secret a samconfig stage reads is created; the dev and prod
// commands, run with a stand-in sam, build with the flags and (prod)
// deploy samconfig's prod parameters plus the site's, which satisfy the
// template's Rules.
func TestDeployDocs(t *testing.T) {
	repo := repoRoot(t)
	docs, _ := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	for _, f := range append(docs, filepath.Join(repo, "README.md")) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
				continue
			}
			for _, c := range []string{"sam build", "sam sync"} {
				if at := strings.Index(line, c); fenced && at >= 0 && !strings.Contains(line[:at], "CGO_ENABLED=0 GOFLAGS=-tags=lambda.norpc") {
					t.Errorf("%s:%d runs %s without CGO_ENABLED=0 GOFLAGS=-tags=lambda.norpc: %s", filepath.Base(f), i+1, c, line)
				}
			}
		}
	}

	data, err := os.ReadFile(filepath.Join(repo, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	secrets := docBlock(t, doc, "secrets")
	for env, kv := range samconfigOverrides(t, repo) {
		for k, v := range kv {
			// Every SSM parameter a stage names (the *Parameter overrides),
			// the data service's token only where there is a data service.
			needed := strings.HasSuffix(k, "Parameter") && (k != "JavaApiTokenParameter" || kv["UseMockData"] == "false")
			if needed && !strings.Contains(secrets, "--name "+v+" ") {
				t.Errorf("docs/deploy.md does not create the SSM parameter %s (%s, samconfig [%s]): its functions would exit at cold start", v, k, env)
			}
		}
	}

	for _, c := range fakeSAM(t, repo, docBlock(t, doc, "dev-deploy"), nil) {
		if slices.Contains(c, "ARG:build") && !slices.Contains(c, goFlags) {
			t.Errorf("dev: sam build without the Go flags: %v", c)
		}
		// --guided asks "... has no authentication. Is this okay? [y/N]",
		// and Enter aborts: the documented path needs no answers.
		if slices.Contains(c, "ARG:--guided") {
			t.Errorf("dev: the documented deploy is guided: %v", c)
		}
	}
	// SAM refuses PackageType: Image without an image repository option.
	images := runDocBlock(t, repo, docBlock(t, doc, "images-deploy"), operatorShell, "sam", "aws", "go")
	deploys := 0
	for _, c := range images {
		if c.tool != "sam" || len(c.args) == 0 || c.args[0] != "deploy" {
			continue
		}
		deploys++
		repoFlag := slices.ContainsFunc(c.args, func(a string) bool {
			return a == "--image-repository" || a == "--image-repositories" || a == "--resolve-image-repos"
		})
		if !repoFlag {
			t.Errorf("images: sam deploy without --image-repository, --image-repositories or --resolve-image-repos: %v", c.args)
		}
	}
	if deploys != 1 {
		t.Errorf("images: %d sam deploy calls, want 1", deploys)
	}

	site := map[string]string{"JAVA_API_BASE_URL": "https://data.school.test", "JWT_ISSUER": "https://auth.school.test/",
		"TEACHER_APP_ORIGINS": "https://teacher.school.test", "JWT_AUDIENCE": "insightedge", "ALARM_EMAIL": ""}
	calls := fakeSAM(t, repo, docBlock(t, doc, "prod-deploy"), site)
	if len(calls) != 2 || !slices.Contains(calls[0], "ARG:build") || !slices.Contains(calls[0], goFlags) || !slices.Contains(calls[1], "ARG:deploy") {
		t.Fatalf("prod: sam calls %v, want a build with the Go flags, then a deploy", calls)
	}
	var params string
	for i, a := range calls[1] {
		if a == "ARG:--parameter-overrides" && i+1 < len(calls[1]) {
			params = strings.TrimPrefix(calls[1][i+1], "ARG:")
		}
	}
	got := map[string]string{}
	for _, f := range strings.Fields(params) {
		k, v, _ := strings.Cut(f, "=")
		got[k] = v
	}
	for k, v := range samconfigOverrides(t, repo)["prod"] {
		if got[k] != v {
			t.Errorf("prod deploy passes %s=%q, samconfig's prod says %q", k, got[k], v)
		}
	}
	// The template's Rules for prod.
	rules, _ := openTemplate(t, repo).raw["Rules"].(map[string]any)
	prodRule, _ := rules["ProdSettings"].(map[string]any)
	if as, _ := prodRule["Assertions"].([]any); len(as) != 4 {
		t.Fatalf("Rules.ProdSettings has %d assertions; this test checks 4", len(as))
	}
	if got["JavaApiBaseUrl"] != site["JAVA_API_BASE_URL"] || got["UseMockData"] != "false" || got["JwtIssuer"] == "" ||
		got["CorsAllowOrigins"] == "" || strings.Contains(got["CorsAllowOrigins"], "*") || got["JwtAudience"] != "insightedge" {
		t.Errorf("prod deploy parameters %v do not satisfy the template's prod Rules", got)
	}
	if _, ok := got["AlarmEmail"]; ok {
		t.Errorf("prod deploy passes an empty AlarmEmail: %v", got)
	}
}
