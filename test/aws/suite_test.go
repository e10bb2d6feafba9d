// Package awstest checks the AWS deployment without AWS: the function
// binaries built for Lambda, the task and replay functions invoked through
// the Lambda Runtime Interface Emulator, template.yaml read with
// goformation, the ASL files validated and run by the npm tools, and whole
// conversation turns and page builds through the stream function's handler
// with DynamoDB played by dynalite and EventBridge Scheduler by a fake.
//
// The slow parts share one setup inside TestEmulators (one dynalite, one
// offline model, one build of the binaries). A part that needs a tool that
// is not installed (node, test/js/node_modules, aws-lambda-rie) is skipped,
// and fails when CI=true. Install them with:
//
//	npm ci --prefix test/js
//	go install github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@v0.0.0-20261030222936-bef5c4ba774d
//
// `go test ./test/aws -run TestEmulators/Functions -update` rewrites the
// sample events in events/ from one real run of a turn.
package awstest

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
)

var update = flag.Bool("update", false, "rewrite events/*.json from a real run")

// testBound bounds every wait of the package; reaching it is a failure.
const testBound = 60 * time.Second

// suite is the shared, lazily started setup of TestEmulators. Each part is
// started at most once, by the first subtest that needs it, and stopped when
// TestEmulators ends.
type suite struct {
	root *testing.T
	repo string

	dynOnce sync.Once
	dyn     *dynamotest.Server
	dynErr  error

	modelOnce sync.Once
	modelURL  string
	modelErr  error

	buildOnce sync.Once
	bins      map[string]string // GOARCH → directory with one binary per function
	buildErr  error

	imageOnce sync.Once
	images    map[string]map[string]v1.Image // GOARCH → name → image
	imageBins string                         // the host's function binaries, taken out of their images
	imageErr  error
}

func newSuite(t *testing.T) *suite {
	repo, err := dynamotest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return &suite{root: t, repo: repo}
}

// require skips t, or fails it when CI=true, when the tool at path (or on
// PATH, for a bare name) is missing; it returns the tool's path.
func require(t *testing.T, tool string) string {
	t.Helper()
	if filepath.IsAbs(tool) {
		if _, err := os.Stat(tool); err != nil {
			dynamotest.Require(t, tool+" is not installed: "+err.Error())
		}
		return tool
	}
	p, err := exec.LookPath(tool)
	if err != nil {
		dynamotest.Require(t, tool+" is not installed: "+err.Error())
	}
	return p
}

// dynalite returns the shared local DynamoDB.
func (s *suite) dynalite(t *testing.T) *dynamotest.Server {
	t.Helper()
	s.dynOnce.Do(func() {
		s.dyn, s.dynErr = dynamotest.Launch()
		if s.dynErr == nil {
			s.root.Cleanup(s.dyn.Close)
		}
	})
	if s.dynErr != nil {
		dynamotest.Require(t, s.dynErr.Error())
	}
	return s.dyn
}

// model returns the base URL (ending in /v1) of the shared offline model.
func (s *suite) model(t *testing.T) string {
	t.Helper()
	s.modelOnce.Do(func() {
		var stop func(context.Context) error
		s.modelURL, stop, s.modelErr = offlinemodel.New(offlinemodel.Options{}).Start(context.Background(), "127.0.0.1:0")
		if s.modelErr == nil {
			s.root.Cleanup(func() { _ = stop(context.Background()) })
		}
	})
	if s.modelErr != nil {
		t.Fatalf("offline model: %v", s.modelErr)
	}
	return s.modelURL
}

// functions are the function directories under functions/, each a main
// package deployed as one Lambda function.
func (s *suite) functions(t *testing.T) []string {
	t.Helper()
	return functionDirs(t, s.repo)
}

func functionDirs(t *testing.T, repo string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repo, "functions"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(repo, "functions", e.Name(), "main.go")); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("no functions/*/main.go")
	}
	return names
}

// archs are the architectures every function is built for: arm64 (what
// template.yaml deploys) and amd64, plus the host's, which the emulator runs.
func archs() []string {
	out := []string{"arm64", "amd64"}
	if !slices.Contains(out, runtime.GOARCH) {
		out = append(out, runtime.GOARCH)
	}
	return out
}

// binaries builds every function for every architecture, once per test
// run, one `go build` per architecture (the go command builds the packages
// of one run in parallel, at most 2 at a time here) into a temporary
// directory: GOOS=linux CGO_ENABLED=0, -tags lambda.norpc, as sam build does. It
// returns GOARCH → directory holding one binary per function, named after
// it (SAM names it bootstrap in the function's artifact directory).
func (s *suite) binaries(t *testing.T) map[string]string {
	t.Helper()
	s.buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "insightedge-functions-")
		if err != nil {
			s.buildErr = err
			return
		}
		s.root.Cleanup(func() { _ = os.RemoveAll(dir) })
		s.bins = map[string]string{}
		for _, arch := range archs() {
			out := filepath.Join(dir, arch)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a loaded 2-core machine
			// As `sam build` builds them (BuildMethod go1.x): not stripped.
			// ./local too: the product image's binary, in the same build.
			cmd := exec.CommandContext(ctx, "go", "build", "-p", "2", "-tags", "lambda.norpc",
				"-o", out+string(filepath.Separator), "./functions/...", "./local")
			cmd.Dir = s.repo
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
			start := time.Now()
			msg, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				s.buildErr = &buildError{arch: arch, err: err, out: string(msg)}
				return
			}
			s.root.Logf("built ./functions/... for linux/%s in %s", arch, time.Since(start).Round(100*time.Millisecond))
			s.bins[arch] = out
		}
	})
	if s.buildErr != nil {
		t.Fatal(s.buildErr)
	}
	return s.bins
}

type buildError struct {
	arch string
	err  error
	out  string
}

func (e *buildError) Error() string {
	return "build linux/" + e.arch + ": " + e.err.Error() + "\n" + e.out
}

// discardLogger is for the parts whose logs do not matter to a test.
func discardLogger() *slog.Logger { return slog.New(slog.NewJSONHandler(io.Discard, nil)) }

// TestEmulators runs the slow parts on one shared setup.
func TestEmulators(t *testing.T) {
	s := newSuite(t)
	t.Run("Build", s.testBuild)
	t.Run("Images", s.testImages)
	t.Run("ASLValidator", s.testASLValidator)
	t.Run("Functions", s.testFunctions)
	t.Run("Socket", s.testSocket)
	t.Run("SamLocal", s.testSamLocal)
	t.Run("StreamTurn", s.testStreamTurn)
	t.Run("Workflow", s.testWorkflowEquivalence)
	t.Run("BuildFunctions", s.testBuildFunctions)
	t.Run("PageStream", s.testPageStream)
	t.Run("BuildWorkflow", s.testBuildWorkflowEquivalence)
	t.Run("ResearchFunction", s.testResearchFunction)
	t.Run("ResearchWorkflow", s.testResearchWorkflowEquivalence)
	t.Run("TemplateWorkflow", s.testTemplateWorkflowEquivalence)
	t.Run("ResearchStream", s.testResearchStream)
	// issue 24: the documented deploys, rehearsed.
	t.Run("Rehearsal", s.testRehearsal)
}
