package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/insightedge/insightedge/local/eval"
	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/local/server"
	"github.com/insightedge/insightedge/shared/llm"
)

// evalOptions configure `go run ./local eval`.
type evalOptions struct {
	URL         string // a deployed stack instead of the in-process server
	Token       string // bearer token for -url
	Cases       string // a file or directory of cases instead of the built-in suite
	Scene       string // run only this scene
	Baseline    string
	Out         string
	Parallel    int
	TurnTimeout time.Duration
	Prices      eval.Prices
	Models      bool
	Getenv      func(string) string
	Out1, Err   io.Writer
	Logger      *slog.Logger
	// Rewrite changes every model request (tests: a synthetic regression).
	Rewrite func([]byte) []byte
	// SDKDir is where to look for test/aisdk (default: the working directory upwards).
	SDKDir string
	// LatencySlackMS: see eval.CompareOptions.
	LatencySlackMS float64
}

// errBaselineFailed is returned (exit 1) when an acceptance rule fails.
var errBaselineFailed = errors.New("eval: the run fails the baseline's acceptance rules")

// runEval runs the suite and writes the reports; it returns the report.
func runEval(ctx context.Context, o evalOptions) (eval.Report, error) {
	if o.Models {
		return eval.Report{}, checkModels(ctx, o)
	}
	cases, err := loadCases(o)
	if err != nil {
		return eval.Report{}, err
	}
	var base eval.Report
	if o.Baseline != "" {
		if base, err = eval.LoadReport(o.Baseline); err != nil {
			return eval.Report{}, err
		}
	}
	rep := eval.Report{Started: time.Now().UTC(), Prices: o.Prices}
	target := eval.Target{BaseURL: o.URL, Client: &http.Client{}}
	var meter *eval.Meter
	if o.URL == "" {
		srv, m, models, err := startForEval(ctx, o)
		if err != nil {
			return rep, err
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.Close(sctx)
		}()
		target.BaseURL, meter, rep.Models = srv.URL, m, models
		rep.Target = "in-process local server"
	} else {
		rep.Target, rep.Models = o.URL, "as deployed"
		if o.Token != "" {
			target.Headers = map[string]string{"Authorization": "Bearer " + o.Token}
		}
	}
	fmt.Fprintf(o.Err, "eval: %d cases against %s (%s), %d at a time\n", len(cases), rep.Target, rep.Models, o.Parallel)
	bar := newProgress(o.Err)
	start := time.Now()
	rep.Cases = eval.Run(ctx, target, cases, eval.Options{Parallel: o.Parallel, TurnTimeout: o.TurnTimeout, Meter: meter, Progress: bar.update})
	bar.finish()
	rep.Seconds = time.Since(start).Seconds()
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	rep.Protocol = "ai-sdk"
	dir := o.SDKDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if chk, err := eval.FindSDKChecker(dir); err != nil {
		if o.Getenv("CI") == "true" {
			return rep, err
		}
		rep.Protocol = "framing only: " + err.Error()
	} else if err := chk.Check(ctx, rep.Cases); err != nil {
		return rep, err
	}
	if meter != nil {
		rep.Tokens, rep.Unmetered = meter.Totals()
	}
	rep.Rows = eval.Summarise(rep.Cases, o.Prices)
	var verdicts []eval.Verdict
	if o.Baseline != "" {
		verdicts = eval.Compare(rep, base, eval.CompareOptions{LatencySlackMS: o.LatencySlackMS})
	}
	eval.WriteTable(o.Out1, rep, verdicts)
	if err := writeReports(o.Out, rep, verdicts); err != nil {
		return rep, err
	}
	fmt.Fprintf(o.Out1, "\nreports: %s, %s\n", filepath.Join(o.Out, "eval.json"), filepath.Join(o.Out, "eval.html"))
	if failed := len(rep.Pin().Failing); failed > 0 && rep.Models == offlineModels {
		fmt.Fprintf(o.Out1, "\n%d of %d cases failed against the offline stand-in model. It answers the scripted scenarios of the\n"+
			"built-in suite only (docs/eval.md), so a failure of your own case may be its limit, not the\n"+
			"product's: run the suite against a real model (OPENAI_BASE_URL, LLM_MODEL_*) to judge the product.\n", failed, len(rep.Cases))
	}
	if len(eval.Failed(verdicts)) > 0 {
		return rep, errBaselineFailed
	}
	return rep, nil
}

func loadCases(o evalOptions) ([]eval.Case, error) {
	var cases []eval.Case
	var err error
	if o.Cases != "" {
		cases, err = eval.LoadFile(o.Cases)
	} else {
		cases, err = eval.Builtin()
	}
	if err != nil {
		return nil, err
	}
	if o.Scene != "" {
		var keep []eval.Case
		for _, c := range cases {
			if c.Scene == o.Scene {
				keep = append(keep, c)
			}
		}
		cases = keep
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("eval: no cases to run")
	}
	return cases, nil
}

// offlineModels names the offline stand-in in a report's Models.
const offlineModels = "the offline stand-in model"

// startForEval starts the product in process with a fresh store, its model
// calls going through a meter (to count tokens) to the configured model or
// to an offline model started here.
func startForEval(ctx context.Context, o evalOptions) (*server.Server, *eval.Meter, string, error) {
	env := map[string]string{}
	upstream := o.Getenv("OPENAI_BASE_URL")
	models := fmt.Sprintf("fast=%s standard=%s strong=%s", o.Getenv("LLM_MODEL_FAST"), o.Getenv("LLM_MODEL_STANDARD"), o.Getenv("LLM_MODEL_STRONG"))
	var closers []func(context.Context) error
	if upstream == "" {
		off := offlinemodel.New(offlinemodel.Options{})
		url, stop, err := off.Start(ctx, "127.0.0.1:0")
		if err != nil {
			return nil, nil, "", err
		}
		closers = append(closers, stop)
		upstream = url
		env["OPENAI_API_KEY"] = "offline"
		env["LLM_MODEL_FAST"], env["LLM_MODEL_STANDARD"], env["LLM_MODEL_STRONG"] = offlinemodel.ModelFast, offlinemodel.ModelStandard, offlinemodel.ModelStrong
		models = offlineModels
	}
	meter := eval.NewMeter(upstream)
	meter.Rewrite = o.Rewrite
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, "", err
	}
	hs := &http.Server{Handler: meter, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	closers = append(closers, hs.Shutdown)
	env["OPENAI_BASE_URL"] = "http://" + ln.Addr().String()
	dir, err := os.MkdirTemp("", "insight-eval-")
	if err != nil {
		return nil, nil, "", err
	}
	closers = append(closers, func(context.Context) error { return os.RemoveAll(dir) })
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return o.Getenv(k)
	}
	s, err := server.Start(ctx, server.Options{Addr: "127.0.0.1:0", DataDir: dir, Getenv: getenv, Logger: o.Logger})
	if err != nil {
		for i := len(closers) - 1; i >= 0; i-- {
			_ = closers[i](context.Background())
		}
		return nil, nil, "", err
	}
	s.AfterClose(closers...)
	return s, meter, models, nil
}

func writeReports(dir string, rep eval.Report, verdicts []eval.Verdict) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("eval: reports: %w", err)
	}
	b, err := json.MarshalIndent(struct {
		eval.Report
		Verdicts []eval.Verdict `json:"verdicts,omitempty"`
	}{rep, verdicts}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "eval.json"), b, 0o644); err != nil {
		return fmt.Errorf("eval: reports: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, "eval.html"))
	if err != nil {
		return fmt.Errorf("eval: reports: %w", err)
	}
	if err := eval.WriteHTML(f, rep, verdicts); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// progress draws a bar on a terminal, and plain lines otherwise.
type progress struct {
	w   io.Writer
	tty bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) update(done, total int, r eval.CaseResult) {
	mark := "ok  "
	if !r.Pass {
		mark = "FAIL"
	}
	if !p.tty {
		fmt.Fprintf(p.w, "[%d/%d] %s %s\n", done, total, mark, r.ID)
		return
	}
	const width = 30
	n := done * width / max(total, 1)
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d %s %s", strings.Repeat("█", n), strings.Repeat("·", width-n), done, total, mark, r.ID)
}

func (p *progress) finish() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// checkModels is `eval -models`: every model of each tier's chain, against
// the configured provider (the offline model when none is).
func checkModels(ctx context.Context, o evalOptions) error {
	getenv := o.Getenv
	if getenv("OPENAI_BASE_URL") == "" {
		off := offlinemodel.New(offlinemodel.Options{})
		url, stop, err := off.Start(ctx, "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer stop(context.Background())
		env := map[string]string{"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "offline", "LLM_MODEL_FAST": offlinemodel.ModelFast,
			"LLM_MODEL_STANDARD": offlinemodel.ModelStandard, "LLM_MODEL_STRONG": offlinemodel.ModelStrong}
		getenv = func(k string) string { return env[k] }
	}
	cfg, err := llm.ConfigFromEnv(getenv)
	if err != nil {
		return err
	}
	timeout := o.TurnTimeout
	if timeout <= 0 || timeout > time.Minute {
		timeout = time.Minute
	}
	fmt.Fprintf(o.Err, "eval: checking the models of each tier at %s\n", cfg.BaseURL)
	checks := eval.CheckModels(ctx, cfg, timeout)
	eval.WriteModelTable(o.Out1, checks)
	usable := map[string]bool{}
	for _, c := range checks {
		usable[c.Tier] = usable[c.Tier] || c.Usable
	}
	var bad []string
	for _, t := range []llm.Tier{llm.TierFast, llm.TierStandard, llm.TierStrong} {
		if !usable[string(t)] {
			bad = append(bad, string(t))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("eval: no usable model in the %s chain", strings.Join(bad, ", "))
	}
	return nil
}

func evalFlags(fs *flag.FlagSet, o *evalOptions) {
	fs.StringVar(&o.URL, "url", "", "run against this deployed stack (its stream URL) instead of an in-process server")
	fs.StringVar(&o.Token, "token", "", "with -url: a bearer token for the stack")
	fs.StringVar(&o.Cases, "cases", "", "a JSON or YAML file (or a directory of them) of your own cases instead of the built-in suite")
	fs.StringVar(&o.Scene, "scene", "", "run only the cases of this scene")
	fs.StringVar(&o.Baseline, "baseline", "", "an earlier eval.json: apply the acceptance rules of seed 000 §6 and exit 1 when one fails")
	fs.StringVar(&o.Out, "out", "eval-out", "directory for eval.json and eval.html")
	fs.IntVar(&o.Parallel, "parallel", 4, "cases run at once")
	fs.DurationVar(&o.TurnTimeout, "turn-timeout", 5*time.Minute, "bound of one turn")
	fs.Float64Var(&o.Prices.Input, "price-in", 0, "USD per million prompt tokens, for the cost column")
	fs.Float64Var(&o.Prices.Output, "price-out", 0, "USD per million completion tokens")
	fs.BoolVar(&o.Models, "models", false, "check every model of each tier's fallback chain instead of running the suite")
	fs.Float64Var(&o.LatencySlackMS, "latency-slack", 50, "ms added to the allowed P50 in the baseline rule (noise of fast runs)")
}
