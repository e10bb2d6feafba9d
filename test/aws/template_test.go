package awstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/awslabs/goformation/v7"
	"github.com/awslabs/goformation/v7/cloudformation"
	"github.com/awslabs/goformation/v7/cloudformation/serverless"
	"github.com/awslabs/goformation/v7/intrinsics"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/wire/awswire"
)

// Intrinsic functions are kept as marked strings ("ref:Table",
// "getatt:Table.Arn", "sub:...") so that the test can check what each
// value refers to; goformation would otherwise turn a resource's Ref into "".
func intrinsicMarkers() *intrinsics.ProcessorOptions {
	return &intrinsics.ProcessorOptions{IntrinsicHandlerOverrides: map[string]intrinsics.IntrinsicHandler{
		"Ref": func(_ string, input, template any) any {
			name, _ := input.(string)
			// A CommaDelimitedList parameter is a list where it is used.
			if tm, ok := template.(map[string]any); ok {
				if params, ok := tm["Parameters"].(map[string]any); ok {
					p, _ := params[name].(map[string]any)
					switch p["Type"] {
					case "CommaDelimitedList":
						return []any{"ref:" + name}
					case "Number":
						// Typed number fields take the default.
						var n float64
						if _, err := fmt.Sscan(fmt.Sprint(p["Default"]), &n); err == nil {
							return n
						}
					}
				}
			}
			return "ref:" + name
		},
		"Fn::GetAtt": func(_ string, input, _ any) any {
			switch v := input.(type) {
			case string:
				return "getatt:" + v
			case []any:
				parts := make([]string, len(v))
				for i, p := range v {
					parts[i] = fmt.Sprint(p)
				}
				return "getatt:" + strings.Join(parts, ".")
			}
			return fmt.Sprintf("getatt:%v", input)
		},
		"Fn::Sub": func(_ string, input, _ any) any { return fmt.Sprintf("sub:%v", input) },
		// Conditions are not evaluated: a value is the "true" branch.
		"Fn::If": func(_ string, input, _ any) any {
			if v, ok := input.([]any); ok && len(v) == 3 {
				return v[1]
			}
			return nil
		},
	}}
}

// template is template.yaml, typed (goformation) and as processed JSON.
type template struct {
	*cloudformation.Template
	raw map[string]any
}

func openTemplate(t *testing.T, repo string) template {
	t.Helper()
	return openTemplateFile(t, repo, "template.yaml")
}

// openTemplateFile reads another template of the repository the same way.
func openTemplateFile(t *testing.T, repo, file string) template {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, file))
	if err != nil {
		t.Fatal(err)
	}
	processed, err := intrinsics.ProcessYAML(data, intrinsicMarkers())
	if err != nil {
		t.Fatalf("goformation intrinsics: %v", err)
	}
	var raw map[string]any
	if err := json.Unmarshal(processed, &raw); err != nil {
		t.Fatal(err)
	}
	// goformation v7.14.9 predates these properties and rejects them; the
	// tests read them from the processed JSON instead.
	typed, err := json.Marshal(withoutProperties(raw, map[string][]string{
		"AWS::Lambda::Permission":  {"InvokedViaFunctionUrl"},
		"AWS::Serverless::HttpApi": {"AccessLogSettings"},
		"AWS::DynamoDB::Table":     {"WarmThroughput"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := goformation.ParseJSONWithOptions(typed, &intrinsics.ProcessorOptions{NoProcess: true})
	if err != nil {
		t.Fatalf("goformation: %v", err)
	}
	return template{Template: tpl, raw: raw}
}

// withoutProperties returns a copy of the template without the named
// properties of the named resource types.
func withoutProperties(raw map[string]any, drop map[string][]string) map[string]any {
	out := map[string]any{}
	for k, v := range raw {
		out[k] = v
	}
	resources, _ := raw["Resources"].(map[string]any)
	copied := map[string]any{}
	for name, r := range resources {
		res, _ := r.(map[string]any)
		props, _ := res["Properties"].(map[string]any)
		names := drop[fmt.Sprint(res["Type"])]
		if len(names) == 0 || props == nil {
			copied[name] = r
			continue
		}
		nr, np := map[string]any{}, map[string]any{}
		for k, v := range res {
			nr[k] = v
		}
		for k, v := range props {
			if !slices.Contains(names, k) {
				np[k] = v
			}
		}
		nr["Properties"] = np
		copied[name] = nr
	}
	out["Resources"] = copied
	return out
}

// resource returns the processed JSON of a resource's Properties.
func (tp template) properties(name string) map[string]any {
	res, _ := tp.raw["Resources"].(map[string]any)
	r, _ := res[name].(map[string]any)
	p, _ := r["Properties"].(map[string]any)
	return p
}

func (tp template) resourceType(name string) string {
	res, _ := tp.raw["Resources"].(map[string]any)
	r, _ := res[name].(map[string]any)
	s, _ := r["Type"].(string)
	return s
}

func (tp template) condition(name string) string {
	res, _ := tp.raw["Resources"].(map[string]any)
	r, _ := res[name].(map[string]any)
	s, _ := r["Condition"].(string)
	return s
}

// function is one AWS::Serverless::Function with Globals merged in (SAM
// merges them at deploy time; goformation does not).
type function struct {
	Name, CodeUri, Runtime, Handler, Tracing, BuildMethod string
	Architectures                                         []string
	Env                                                   map[string]string
	Props                                                 map[string]any
}

func (tp template) functions(t *testing.T) map[string]function {
	t.Helper()
	g, err := tp.GetServerlessGlobalFunction()
	if err != nil {
		t.Fatalf("Globals.Function: %v", err)
	}
	out := map[string]function{}
	for name, f := range tp.GetAllServerlessFunctionResources() {
		fn := function{Name: name, Env: map[string]string{}, Props: tp.properties(name)}
		if g.Environment != nil {
			for k, v := range g.Environment.Variables {
				fn.Env[k] = v
			}
		}
		if f.Environment != nil {
			for k, v := range f.Environment.Variables {
				fn.Env[k] = v
			}
		}
		pick := func(own *string, global *string) string {
			switch {
			case own != nil:
				return *own
			case global != nil:
				return *global
			}
			return ""
		}
		fn.Runtime = pick(f.Runtime, g.Runtime)
		fn.Handler = pick(f.Handler, g.Handler)
		fn.Tracing = pick(f.Tracing, g.Tracing)
		switch {
		case f.Architectures != nil:
			fn.Architectures = f.Architectures
		case g.Architectures != nil:
			fn.Architectures = *g.Architectures
		}
		if f.CodeUri != nil && f.CodeUri.String != nil {
			fn.CodeUri = *f.CodeUri.String
		}
		fn.BuildMethod, _ = f.AWSCloudFormationMetadata["BuildMethod"].(string)
		out[name] = fn
	}
	return out
}

// statements returns the IAM statements of a function's or state
// machine's Policies that are policy documents.
func statements(props map[string]any) []map[string]any {
	var out []map[string]any
	policies, _ := props["Policies"].([]any)
	for _, p := range policies {
		doc, _ := p.(map[string]any)
		sts, _ := doc["Statement"].([]any)
		for _, s := range sts {
			if m, ok := s.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func strs(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

// grants is every (action, resource) a function's policies allow.
func grants(props map[string]any) map[string][]string {
	out := map[string][]string{}
	for _, st := range statements(props) {
		if st["Effect"] != "Allow" {
			continue
		}
		for _, a := range strs(st["Action"]) {
			out[a] = append(out[a], strs(st["Resource"])...)
		}
	}
	return out
}

// step ties a DefinitionSubstitutions name to its function resource, its
// directory and the step its main starts.
type step struct{ sub, resource, dir, call string }

var conversationSteps = []step{
	{"RouterFunctionArn", "RouterFunction", "router", `awswire.StartTask("router", "RouterFunctionArn")`},
	{"AgentTurnFunctionArn", "AgentTurnFunction", "agentturn", `awswire.StartTask("agentturn", "AgentTurnFunctionArn")`},
	{"ToolFunctionArn", "ToolFunction", "tool", `awswire.StartTask("tool", "ToolFunctionArn")`},
	{"FileToolFunctionArn", "FileToolFunction", "filetool", `awswire.StartTask("filetool", "FileToolFunctionArn")`}, // issue 25
	{"ValidateFunctionArn", "ValidateFunction", "validate", `awswire.StartTask("validate", "ValidateFunctionArn")`},
	{"FinishFunctionArn", "FinishFunction", "finish", `awswire.StartTask("finish", "FinishFunctionArn")`},
	{"BuildStepFunctionArn", "BuildStepFunction", "buildstep", `awswire.StartTask("buildstep", "BuildStepFunctionArn")`},
}

var buildSteps = []step{
	{"BuildStepFunctionArn", "BuildStepFunction", "buildstep", `awswire.StartTask("buildstep", "BuildStepFunctionArn")`},
}

var researchSteps = []step{
	{"ResearchFunctionArn", "ResearchFunction", "research", "app.ResearchStep()"},
}

var reportSteps = []step{
	{"ReportFunctionArn", "ReportFunction", "report", "(*awswire.App).ReportStep"},
}

// mains are the functions that are not workflow steps, and what their
// main starts.
var mains = []step{
	{"", "ReplayFunction", "replay", "(*awswire.App).ReplayHandler"},
	{"", "WsFunction", "ws", "(*awswire.App).TemplateWSHandler"},
}

func repoRoot(t *testing.T) string {
	t.Helper()
	s := newSuite(t)
	return s.repo
}

// TestTemplateFunctions checks every function's runtime, build and code path,
// and that every function directory is deployed.
func TestTemplateFunctions(t *testing.T) {
	repo := repoRoot(t)
	tp := openTemplate(t, repo)
	fns := tp.functions(t)
	deployed := map[string]string{}
	for name, fn := range fns {
		if fn.Runtime != "provided.al2023" || fn.Handler != "bootstrap" || !slices.Equal(fn.Architectures, []string{"arm64"}) {
			t.Errorf("%s: runtime %q handler %q architectures %v; want provided.al2023, bootstrap, [arm64]", name, fn.Runtime, fn.Handler, fn.Architectures)
		}
		if fn.Tracing != "Active" {
			t.Errorf("%s: Tracing %q, want Active (X-Ray)", name, fn.Tracing)
		}
		if fn.BuildMethod != "go1.x" {
			t.Errorf("%s: Metadata.BuildMethod %q, want go1.x", name, fn.BuildMethod)
		}
		dir, ok := strings.CutPrefix(fn.CodeUri, "functions/")
		if !ok {
			t.Errorf("%s: CodeUri %q is not functions/<name>", name, fn.CodeUri)
			continue
		}
		src, err := os.ReadFile(filepath.Join(repo, fn.CodeUri, "main.go"))
		if err != nil || !strings.Contains(string(src), "package main") {
			t.Errorf("%s: CodeUri %s has no main package: %v", name, fn.CodeUri, err)
		}
		if other, dup := deployed[dir]; dup {
			t.Errorf("%s and %s both deploy functions/%s", name, other, dir)
		}
		deployed[dir] = name
	}
	for _, dir := range functionDirs(t, repo) {
		if _, ok := deployed[dir]; !ok {
			t.Errorf("functions/%s is not deployed by template.yaml", dir)
		}
	}
	for _, st := range slices.Concat(conversationSteps, buildSteps, researchSteps, reportSteps, mains) {
		fn, ok := fns[st.resource]
		if !ok || fn.CodeUri != "functions/"+st.dir {
			t.Errorf("%s: want a function with CodeUri functions/%s", st.resource, st.dir)
			continue
		}
		src, _ := os.ReadFile(filepath.Join(repo, fn.CodeUri, "main.go"))
		// The handler (a step through wire's task adapter, or another
		// handler of the App) started by awswire.Main or StartTask.
		if !strings.Contains(string(src), st.call) {
			t.Errorf("functions/%s/main.go does not call %s", st.dir, st.call)
		}
	}
}

// TestTemplateCORS holds one CORS policy for the whole product: the
// Function URL's and the HTTP API's Cors blocks take their origins from the
// CorsAllowOrigins parameter and are both edge.CORSPolicy, which the local
// server applies with CORS_ALLOW_ORIGINS.
func TestTemplateCORS(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	p := edge.CORSPolicy()
	url, _ := tp.properties("StreamFunction")["FunctionUrlConfig"].(map[string]any)["Cors"].(map[string]any)
	api, _ := tp.properties("HttpApi")["CorsConfiguration"].(map[string]any)
	for name, c := range map[string]map[string]any{"StreamFunction.FunctionUrlConfig.Cors": url, "HttpApi.CorsConfiguration": api} {
		lower := func(k string) []string {
			out := strs(c[k])
			for i := range out {
				out[i] = strings.ToLower(out[i])
			}
			return out
		}
		if !slices.Equal(strs(c["AllowOrigins"]), []string{"ref:CorsAllowOrigins"}) {
			t.Errorf("%s.AllowOrigins = %v, want the CorsAllowOrigins parameter", name, c["AllowOrigins"])
		}
		if !slices.Equal(strs(c["AllowMethods"]), p.AllowMethods) || !slices.Equal(lower("AllowHeaders"), p.AllowHeaders) ||
			!slices.Equal(lower("ExposeHeaders"), p.ExposeHeaders) || fmt.Sprint(c["MaxAge"]) != fmt.Sprint(p.MaxAge) {
			t.Errorf("%s = %v, want edge.CORSPolicy() %+v", name, c, p)
		}
	}
}

// TestTemplateStream checks the streaming Function URL and its public
// permissions.
func TestTemplateStream(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	fn, err := tp.GetServerlessFunctionWithName("StreamFunction")
	if err != nil {
		t.Fatal(err)
	}
	u := fn.FunctionUrlConfig
	if u == nil || u.InvokeMode == nil || *u.InvokeMode != "RESPONSE_STREAM" {
		t.Fatalf("StreamFunction.FunctionUrlConfig = %+v, want InvokeMode RESPONSE_STREAM", u)
	}
	if u.AuthType != "ref:StreamAuthType" {
		t.Errorf("AuthType = %q, want the StreamAuthType parameter", u.AuthType)
	}
	param := tp.Parameters["StreamAuthType"]
	if !reflect.DeepEqual(param.AllowedValues, []any{"NONE", "AWS_IAM"}) {
		t.Errorf("StreamAuthType allows %v, want [NONE AWS_IAM]", param.AllowedValues)
	}
	cors, _ := tp.properties("StreamFunction")["FunctionUrlConfig"].(map[string]any)["Cors"].(map[string]any)
	if !slices.Equal(strs(cors["AllowOrigins"]), []string{"ref:CorsAllowOrigins"}) {
		t.Errorf("Cors = %v, want AllowOrigins from the CorsAllowOrigins parameter", cors)
	}
	// The URL serves the Build runtime too: DELETE /api/apps/{id}, and the
	// page streams' X-Build-Id (to resume) and X-Build-Mode.
	if !slices.Contains(strs(cors["AllowMethods"]), "DELETE") {
		t.Errorf("Cors.AllowMethods = %v, want DELETE for /api/apps/{id}", cors["AllowMethods"])
	}
	for _, h := range []string{"x-build-id", "x-build-mode", "x-conversation-id"} {
		if !slices.Contains(strs(cors["ExposeHeaders"]), h) {
			t.Errorf("Cors.ExposeHeaders = %v, want %s", cors["ExposeHeaders"], h)
		}
	}
	if fn.Timeout == nil || *fn.Timeout < 300 {
		t.Errorf("StreamFunction.Timeout = %v, want minutes: it is billed and bounded by the turn it relays", fn.Timeout)
	}
	// SAM adds no public permission when AuthType is a Ref; since October
	// 2025 a public URL needs both actions.
	wantPerms := map[string]bool{"lambda:InvokeFunctionUrl": false, "lambda:InvokeFunction": false}
	for name, p := range tp.GetAllLambdaPermissionResources() {
		if p.FunctionName != "ref:StreamFunction" || p.Principal != "*" {
			continue
		}
		if tp.condition(name) != "PublicStream" {
			t.Errorf("%s grants %s to everyone without the PublicStream condition", name, p.Action)
		}
		props := tp.properties(name)
		switch p.Action {
		case "lambda:InvokeFunctionUrl":
			wantPerms[p.Action] = props["FunctionUrlAuthType"] == "NONE"
		case "lambda:InvokeFunction":
			wantPerms[p.Action] = props["InvokedViaFunctionUrl"] == true
		}
	}
	for action, ok := range wantPerms {
		if !ok {
			t.Errorf("no conditional public permission %s for the stream URL", action)
		}
	}
	if tp.Outputs["StreamUrl"].Value != "getatt:StreamFunctionUrl.FunctionUrl" {
		t.Errorf("Outputs.StreamUrl = %v", tp.Outputs["StreamUrl"].Value)
	}
	if v, _ := tp.Outputs["ApiUrl"].Value.(string); !strings.Contains(v, "${HttpApi}") {
		t.Errorf("Outputs.ApiUrl = %v, want the HTTP API's URL", v)
	}
}

// TestTemplateAPIRoutes checks that every HTTP API route of the api function
// is a route of the edge (not its catch-all), and that the streaming routes
// are not on the HTTP API (it cannot stream).
func TestTemplateAPIRoutes(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	props := tp.properties("ApiFunction")
	events, _ := props["Events"].(map[string]any)
	mux := http.NewServeMux()
	edge.New(nil, nil, nil, nil, edge.Options{}).Mount(mux)
	if len(events) == 0 {
		t.Fatal("ApiFunction has no events")
	}
	for name, e := range events {
		ev, _ := e.(map[string]any)
		p, _ := ev["Properties"].(map[string]any)
		if ev["Type"] != "HttpApi" || p["ApiId"] != "ref:HttpApi" {
			t.Errorf("event %s: type %v api %v, want HttpApi on HttpApi", name, ev["Type"], p["ApiId"])
			continue
		}
		method, path := fmt.Sprint(p["Method"]), fmt.Sprint(p["Path"])
		req, _ := http.NewRequest(method, "https://example.com"+strings.ReplaceAll(path, "{id}", "conv-1"), nil)
		_, pattern := mux.Handler(req)
		if pattern == "" || pattern == "/api/" {
			t.Errorf("event %s: %s %s is not a route of the edge", name, method, path)
		}
		if strings.HasSuffix(path, "/stream") {
			t.Errorf("event %s: %s is a streaming route; the HTTP API cannot stream", name, path)
		}
	}
}

// machine is a state machine of the template and what binds its tasks.
type machine struct {
	resource string
	steps    []step
	tasks    func(*wire.App) map[string]wire.Task
	// typ is EXPRESS, or STANDARD for a workflow that waits for the user.
	typ string
}

var machines = []machine{
	{"ConversationStateMachine", conversationSteps, (*wire.App).ConversationTasks, "EXPRESS"},
	{"BuildStateMachine", buildSteps, (*wire.App).BuildTasks, "EXPRESS"},
	{"ResearchStateMachine", researchSteps, (*wire.App).ResearchTasks, "EXPRESS"},
	// The template report waits for the user's confirmation (a task token).
	{"TemplateStateMachine", reportSteps, func(*wire.App) map[string]wire.Task { return wire.TemplateTasks(nil) }, "STANDARD"},
}

// TestTemplateWorkflow checks each state machine: Express, X-Ray, its ASL
// file, every substitution resolving to a function of the template and to
// a task of wire.App, invoke permissions for exactly those functions, and
// no task state that outlives its function (a Lambda timeout would end the
// state before its own TimeoutSeconds).
func TestTemplateWorkflow(t *testing.T) {
	repo := repoRoot(t)
	tp := openTemplate(t, repo)
	if got := len(tp.GetAllServerlessStateMachineResources()); got != len(machines) {
		t.Errorf("the template has %d state machines, the test knows %d", got, len(machines))
	}
	for _, mc := range machines {
		t.Run(mc.resource, func(t *testing.T) { checkMachine(t, repo, tp, mc) })
	}
}

func checkMachine(t *testing.T, repo string, tp template, mc machine) {
	sm, err := tp.GetServerlessStateMachineWithName(mc.resource)
	if err != nil {
		t.Fatal(err)
	}
	if sm.Type == nil || *sm.Type != mc.typ {
		t.Errorf("Type = %v, want %s", sm.Type, mc.typ)
	}
	if sm.Tracing == nil || sm.Tracing.Enabled == nil || !*sm.Tracing.Enabled {
		t.Error("X-Ray tracing is not enabled on the state machine")
	}
	if sm.Logging == nil || len(sm.Logging.Destinations) == 0 {
		t.Error("the state machine has no log destination")
	}
	if sm.DefinitionUri == nil || sm.DefinitionUri.String == nil {
		t.Fatal("no DefinitionUri")
	}
	asl, err := os.ReadFile(filepath.Join(repo, *sm.DefinitionUri.String))
	if err != nil {
		t.Fatalf("DefinitionUri: %v", err)
	}
	placeholders := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`).FindAllStringSubmatch(string(asl), -1) {
		placeholders[m[1]] = true
	}
	fns := tp.GetAllServerlessFunctionResources()
	for name := range placeholders {
		v, ok := sm.DefinitionSubstitutions[name]
		if !ok {
			t.Errorf("${%s} of the ASL has no DefinitionSubstitutions entry", name)
			continue
		}
		res, ok := strings.CutPrefix(v, "getatt:")
		res, attr, _ := strings.Cut(res, ".")
		if _, fn := fns[res]; !ok || !fn || attr != "Arn" {
			t.Errorf("${%s} = %q, want !GetAtt <function>.Arn of this template", name, v)
		}
	}
	for name := range sm.DefinitionSubstitutions {
		if !placeholders[name] {
			t.Errorf("DefinitionSubstitutions.%s is not used by the ASL", name)
		}
	}
	// The local interpreter binds the same names to the same steps.
	var tasks []string
	for name := range mc.tasks(newTestApp(t)) {
		tasks = append(tasks, name)
	}
	var subs []string
	for name := range placeholders {
		subs = append(subs, name)
	}
	sort.Strings(tasks)
	sort.Strings(subs)
	if !slices.Equal(tasks, subs) {
		t.Errorf("wire.App tasks = %v, ASL placeholders = %v", tasks, subs)
	}
	var stepSubs []string
	for _, st := range mc.steps {
		stepSubs = append(stepSubs, st.sub)
		if sm.DefinitionSubstitutions[st.sub] != "getatt:"+st.resource+".Arn" {
			t.Errorf("%s = %q, want the Arn of %s", st.sub, sm.DefinitionSubstitutions[st.sub], st.resource)
		}
	}
	sort.Strings(stepSubs)
	if !slices.Equal(stepSubs, subs) {
		t.Errorf("the test's step table %v is not the ASL's placeholders %v", stepSubs, subs)
	}

	// Invoke permissions: exactly the substituted functions.
	var invoked []string
	policies, _ := tp.properties(mc.resource)["Policies"].([]any)
	for _, p := range policies {
		m, _ := p.(map[string]any)
		if inv, ok := m["LambdaInvokePolicy"].(map[string]any); ok {
			invoked = append(invoked, strings.TrimPrefix(fmt.Sprint(inv["FunctionName"]), "ref:"))
		}
	}
	var want []string
	for _, st := range mc.steps {
		want = append(want, st.resource)
	}
	sort.Strings(invoked)
	sort.Strings(want)
	if !slices.Equal(invoked, want) {
		t.Errorf("the state machine may invoke %v, want exactly %v", invoked, want)
	}

	// A task state's own timeout must fit in its function's.
	var def struct{ States map[string]json.RawMessage }
	if err := json.Unmarshal(asl, &def); err != nil {
		t.Fatal(err)
	}
	for name, raw := range taskStates(t, def.States) {
		res := strings.TrimSuffix(strings.TrimPrefix(raw.Resource, "${"), "}")
		fnRes := strings.TrimSuffix(strings.TrimPrefix(sm.DefinitionSubstitutions[res], "getatt:"), ".Arn")
		fn, ok := fns[fnRes]
		if !ok || raw.TimeoutSeconds == 0 {
			continue
		}
		timeout := 30 // Globals
		if fn.Timeout != nil {
			timeout = *fn.Timeout
		}
		if raw.TimeoutSeconds > timeout {
			t.Errorf("state %s times out after %d s, its function %s after %d s", name, raw.TimeoutSeconds, fnRes, timeout)
		}
	}
}

// task is what the timeout check reads of a Task state.
type task struct {
	Resource       string
	TimeoutSeconds int
}

// taskStates returns the Task states of an ASL's States, nested ones
// (Map, Parallel) included.
func taskStates(t *testing.T, states map[string]json.RawMessage) map[string]task {
	t.Helper()
	out := map[string]task{}
	for name, raw := range states {
		var st struct {
			Type           string
			Resource       string
			TimeoutSeconds int
			ItemProcessor  *struct{ States map[string]json.RawMessage }
			Iterator       *struct{ States map[string]json.RawMessage }
			Branches       []struct{ States map[string]json.RawMessage }
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatalf("state %s: %v", name, err)
		}
		if st.Type == "Task" {
			out[name] = task{Resource: st.Resource, TimeoutSeconds: st.TimeoutSeconds}
		}
		var inner []map[string]json.RawMessage
		for _, p := range []*struct{ States map[string]json.RawMessage }{st.ItemProcessor, st.Iterator} {
			if p != nil {
				inner = append(inner, p.States)
			}
		}
		for _, b := range st.Branches {
			inner = append(inner, b.States)
		}
		for _, in := range inner {
			for k, v := range taskStates(t, in) {
				out[k] = v
			}
		}
	}
	return out
}

// TestTemplateSchedules checks the saved apps' replays: the replay
// function's timeout (longer than an Express build, shorter than Lambda's
// limit) and no retries of a run, the schedule group, and the role the
// schedules assume, which EventBridge Scheduler alone may assume and which
// may invoke the replay function and nothing else.
func TestTemplateSchedules(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	replay, err := tp.GetServerlessFunctionWithName("ReplayFunction")
	if err != nil {
		t.Fatal(err)
	}
	const express = 300 // an Express execution's limit, seconds
	if replay.Timeout == nil || *replay.Timeout < express+int(awswire.ReplayMargin.Seconds()) || *replay.Timeout > 480 {
		t.Errorf("ReplayFunction.Timeout = %v, want 6 to 8 minutes: a build (5 min at most) and the margin to record it", replay.Timeout)
	}
	if c := replay.EventInvokeConfig; c == nil || c.MaximumRetryAttempts == nil || *c.MaximumRetryAttempts != 0 {
		t.Errorf("ReplayFunction.EventInvokeConfig = %+v, want MaximumRetryAttempts 0 (a run is not idempotent)", c)
	}
	// issue 25: the recovery sweep runs on its own schedule too.
	sweep, ok := replay.Events["RecoverySweep"]
	var rule *serverless.Function_ScheduleEvent
	if ok && sweep.Properties != nil {
		rule = sweep.Properties.ScheduleEvent
	}
	if sweep.Type != "Schedule" || rule == nil || rule.Input == nil || *rule.Input != `{"trigger":"`+awswire.TriggerSweep+`"}` ||
		!strings.HasPrefix(rule.Schedule, "rate(") {
		t.Errorf("ReplayFunction.Events.RecoverySweep = %+v, want a rate schedule with the input {\"trigger\":%q}", sweep, awswire.TriggerSweep)
	}
	if typ := tp.resourceType("AppSchedules"); typ != "AWS::Scheduler::ScheduleGroup" {
		t.Errorf("AppSchedules is a %q, want AWS::Scheduler::ScheduleGroup", typ)
	}
	if typ := tp.resourceType("AppScheduleRole"); typ != "AWS::IAM::Role" {
		t.Fatalf("AppScheduleRole is a %q, want AWS::IAM::Role", typ)
	}
	role := tp.properties("AppScheduleRole")
	trust, _ := role["AssumeRolePolicyDocument"].(map[string]any)
	trustSts, _ := trust["Statement"].([]any)
	if len(trustSts) != 1 {
		t.Fatalf("AssumeRolePolicyDocument has %d statements, want 1", len(trustSts))
	}
	st, _ := trustSts[0].(map[string]any)
	principal, _ := st["Principal"].(map[string]any)
	cond, _ := st["Condition"].(map[string]any)
	if st["Effect"] != "Allow" || !slices.Equal(strs(principal["Service"]), []string{"scheduler.amazonaws.com"}) ||
		!slices.Equal(strs(st["Action"]), []string{"sts:AssumeRole"}) {
		t.Errorf("trust = %v, want scheduler.amazonaws.com only, from this account", st)
	}
	var got []string
	policies, _ := role["Policies"].([]any)
	for _, p := range policies {
		m, _ := p.(map[string]any)
		doc, _ := m["PolicyDocument"].(map[string]any)
		sts, _ := doc["Statement"].([]any)
		for _, x := range sts {
			st, _ := x.(map[string]any)
			for _, a := range strs(st["Action"]) {
				for _, r := range strs(st["Resource"]) {
					got = append(got, fmt.Sprint(st["Effect"], " ", a, " ", r))
				}
			}
		}
	}
	if want := []string{"Allow lambda:InvokeFunction getatt:ReplayFunction.Arn",
		"Allow sqs:SendMessage getatt:AppScheduleDeadLetters.Arn"}; !slices.Equal(got, want) {
		t.Errorf("the schedules' role allows %q, want exactly %q", got, want)
	}
	// What EventBridge Scheduler presents as aws:SourceArn when it assumes
	// the role: the schedule GROUP's ARN (its user guide, "Confused deputy
	// prevention": "The ARN you specify must be a schedule group"), never
	// a schedule's.
	const account, region, groupName = "123456789012", "us-east-1", "insightedge-prod-AppSchedules-1A2B3C"
	sourceArn := "arn:aws:scheduler:" + region + ":" + account + ":schedule-group/" + groupName
	refs := map[string]string{"AWS::Partition": "aws", "AWS::Region": region, "AWS::AccountId": account,
		"AppSchedules": groupName, "AppSchedules.Arn": sourceArn}
	if !trustAllows(t, st, refs, map[string]string{"aws:SourceAccount": account, "aws:SourceArn": sourceArn}) {
		t.Errorf("the schedules' role does not let EventBridge Scheduler assume it for a schedule of the group (aws:SourceArn %s): %v", sourceArn, cond)
	}
	other := "arn:aws:scheduler:" + region + ":" + account + ":schedule-group/someone-elses"
	if trustAllows(t, st, refs, map[string]string{"aws:SourceAccount": account, "aws:SourceArn": other}) {
		t.Errorf("the schedules' role may be assumed for another group's schedules (%s): %v", other, cond)
	}
	if trustAllows(t, st, refs, map[string]string{"aws:SourceAccount": "210987654321", "aws:SourceArn": sourceArn}) {
		t.Errorf("the schedules' role may be assumed from another account: %v", cond)
	}
	// Deliveries that fail go to a queue the role may send to.
	if typ := tp.resourceType("AppScheduleDeadLetters"); typ != "AWS::SQS::Queue" {
		t.Errorf("AppScheduleDeadLetters is a %q, want AWS::SQS::Queue", typ)
	}
	// The function that saves apps schedules exactly that target, with that
	// role, in that group.
	fns := tp.functions(t)
	var schedulers []string
	for name, fn := range fns {
		if _, ok := fn.Env[awswire.EnvScheduleGroup]; !ok {
			continue
		}
		schedulers = append(schedulers, name)
		if fn.Env[awswire.EnvScheduleGroup] != "ref:AppSchedules" || fn.Env[awswire.EnvReplayFunction] != "getatt:ReplayFunction.Arn" ||
			fn.Env[awswire.EnvScheduleRole] != "getatt:AppScheduleRole.Arn" || fn.Env[awswire.EnvScheduleDeadLetter] != "getatt:AppScheduleDeadLetters.Arn" {
			t.Errorf("%s schedules %v", name, fn.Env)
		}
	}
	if !slices.Equal(schedulers, []string{"StreamFunction"}) {
		t.Errorf("functions that keep schedules: %v, want the stream function (it serves /api/apps)", schedulers)
	}
}

// TestTemplateStorage checks the table against the store's own definition
// and the bucket's protections.
func TestTemplateStorage(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	tbl, err := tp.GetDynamoDBTableWithName("Table")
	if err != nil {
		t.Fatal(err)
	}
	want := dynamostore.CreateTableInput("x")
	var gotKeys, wantKeys, gotAttrs, wantAttrs []string
	for _, k := range tbl.KeySchema {
		gotKeys = append(gotKeys, k.AttributeName+":"+k.KeyType)
	}
	for _, k := range want.KeySchema {
		wantKeys = append(wantKeys, *k.AttributeName+":"+string(k.KeyType))
	}
	for _, a := range tbl.AttributeDefinitions {
		gotAttrs = append(gotAttrs, a.AttributeName+":"+a.AttributeType)
	}
	for _, a := range want.AttributeDefinitions {
		wantAttrs = append(wantAttrs, *a.AttributeName+":"+string(a.AttributeType))
	}
	if !slices.Equal(gotKeys, wantKeys) || !slices.Equal(gotAttrs, wantAttrs) {
		t.Errorf("table keys %v attrs %v, want %v %v (dynamostore.CreateTableInput)", gotKeys, gotAttrs, wantKeys, wantAttrs)
	}
	if tbl.BillingMode == nil || *tbl.BillingMode != string(want.BillingMode) {
		t.Errorf("BillingMode = %v, want %s", tbl.BillingMode, want.BillingMode)
	}
	if ttl := tbl.TimeToLiveSpecification; ttl == nil || ttl.AttributeName == nil || *ttl.AttributeName != dynamostore.AttrTTL || !ttl.Enabled {
		t.Errorf("TimeToLiveSpecification = %+v, want %q enabled", ttl, dynamostore.AttrTTL)
	}
	if p := tbl.PointInTimeRecoverySpecification; p == nil || p.PointInTimeRecoveryEnabled == nil || !*p.PointInTimeRecoveryEnabled {
		t.Error("point-in-time recovery is not enabled")
	}

	b, err := tp.GetS3BucketWithName("FilesBucket")
	if err != nil {
		t.Fatal(err)
	}
	if pab := b.PublicAccessBlockConfiguration; pab == nil || pab.BlockPublicAcls == nil || !*pab.BlockPublicAcls ||
		pab.BlockPublicPolicy == nil || !*pab.BlockPublicPolicy || pab.IgnorePublicAcls == nil || !*pab.IgnorePublicAcls ||
		pab.RestrictPublicBuckets == nil || !*pab.RestrictPublicBuckets {
		t.Errorf("the bucket is not private: %+v", pab)
	}
	if b.BucketEncryption == nil || len(b.BucketEncryption.ServerSideEncryptionConfiguration) == 0 {
		t.Error("the bucket has no default encryption")
	}
	expires := false
	if b.LifecycleConfiguration != nil {
		for _, r := range b.LifecycleConfiguration.Rules {
			if r.Status == "Enabled" && r.ExpirationInDays != nil && r.Prefix != nil && *r.Prefix == "teachers/" {
				expires = true
			}
		}
	}
	if !expires {
		t.Error("no enabled lifecycle rule expires the generated files (prefix teachers/)")
	}
}

// TestTemplateLogRetention checks that every function's log group is
// declared with a retention, so that logs do not accumulate forever.
func TestTemplateLogRetention(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	groups := map[string]bool{}
	for _, g := range tp.GetAllLogsLogGroupResources() {
		if g.LogGroupName != nil && g.RetentionInDays != nil {
			groups[*g.LogGroupName] = true
		}
	}
	for name := range tp.GetAllServerlessFunctionResources() {
		if !groups["sub:/aws/lambda/${"+name+"}"] {
			t.Errorf("%s has no log group with a retention", name)
		}
	}
}

// TestSamconfig checks that samconfig.toml has a dev (default) and a prod
// environment, each overriding only parameters the template has, with
// values the template allows.
func TestSamconfig(t *testing.T) {
	repo := repoRoot(t)
	tp := openTemplate(t, repo)
	overrides := samconfigOverrides(t, repo)
	for _, want := range []string{"default", "prod"} {
		if _, ok := overrides[want]; !ok {
			t.Errorf("samconfig.toml has no [%s.deploy.parameters] parameter_overrides", want)
		}
	}
	stages := map[string]string{}
	for env, kvs := range overrides {
		for k, v := range kvs {
			p, known := tp.Parameters[k]
			if !known {
				t.Errorf("[%s] overrides %q, which is not a parameter of template.yaml", env, k)
				continue
			}
			if len(p.AllowedValues) > 0 && !slices.Contains(strs(p.AllowedValues), v) {
				t.Errorf("[%s] %s=%s: the template allows %v", env, k, v, p.AllowedValues)
			}
			if p.AllowedPattern != nil && !regexp.MustCompile(*p.AllowedPattern).MatchString(v) {
				t.Errorf("[%s] %s=%s does not match %s", env, k, v, *p.AllowedPattern)
			}
			if k == "Stage" {
				stages[env] = v
			}
		}
	}
	if stages["default"] != "dev" || stages["prod"] != "prod" {
		t.Errorf("stages = %v, want default: dev, prod: prod", stages)
	}
}

// trustAllows evaluates a trust statement's Condition for a request with
// the given context keys, as IAM does for the operators the template may
// use (String/Arn Equals and Like); refs resolve the template's intrinsic
// markers (ref:X, getatt:X.Arn, sub:...).
func trustAllows(t *testing.T, st map[string]any, refs map[string]string, ctx map[string]string) bool {
	t.Helper()
	resolve := func(v string) string {
		switch {
		case strings.HasPrefix(v, "ref:"):
			return refs[strings.TrimPrefix(v, "ref:")]
		case strings.HasPrefix(v, "getatt:"):
			return refs[strings.TrimPrefix(v, "getatt:")]
		case strings.HasPrefix(v, "sub:"):
			return regexp.MustCompile(`\$\{([^}]+)\}`).ReplaceAllStringFunc(strings.TrimPrefix(v, "sub:"), func(m string) string {
				return refs[m[2:len(m)-1]]
			})
		}
		return v
	}
	cond, _ := st["Condition"].(map[string]any)
	for op, keys := range cond {
		kv, _ := keys.(map[string]any)
		for key, want := range kv {
			got, ok := ctx[key]
			if !ok {
				return false
			}
			match := false
			for _, w := range strs(want) {
				w = resolve(w)
				switch op {
				case "StringEquals", "ArnEquals":
					match = match || got == w
				case "StringLike", "ArnLike":
					pat := "^" + strings.ReplaceAll(strings.ReplaceAll(regexp.QuoteMeta(w), `\*`, ".*"), `\?`, ".") + "$"
					match = match || regexp.MustCompile(pat).MatchString(got)
				default:
					t.Fatalf("trust condition operator %s: not understood by this test", op)
				}
			}
			if !match {
				return false
			}
		}
	}
	return true
}
