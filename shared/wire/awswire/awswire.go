// Package awswire is the AWS side of the graph (package wire): configuration
// from the Lambda environment, the AWS SDK clients (X-Ray instrumented), the
// DynamoDB store, event log and saved apps' store, the S3 blob store, the
// Step Functions starters (the conversation's and the Build workflow's), the
// EventBridge Scheduler client of the saved apps' schedules, then wire.New.
// Every main in functions/ calls FromEnv once, at cold start. It is a
// package of its own so that the local binary, which imports wire only,
// links none of the AWS SDKs.
package awswire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-xray-sdk-go/instrumentation/awsv2"
	"github.com/aws/aws-xray-sdk-go/strategy/ctxmissing"
	"github.com/aws/aws-xray-sdk-go/xray"
	// Mozilla's root certificates, used only where the system has none:
	// the container images (infra/images) have no CA bundle.
	_ "golang.org/x/crypto/x509roots/fallback"

	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/appschedule"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/blob/s3blob"
	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/claimcheck"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/obs"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/sfnstart"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/datatools"
	"github.com/insightedge/insightedge/shared/tools/gentools"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Environment variables of the AWS side, besides those of ConfigFromEnv.
// template.yaml sets them; the AWS SDK reads its own (AWS_REGION, the
// credentials, AWS_ENDPOINT_URL_<SERVICE>) from the process environment.
const (
	// EnvTable names the DynamoDB table (required).
	EnvTable = "TABLE_NAME"
	// EnvBucket names the S3 bucket of generated files (optional: without
	// it the file tools are not registered).
	EnvBucket = "BUCKET_NAME"
	// EnvFileLinks names the bucket of generated files whose links the edge
	// signs again (/messages, /api/files/): the edge functions read and
	// sign, never write.
	EnvFileLinks = "FILE_LINKS_BUCKET"
	// EnvRecordsBucket names the S3 bucket that holds the session records
	// too large for a DynamoDB item (shared/claimcheck, under records/).
	EnvRecordsBucket = "RECORDS_BUCKET"
	// EnvConversationMachine is the conversation state machine's ARN
	// (required by the edge functions, which start turns).
	EnvConversationMachine = "CONVERSATION_STATE_MACHINE_ARN"
	// EnvConversationMachineType is EXPRESS (default) or STANDARD.
	EnvConversationMachineType = "CONVERSATION_STATE_MACHINE_TYPE"
	// EnvBuildMachine is the Build state machine's ARN (an Express
	// machine). The stream function, which serves the page and saved-app
	// routes, and the replay function start page builds on it.
	EnvBuildMachine = "BUILD_STATE_MACHINE_ARN"
	// EnvResearchMachine is the Research workflow's state machine (Express):
	// with it the edge serves the research routes (seed 001).
	EnvResearchMachine = "RESEARCH_STATE_MACHINE_ARN"
	// EnvTavilyKeyParameter names the SSM SecureString parameter holding
	// TAVILY_API_KEY (the research function's web search).
	EnvTavilyKeyParameter = "TAVILY_API_KEY_PARAMETER"
	// EnvScheduleGroup, EnvReplayFunction, EnvScheduleRole and
	// EnvScheduleDeadLetter configure the saved apps' EventBridge Scheduler
	// schedules (all four or none): the schedule group, the replay function
	// they invoke, the role they assume to invoke it, and the SQS queue of
	// the deliveries that failed. The function that saves apps needs them.
	EnvScheduleGroup      = "APP_SCHEDULE_GROUP"
	EnvReplayFunction     = "REPLAY_FUNCTION_ARN"
	EnvScheduleRole       = "APP_SCHEDULE_ROLE_ARN"
	EnvScheduleDeadLetter = "APP_SCHEDULE_DLQ_ARN"
	// EnvAPIKeyParameter names an SSM SecureString parameter holding
	// OPENAI_API_KEY, read at cold start when OPENAI_API_KEY is not set.
	EnvAPIKeyParameter = "OPENAI_API_KEY_PARAMETER"
	// EnvJWTSecretParameter names an SSM SecureString parameter holding
	// AUTH_JWT_SECRET, read at cold start when AUTH_JWT_SECRET is not set.
	EnvJWTSecretParameter = "AUTH_JWT_SECRET_PARAMETER"
	// EnvJavaTokenParameter names an SSM SecureString parameter holding
	// JAVA_API_TOKEN, read at cold start when JAVA_API_BASE_URL is set and
	// JAVA_API_TOKEN is not.
	EnvJavaTokenParameter = "JAVA_API_TOKEN_PARAMETER"
	// EnvJavaBaseURL and EnvUseMockData are the data service's switches
	// (javaapi.ConfigFromEnv reads them with the rest of its settings): a
	// function with either set registers the data tools.
	EnvJavaBaseURL = "JAVA_API_BASE_URL"
	EnvUseMockData = "USE_MOCK_DATA"
	// EnvAllowDevAuth=true lets the edge run without a JWT secret, in the
	// development mode that trusts X-Teacher-Id (a sandbox stack only).
	EnvAllowDevAuth = "AUTH_ALLOW_DEV"
	// EnvLogLevel is debug, info (default), warn or error.
	EnvLogLevel = "LOG_LEVEL"
	// EnvXRayContextMissing is the X-Ray SDK's own variable; FromEnv makes
	// IGNORE_ERROR its default, so that code running outside a traced
	// invocation (tests, the emulator) logs nothing for every SDK call.
	EnvXRayContextMissing = "AWS_XRAY_CONTEXT_MISSING"
	// EnvFunctionName is set by Lambda; it names the service in the logs.
	EnvFunctionName = "AWS_LAMBDA_FUNCTION_NAME"
)

// Machine types of EnvConversationMachineType.
const (
	MachineExpress  = "EXPRESS"
	MachineStandard = "STANDARD"
)

// Config is the AWS side's configuration.
type Config struct {
	Table               string
	Bucket              string
	RecordsBucket       string
	FileLinks           string
	ConversationMachine string
	ConversationExpress bool
	BuildMachine        string
	ResearchMachine     string
	// ScheduleGroup, ReplayFunction and ScheduleRole are the saved apps'
	// schedules' group, target and role; empty without schedules.
	ScheduleGroup      string
	ReplayFunction     string
	ScheduleRole       string
	ScheduleDeadLetter string
	APIKeyParameter    string
	JWTSecretParameter string
	JavaTokenParameter string
	TavilyKeyParameter string
	// Data is true when the data service is configured (JAVA_API_BASE_URL
	// or USE_MOCK_DATA): the tool registry then has the data tools.
	Data         bool
	AllowDevAuth bool
	LogLevel     slog.Level
}

// ConfigFromEnv reads the AWS side's configuration; errors name the
// variable at fault.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Table:               strings.TrimSpace(getenv(EnvTable)),
		Bucket:              strings.TrimSpace(getenv(EnvBucket)),
		RecordsBucket:       strings.TrimSpace(getenv(EnvRecordsBucket)),
		FileLinks:           strings.TrimSpace(getenv(EnvFileLinks)),
		ConversationMachine: strings.TrimSpace(getenv(EnvConversationMachine)),
		BuildMachine:        strings.TrimSpace(getenv(EnvBuildMachine)),
		ResearchMachine:     strings.TrimSpace(getenv(EnvResearchMachine)),
		ScheduleGroup:       strings.TrimSpace(getenv(EnvScheduleGroup)),
		ReplayFunction:      strings.TrimSpace(getenv(EnvReplayFunction)),
		ScheduleRole:        strings.TrimSpace(getenv(EnvScheduleRole)),
		ScheduleDeadLetter:  strings.TrimSpace(getenv(EnvScheduleDeadLetter)),
		APIKeyParameter:     strings.TrimSpace(getenv(EnvAPIKeyParameter)),
		JWTSecretParameter:  strings.TrimSpace(getenv(EnvJWTSecretParameter)),
		JavaTokenParameter:  strings.TrimSpace(getenv(EnvJavaTokenParameter)),
		TavilyKeyParameter:  strings.TrimSpace(getenv(EnvTavilyKeyParameter)),
		Data:                javaBaseURL(getenv) != "" || strings.TrimSpace(getenv(EnvUseMockData)) != "",
	}
	if c.Table == "" {
		return c, fmt.Errorf("wire: %s is required (the DynamoDB table)", EnvTable)
	}
	if some, all := c.ScheduleGroup != "" || c.ReplayFunction != "" || c.ScheduleRole != "" || c.ScheduleDeadLetter != "",
		c.ScheduleGroup != "" && c.ReplayFunction != "" && c.ScheduleRole != "" && c.ScheduleDeadLetter != ""; some && !all {
		return c, fmt.Errorf("wire: %s, %s, %s and %s go together (the saved apps' schedules)",
			EnvScheduleGroup, EnvReplayFunction, EnvScheduleRole, EnvScheduleDeadLetter)
	}
	switch v := strings.ToUpper(strings.TrimSpace(getenv(EnvConversationMachineType))); v {
	case "", MachineExpress:
		c.ConversationExpress = true
	case MachineStandard:
	default:
		return c, fmt.Errorf("wire: %s=%q: want %s or %s", EnvConversationMachineType, v, MachineExpress, MachineStandard)
	}
	switch v := strings.TrimSpace(getenv(EnvAllowDevAuth)); v {
	case "", "false":
	case "true":
		c.AllowDevAuth = true
	default:
		return c, fmt.Errorf("wire: %s=%q: want true or false", EnvAllowDevAuth, v)
	}
	if v := strings.TrimSpace(getenv(EnvLogLevel)); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			return c, fmt.Errorf("wire: %s=%q: want debug, info, warn or error", EnvLogLevel, v)
		}
	}
	return c, nil
}

// App is the graph of one Lambda function.
type App struct {
	*wire.App
	Cloud Config
	// AWS is the SDK configuration the clients share.
	AWS aws.Config
	// Table is the DynamoDB store and event log.
	Table *dynamostore.Table
	// DynamoDB is the table's client.
	DynamoDB *dynamodb.Client
	// Records are the table's records (report and research sessions).
	Records *dynamostore.Records
	// Env is the environment with the secrets read from SSM.
	Env func(string) string
	// sfnOptions are the Step Functions client's options (tests' endpoints).
	sfnOptions []func(*sfn.Options)
	// Blob is the S3 store of generated files; nil without BUCKET_NAME.
	Blob blob.Store
	// Starter starts conversation workflows; nil without
	// CONVERSATION_STATE_MACHINE_ARN.
	Starter edge.Starter
	// BuildStarter starts page builds; nil without BUILD_STATE_MACHINE_ARN.
	BuildStarter launch.Starter
	// ResearchStarter starts research runs; nil without
	// RESEARCH_STATE_MACHINE_ARN.
	ResearchStarter edge.ResearchStarter
	// AppStore keeps the saved apps and their snapshots (the table).
	AppStore *dynamostore.AppStore
	// Schedules keeps the saved apps' EventBridge Scheduler schedules; nil
	// without APP_SCHEDULE_GROUP.
	Schedules edge.ScheduleSync
	// Data is the Java data service client; nil without JAVA_API_BASE_URL
	// or USE_MOCK_DATA.
	Data *javaapi.Client
	// Metrics writes the EMF metric lines (the steps' counts, the edge's
	// latencies).
	Metrics *obs.EMF
}

// Options adjust FromEnv for tests; the zero value is production.
type Options struct {
	// Output receives the JSON logs and EMF metric lines (os.Stdout, which
	// Lambda sends to CloudWatch Logs).
	Output io.Writer
	// AWSOptions are added to the SDK configuration's load options.
	AWSOptions []func(*config.LoadOptions) error
	// DynamoDB, SSM, StepFunctions and Scheduler options are added to
	// those clients'.
	DynamoDB      []func(*dynamodb.Options)
	SSM           []func(*ssm.Options)
	StepFunctions []func(*sfn.Options)
	Scheduler     []func(*scheduler.Options)
	S3            []func(*s3.Options)
}

// FromEnv builds the graph from the Lambda environment through getenv
// (os.Getenv in the mains). It configures the X-Ray SDK's context-missing
// strategy, which is process-wide (see EnvXRayContextMissing).
func FromEnv(ctx context.Context, getenv func(string) string, o Options) (*App, error) {
	cc, err := ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	if o.Output == nil {
		o.Output = os.Stdout
	}
	service := getenv(EnvFunctionName)
	if service == "" {
		service = "insightedge"
	}
	logger := obs.NewLogger(o.Output, cc.LogLevel, service)
	if getenv(EnvXRayContextMissing) == "" {
		if err := xray.Configure(xray.Config{ContextMissingStrategy: ctxmissing.NewDefaultIgnoreErrorStrategy()}); err != nil {
			return nil, fmt.Errorf("wire: configure X-Ray: %w", err)
		}
	}

	awsCfg, err := config.LoadDefaultConfig(ctx, o.AWSOptions...)
	if err != nil {
		return nil, fmt.Errorf("wire: AWS configuration: %w", err)
	}
	// One X-Ray subsegment per AWS call (DynamoDB, S3, SSM, Step Functions).
	awsv2.AWSV2Instrumentor(&awsCfg.APIOptions)

	env, err := resolveSecrets(ctx, getenv, cc, func() parameterGetter { return newSecretsClient(awsCfg, o.SSM...) })
	if err != nil {
		return nil, err
	}
	cfg, err := wire.ConfigFromEnv(env)
	if err != nil {
		return nil, err
	}

	db := dynamodb.NewFromConfig(awsCfg, o.DynamoDB...)
	table := dynamostore.New(db, cc.Table, dynamostore.Options{})
	c := &App{Cloud: cc, AWS: awsCfg, Table: table, DynamoDB: db, Records: dynamostore.NewRecords(db, cc.Table, dynamostore.Options{}), Env: env, sfnOptions: o.StepFunctions, AppStore: dynamostore.NewAppStore(db, cc.Table, dynamostore.Options{})}
	// Outgoing HTTP (the model, the data service) gets X-Ray subsegments too.
	out := wire.Outbound().Transport
	httpClient := &http.Client{Transport: tracedTransport{traced: xray.RoundTripper(out), plain: out}}
	var store session.Store = table.Sessions()
	var s3c *s3.Client
	if cc.RecordsBucket != "" || cc.Bucket != "" || cc.FileLinks != "" {
		s3c = s3.NewFromConfig(awsCfg, o.S3...)
	}
	if cc.RecordsBucket != "" {
		// Records over a DynamoDB item's size go to the bucket.
		store = claimcheck.Wrap(store, s3blob.New(s3c, cc.RecordsBucket), 0)
	}
	emf := obs.NewEMF(o.Output, "InsightEdge")
	c.Metrics = emf
	b := wire.Backends{Store: store, Log: table.Events(), Metrics: emf, Logger: logger, HTTPClient: httpClient,
		Research:     research.NewStore(c.Records),
		LimitRecords: c.Records, LimitCounters: dynamostore.NewCounters(db, cc.Table, dynamostore.Options{}),
		Switches: switchesSource(cfg.Flags, func() parameterGetter { return ssm.NewFromConfig(awsCfg, o.SSM...) }, logger)} // issue 28
	if cc.FileLinks != "" {
		files := s3blob.New(s3c, cc.FileLinks)
		b.Files = files
		// issue 31: POST /api/quiz/export writes its files where the
		// agent's tools write theirs (the same bucket, teachers/).
		b.QuizExport = gentools.NewQuizExporter(gentools.Deps{Blob: files, Logger: logger, URLTTL: cfg.FileLinkTTL,
			Quizzes: gentools.QuizLog{Turns: store, Log: table.Events()}})
	}
	if cc.Data {
		data, client, err := dataTools(env, logger)
		if err != nil {
			return nil, err
		}
		c.Data = client
		b.Tools = append(b.Tools, data...)
	}
	if cc.Bucket != "" {
		c.Blob = s3blob.New(s3c, cc.Bucket)
		// issue 31: export_quiz and /api/quiz/export read the quizzes the
		// conversation's turns streamed.
		deps := gentools.Deps{Blob: c.Blob, Logger: logger, URLTTL: cfg.FileLinkTTL,
			Quizzes: gentools.QuizLog{Turns: store, Log: table.Events()}}
		b.Tools = append(b.Tools, gentools.New(deps)...)
		b.QuizExport = gentools.NewQuizExporter(deps)
	}
	if c.App, err = wire.New(cfg, b); err != nil {
		return nil, err
	}
	var states *sfn.Client
	if cc.ConversationMachine != "" || cc.BuildMachine != "" || cc.ResearchMachine != "" {
		states = sfn.NewFromConfig(awsCfg, o.StepFunctions...)
	}
	if cc.ConversationMachine != "" {
		c.Starter, err = sfnstart.New[workflow.ConversationState](states, cc.ConversationMachine,
			sfnstart.Options{Express: cc.ConversationExpress, TraceHeader: traceHeader})
		if err != nil {
			return nil, fmt.Errorf("wire: %s: %w", EnvConversationMachine, err)
		}
	}
	if cc.BuildMachine != "" {
		// The Build workflow is Express (template.yaml): its executions are
		// never stopped, only started.
		c.BuildStarter, err = sfnstart.New[workflow.BuildState](states, cc.BuildMachine,
			sfnstart.Options{Express: true, TraceHeader: traceHeader})
		if err != nil {
			return nil, fmt.Errorf("wire: %s: %w", EnvBuildMachine, err)
		}
	}
	if cc.ResearchMachine != "" {
		// Express too (template.yaml): a run is started once, by the first
		// stream of its session, and never stopped.
		c.ResearchStarter, err = sfnstart.New[workflow.ResearchState](states, cc.ResearchMachine,
			sfnstart.Options{Express: true, TraceHeader: traceHeader})
		if err != nil {
			return nil, fmt.Errorf("wire: %s: %w", EnvResearchMachine, err)
		}
	}
	if cc.ScheduleGroup != "" {
		c.Schedules, err = appschedule.New(scheduler.NewFromConfig(awsCfg, o.Scheduler...),
			appschedule.Options{Group: cc.ScheduleGroup, Target: cc.ReplayFunction, Role: cc.ScheduleRole, DeadLetter: cc.ScheduleDeadLetter})
		if err != nil {
			return nil, fmt.Errorf("wire: %s, %s, %s, %s: %w", EnvScheduleGroup, EnvReplayFunction, EnvScheduleRole, EnvScheduleDeadLetter, err)
		}
	}
	return c, nil
}

// dataTools are the teacher-data tools over the Java data service client,
// configured as locally (javaapi.ConfigFromEnv), with X-Ray subsegments for
// its calls within traced invocations.
func dataTools(getenv func(string) string, logger *slog.Logger) ([]tools.Tool, *javaapi.Client, error) {
	// Set-but-empty variables are told from unset ones where the process
	// environment has them (JAVA_API_PREFIX="" is an error, not /api).
	cfg, err := javaapi.ConfigFromLookup(javaapi.LookupWithProcess(getenv))
	if err != nil {
		return nil, nil, fmt.Errorf("wire: data service: %w", err)
	}
	client, err := javaapi.New(cfg, javaapi.Options{Logger: logger, Fallback: mockserver.Fallback(cfg),
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			return tracedTransport{traced: xray.RoundTripper(rt), plain: rt}
		}})
	if err != nil {
		return nil, nil, fmt.Errorf("wire: data service client: %w", err)
	}
	return datatools.New(client, logger), client, nil
}

// javaBaseURL is JAVA_API_BASE_URL, or the seed's SPRING_BOOT_BASE_URL.
func javaBaseURL(getenv func(string) string) string {
	if v := strings.TrimSpace(getenv(EnvJavaBaseURL)); v != "" {
		return v
	}
	return strings.TrimSpace(getenv(javaapi.Alias(EnvJavaBaseURL)))
}

// tracedTransport records an X-Ray subsegment for a request made within a
// traced invocation, and sends other requests (init, tests, the emulator)
// untraced: the X-Ray round tripper would log a warning for each of them.
type tracedTransport struct{ traced, plain http.RoundTripper }

func (t tracedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !traced(r.Context()) {
		return t.plain.RoundTrip(r)
	}
	// issue 28: a call that carries the turn's trace id (the model's
	// X-Trace-Id, the data service's X-Trace-ID: one canonical header)
	// gets a span annotated with it, which X-Ray's search finds
	// (annotation.traceId = "…").
	id := r.Header.Get(llm.TraceHeader)
	if id == "" {
		return t.traced.RoundTrip(r)
	}
	ctx, seg := xray.BeginSubsegment(r.Context(), "call "+r.URL.Host)
	if seg == nil {
		return t.traced.RoundTrip(r)
	}
	_ = seg.AddAnnotation("traceId", id)
	resp, err := t.traced.RoundTrip(r.WithContext(ctx))
	seg.Close(err)
	return resp, err
}

// traced reports whether ctx belongs to a traced invocation: it has a
// segment, or the Lambda trace header from which X-Ray makes one.
func traced(ctx context.Context) bool {
	return xray.GetSegment(ctx) != nil || lambdaTraceHeader(ctx) != ""
}

func lambdaTraceHeader(ctx context.Context) string {
	// aws-lambda-go stores the header under this plain string key.
	h, _ := ctx.Value(xray.LambdaTraceHeaderKey).(string)
	return h
}

// traceHeader is the X-Ray header to pass on from ctx, if any.
func traceHeader(ctx context.Context) string {
	if seg := xray.GetSegment(ctx); seg != nil {
		return seg.DownstreamHeader().String()
	}
	return lambdaTraceHeader(ctx)
}

// EdgeHandler is the HTTP edge of the stream and api functions: every
// conversation route and, with BUILD_STATE_MACHINE_ARN, the Build
// runtime's (the page streams, /api/workflow/generate and the saved apps).
// Every route recovers its own panics: lambdaurl runs the handler in a
// goroutine of its own, where a panic would end the process.
func (c *App) EdgeHandler() (http.Handler, error) {
	if c.Starter == nil {
		return nil, fmt.Errorf("wire: %s is required by the edge (it starts the turns' workflows)", EnvConversationMachine)
	}
	if c.Config.JWTSecret == "" && !c.Cloud.AllowDevAuth {
		return nil, fmt.Errorf("wire: the edge needs AUTH_JWT_SECRET or %s (or %s=true for a sandbox without identities)",
			EnvJWTSecretParameter, EnvAllowDevAuth)
	}
	checks := []edge.Check{{Name: "store", Check: func(ctx context.Context) error {
		_, err := c.Store.GetSession(ctx, "health-probe")
		if errors.Is(err, session.ErrNotFound) {
			return nil
		}
		return err
	}}}
	if c.Data != nil {
		checks = append(checks, wire.DataCheck(c.Data))
	}
	st := c.Starter
	if c.Cloud.ConversationExpress {
		// issue 24: a turn whose execution died without Finish is closed
		// ExpressLimit + TurnDeadlineGrace after its start.
		st = turnDeadline{Starter: c.Starter, store: c.Store, log: c.Log, logger: c.Logger,
			after: ExpressLimit + TurnDeadlineGrace, afterFunc: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
	}
	srv := c.Edge(st, checks)
	srv.SetReady(true)
	mux := http.NewServeMux()
	srv.Mount(mux)
	if c.BuildStarter != nil {
		// A saved app's schedule must reach EventBridge Scheduler, or it
		// would never run.
		if c.Schedules == nil {
			return nil, fmt.Errorf("wire: the saved apps' routes (%s is set) need %s, %s and %s",
				EnvBuildMachine, EnvScheduleGroup, EnvReplayFunction, EnvScheduleRole)
		}
		l := c.Launcher(c.BuildStarter)
		c.Pages(l).Mount(mux)
		c.App.Apps(c.AppStore, c.Replayer(c.AppStore, l), c.Schedules).Mount(mux)
	}
	if c.ResearchStarter != nil {
		c.ResearchRoutes(c.ResearchStarter).Mount(mux)
	}
	// Every route recovers its own panics (edge.handle); the turn
	// latencies (time to first text, turn time) as the client sees them.
	handler := c.App.FairUse(mux, mux) // issue 26: fair use
	return edge.CleanPaths(c.Logger, edge.TurnLatency(handler, c.Metrics, nil)), nil
}

// TriggerSweep is the trigger of the replay function's input, with no
// app, that only runs the recovery sweep: template.yaml's RecoverySweep
// schedule (issue 25).
const TriggerSweep = "sweep"

// ReplayMargin is how long before the function's deadline a replay stops
// waiting for its build, so that the failed run is still recorded.
const ReplayMargin = 15 * time.Second

// ReplayHandler is the replay function's handler (the EventBridge
// Scheduler target, input {"appId", "trigger"}): it moves the app's next
// run time to the schedule's next run (as the local scheduler does before a
// run, so that the app shows when it runs next), then replays it with no
// client attached (apps.Replayer): one snapshot per run, a failed build
// recorded as a failed run. It stops waiting for the build ReplayMargin
// before the invocation's deadline.
func (c *App) ReplayHandler() (func(context.Context, apps.ReplayInput) (apps.ReplayOutput, error), error) {
	if c.BuildStarter == nil {
		return nil, fmt.Errorf("wire: %s is required by the replay function (it starts the builds)", EnvBuildMachine)
	}
	l := c.Launcher(c.BuildStarter)
	r := c.Replayer(c.AppStore, l)
	rec := c.Recoverer(l, c.AppStore)
	if rec != nil { // issue 32: dead template runs too
		rec = rec.WithReports(report.NewStore(c.Records))
	}
	return func(ctx context.Context, in apps.ReplayInput) (apps.ReplayOutput, error) {
		if deadline, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline.Add(-ReplayMargin))
			defer cancel()
		}
		// Every replay first closes the work a dead process left (turns,
		// builds, app runs whose leases ran out): in AWS the scheduled
		// replays are the periodic sweep the edge's on-demand checks miss.
		if rec != nil {
			if n, err := rec.Sweep(ctx, time.Now()); err != nil {
				c.Logger.WarnContext(ctx, "recovery sweep failed", "err", err)
			} else if n > 0 {
				c.Logger.WarnContext(ctx, "closed work left by dead processes", "count", n)
			}
		}
		// issue 25: the template's RecoverySweep schedule runs the sweep
		// alone, so that it runs whether or not any app is scheduled.
		if in.Trigger == TriggerSweep && in.AppID == "" {
			return apps.ReplayOutput{Status: TriggerSweep}, nil
		}
		if in.Trigger == "" || in.Trigger == apps.TriggerSchedule {
			c.advance(ctx, in.AppID, time.Now())
		}
		return r.Replay(ctx, in)
	}, nil
}

// advance moves a scheduled app's NextRunAt past now, to the time its
// EventBridge schedule (which starts at the first NextRunAt and repeats at
// the interval) runs it next. A failure is logged: the run matters more.
func (c *App) advance(ctx context.Context, appID string, now time.Time) {
	a, err := c.AppStore.GetApp(ctx, appID)
	if err != nil || a.Schedule == nil || a.NextRunAt.IsZero() {
		return // a missing app is Replay's to report
	}
	every, err := a.Schedule.Interval()
	if err != nil {
		c.Logger.WarnContext(ctx, "app with a bad schedule", "appId", appID, "err", err)
		return
	}
	if next := apps.Next(a.NextRunAt, now, every); !next.Equal(a.NextRunAt) {
		a.NextRunAt = next
		if err := c.AppStore.PutApp(ctx, a); err != nil {
			c.Logger.ErrorContext(ctx, "could not move the app's next run", "appId", appID, "err", err)
		}
	}
}
