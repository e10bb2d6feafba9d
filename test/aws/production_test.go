package awstest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/wire"
)

// cfnLintVersion is what .ci/run installs when cfn-lint is missing.
const cfnLintVersion = "1.51.0"

// TestCfnLint runs cfn-lint on the templates with the informational checks
// included: it must find nothing (each informational finding is answered
// in the template, e.g. DeletionPolicy on every stateful resource).
func TestCfnLint(t *testing.T) {
	lint := require(t, "cfn-lint") // .ci/run: pip install cfn-lint==" + cfnLintVersion
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
		if _, data := fn.Env[wire.EnvJavaBaseURL]; !data {
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
