package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/workflow"
)

// BuildRuntime is the Build runtime of the local server: the Build
// workflow run by the interpreter from infra/statemachines/build.asl.json,
// the page and saved-app routes, the saved apps' store (in the same bbolt
// file), and the local scheduler that stands in for EventBridge Scheduler.
type BuildRuntime struct {
	runner    *runner
	Launcher  *launch.Launcher
	Apps      *boltstore.AppStore
	Replayer  *apps.Replayer
	Scheduler *apps.Scheduler
	pages     *edge.Pages
	appRoutes *edge.Apps
}

// SchedulerEveryEnv sets the local scheduler's poll interval ("30s" by
// default; "off" disables it, as `go run ./local replay` does).
const SchedulerEveryEnv = "LOCAL_SCHEDULER_EVERY"

// startBuild starts the Build runtime over the server's store, event log
// and App. It needs s.App and s.DB; the routes are mounted by Mount.
func (s *Server) startBuild(ctx context.Context, o Options) (*BuildRuntime, error) {
	r, err := s.startRunner(infra.BuildASL, s.App.BuildTasks(), s.closeFailedBuild, o.Logger)
	if err != nil {
		return nil, err
	}
	b := &BuildRuntime{runner: r, Apps: s.DB.Apps()}
	b.Launcher = s.App.Launcher(starter[workflow.BuildState]{r})
	b.Replayer = s.App.Replayer(b.Apps, b.Launcher)
	b.Scheduler = apps.NewScheduler(b.Apps, b.Replayer, o.Logger)
	b.pages = s.App.Pages(b.Launcher)
	b.appRoutes = s.App.Apps(b.Apps, b.Replayer, nil)

	// Whatever holds a lease now was left by a process that died (the store
	// file is locked to one process): close it before anything runs,
	// template-report runs included (issue 32).
	if rec := s.App.Recoverer(b.Launcher, b.Apps); rec != nil {
		n, err := rec.WithReports(report.NewStore(s.DB)).Sweep(ctx, time.Now().Add(100*365*24*time.Hour))
		if err != nil {
			return nil, fmt.Errorf("local: recover the work of a previous run: %w", err)
		}
		if n > 0 {
			o.Logger.WarnContext(ctx, "closed work left running by a previous run", "count", n)
		}
	}

	every := 30 * time.Second
	switch v := o.Getenv(SchedulerEveryEnv); v {
	case "":
	case "off":
		every = 0
	default:
		if every, err = time.ParseDuration(v); err != nil || every <= 0 {
			return nil, fmt.Errorf("local: %s=%q: want a positive duration such as 30s, or off", SchedulerEveryEnv, v)
		}
	}
	if every > 0 {
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		go func() {
			defer close(done)
			b.Scheduler.Loop(lctx, every, time.Now)
		}()
		s.closers = append(s.closers, func(context.Context) error { cancel(); <-done; return nil })
	}
	return b, nil
}

// Mount registers the page and saved-app routes.
func (b *BuildRuntime) Mount(mux *http.ServeMux) {
	b.pages.Mount(mux)
	b.appRoutes.Mount(mux)
}

// closeFailedBuild runs the Finish phase for a build whose execution failed
// outside every Catch, so that its stream still closes with an ERROR.
func (s *Server) closeFailedBuild(ctx context.Context, input json.RawMessage, errName, cause string) {
	var st workflow.BuildState
	if err := json.Unmarshal(input, &st); err != nil {
		return
	}
	in := workflow.BuildStepInput{Phase: workflow.PhaseFinish, Build: st.Build, Error: &workflow.ErrorInfo{Error: errName, Cause: cause}}
	if _, err := s.App.Builder.Finish(ctx, in); err != nil {
		s.App.Logger.Error("could not close failed build", "buildId", st.Build.BuildID, "err", err)
	}
}
