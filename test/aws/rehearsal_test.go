package awstest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/goformation/v7/intrinsics"
	"github.com/golang-jwt/jwt/v5"

	"github.com/insightedge/insightedge/infra/sample"
	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/appschedule/schedtest"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The deploy rehearsal: what docs/deploy.md tells an operator to run, from
// an empty account, played against stand-ins. The documented commands run
// with a stand-in `aws` and `sam` on PATH (the SSM parameters they create,
// the parameters each deploy passes); each template is resolved for each
// documented deploy (parameter defaults, samconfig's overrides or the
// command's, !Ref / !Sub / !GetAtt to stand-in names and ARNs); then every
// function's binary starts under the Lambda Runtime Interface Emulator with
// exactly the environment the template gives it, plus what Lambda itself
// sets and the endpoints of the stand-ins (SSM holding only the documented
// parameters, dynalite, Step Functions running the very ASL files over the
// emulated functions, EventBridge Scheduler, API Gateway's management API,
// the model, the data service, the web search).

// rehearsalAccount and rehearsalRegion are the stand-in account's.
const (
	rehearsalAccount = "123456789012"
	rehearsalRegion  = "us-east-1"
)

// The operator's shell: the values docs/deploy.md asks them to set.
var operatorShell = map[string]string{
	"OPENAI_API_KEY": "offline", "JWT_SECRET": "rehearsal-prod-jwt-secret-of-32-bytes!",
	"JAVA_API_TOKEN": "rehearsal-java-token", "TAVILY_API_KEY": testTavilyKey,
	"JWT_ISSUER": "https://auth.school.test/", "JWT_AUDIENCE": "insightedge",
	"TEACHER_APP_ORIGINS": "https://teacher.school.test", "ALARM_EMAIL": "",
	"AWS_REGION": rehearsalRegion,
}

// toolCall is one call of a stand-in command by a documented block.
type toolCall struct {
	tool string
	args []string
	env  string // CGO_ENABLED and GOFLAGS as the command saw them
}

// arg returns the value after flag in the call's arguments.
func (c toolCall) arg(flag string) (string, bool) {
	for i, a := range c.args {
		if a == flag && i+1 < len(c.args) {
			return c.args[i+1], true
		}
	}
	return "", false
}

// runDocBlock runs a documented block with bash, each of tools replaced by
// a stand-in on PATH that records its calls. The stand-in `aws` answers
// `sts get-caller-identity` with the account and `ecr get-login-password`
// with a password, as the real one would print them.
func runDocBlock(t *testing.T, repo, block string, env map[string]string, tools ...string) []toolCall {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	for _, tool := range tools {
		// A stand-in reads its stdin, as the real one does where it is piped
		// (aws ecr get-login-password | … -password-stdin).
		script := "#!/bin/sh\ncat > /dev/null\n{ echo 'CALL " + tool + "'; echo \"ENV:CGO_ENABLED=$CGO_ENABLED GOFLAGS=$GOFLAGS\"; for a in \"$@\"; do printf 'ARG:%s\\n' \"$a\"; done; } >> " + log + "\n"
		if tool == "aws" {
			script += "case \"$1 $2\" in\n'sts get-caller-identity') echo " + rehearsalAccount + ";;\n'ecr get-login-password') echo password;;\nesac\n"
		}
		if err := os.WriteFile(filepath.Join(dir, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", block)
	cmd.Dir = repo
	cmd.Env = []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the documented commands failed: %v\n%s\n%s", err, block, out)
	}
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var calls []toolCall
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		switch {
		case strings.HasPrefix(line, "CALL "):
			calls = append(calls, toolCall{tool: strings.TrimPrefix(line, "CALL ")})
		case strings.HasPrefix(line, "ENV:") && len(calls) > 0:
			calls[len(calls)-1].env = line
		case strings.HasPrefix(line, "ARG:") && len(calls) > 0:
			calls[len(calls)-1].args = append(calls[len(calls)-1].args, strings.TrimPrefix(line, "ARG:"))
		}
	}
	return calls
}

// documentedParameters runs the "secrets" block of docs/deploy.md and
// returns the SSM parameters it creates, by stage (the /insightedge/<stage>/
// part of each name), name → value.
func documentedParameters(t *testing.T, repo string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, c := range runDocBlock(t, repo, docBlock(t, readDeployDoc(t, repo), "secrets"), operatorShell, "aws") {
		if len(c.args) < 2 || c.args[0] != "ssm" || c.args[1] != "put-parameter" {
			continue
		}
		name, _ := c.arg("--name")
		value, _ := c.arg("--value")
		if typ, _ := c.arg("--type"); typ != "SecureString" {
			t.Errorf("docs/deploy.md creates %s as a %q, want SecureString", name, typ)
		}
		m := regexp.MustCompile(`^/insightedge/([a-z]+)/`).FindStringSubmatch(name)
		if m == nil {
			t.Errorf("docs/deploy.md creates %s, outside /insightedge/<stage>/", name)
			continue
		}
		if out[m[1]] == nil {
			out[m[1]] = map[string]string{}
		}
		out[m[1]][name] = value
	}
	return out
}

func readDeployDoc(t *testing.T, repo string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// deployment is one documented deploy: the template, the stage, and the
// parameters its `sam deploy` passes.
type deployment struct {
	name     string // the docs block
	template string
	stack    string
	params   map[string]string
}

// documentedDeployments runs the documented deploy blocks with stand-ins
// and returns what each `sam deploy` deploys: samconfig's
// parameter_overrides of its config env, or the command's own (which
// replace them, as SAM does). dataURL is the site's data service.
func documentedDeployments(t *testing.T, repo, dataURL string) []deployment {
	t.Helper()
	doc := readDeployDoc(t, repo)
	overrides := samconfigOverrides(t, repo)
	stacks := samconfigStacks(t, repo)
	shell := map[string]string{"JAVA_API_BASE_URL": dataURL}
	for k, v := range operatorShell {
		shell[k] = v
	}
	var out []deployment
	for _, block := range []string{"dev-deploy", "prod-deploy", "images-deploy"} {
		for _, c := range runDocBlock(t, repo, docBlock(t, doc, block), shell, "sam", "aws", "go") {
			if c.tool != "sam" || len(c.args) == 0 || c.args[0] != "deploy" {
				continue
			}
			env, ok := c.arg("--config-env")
			if !ok {
				env = "default"
			}
			d := deployment{name: block, template: "template.yaml", stack: stacks[env], params: overrides[env]}
			if f, ok := c.arg("--template-file"); ok {
				d.template = f
			}
			if s, ok := c.arg("--stack-name"); ok {
				d.stack = s
			}
			if p, ok := c.arg("--parameter-overrides"); ok {
				d.params = map[string]string{}
				for _, f := range strings.Fields(p) {
					k, v, _ := strings.Cut(f, "=")
					d.params[k] = v
				}
			}
			out = append(out, d)
		}
	}
	if len(out) < 3 {
		t.Fatalf("the documented deploys: %+v, want dev, prod and the images", out)
	}
	return out
}

// samconfigStacks is each samconfig.toml environment's stack_name.
func samconfigStacks(t *testing.T, repo string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "samconfig.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	env := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if m := regexp.MustCompile(`^\[([a-z]+)\.global\.parameters\]$`).FindStringSubmatch(line); m != nil {
			env = m[1]
		}
		if v, ok := strings.CutPrefix(line, "stack_name = "); ok && env != "" {
			out[env] = strings.Trim(v, `"`)
		}
	}
	return out
}

// standIns resolves a template's intrinsic functions as CloudFormation
// would for one stack: parameters from their defaults and the deploy's
// values, pseudo parameters of the stand-in account, and each resource's
// Ref and attributes to a stand-in name or ARN of the right shape.
type standIns struct {
	stack     string
	resources map[string]string // logical id → type
}

func (s standIns) name(logical string) string { return s.stack + "-" + logical }

func (s standIns) ref(name string, tpl any) any {
	switch name {
	case "AWS::AccountId":
		return rehearsalAccount
	case "AWS::Region":
		return rehearsalRegion
	case "AWS::Partition":
		return "aws"
	case "AWS::URLSuffix":
		return "amazonaws.com"
	case "AWS::StackName":
		return s.stack
	case "AWS::NoValue":
		return nil
	}
	if params, ok := tpl.(map[string]any)["Parameters"].(map[string]any); ok {
		if p, ok := params[name].(map[string]any); ok {
			if p["Type"] == "CommaDelimitedList" {
				var list []any
				for _, v := range strings.Split(fmt.Sprint(p["Default"]), ",") {
					list = append(list, v)
				}
				return list
			}
			return fmt.Sprint(p["Default"])
		}
	}
	n := s.name(name)
	switch s.resources[name] {
	case "AWS::Serverless::StateMachine", "AWS::SNS::Topic":
		return s.arn(name)
	case "AWS::S3::Bucket":
		return strings.ToLower(n)
	case "AWS::SQS::Queue":
		return "https://sqs." + rehearsalRegion + ".amazonaws.com/" + rehearsalAccount + "/" + n
	case "AWS::ApiGatewayV2::Api", "AWS::Serverless::HttpApi":
		return strings.ToLower(name)
	case "":
		return "unresolved:" + name
	}
	return n
}

// arn is a resource's Arn attribute.
func (s standIns) arn(logical string) string {
	n := s.name(logical)
	pre := "arn:aws:%s:" + rehearsalRegion + ":" + rehearsalAccount + ":"
	switch s.resources[logical] {
	case "AWS::Serverless::Function", "AWS::Lambda::Function":
		return fmt.Sprintf(pre, "lambda") + "function:" + n
	case "AWS::Serverless::StateMachine":
		return fmt.Sprintf(pre, "states") + "stateMachine:" + n
	case "AWS::DynamoDB::Table":
		return fmt.Sprintf(pre, "dynamodb") + "table/" + n
	case "AWS::S3::Bucket":
		return "arn:aws:s3:::" + strings.ToLower(n)
	case "AWS::SQS::Queue":
		return fmt.Sprintf(pre, "sqs") + n
	case "AWS::SNS::Topic":
		return fmt.Sprintf(pre, "sns") + n
	case "AWS::IAM::Role":
		return "arn:aws:iam::" + rehearsalAccount + ":role/" + n
	case "AWS::Scheduler::ScheduleGroup":
		return fmt.Sprintf(pre, "scheduler") + "schedule-group/" + n
	case "AWS::Logs::LogGroup":
		return fmt.Sprintf(pre, "logs") + "log-group:" + n + ":*"
	case "AWS::KMS::Key":
		return fmt.Sprintf(pre, "kms") + "key/" + n
	}
	return "unresolved:" + logical + ".Arn"
}

func (s standIns) getAtt(input any) any {
	var parts []string
	switch v := input.(type) {
	case string:
		parts = strings.SplitN(v, ".", 2)
	case []any:
		for _, p := range v {
			parts = append(parts, fmt.Sprint(p))
		}
	}
	if len(parts) != 2 {
		return fmt.Sprintf("unresolved:%v", input)
	}
	switch res, attr := parts[0], parts[1]; {
	case attr == "Arn":
		return s.arn(res)
	case attr == "StreamArn":
		return s.arn(res) + "/stream/2026-01-01T00:00:00.000"
	case attr == "QueueName" || attr == "Name":
		return s.name(res)
	case attr == "FunctionUrl":
		return "https://" + strings.ToLower(res) + ".lambda-url." + rehearsalRegion + ".on.aws/"
	}
	return "unresolved:" + strings.Join(parts, ".")
}

func (s standIns) sub(input any, tpl any) any {
	str, vars := "", map[string]any{}
	switch v := input.(type) {
	case string:
		str = v
	case []any:
		if len(v) == 2 {
			str, _ = v[0].(string)
			vars, _ = v[1].(map[string]any)
		}
	}
	return regexp.MustCompile(`\$\{([^}!]+)\}`).ReplaceAllStringFunc(str, func(m string) string {
		name := m[2 : len(m)-1]
		if v, ok := vars[name]; ok {
			return fmt.Sprint(v)
		}
		if strings.Contains(name, ".") && !strings.HasPrefix(name, "AWS::") {
			return fmt.Sprint(s.getAtt(name))
		}
		return fmt.Sprint(s.ref(name, tpl))
	})
}

// resolvedFunction is one function of a resolved template.
type resolvedFunction struct {
	name, dir string
	env       map[string]string
}

// resolved is a template resolved for one deployment.
type resolved struct {
	standIns
	raw       map[string]any
	functions map[string]resolvedFunction
}

// resolveTemplate resolves d's template for its stack. It fails on an
// environment value left unresolved.
func resolveTemplate(t *testing.T, repo string, d deployment) resolved {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, d.template))
	if err != nil {
		t.Fatal(err)
	}
	// The resource types, from the unprocessed template.
	bare, err := intrinsics.ProcessYAML(data, &intrinsics.ProcessorOptions{NoProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	var types struct {
		Resources map[string]struct{ Type string }
	}
	if err := json.Unmarshal(bare, &types); err != nil {
		t.Fatal(err)
	}
	s := standIns{stack: d.stack, resources: map[string]string{}}
	for name, r := range types.Resources {
		s.resources[name] = r.Type
	}
	overrides := map[string]any{}
	for k, v := range d.params {
		overrides[k] = v
	}
	processed, err := intrinsics.ProcessYAML(data, &intrinsics.ProcessorOptions{ParameterOverrides: overrides, EvaluateConditions: true,
		IntrinsicHandlerOverrides: map[string]intrinsics.IntrinsicHandler{
			"Ref":        func(_ string, in, tpl any) any { name, _ := in.(string); return s.ref(name, tpl) },
			"Fn::GetAtt": func(_ string, in, _ any) any { return s.getAtt(in) },
			"Fn::Sub":    func(_ string, in, tpl any) any { return s.sub(in, tpl) },
		}})
	if err != nil {
		t.Fatalf("%s: %v", d.template, err)
	}
	var raw map[string]any
	if err := json.Unmarshal(processed, &raw); err != nil {
		t.Fatal(err)
	}
	r := resolved{standIns: s, raw: raw, functions: map[string]resolvedFunction{}}
	env := func(props map[string]any) map[string]any {
		e, _ := props["Environment"].(map[string]any)
		v, _ := e["Variables"].(map[string]any)
		return v
	}
	globals, _ := raw["Globals"].(map[string]any)
	global, _ := globals["Function"].(map[string]any)
	resources, _ := raw["Resources"].(map[string]any)
	for name, x := range resources {
		res, _ := x.(map[string]any)
		if res["Type"] != "AWS::Serverless::Function" {
			continue
		}
		props, _ := res["Properties"].(map[string]any)
		fn := resolvedFunction{name: name, env: map[string]string{}}
		for _, vars := range []map[string]any{env(global), env(props)} {
			for k, v := range vars {
				fn.env[k] = fmt.Sprint(v)
				if strings.Contains(fn.env[k], "unresolved:") || strings.Contains(fn.env[k], "${") {
					t.Errorf("%s %s: %s=%s is not resolved", d.template, name, k, fn.env[k])
				}
			}
		}
		// The directory of functions/ whose binary runs: the zip's CodeUri,
		// or the image's tag, <repository>:<dir>-<tag>.
		if code, ok := props["CodeUri"].(string); ok {
			fn.dir = strings.TrimPrefix(code, "functions/")
		} else if img, ok := props["ImageUri"].(string); ok {
			_, tag, _ := strings.Cut(img[strings.LastIndex(img, "/")+1:], ":")
			fn.dir, _, _ = strings.Cut(tag, "-")
		}
		if fn.dir == "" {
			t.Fatalf("%s %s: neither a CodeUri nor an ImageUri", d.template, name)
		}
		r.functions[name] = fn
	}
	return r
}

// ssmStandIn is SSM's GetParameters holding exactly the given parameters;
// it records the names asked for that it does not hold.
type ssmStandIn struct {
	URL    string
	params map[string]string
	mu     sync.Mutex
	misses []string
}

func newSSMStandIn(t *testing.T, params map[string]string) *ssmStandIn {
	t.Helper()
	s := &ssmStandIn{params: params}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Names []string }
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &in)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		if r.Header.Get("X-Amz-Target") != "AmazonSSM.GetParameters" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"__type":"InvalidAction","message":"only GetParameters"}`)
			return
		}
		params, invalid := []map[string]any{}, []string{}
		for _, name := range in.Names {
			v, ok := s.params[name]
			if !ok {
				invalid = append(invalid, name)
				continue
			}
			params = append(params, map[string]any{"Name": name, "Type": "SecureString", "Value": v, "Version": 1})
		}
		s.mu.Lock()
		s.misses = append(s.misses, invalid...)
		s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"Parameters": params, "InvalidParameters": invalid})
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *ssmStandIn) missed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.misses)
}

// anyPoster stands in for API Gateway's connection management API: it
// accepts every signed post to a connection.
func anyPoster(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.Contains(r.URL.Path, "/@connections/") ||
			!strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// rehearsal is one deployment's functions running under the emulator.
type rehearsal struct {
	d       deployment
	tpl     resolved
	ssm     *ssmStandIn
	running map[string]*emulated // by resource
	locks   map[string]*sync.Mutex
	tbl     *dynamostore.Table
	records *dynamostore.Records
	apps    *dynamostore.AppStore
	secret  string // the stage's JWT secret, as the docs created it
}

// testRehearsal rehearses every documented deployment.
func (s *suite) testRehearsal(t *testing.T) {
	rie := rieBinary(t)
	data := httptest.NewServer(mockserver.New(mockdata.Default(), mockserver.Options{Token: operatorShell["JAVA_API_TOKEN"]}))
	defer data.Close()
	params := documentedParameters(t, s.repo)
	for _, d := range documentedDeployments(t, s.repo, data.URL) {
		t.Run(d.name, func(t *testing.T) {
			bins := s.binaries(t)[runtime.GOARCH]
			if d.template != "template.yaml" {
				bins = s.imageBinaries(t) // the image functions run the binaries of their images
			}
			s.rehearse(t, rie, bins, d, params)
		})
	}
}

// rehearse starts every function of d and feeds it its samples.
func (s *suite) rehearse(t *testing.T, rie, bins string, d deployment, documented map[string]map[string]string) {
	tpl := resolveTemplate(t, s.repo, d)
	stage := d.params["Stage"]
	if stage == "" {
		t.Fatalf("%s deploys no Stage", d.name)
	}
	r := &rehearsal{d: d, tpl: tpl, ssm: newSSMStandIn(t, documented[stage]), running: map[string]*emulated{}, locks: map[string]*sync.Mutex{}}
	dyn := s.dynalite(t)
	tableName := tpl.ref("Table", tpl.raw).(string)
	dyn.CreateTable(t, tableName)
	r.tbl = dynamostore.New(dyn.Client, tableName, dynamostore.Options{})
	r.records = dynamostore.NewRecords(dyn.Client, tableName, dynamostore.Options{})
	r.apps = dynamostore.NewAppStore(dyn.Client, tableName, dynamostore.Options{})
	iv := &invocations{count: map[string]int{}, dur: map[string]time.Duration{}}
	sf := newStepFunctions(t, iv, r.machines(t, s.repo)...)
	sfnSrv := httptest.NewServer(sf)
	t.Cleanup(func() { sf.wg.Wait(); sfnSrv.Close() })
	endpoints := map[string]string{
		// The AWS SDK's own variables: the stand-ins of the AWS services.
		"AWS_ENDPOINT_URL_DYNAMODB":  dyn.Endpoint,
		"AWS_ENDPOINT_URL_SSM":       r.ssm.URL,
		"AWS_ENDPOINT_URL_SFN":       sfnSrv.URL,
		"AWS_ENDPOINT_URL_SCHEDULER": schedtest.Start(t).URL,
		// What Lambda sets.
		"AWS_REGION": rehearsalRegion, "AWS_DEFAULT_REGION": rehearsalRegion,
		"AWS_ACCESS_KEY_ID": "rehearsal", "AWS_SECRET_ACCESS_KEY": "rehearsal",
	}
	// The outside world's endpoints, which the template names with values
	// only AWS reaches: the model's API, the web search, the sockets'
	// management API (the data service is the site's, a deploy parameter).
	outside := map[string]string{"OPENAI_BASE_URL": s.model(t), "WS_CALLBACK_URL": anyPoster(t) + "/" + stage}
	search := searchService(t)
	for _, name := range sortedKeys((tpl.functions)) {
		fn := tpl.functions[name]
		env := map[string]string{"AWS_LAMBDA_FUNCTION_NAME": tpl.ref(name, tpl.raw).(string)}
		for k, v := range fn.env {
			env[k] = v
		}
		for k, v := range endpoints {
			env[k] = v
		}
		for k, v := range outside {
			if _, ok := env[k]; ok {
				env[k] = v
			}
		}
		if _, ok := env["TAVILY_API_KEY_PARAMETER"]; ok {
			env[wire.EnvTavilyBaseURL] = search
		}
		r.running[name] = emulate(t, rie, filepath.Join(bins, fn.dir), env)
		r.locks[name] = &sync.Mutex{}
	}
	r.secret = documented[stage][d.params["JwtSecretParameter"]]
	defer r.reportMisses(t)
	r.coldStarts(t)
	r.samples(t, s)
}

// coldStarts checks that every function's init succeeds: each is invoked
// once with an empty event, which a function that started answers (with a
// function error, for most), and one whose init failed cannot (the
// emulator answers 502, or Runtime.ExitError).
func (r *rehearsal) coldStarts(t *testing.T) {
	t.Helper()
	failed := false
	for _, name := range sortedKeys(r.running) {
		_, fe, err := r.invoke(context.Background(), name, []byte(`{}`))
		if err != nil || fe != nil && strings.HasPrefix(fe.ErrorType, "Runtime.") {
			failed = true
			t.Errorf("%s (%s, %s): its cold start failed: %v %v", name, r.d.name, r.d.template, err, fe)
		}
	}
	r.reportMisses(t)
	if failed {
		t.FailNow()
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// machines are the template's state machines for the Step Functions
// stand-in: each runs its DefinitionUri file, its substitutions' tasks
// being the emulated functions they name.
func (r *rehearsal) machines(t *testing.T, repo string) []sfnMachine {
	t.Helper()
	var out []sfnMachine
	resources, _ := r.tpl.raw["Resources"].(map[string]any)
	for name, x := range resources {
		res, _ := x.(map[string]any)
		if res["Type"] != "AWS::Serverless::StateMachine" {
			continue
		}
		props, _ := res["Properties"].(map[string]any)
		def, err := os.ReadFile(filepath.Join(repo, fmt.Sprint(props["DefinitionUri"])))
		if err != nil {
			t.Fatal(err)
		}
		tasks := map[string]wire.Task{}
		subs, _ := props["DefinitionSubstitutions"].(map[string]any)
		for sub, arn := range subs {
			for fn := range r.tpl.functions {
				if r.tpl.arn(fn) == arn {
					tasks[sub] = r.invoker(fn)
				}
			}
		}
		out = append(out, sfnMachine{arn: r.tpl.arn(name), def: def, tasks: tasks})
	}
	return out
}

// invoker is a Step Functions task invoking an emulated function: one
// invocation at a time (the emulator runs one), a function error returned
// with its type as the error's name, as Step Functions reports it.
func (r *rehearsal) invoker(fn string) wire.Task {
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		body, fe, err := r.invoke(ctx, fn, in)
		if err != nil {
			return nil, err
		}
		if fe != nil {
			return nil, fe
		}
		return body, nil
	}
}

// functionError is a function's error as the emulator answers it.
type functionError struct{ ErrorMessage, ErrorType string }

func (e *functionError) Error() string { return e.ErrorType + ": " + e.ErrorMessage }

func (r *rehearsal) invoke(ctx context.Context, fn string, payload []byte) ([]byte, *functionError, error) {
	e, ok := r.running[fn]
	if !ok {
		return nil, nil, fmt.Errorf("no function %s in %s", fn, r.d.template)
	}
	r.locks[fn].Lock()
	defer r.locks[fn].Unlock()
	ctx, cancel := context.WithTimeout(ctx, testBound)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.invoke, bytes.NewReader(payload))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("invoke %s: %w", fn, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("invoke %s: status %d, %v: %s", fn, resp.StatusCode, err, body)
	}
	var fe functionError
	if json.Unmarshal(body, &fe) == nil && fe.ErrorType != "" {
		return body, &fe, nil
	}
	return body, nil, nil
}

// call invokes fn with a sample and requires an answer that is not an error.
func (r *rehearsal) call(t *testing.T, fn string, payload []byte) []byte {
	t.Helper()
	body, fe, err := r.invoke(context.Background(), fn, payload)
	if err != nil {
		r.reportMisses(t)
		t.Fatal(err)
	}
	if fe != nil {
		r.reportMisses(t)
		t.Fatalf("%s (%s, %s): %s", fn, r.d.name, r.d.template, fe)
	}
	return body
}

// reportMisses fails the test for every SSM parameter a function asked
// for that the docs never create, naming the function, the variable that
// names the parameter and the parameter.
func (r *rehearsal) reportMisses(t *testing.T) {
	t.Helper()
	for _, p := range slices.Compact(slices.Sorted(slices.Values(r.ssm.missed()))) {
		var who []string
		for _, name := range sortedKeys((r.tpl.functions)) {
			for _, k := range sortedKeys((r.tpl.functions[name].env)) {
				if r.tpl.functions[name].env[k] == p {
					who = append(who, name+" "+k)
				}
			}
		}
		t.Errorf("%s (%s): the SSM parameter %s, read by %v, is never created by docs/deploy.md's commands: the function exits at cold start",
			r.d.name, r.d.template, p, who)
	}
	r.ssm.mu.Lock()
	r.ssm.misses = nil
	r.ssm.mu.Unlock()
}

// token is what the stage's sign-in would issue for teacher: signed with
// the secret the docs created, with the issuer and audience the stage
// requires (what infra/cmd/dev-token prints).
func (r *rehearsal) token(t *testing.T, teacher string) string {
	t.Helper()
	claims := jwt.MapClaims{"sub": teacher, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	if v := r.d.params["JwtIssuer"]; v != "" {
		claims["iss"] = v
	}
	if v := r.d.params["JwtAudience"]; v != "" {
		claims["aud"] = v
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(r.secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// signed is a sample event with its bearer token replaced by the stage's.
func (r *rehearsal) signed(t *testing.T, sample []byte) []byte {
	t.Helper()
	return regexp.MustCompile(`Bearer [A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`).ReplaceAll(sample, []byte("Bearer "+r.token(t, "t-001")))
}

// samples feeds each function its events/ samples, in the order of a real
// turn, then runs one conversation turn through the stream function.
func (r *rehearsal) samples(t *testing.T, s *suite) {
	ctx := context.Background()
	if err := sample.Seed(ctx, r.tbl); err != nil {
		t.Fatal(err)
	}
	ev := func(name string) []byte { return s.sampleEvent(t, name, nil) }
	turn := sample.Turn

	var route workflow.RouteOutput
	decodeStrict(t, "router", r.call(t, "RouterFunction", ev("router")), &route)
	var round1 workflow.AgentOutput
	decodeStrict(t, "agentturn", r.call(t, "AgentTurnFunction", ev("agentturn")), &round1)
	if len(round1.ToolCalls) == 0 {
		t.Fatalf("agentturn: %+v, want tool calls", round1)
	}
	r.call(t, "ToolFunction", ev("tool"))
	for _, c := range round1.ToolCalls[1:] {
		payload, _ := json.Marshal(workflow.ToolInput{Turn: turn, Attempt: 1, Call: c})
		r.call(t, "ToolFunction", payload)
	}
	var round2 workflow.AgentOutput
	decodeStrict(t, "agentturn final", r.call(t, "AgentTurnFunction", ev("agentturn-final")), &round2)
	var verdict workflow.ValidateOutput
	decodeStrict(t, "validate", r.call(t, "ValidateFunction", ev("validate")), &verdict)
	var fin workflow.FinishOutput
	decodeStrict(t, "finish", r.call(t, "FinishFunction", ev("finish")), &fin)
	if round2.Next != workflow.NextFinal || verdict.Verdict != workflow.VerdictOK || fin.Status != "completed" {
		t.Fatalf("the sample turn: round 2 %+v, verdict %+v, finish %+v", round2, verdict, fin)
	}

	var plan workflow.PlanOutput
	decodeStrict(t, "buildstep plan", r.call(t, "BuildStepFunction", ev("buildstep")), &plan)
	seedBuild(t, r.tbl, sampleBuildID, sampleClass)
	for _, phase := range []string{workflow.PhaseData, workflow.PhaseCompute, workflow.PhaseCompose, workflow.PhaseFinish} {
		var out workflow.BuildStepOutput
		decodeStrict(t, "buildstep "+phase, r.call(t, "BuildStepFunction", ev("buildstep-"+phase)), &out)
		if out.Status != workflow.BuildOK {
			t.Fatalf("buildstep %s: %+v", phase, out)
		}
	}

	seedResearch(t, research.NewStore(r.records), sampleResearchID, "牛顿力学的发展")
	var res workflow.ResearchResult
	decodeStrict(t, "research milestones", r.call(t, "ResearchFunction", ev("research-milestones")), &res)
	if res.Status != workflow.ResearchOK {
		t.Fatalf("research milestones: %+v", res)
	}
	r.call(t, "ResearchFunction", ev("research-finish"))

	var resp events.APIGatewayV2HTTPResponse
	decodeStrict(t, "api", r.call(t, "ApiFunction", ev("api")), &resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("api health: %d %s", resp.StatusCode, resp.Body)
	}
	resp = events.APIGatewayV2HTTPResponse{}
	decodeStrict(t, "api", r.call(t, "ApiFunction", r.signed(t, ev("api-messages"))), &resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Body, turn.MessageID) {
		t.Fatalf("api messages: %d %s", resp.StatusCode, resp.Body)
	}

	for _, name := range []string{"ws-connect", "ws-default", "ws-relay", "ws-disconnect"} {
		var wr events.APIGatewayProxyResponse
		out := r.call(t, "WsFunction", r.signed(t, ev(name)))
		if name != "ws-relay" {
			if err := json.Unmarshal(out, &wr); err != nil || wr.StatusCode != http.StatusOK {
				t.Fatalf("ws %s: %s", name, out)
			}
		}
	}

	// The report function has no sample: its cold start answers a step it
	// does not know with a function error (not an exit).
	if _, fe, err := r.invoke(ctx, "ReportFunction", []byte(`{"step":"rehearsal-unknown"}`)); err != nil || fe == nil || strings.HasPrefix(fe.ErrorType, "Runtime.") {
		r.reportMisses(t)
		t.Fatalf("report function: %v %v, want a function error from a running function", fe, err)
	}

	// A saved app's scheduled run: the replay function builds its page on
	// the Build workflow (the stand-in running build.asl.json over the
	// emulated buildstep function) and records the run.
	saveSampleApp(t, r.apps, sampleAppID, sampleClass, time.Now().Add(-time.Minute).UTC().Truncate(time.Second))
	var run apps.ReplayOutput
	decodeStrict(t, "replay", r.call(t, "ReplayFunction", ev("replay")), &run)
	if run.Status != apps.StatusSucceeded {
		t.Fatalf("replay: %+v, want succeeded", run)
	}

	// One conversation turn end to end: the stream function starts the
	// conversation workflow (Step Functions' stand-in, running the ASL over
	// the emulated step functions) and relays its event log. The emulator
	// buffers the streamed response: its prelude, 8 NUL bytes, the body.
	body := r.call(t, "StreamFunction", r.signed(t, ev("stream")))
	prelude, stream, ok := bytes.Cut(body, make([]byte, 8))
	var head struct {
		StatusCode int
		Headers    map[string]string
	}
	if !ok || json.Unmarshal(prelude, &head) != nil || head.StatusCode != http.StatusOK {
		t.Fatalf("the stream function's answer: %.400s", body)
	}
	types := checkStream(t, (&response{r: bufio.NewReader(bytes.NewReader(stream))}).all(t))
	for _, want := range []string{"data-quiz", "text-delta"} {
		if !slices.ContainsFunc(types, func(typ string) bool { return strings.HasPrefix(typ, want) }) {
			t.Errorf("the streamed turn lacks %s: %v", want, types)
		}
	}
	t.Logf("%s: a turn streamed through the deployed stream function: %d chunks", r.d.name, len(types))

}
