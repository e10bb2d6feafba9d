package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/control"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/report/transport"
)

// TemplateConfig is the template report agent's configuration (seed 002).
type TemplateConfig struct {
	Settings pipeline.Settings
	// Backend is TEMPLATE_API_BASE_URL, else TEMPLATE_BACKEND_URL, else
	// BACKEND_BASE_URL; Allowed is TEMPLATE_API_ALLOWED_URLS (comma
	// separated): the only other bases a client's api_base_url may name.
	Backend string
	Allowed []string
	// StateSecret signs user.request_state's state (TEMPLATE_STATE_SECRET).
	StateSecret []byte
	StateTTL    time.Duration
}

// TemplateConfigFromEnv reads the configuration; errors name the variable.
func TemplateConfigFromEnv(getenv func(string) string) (TemplateConfig, error) {
	c := TemplateConfig{Settings: pipeline.DefaultSettings()}
	s := &c.Settings
	var err error
	if s.Concurrency, err = intEnv(getenv, "TEMPLATE_WS_CONCURRENCY", 5, 1, 40); err != nil {
		return c, err
	}
	if s.MaxRetry, err = intEnv(getenv, "TEMPLATE_WS_MAX_RETRY", 1, 0, 10); err != nil {
		return c, err
	}
	if s.BroadcastTasks, err = boolEnv(getenv, "TEMPLATE_WS_BROADCAST_TASKS", true); err != nil {
		return c, err
	}
	if s.RequireConfirm, err = boolEnv(getenv, "TEMPLATE_WS_REQUIRE_CONFIRM", true); err != nil {
		return c, err
	}
	// The seed gives these two in seconds ("3.0", "600"); a Go duration works too.
	if s.RetryDelay, err = secondsEnv(getenv, "TEMPLATE_WS_RETRY_DELAY", 3*time.Second, true); err != nil {
		return c, err
	}
	if s.ConfirmTimeout, err = secondsEnv(getenv, "TEMPLATE_WS_CONFIRM_TIMEOUT", 600*time.Second, false); err != nil {
		return c, err
	}
	for _, k := range []string{"TEMPLATE_API_BASE_URL", "TEMPLATE_BACKEND_URL", "BACKEND_BASE_URL"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			c.Backend = v
			break
		}
	}
	for a := range strings.SplitSeq(getenv("TEMPLATE_API_ALLOWED_URLS"), ",") {
		if a = strings.TrimSpace(a); a != "" {
			c.Allowed = append(c.Allowed, a)
		}
	}
	if v := getenv("TEMPLATE_STATE_SECRET"); v != "" {
		if len(v) < 16 {
			return c, errors.New("TEMPLATE_STATE_SECRET: want at least 16 characters")
		}
		c.StateSecret = []byte(v)
	}
	if c.StateTTL, err = durationEnv(getenv, "TEMPLATE_STATE_TTL", time.Hour); err != nil {
		return c, err
	}
	return c, nil
}

func boolEnv(getenv func(string) string, name string, def bool) (bool, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want true or false", name, v)
	}
	return b, nil
}

func secondsEnv(getenv func(string) string, name string, def time.Duration, zeroOK bool) (time.Duration, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		f, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil {
			return 0, fmt.Errorf("%s=%q: want seconds (3.0) or a duration (3s)", name, v)
		}
		d = time.Duration(f * float64(time.Second))
	}
	if d < 0 || (d == 0 && !zeroOK) {
		return 0, fmt.Errorf("%s=%q: want a positive number of seconds", name, v)
	}
	return d, nil
}

// Template is the template report agent's graph.
type Template struct {
	Pipeline *pipeline.Pipeline
	Control  *control.Service
	Server   *transport.Server
	Backends *backend.Resolver
}

// TemplateBackends are the template agent's own stores and its workflow.
type TemplateBackends struct {
	Store  report.Store
	Blobs  blob.Store
	Start  control.Starter
	Tokens control.TaskTokens
	// PDF renders the report as PDF too (nil: .docx only).
	PDF pipeline.PDFRenderer
}

// NewTemplate builds the template agent on the App's model, event log and
// identity rules.
func (a *App) NewTemplate(tc TemplateConfig, b TemplateBackends) (*Template, error) {
	res := backend.NewResolver(backend.Options{Default: tc.Backend, Allowed: tc.Allowed})
	p := pipeline.New(pipeline.Deps{Store: b.Store, Log: a.Log, Blobs: b.Blobs, Backends: res, Model: a.Model,
		Settings: tc.Settings, Logger: a.Logger, PDF: b.PDF, FileTTL: a.Config.FileLinkTTL, PassMarks: a.ReportPassMarks()})
	o := control.Options{Settings: p.Settings(), Secret: tc.StateSecret, StateTTL: tc.StateTTL, Logger: a.Logger, Switches: a.Switches,
		Runs: a.RunLeases(b.Store, tc.Settings.ConfirmTimeout)}
	if r := a.Recoverer(nil, nil); r != nil {
		o.Recover = r.WithReports(b.Store)
	}
	if l := a.edgeLimiter(); l != nil {
		o.Admit = reportAdmitter{l} // issue 26: both transports' new sessions
	}
	svc, err := control.New(b.Store, a.Log, b.Start, b.Tokens, res, o)
	if err != nil {
		return nil, fmt.Errorf("wire: template agent: %w", err)
	}
	to := transport.Options{}
	if c, err := res.For(""); err == nil {
		to.Catalog = c // the default backend's names; none configured: the route answers 503
	}
	srv := transport.New(svc, a.Relay(), a.Authenticator(), to)
	return &Template{Pipeline: p, Control: svc, Server: srv, Backends: res}, nil
}

// TemplateTasks are the template workflow's tasks, keyed by the
// DefinitionSubstitutions names of infra/statemachines/template.asl.json:
// one function, told the step by the input's "step".
func TemplateTasks(p *pipeline.Pipeline) map[string]Task {
	return map[string]Task{"ReportFunctionArn": TemplateStep(p)}
}

// TemplateStep runs the step its input names (functions/report).
func TemplateStep(p *pipeline.Pipeline) Task {
	steps := map[string]Task{
		"plan":       Typed(p.Plan),
		"confirm":    Typed(p.Confirm),
		"next_round": Typed(p.NextRound),
		"solve":      Typed(p.Solve),
		"aggregate":  Typed(p.Aggregate),
		"finish":     Typed(p.Finish),
	}
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var head struct {
			Step string `json:"step"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("wire: decode the report step's input: %w", err)
		}
		step, ok := steps[head.Step]
		if !ok {
			return nil, fmt.Errorf("wire: unknown report step %q", head.Step)
		}
		return step(ctx, raw)
	}
}

// issue 32: a template run holds a lease while it runs.

// RunLeases are the leases of template runs in the App's lease table (a
// zero Leases without one: runs then hold none).
func (a *App) RunLeases(store report.Store, confirmWait time.Duration) report.RunLeases {
	return report.RunLeases{Leases: a.leases(), Store: store, ConfirmWait: confirmWait}
}

// RunLeased has every step of a template run keep its run's lease while it
// works (report.RunLeases.Keep), as the steps of a turn keep the turn's
// (renewing); without a lease table it is step itself.
func RunLeased(step Task, rl report.RunLeases) Task {
	step = sessionPaid(step, rl.Store)
	if rl.Leases == nil {
		return step
	}
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var head struct {
			SessionID string `json:"session_id"`
			Run       int    `json:"run"`
			Step      string `json:"step"`
		}
		if json.Unmarshal(raw, &head) != nil || head.SessionID == "" {
			return step(ctx, raw) // it fails on its own
		}
		done := rl.Keep(ctx, head.SessionID, head.Run, head.Step)
		out, err := step(ctx, raw)
		done(err)
		return out, err
	}
}

// sessionPaid has the model calls of a template step that names only its
// session metered against the session's teacher (issue 26), read from
// store when a call is metered (llm.WithPayerFunc); a step whose input
// names its teacher is paid by it (Typed).
func sessionPaid(step Task, store report.Store) Task {
	if store == nil {
		return step
	}
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var head struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(raw, &head) == nil && head.SessionID != "" {
			ctx = llm.WithPayerFunc(ctx, func(ctx context.Context) string {
				s, err := store.GetSession(ctx, head.SessionID)
				if err != nil {
					return ""
				}
				return s.TeacherID
			})
		}
		return step(ctx, raw)
	}
}
