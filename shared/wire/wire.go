// Package wire builds the one dependency graph of the product, from
// configuration to clients to steps and handlers. The Lambda mains in
// functions/ and the local server in local/ both use it, so that the cloud
// and the local run execute the same code. The AWS clients that the
// Lambda functions put under it are wired in package awswire, apart, so
// that the local binary links none of the AWS SDKs (their package
// initialisation alone took most of its start-up).
package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/insightedge/insightedge/shared/agent"
	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/build"
	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/blueprint/plan"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/flags"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/limits"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/obs"
	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/recovery"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/guide"
	"github.com/insightedge/insightedge/shared/tools/quiz"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Config is the product's configuration, read once at start.
type Config struct {
	LLM         llm.Config
	MaxRounds   int
	JWTSecret   string
	JWTIssuer   string
	JWTAudience string
	// JWTMaxLife and JWTSkew bound a token's life and the clock skew
	// (AUTH_JWT_MAX_LIFE, AUTH_JWT_CLOCK_SKEW).
	JWTMaxLife, JWTSkew time.Duration
	DevTeacher          string
	Heartbeat           time.Duration
	TurnTimeout         time.Duration
	TextFlush           time.Duration
	// Research configures the research flow (research.go).
	Research ResearchConfig
	// ChatMode is the chat mode of a request that names none (CHAT_MODE,
	// seed 003: natural, free or strict; natural by default).
	ChatMode workflow.ChatMode
	// FileLinkTTL is the life of a download link to a generated file
	// (FILE_LINK_TTL, 15 min): links are capabilities, kept short.
	FileLinkTTL time.Duration
	// Limits are the fair-use limits (LIMIT_*, issue 26; off when unset).
	Limits limits.Config
	// Flags is where the operator's switches are read (FLAGS_*, issue 28).
	Flags flags.Config
}

// ConfigFromEnv reads the configuration; errors name the variable at fault.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var c Config
	var err error
	if c.LLM, err = llm.ConfigFromEnv(getenv); err != nil {
		return c, err
	}
	c.JWTSecret, c.JWTIssuer, c.JWTAudience = getenv("AUTH_JWT_SECRET"), getenv("AUTH_JWT_ISSUER"), getenv("AUTH_JWT_AUDIENCE")
	if c.Limits, err = limits.FromEnv(getenv); err != nil {
		return c, err
	}
	if c.Flags, err = flags.ConfigFromEnv(getenv); err != nil {
		return c, err
	}
	if c.JWTSecret != "" {
		if _, err := auth.NewJWT(auth.JWT{Secret: []byte(c.JWTSecret)}); err != nil {
			return c, fmt.Errorf("AUTH_JWT_SECRET: %w", err)
		}
	}
	if c.JWTMaxLife, err = durationEnv(getenv, "AUTH_JWT_MAX_LIFE", auth.DefaultMaxLife); err != nil {
		return c, err
	}
	if c.JWTSkew, err = durationEnv(getenv, "AUTH_JWT_CLOCK_SKEW", auth.DefaultSkew); err != nil {
		return c, err
	}
	c.DevTeacher = getenv("DEV_TEACHER_ID")
	if c.MaxRounds, err = intEnv(getenv, "AGENT_MAX_ROUNDS", 6, 1, 20); err != nil {
		return c, err
	}
	if c.Heartbeat, err = durationEnv(getenv, "SSE_HEARTBEAT", 15*time.Second); err != nil {
		return c, err
	}
	if c.TurnTimeout, err = durationEnv(getenv, "TURN_TIMEOUT", 10*time.Minute); err != nil {
		return c, err
	}
	if c.TextFlush, err = durationEnv(getenv, "TEXT_FLUSH_INTERVAL", 50*time.Millisecond); err != nil {
		return c, err
	}
	if c.Research, err = researchConfigFromEnv(getenv); err != nil {
		return c, err
	}
	if c.FileLinkTTL, err = FileLinkTTLFromEnv(getenv); err != nil {
		return c, err
	}
	c.ChatMode = workflow.ModeNatural
	if v := getenv("CHAT_MODE"); v != "" {
		m, ok := workflow.ParseChatMode(v)
		if !ok {
			return c, fmt.Errorf("CHAT_MODE=%q: want natural, free or strict", v)
		}
		c.ChatMode = m
	}
	return c, nil
}

// FileLinkTTL bounds FILE_LINK_TTL: a link must outlive a click, and a
// capability link should not outlive a working day.
const (
	minFileLinkTTL = 30 * time.Second
	maxFileLinkTTL = 24 * time.Hour
)

// FileLinkTTLFromEnv is FILE_LINK_TTL (edge.DefaultFileLinkTTL when unset),
// read apart for the file tools, which are made before the Config.
func FileLinkTTLFromEnv(getenv func(string) string) (time.Duration, error) {
	d, err := durationEnv(getenv, "FILE_LINK_TTL", edge.DefaultFileLinkTTL)
	if err == nil && (d < minFileLinkTTL || d > maxFileLinkTTL) {
		err = fmt.Errorf("FILE_LINK_TTL=%q: want a duration from %v to %v", getenv("FILE_LINK_TTL"), minFileLinkTTL, maxFileLinkTTL)
	}
	return d, err
}

func intEnv(getenv func(string) string, name string, def, lo, hi int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s=%q: want a whole number from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

func durationEnv(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 15s", name, v)
	}
	return d, nil
}

// Backends are the stores and outside services, chosen by the caller: the
// embedded ones locally, the AWS ones in Lambda.
type Backends struct {
	Store session.Store
	Log   eventlog.Log
	// Tools are the tool packs beyond the quiz tool (data, files ...).
	Tools   []tools.Tool
	Metrics agent.Metrics
	Logger  *slog.Logger
	// HTTPClient sends the model's, the search's and the backends' requests;
	// nil: one of the process's own (see Outbound).
	HTTPClient *http.Client
	// Research keeps the research sessions (nil: no research flow).
	Research research.Store
	// Files signs the generated files' links again at the edge; nil
	// leaves them as stored.
	Files edge.FileSigner
	// LimitRecords and LimitCounters keep the fair-use limits' counts
	// (issue 26; nil: no limits).
	LimitRecords  records.Backend
	LimitCounters limits.Counters
	// LimitNow is the limits' clock (nil: time.Now); tests move it.
	LimitNow func() time.Time
	// QuizExport serves POST /api/quiz/export (issue 31); nil: 503.
	QuizExport edge.QuizExporter
	// Switches are the operator's switches (issue 28; nil: FLAGS_FILE's,
	// or every switch on).
	Switches flags.Source
}

// App is the built graph.
type App struct {
	Config Config
	Model  llm.Model // metered when limits are on (issue 26)
	Tools  *tools.Registry
	Agent  *agent.Agent
	// Builder runs the Build workflow's phases; Planner plans blueprints.
	Builder *build.Builder
	Planner *plan.Planner
	Store   session.Store
	Log     eventlog.Log
	Logger  *slog.Logger
	// Research is the research flow (nil without Backends.Research).
	Research *research.Flow
	Files    edge.FileSigner
	// Limits is the fair-use limiter (nil: no LIMIT_* is set).
	Limits *limits.Limiter
	// PassMarks is each school's pass mark (issue 23; nil without
	// Backends.LimitRecords).
	PassMarks *limits.PassMarks
	// QuizExport is Backends.QuizExport (issue 31).
	QuizExport edge.QuizExporter
	// Switches are the operator's switches (issue 28).
	Switches flags.Source

	authOnce sync.Once
	auth     edge.Authenticator

	relayOnce sync.Once
	relay     *edge.Relay
}

// New builds the App.
func New(c Config, b Backends) (*App, error) {
	if b.Logger == nil {
		b.Logger = slog.New(slog.DiscardHandler)
	}
	if b.HTTPClient == nil {
		b.HTTPClient = Outbound()
	}
	lc := c.LLM
	lc.Logger = b.Logger
	lc.HTTPClient = b.HTTPClient
	client, err := llm.New(lc)
	if err != nil {
		return nil, fmt.Errorf("wire: model client: %w", err)
	}
	lim := newLimiter(c.Limits, b)
	model := metered(client, lim, b.Logger)
	reg := tools.NewRegistry(quiz.New(model), guide.Tool())
	reg.Add(b.Tools...)
	if b.Switches == nil {
		b.Switches = c.Flags.FileSource(b.Logger) // issue 28
	}
	ao := agent.Options{Logger: b.Logger, Metrics: b.Metrics, MaxRounds: c.MaxRounds, TextFlush: c.TextFlush, Switches: b.Switches}
	if lim != nil {
		ao.Limits = lim
	}
	ag := agent.New(model, reg, b.Store, b.Log, ao)
	pm := newPassMarks(b, lim)
	app := &App{Config: c, Model: model, Tools: reg, Agent: ag, PassMarks: pm,
		Builder: build.New(reg, model, b.Store, b.Log, build.Options{Logger: b.Logger, PassMarks: buildPassMarks(pm)}),
		Planner: plan.New(model, reg, b.Store, plan.Options{Logger: b.Logger}),
		Store:   b.Store, Log: b.Log, Logger: b.Logger, Files: b.Files, Limits: lim,
		QuizExport: b.QuizExport, Switches: b.Switches}
	if b.Research != nil {
		if app.Research, err = newResearch(c.Research, model, b); err != nil {
			return nil, err
		}
	}
	return app, nil
}

// Authenticator is JWT when AUTH_JWT_SECRET is set, development mode
// otherwise. It is made on first use, once: only functions that serve
// requests make one, and the development-mode warning is logged once.
func (a *App) Authenticator() edge.Authenticator {
	a.authOnce.Do(func() { a.auth = rememberSchools(authenticator(a.Config, a.Logger), a.PassMarks, a.Logger) })
	return a.auth
}

// Relay is the edge's one relay of event-log streams, with the logger and
// heartbeat every route group shares: made on first use, once.
func (a *App) Relay() *edge.Relay {
	a.relayOnce.Do(func() {
		a.relay = edge.NewRelay(a.Log, edge.RelayOptions{Logger: a.Logger, Heartbeat: a.Config.Heartbeat})
	})
	return a.relay
}

// authenticator is made once, so the development-mode warning is logged once.
func authenticator(c Config, log *slog.Logger) edge.Authenticator {
	if c.JWTSecret != "" {
		return auth.JWT{Secret: []byte(c.JWTSecret), Issuer: c.JWTIssuer, Audience: c.JWTAudience,
			MaxLife: c.JWTMaxLife, Skew: c.JWTSkew, SchoolClaim: c.Limits.SchoolClaim}
	}
	return auth.NewDev(c.DevTeacher, log)
}

// Edge returns the HTTP edge over starter.
func (a *App) Edge(st edge.Starter, checks []edge.Check) *edge.Server {
	o := edge.Options{Relay: a.Relay(), TurnTimeout: a.Config.TurnTimeout,
		ChatMode: a.Config.ChatMode, Checks: checks, Files: a.Files, FileLinkTTL: a.Config.FileLinkTTL, Leases: a.leases(), Tools: a.Builder.DataTools(),
		Limits: a.edgeLimiter()}
	if r := a.Recoverer(nil, nil); r != nil {
		o.Recover = r
	}
	o.QuizExport = a.QuizExport
	return edge.New(a.Store, a.Log, st, a.Authenticator(), o)
}

// DataCheck is the health check of the data service: that it answers and
// accepts the token (javaapi.Client.Check), with the breaker's state.
func DataCheck(c *javaapi.Client) edge.Check {
	return edge.Check{Name: "dataService", Check: func(ctx context.Context) error {
		h := c.Check(ctx)
		if h.OK() {
			edge.ReportStatus(ctx, h.Status) // issue 28: "configured" without JAVA_API_HEALTH_PATH
			return nil
		}
		return fmt.Errorf("%s: %s (breaker %s)", h.Status, h.Detail, h.Breaker)
	}}
}

// leases is the store's lease table, if it has one: the store's own, or
// that of the store a wrapper (claimcheck) keeps records in front of.
func (a *App) leases() session.Leases {
	s := a.Store
	for range 4 { // wrappers nest a level or two; the bound keeps a cycle from looping
		if l, ok := s.(session.Leases); ok {
			return l
		}
		u, ok := s.(interface{ Unwrap() session.Store })
		if !ok {
			return nil
		}
		s = u.Unwrap()
	}
	return nil
}

// Recoverer closes the turns, builds and app runs that a dead process left
// running; builds and snaps may be nil (then only turns are recovered). It
// is nil when the store keeps no leases.
func (a *App) Recoverer(builds recovery.Builds, snaps recovery.Snapshots) *recovery.Recoverer {
	ls := a.leases()
	if ls == nil {
		return nil
	}
	st := struct {
		session.Store
		session.Leases
	}{a.Store, ls}
	return recovery.New(st, a.Log, builds, snaps, a.Logger)
}

// renewing renews the lease of the turn or build a task works on while
// the task runs: the running steps keep their work's lease alive, so that
// a lease that runs out means a dead process.
func (a *App) renewing(task Task) Task {
	ls := a.leases()
	if ls == nil {
		return task
	}
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var head taskHead
		if json.Unmarshal(raw, &head) == nil { // a task that cannot decode its input fails on its own
			ctx = withKnownPayer(ctx, head)
		}
		// Until is the lease the edge took with the work: a fresh one is
		// not written again (session.KeepLease).
		l := session.Lease{Kind: session.LeaseTurn, ID: head.Turn.TurnID, Owner: head.Turn.SessionID, Until: head.Turn.LeaseUntil}
		if head.Build.BuildID != "" {
			l = session.Lease{Kind: session.LeaseBuild, ID: head.Build.BuildID, Owner: head.Build.BuildID, Until: head.Build.LeaseUntil}
		}
		stop := session.KeepLease(ctx, ls, l, time.Now)
		out, err := task(ctx, raw)
		stop()
		// Work that has ended needs its lease no more: a turn no longer
		// running, a build whose Finish phase closed its stream.
		switch {
		case l.ID == "":
		case l.Kind == session.LeaseBuild && head.Phase == workflow.PhaseFinish && err == nil:
			_ = ls.DropLease(context.WithoutCancel(ctx), l.Kind, l.ID)
		case l.Kind == session.LeaseTurn:
			if t, gerr := a.Store.GetTurn(ctx, l.Owner, l.ID); gerr == nil && t.Status != session.TurnRunning {
				_ = ls.DropLease(context.WithoutCancel(ctx), l.Kind, l.ID)
			}
		}
		return out, err
	}
}

// taskHead is what renewing and withPayer read of a task's input, in one
// decode (issue 29 item 3): the fields of workflow.Turn and workflow.Build
// the lease needs, under the same names, and where the input names the
// teacher whose work it is (payer).
type taskHead struct {
	Turn struct {
		SessionID  string    `json:"sessionId"`
		TurnID     string    `json:"turnId"`
		TeacherID  string    `json:"teacherId"`
		LeaseUntil time.Time `json:"leaseUntil"`
	} `json:"turn"`
	Build struct {
		BuildID    string    `json:"buildId"`
		TeacherID  string    `json:"teacherId"`
		LeaseUntil time.Time `json:"leaseUntil"`
	} `json:"build"`
	Phase    string `json:"phase"`
	Research struct {
		TeacherID string `json:"teacherId"`
	} `json:"research"`
	Teacher string `json:"teacher_id"`
}

// payer is the teacher the input's step works for: a conversation step's
// turn, a build phase's build, a research step's run, a template run's
// input (a template step that names only its session is paid by the
// session's teacher: RunLeased); "" when it names none.
func (h taskHead) payer() string {
	for _, id := range []string{h.Turn.TeacherID, h.Build.TeacherID, h.Research.TeacherID, h.Teacher} {
		if id != "" {
			return id
		}
	}
	return ""
}

// Task is a workflow task handler on raw JSON, as Step Functions calls it.
type Task func(ctx context.Context, in json.RawMessage) (json.RawMessage, error)

// Typed adapts a step to a Task.
func Typed[In, Out any](step func(context.Context, In) (Out, error)) Task {
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, fmt.Errorf("wire: decode step input: %w", err)
		}
		if l, ok := any(in).(interface{ LogAttrs() []slog.Attr }); ok {
			ctx = obs.With(ctx, l.LogAttrs()...) // every log line of the step names its turn
		}
		ctx = withPayer(ctx, raw) // issue 26: the step's model calls are its teacher's
		out, err := step(ctx, in)
		if err != nil {
			return nil, taskError(err)
		}
		return json.Marshal(out)
	}
}

// taskError names a step's error by its seed code when it has one, so that
// an ASL Catch or Retry can match DATA_ERROR and workflow.ErrorInfo.Code
// reads it back. aws-lambda-go reports a returned InvokeResponse_Error as it
// is (any other error is named after its Go type), and the local
// interpreter reads it the same way.
func taskError(err error) error {
	var e *apperr.Error
	if !errors.As(err, &e) {
		return err
	}
	return messages.InvokeResponse_Error{Type: string(e.Code), Message: err.Error()}
}

// ConversationTasks are the conversation workflow's tasks, keyed by the
// DefinitionSubstitutions names of infra/statemachines/conversation.asl.json.
func (a *App) ConversationTasks() map[string]Task {
	return map[string]Task{
		"RouterFunctionArn":    a.renewing(Typed(a.Agent.Start)), // issue 29: the router and the first round
		"AgentTurnFunctionArn": a.renewing(Typed(a.Agent.Turn)),
		"ToolFunctionArn":      a.renewing(Typed(a.Agent.RunTool)),
		"FileToolFunctionArn":  a.renewing(Typed(a.Agent.RunTool)), // issue 25: the same step, on a function sized for rendering
		"ValidateFunctionArn":  a.renewing(Typed(a.Agent.Validate)),
		"FinishFunctionArn":    a.renewing(Typed(a.Agent.Finish)),
		"BuildStepFunctionArn": a.renewing(a.BuildStep()),
	}
}

// Task is the handler of the workflow task named sub (its
// DefinitionSubstitutions name, e.g. "RouterFunctionArn") for a Lambda
// main: the same adapter the local run registers with its interpreter, so
// that every log line of the step carries the turn's sessionId, turnId and
// traceId in AWS as it does locally.
func (a *App) Task(sub string) (Task, error) {
	if t, ok := a.ConversationTasks()[sub]; ok {
		return t, nil
	}
	if t, ok := a.BuildTasks()[sub]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("wire: no workflow task %q", sub)
}

// BuildTasks are the Build workflow's tasks, keyed by the
// DefinitionSubstitutions names of infra/statemachines/build.asl.json.
func (a *App) BuildTasks() map[string]Task {
	return map[string]Task{"BuildStepFunctionArn": a.renewing(a.BuildStep())}
}

// BuildStep is the buildstep function's handler: the phase in its input
// picks the step — plan (the conversation's build path), or data, compute,
// compose and finish (the Build workflow).
func (a *App) BuildStep() Task {
	planTask, phaseTask := Typed(a.Planner.PlanBuild), Typed(a.Builder.Step)
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var head struct {
			Phase string `json:"phase"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("wire: decode step input: %w", err)
		}
		if head.Phase == workflow.PhasePlan {
			return planTask(ctx, raw)
		}
		return phaseTask(ctx, raw)
	}
}

// Launcher begins page builds on starter (the Build workflow's).
func (a *App) Launcher(st launch.Starter) *launch.Launcher {
	return launch.New(a.Store, a.Log, st, launch.Options{Logger: a.Logger, Leases: a.leases()})
}

// Pages returns the Build runtime's HTTP routes (page generate, patch,
// resume; workflow generate) over a launcher.
func (a *App) Pages(l edge.BuildLauncher) *edge.Pages {
	o := edge.PagesOptions{Tools: a.Builder.DataTools()}
	if b, ok := l.(recovery.Builds); ok {
		if r := a.Recoverer(b, nil); r != nil {
			o.Recover = r
		}
	}
	return edge.NewPages(l, a.Relay(), a.Authenticator(), planner{a.Planner}, o)
}

// Replayer runs saved apps through a launcher.
func (a *App) Replayer(store apps.Store, l apps.Launcher) *apps.Replayer {
	return apps.NewReplayer(store, l, apps.ReplayOptions{Logger: a.Logger, Tools: a.Builder.DataTools(), Leases: a.leases()})
}

// Apps returns the saved apps' HTTP routes; sync may be nil (locally).
func (a *App) Apps(store apps.Store, r *apps.Replayer, sync edge.ScheduleSync) *edge.Apps {
	return edge.NewApps(store, a.Relay(), a.Authenticator(), r, edge.AppsOptions{Tools: a.Builder.DataTools(), Sync: sync})
}

// planner adapts the Planner to the edge's /api/workflow/generate.
type planner struct{ p *plan.Planner }

func (p planner) PlanBlueprint(ctx context.Context, teacherID, traceID string, req edge.WorkflowRequest) (blueprint.Blueprint, error) {
	ctx = llm.WithPayer(ctx, teacherID) // issue 26
	res, err := p.p.Plan(ctx, plan.Request{Message: req.Message, Language: req.Language, TeacherID: teacherID,
		TraceID: traceID, Context: req.Context})
	return res.Blueprint, err
}
