package awstest

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/insightedge/insightedge/shared/appschedule"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/tools/datatools"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/wire/awswire"
)

// Who sets an environment variable in AWS.
const (
	setAll    = "all"    // Globals: every function
	setEdge   = "edge"   // the stream and api functions
	setModel  = "model"  // the functions that call the model
	setData   = "data"   // the functions whose tools include the data tools
	setFiles  = "files"  // the functions that write generated files
	setBuild  = "build"  // the functions that start page builds (and keep saved apps)
	setSched  = "sched"  // the function that keeps the saved apps' schedules
	setStartR = "startr" // the function that starts research runs
	setSearch = "search" // the function that searches the web (the research steps)
	setCode   = "code"   // nobody: the code's default is right
	setLambda = "lambda" // Lambda itself
	setNever  = "never"  // must not be set in AWS (secrets, development modes)
	setAuth   = "auth"   // the functions that check identities (the edge and the socket)
	setTplAPI = "tplapi" // the functions that reach the template backend (seed 002)
	setSteer  = "steer"  // the functions that start and steer template runs
	setSocket = "socket" // the WebSocket function
	setText   = "text"   // the function that streams the agent's text (its flush interval: docs/cost.md)

	setFlags = "flags" // issue 28: the functions that read the operator's switches (edge routes, the router, the socket)
)

// envTable is every environment variable the code of the functions reads,
// and who sets it in AWS. TestTemplateEnv fails when the code reads a
// variable missing here, when a function lacks one it needs, or when the
// template sets one that no code reads.
var envTable = map[string]string{
	awswire.EnvTable:         setAll,
	awswire.EnvRecordsBucket: setAll,
	awswire.EnvFileLinks:     setEdge,
	// The AWS SDK reads it from the process: empty in AWS, DynamoDB Local
	// under sam local (events/env-local.json).
	"AWS_ENDPOINT_URL_DYNAMODB":        setAll,
	"OPENAI_BASE_URL":                  setAll,
	"LLM_MODEL_FAST":                   setAll,
	"LLM_MODEL_STANDARD":               setAll,
	"LLM_MODEL_STRONG":                 setAll,
	"LLM_TIMEOUT":                      setAll,
	awswire.EnvLogLevel:                setAll,
	awswire.EnvAPIKeyParameter:         setModel,
	awswire.EnvJWTSecretParameter:      setAuth,
	"AUTH_JWT_ISSUER":                  setAuth,
	"AUTH_JWT_AUDIENCE":                setAuth,
	"AUTH_JWT_MAX_LIFE":                setCode,
	"AUTH_JWT_CLOCK_SKEW":              setCode,
	"FILE_LINK_TTL":                    setCode, // 15 min: links are capabilities
	"TEMPLATE_API_BASE_URL":            setTplAPI,
	"TEMPLATE_API_ALLOWED_URLS":        setTplAPI,
	"TEMPLATE_BACKEND_URL":             setCode, // the seed's fallbacks of TEMPLATE_API_BASE_URL
	"BACKEND_BASE_URL":                 setCode,
	awswire.EnvTemplateMachine:         setSteer,
	awswire.EnvTemplateSecretParameter: setSteer,
	awswire.EnvWSCallback:              setSocket,
	"TEMPLATE_WS_CONCURRENCY":          setCode,
	"TEMPLATE_WS_BROADCAST_TASKS":      setCode,
	"TEMPLATE_WS_MAX_RETRY":            setCode,
	"TEMPLATE_WS_RETRY_DELAY":          setCode,
	"TEMPLATE_WS_REQUIRE_CONFIRM":      setCode,
	"TEMPLATE_WS_CONFIRM_TIMEOUT":      setCode,
	"TEMPLATE_STATE_TTL":               setCode,
	"TEMPLATE_STATE_SECRET":            setNever, // read from TEMPLATE_STATE_SECRET_PARAMETER
	awswire.EnvConversationMachine:     setEdge,
	awswire.EnvConversationMachineType: setEdge,
	awswire.EnvBuildMachine:            setBuild,
	awswire.EnvScheduleGroup:           setSched,
	awswire.EnvReplayFunction:          setSched,
	awswire.EnvScheduleRole:            setSched,
	awswire.EnvScheduleDeadLetter:      setSched,
	"TURN_TIMEOUT":                     setEdge,
	"CHAT_MODE":                        setEdge,
	awswire.EnvBucket:                  setFiles,
	awswire.EnvJavaBaseURL:             setData,
	awswire.EnvUseMockData:             setData,
	awswire.EnvJavaTokenParameter:      setData,
	awswire.EnvResearchMachine:         setStartR,
	awswire.EnvTavilyKeyParameter:      setSearch,
	wire.EnvResearchRequestLimit:       setSearch,
	wire.EnvTavilyKey:                  setNever, // read from TAVILY_API_KEY_PARAMETER
	wire.EnvTavilyBaseURL:              setCode,  // Tavily's own; the local search service locally
	wire.EnvSearchTimeout:              setCode,
	wire.EnvSearchRetries:              setCode,
	"JAVA_API_PREFIX":                  setCode,
	"JAVA_API_TIMEOUT":                 setCode,
	"JAVA_API_MAX_CONNS":               setCode,
	"JAVA_API_ATTEMPTS":                setCode,
	"JAVA_API_RETRY_BASE":              setCode,
	"JAVA_API_BREAKER_FAILURES":        setCode,
	"JAVA_API_BREAKER_RESET":           setCode,
	"JAVA_API_CLASS_CACHE_TTL":         setCode,
	"JAVA_API_FALLBACK_TO_MOCK":        setData, // off in AWS unless the operator turns it on
	"JAVA_API_PATHS":                   setCode,
	"JAVA_API_TOKEN":                   setNever, // read from JAVA_API_TOKEN_PARAMETER
	"JAVA_API_REFRESH_TOKEN":           setNever, // a secret, not set by the template
	"JAVA_API_STALE_FOR":               setCode,
	"JAVA_API_HEALTH_PATH":             setCode,
	// The seed's own names (seed 004 §2.1), accepted as aliases; the
	// template sets the JAVA_API_ names.
	"SPRING_BOOT_BASE_URL":        setNever,
	"SPRING_BOOT_API_PREFIX":      setNever,
	"SPRING_BOOT_ACCESS_TOKEN":    setNever,
	"SPRING_BOOT_REFRESH_TOKEN":   setNever,
	"SPRING_BOOT_TIMEOUT":         setNever,
	"LLM_MAX_RETRIES":             setCode,
	"AGENT_MAX_ROUNDS":            setCode,
	"SSE_HEARTBEAT":               setCode,
	"TEXT_FLUSH_INTERVAL":         setText,
	awswire.EnvXRayContextMissing: setCode,
	awswire.EnvFunctionName:       setLambda,
	// issue 26: fair use; Globals (the edge admits, the agent's steps meter).
	"LIMIT_CONCURRENT_TURNS":      setAll,
	"LIMIT_TURNS_PER_MINUTE":      setAll,
	"LIMIT_BUILDS_PER_HOUR":       setAll,
	"LIMIT_RESEARCH_PER_DAY":      setAll,
	"LIMIT_REPORTS_PER_DAY":       setAll,
	"LIMIT_TOKENS_PER_DAY":        setAll,
	"LIMIT_SCHOOL_TOKENS_PER_DAY": setAll,
	"LIMIT_TIME_ZONE":             setAll,
	"LIMIT_SCHOOL_CLAIM":          setAll,
	"OPENAI_API_KEY":              setNever, // read from OPENAI_API_KEY_PARAMETER
	"AUTH_JWT_SECRET":             setNever, // read from AUTH_JWT_SECRET_PARAMETER
	awswire.EnvAllowDevAuth:       setNever,
	"DEV_TEACHER_ID":              setNever,

	// issue 28: the operator's switches, set on the functions that read
	// them (FLAGS_FILE is the local run's).
	"FLAGS_PARAMETER": setFlags,
	"FLAGS_TTL":       setCode,
	"FLAGS_FILE":      setNever,
}

// roles are the kinds of each function of the template.
var roles = map[string][]string{
	// The stream function serves the Build runtime's routes: it plans
	// blueprints with the model, checks them against the data tools, starts
	// builds and keeps the saved apps and their schedules.
	// It also serves the research routes: it asks the model for the
	// proposal and starts research runs.
	"StreamFunction":    {setAll, setEdge, setAuth, setModel, setData, setBuild, setSched, setStartR, setTplAPI, setSteer, setFlags},
	"ApiFunction":       {setAll, setEdge, setAuth, setFlags},
	"ReplayFunction":    {setAll, setBuild},
	"RouterFunction":    {setAll, setModel, setData, setFlags, setText}, // issue 29: it runs the first round
	"AgentTurnFunction": {setAll, setModel, setData, setText},
	"ToolFunction":      {setAll, setModel, setData, setFiles},
	"FileToolFunction":  {setAll, setModel, setData, setFiles}, // issue 25: the tools that deliver a file
	"ValidateFunction":  {setAll},
	"FinishFunction":    {setAll},
	"BuildStepFunction": {setAll, setModel, setData},
	// The research steps call the model and search the web; they have no
	// data tools.
	"ResearchFunction": {setAll, setModel, setSearch},
	// The template report (seed 002): the steps, and the socket.
	"ReportFunction": {setAll, setModel, setData, setFiles, setTplAPI},
	"WsFunction":     {setAll, setAuth, setTplAPI, setSteer, setSocket, setFlags},
}

// Local stand-ins for the template's references, for running a function's
// configuration outside AWS.
const (
	testMachineARN     = "arn:aws:states:us-east-1:123456789012:stateMachine:insightedge-conversation-test"
	testBuildARN       = "arn:aws:states:us-east-1:123456789012:stateMachine:insightedge-build-test"
	testResearchARN    = "arn:aws:states:us-east-1:123456789012:stateMachine:insightedge-research-test"
	testTavilyParam    = "/insightedge/test/tavily-api-key"
	testTavilyKey      = "tvly-test"
	testScheduleGroup  = "insightedge-test-AppSchedules"
	testReplayARN      = "arn:aws:lambda:us-east-1:123456789012:function:insightedge-test-ReplayFunction"
	testScheduleRole   = "arn:aws:iam::123456789012:role/insightedge-test-AppScheduleRole"
	testScheduleDLQ    = "arn:aws:sqs:us-east-1:123456789012:insightedge-test-AppScheduleDeadLetters"
	testAPIKeyParam    = "/insightedge/test/openai-api-key"
	testJWTParam       = "/insightedge/test/jwt-secret"
	testJWTSecret      = "insightedge-sample-secret-of-32-bytes"
	testJavaTokenParam = "/insightedge/test/java-api-token"
	testBucket         = "insightedge-files-test"
	testTable          = "insightedge-test"
	testTemplateARN    = "arn:aws:states:us-east-1:123456789012:stateMachine:insightedge-template-test"
	testTemplateParam  = "/insightedge/test/template-state-secret"
	testWSCallback     = "http://127.0.0.1:9/test"
	offlineModelURL    = "http://127.0.0.1:9/v1"
	offlineModelName   = "offline-standard"
)

// localEnv resolves a function's template environment to local values;
// table and model override the table name and the model's URL.
func localEnv(t *testing.T, env map[string]string, table, model string) map[string]string {
	t.Helper()
	params := map[string]string{
		"ref:Table": table, "ref:OpenAIBaseURL": model, "ref:ModelFast": "offline-fast",
		"ref:ModelStandard": offlineModelName, "ref:ModelStrong": "offline-strong", "ref:ModelTimeout": "30s",
		"ref:LogLevel": "info", "ref:ChatMode": "natural", "ref:OpenAIApiKeyParameter": testAPIKeyParam, "ref:JwtSecretParameter": testJWTParam,
		"ref:JwtIssuer": "", "ref:JwtAudience": "", "ref:ConversationStateMachine": testMachineARN,
		"ref:FilesBucket": testBucket, "ref:JavaApiBaseUrl": "", "ref:UseMockData": "true",
		"ref:JavaApiTokenParameter": testJavaTokenParam, "ref:BuildStateMachine": testBuildARN,
		"ref:AppSchedules": testScheduleGroup, "getatt:ReplayFunction.Arn": testReplayARN,
		"getatt:AppScheduleRole.Arn": testScheduleRole, "getatt:AppScheduleDeadLetters.Arn": testScheduleDLQ,
		"ref:DataFallbackToMock":   "false",
		"ref:ResearchStateMachine": testResearchARN, "ref:TavilyApiKeyParameter": testTavilyParam,
		"ref:ResearchRequestLimit": "15",
		"ref:TemplateStateMachine": testTemplateARN, "ref:TemplateStateSecretParameter": testTemplateParam,
		"ref:TemplateApiBaseUrl": "", "ref:TemplateApiAllowedUrls": "",
		// issue 26: fair use, off as the template's defaults leave it.
		"ref:LimitConcurrentTurns": "", "ref:LimitTurnsPerMinute": "", "ref:LimitBuildsPerHour": "",
		"ref:LimitResearchPerDay": "", "ref:LimitReportsPerDay": "", "ref:LimitTokensPerDay": "",
		"ref:LimitSchoolTokensPerDay": "", "ref:LimitTimeZone": "Asia/Hong_Kong", "ref:LimitSchoolClaim": "school",
		"ref:FlagsParameter": "", // issue 28: the template's default, every switch on
		"sub:https://${TemplateSocketApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/${Stage}": testWSCallback,
	}
	out := map[string]string{}
	for k, v := range env {
		if strings.HasPrefix(v, "ref:") || strings.HasPrefix(v, "getatt:") || strings.HasPrefix(v, "sub:") {
			local, ok := params[v]
			if !ok {
				t.Fatalf("%s=%s: no local value for this reference", k, v)
			}
			v = local
		}
		out[k] = v
	}
	return out
}

// fakeSSM is SSM's GetParameters at the edge of the tests: the secrets that
// template.yaml names by parameter.
func fakeSSM(t *testing.T, params map[string]string) string {
	t.Helper()
	return newSSMStandIn(t, params).URL
}

func testSecrets() map[string]string {
	return map[string]string{testAPIKeyParam: "offline", testJWTParam: testJWTSecret, testJavaTokenParam: "java-token", testTavilyParam: testTavilyKey,
		testTemplateParam: "template-state-secret-for-tests"}
}

// localAWS are SDK options for local endpoints: static credentials, one
// region, and the given endpoints.
func localAWS(dynamoURL, ssmURL, sfnURL string) awswire.Options {
	o := awswire.Options{
		Output: io.Discard,
		AWSOptions: []func(*config.LoadOptions) error{
			config.WithRegion("us-east-1"),
			config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")),
		},
	}
	if dynamoURL != "" {
		o.DynamoDB = append(o.DynamoDB, func(d *dynamodb.Options) { d.BaseEndpoint = aws.String(dynamoURL) })
	}
	if ssmURL != "" {
		o.SSM = append(o.SSM, func(s *ssm.Options) { s.BaseEndpoint = aws.String(ssmURL) })
	}
	if sfnURL != "" {
		o.StepFunctions = append(o.StepFunctions, func(s *sfn.Options) { s.BaseEndpoint = aws.String(sfnURL) })
	}
	return o
}

// recorder is a getenv over a map that records the names asked for.
type recorder struct {
	env  map[string]string
	mu   sync.Mutex
	read map[string]bool
}

func (r *recorder) getenv(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.read == nil {
		r.read = map[string]bool{}
	}
	r.read[name] = true
	return r.env[name]
}

// TestTemplateEnv builds each function's graph (awswire.FromEnv, and the edge
// for the edge functions) from exactly the environment template.yaml gives
// it, with the secrets coming from SSM parameters, and cross-checks the
// variables set, the variables read and envTable.
func TestTemplateEnv(t *testing.T) {
	repo := repoRoot(t)
	tp := openTemplate(t, repo)
	ssmURL := fakeSSM(t, testSecrets())
	read := map[string]bool{}
	for name, fn := range tp.functions(t) {
		t.Run(name, func(t *testing.T) {
			kinds, ok := roles[name]
			if !ok {
				t.Fatalf("%s has no role in the test's roles table", name)
			}
			for v, who := range envTable {
				_, set := fn.Env[v]
				switch {
				case slices.Contains(kinds, who) && !set:
					t.Errorf("%s is not set (needed by every %s function)", v, who)
				case !slices.Contains(kinds, who) && set:
					t.Errorf("%s is set, but only %s functions use it", v, who)
				}
			}
			for v := range fn.Env {
				if _, ok := envTable[v]; !ok {
					t.Errorf("%s is set, but no code reads it (not in envTable)", v)
				}
			}
			rec := &recorder{env: localEnv(t, fn.Env, testTable, offlineModelURL)}
			app, err := awswire.FromEnv(context.Background(), rec.getenv, localAWS("http://127.0.0.1:9", ssmURL, ""))
			if err != nil {
				t.Fatalf("awswire.FromEnv with the template's environment: %v", err)
			}
			if slices.Contains(kinds, setEdge) {
				h, err := app.EdgeHandler()
				if err != nil {
					t.Fatalf("EdgeHandler with the template's environment: %v", err)
				}
				if _, err := app.WithTemplateRoutes(h); err != nil {
					t.Fatalf("WithTemplateRoutes with the template's environment: %v", err)
				}
				if app.Config.JWTSecret != testJWTSecret {
					t.Errorf("the JWT secret was not read from its SSM parameter")
				}
			}
			if (app.BuildStarter != nil) != slices.Contains(kinds, setBuild) {
				t.Errorf("build starter present = %v, want %v", app.BuildStarter != nil, slices.Contains(kinds, setBuild))
			}
			if (app.Schedules != nil) != slices.Contains(kinds, setSched) {
				t.Errorf("schedules client present = %v, want %v", app.Schedules != nil, slices.Contains(kinds, setSched))
			}
			if slices.Contains(kinds, setBuild) && !slices.Contains(kinds, setEdge) {
				if _, err := app.ReplayHandler(); err != nil {
					t.Fatalf("ReplayHandler with the template's environment: %v", err)
				}
			}
			if slices.Contains(kinds, setSocket) {
				if _, err := app.TemplateWSHandler(); err != nil {
					t.Fatalf("TemplateWSHandler with the template's environment: %v", err)
				}
			}
			if name == "ReportFunction" {
				if _, err := app.ReportStep(); err != nil {
					t.Fatalf("ReportStep with the template's environment: %v", err)
				}
			}
			if slices.Contains(kinds, setModel) && app.Config.LLM.APIKey != "offline" {
				t.Errorf("the model key was not read from its SSM parameter")
			}
			if (app.ResearchStarter != nil) != slices.Contains(kinds, setStartR) {
				t.Errorf("research starter present = %v, want %v", app.ResearchStarter != nil, slices.Contains(kinds, setStartR))
			}
			if slices.Contains(kinds, setSearch) && app.Config.Research.Tavily.APIKey != testTavilyKey {
				t.Errorf("the Tavily key was not read from its SSM parameter")
			}
			if _, ok := app.Tools.Get(datatools.GetTeacherClasses); ok != slices.Contains(kinds, setData) {
				t.Errorf("data tools registered = %v, want %v (every function that shows or runs tools has them)", ok, !ok)
			}
			if slices.Contains(kinds, setFiles) != (app.Blob != nil) {
				t.Errorf("blob store present = %v, want %v", app.Blob != nil, slices.Contains(kinds, setFiles))
			}
			for v := range rec.read {
				read[v] = true
			}
		})
	}
	for v := range read {
		if _, ok := envTable[v]; !ok {
			t.Errorf("the code reads %s, which envTable does not list", v)
		}
	}
	for _, v := range envNamesInCode(t, repo) {
		if _, ok := envTable[v]; !ok {
			t.Errorf("the source reads %s (found by grep), which envTable does not list", v)
		}
	}
}

// envNamesInCode greps the Go files linked into the functions for the
// environment variables they name: quoted UPPER_CASE names in files that
// call a getenv.
func envNamesInCode(t *testing.T, repo string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{end}}`, "./functions/...")
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	getenv := regexp.MustCompile(`(?i)getenv|LookupEnv`)
	name := regexp.MustCompile(`"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"`)
	found := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || !strings.HasPrefix(fields[0], repo) {
			continue // another module's package
		}
		for _, f := range fields[1:] {
			src, err := os.ReadFile(filepath.Join(fields[0], f))
			if err != nil {
				t.Fatal(err)
			}
			if !getenv.Match(src) {
				continue
			}
			for _, m := range name.FindAllSubmatch(src, -1) {
				found[string(m[1])] = true
			}
		}
	}
	names := make([]string, 0, len(found))
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("the grep found no environment variable at all")
	}
	return names
}

// actions are the IAM actions of the methods of the client interface I
// (service is the action prefix: dynamodb, scheduler ...).
func actions[I any](service string) []string {
	var out []string
	api := reflect.TypeOf((*I)(nil)).Elem()
	for i := range api.NumMethod() {
		if m := api.Method(i).Name; m[0] >= 'A' && m[0] <= 'Z' {
			out = append(out, service+":"+m)
		}
	}
	return out
}

// TestTemplatePolicies checks that each function may do exactly what its
// code does with the resources its environment names: the store's DynamoDB
// operations on the table (and the saved apps' store's where builds are
// started), the blob store's S3 operations on the bucket, StartExecution on
// the state machines it starts, GetParameters on the parameters it reads,
// the schedules' operations on the schedules of its group and passing their
// role to EventBridge Scheduler only.
func TestTemplatePolicies(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	dynamoActions := actions[dynamostore.API]("dynamodb")
	appsActions := actions[dynamostore.AppsAPI]("dynamodb")
	for name, fn := range tp.functions(t) {
		t.Run(name, func(t *testing.T) {
			want := map[string][]string{}
			if fn.Env[awswire.EnvTable] == "ref:Table" {
				keep := dynamoActions
				if fn.Env[awswire.EnvBuildMachine] != "" {
					keep = appsActions // the saved apps' store
				}
				for _, a := range keep {
					want[a] = []string{"getatt:Table.Arn"}
				}
			}
			if fn.Env[awswire.EnvRecordsBucket] == "ref:FilesBucket" {
				want["s3:GetObject"] = []string{"sub:${FilesBucket.Arn}/records/*"}
				want["s3:PutObject"] = []string{"sub:${FilesBucket.Arn}/records/*"}
			}
			if fn.Env[awswire.EnvFileLinks] == "ref:FilesBucket" {
				want["s3:GetObject"] = append(want["s3:GetObject"], "sub:${FilesBucket.Arn}/teachers/*")
				want["s3:DeleteObject"] = []string{"sub:${FilesBucket.Arn}/teachers/*"} // DELETE /api/files/{key}
				// POST /api/quiz/export writes the export (issue 31).
				want["s3:PutObject"] = append(want["s3:PutObject"], "sub:${FilesBucket.Arn}/teachers/*")
				want["s3:ListBucket"] = []string{"getatt:FilesBucket.Arn"}
			}
			if fn.Env[awswire.EnvBucket] == "ref:FilesBucket" {
				want["s3:GetObject"] = append(want["s3:GetObject"], "sub:${FilesBucket.Arn}/teachers/*")
				want["s3:PutObject"] = append(want["s3:PutObject"], "sub:${FilesBucket.Arn}/teachers/*")
				want["s3:ListBucket"] = []string{"getatt:FilesBucket.Arn"}
			}
			if m := fn.Env[awswire.EnvConversationMachine]; m != "" {
				want["states:StartExecution"] = []string{m}
				if fn.Env[awswire.EnvConversationMachineType] == awswire.MachineStandard {
					want["states:StopExecution"] = []string{m}
				}
			}
			if m := fn.Env[awswire.EnvBuildMachine]; m != "" {
				want["states:StartExecution"] = append(want["states:StartExecution"], m)
			}
			if m := fn.Env[awswire.EnvResearchMachine]; m != "" {
				want["states:StartExecution"] = append(want["states:StartExecution"], m)
			}
			if m := fn.Env[awswire.EnvTemplateMachine]; m != "" {
				// Runs are started, stopped (user.cancel) and answered (user.response).
				want["states:StartExecution"] = append(want["states:StartExecution"], m)
				// issue 24: a task token names no resource IAM can match (the
				// Service Authorization Reference gives SendTaskSuccess the
				// activity type only): the grant is on "*".
				want["states:SendTaskSuccess"] = []string{"*"}
				want["states:StopExecution"] = []string{"sub:arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:execution:${TemplateStateMachine.Name}:*"}
				for _, a := range actions[dynamostore.RecordsAPI]("dynamodb") { // the connections are deleted
					if _, ok := want[a]; !ok {
						want[a] = []string{"getatt:Table.Arn"}
					}
				}
			}
			if fn.Env[awswire.EnvWSCallback] != "" {
				want["execute-api:ManageConnections"] = []string{"sub:arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${TemplateSocketApi}/${Stage}/POST/@connections/*"}
			}
			if g, ok := strings.CutPrefix(fn.Env[awswire.EnvScheduleGroup], "ref:"); ok {
				for _, a := range actions[appschedule.API]("scheduler") {
					want[a] = []string{"sub:arn:${AWS::Partition}:scheduler:${AWS::Region}:${AWS::AccountId}:schedule/${" + g + "}/*"}
				}
				want["iam:PassRole"] = []string{fn.Env[awswire.EnvScheduleRole]}
				passedOnlyToScheduler(t, fn.Props)
			}
			for v, ref := range fn.Env {
				if p, ok := strings.CutPrefix(ref, "ref:"); ok && strings.HasSuffix(v, "_PARAMETER") {
					want["ssm:GetParameters"] = append(want["ssm:GetParameters"],
						"sub:arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter${"+p+"}")
				}
			}
			got := grants(fn.Props)
			for a := range got {
				sort.Strings(got[a])
			}
			for a := range want {
				sort.Strings(want[a])
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("policies allow\n%v\nwant exactly\n%v", got, want)
			}
		})
	}
}

// passedOnlyToScheduler checks that every iam:PassRole statement is
// conditioned on the role going to EventBridge Scheduler.
func passedOnlyToScheduler(t *testing.T, props map[string]any) {
	t.Helper()
	for _, st := range statements(props) {
		if !slices.Contains(strs(st["Action"]), "iam:PassRole") {
			continue
		}
		cond, _ := st["Condition"].(map[string]any)
		eq, _ := cond["StringEquals"].(map[string]any)
		if eq["iam:PassedToService"] != "scheduler.amazonaws.com" {
			t.Errorf("iam:PassRole (%v) is not conditioned on iam:PassedToService = scheduler.amazonaws.com: %v", st["Sid"], cond)
		}
	}
}

// newTestApp is a graph with no backends, for reading its task table.
func newTestApp(t *testing.T) *wire.App {
	t.Helper()
	env := map[string]string{"OPENAI_BASE_URL": offlineModelURL, "LLM_MODEL_STANDARD": offlineModelName}
	cfg, err := wire.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	app, err := wire.New(cfg, wire.Backends{Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return app
}
