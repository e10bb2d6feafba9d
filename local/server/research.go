package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/searchsvc"
	"github.com/insightedge/insightedge/shared/workflow"
)

// startSearch starts the local search service (unless TAVILY_API_KEY names
// a real Tavily account) and points the search client at it over HTTP.
func (s *Server) startSearch(ctx context.Context, env *envOverlay) error {
	if env.get("TAVILY_API_KEY") != "" {
		return nil
	}
	key := randomToken()
	s.Search = searchsvc.New(key)
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	base, done, err := s.Search.Start(sctx, "127.0.0.1:0")
	if err != nil {
		cancel()
		return fmt.Errorf("local: search service: %w", err)
	}
	s.closers = append(s.closers, func(context.Context) error { cancel(); <-done; return nil })
	env.set("TAVILY_BASE_URL", base)
	env.set("TAVILY_API_KEY", key)
	return nil
}

// ResearchRuntime is the research flow of the local server: the Research
// workflow run by the interpreter from infra/statemachines/research.asl.json,
// and its routes.
type ResearchRuntime struct {
	runner *runner
	mount  func(*http.ServeMux)
}

// startResearch starts the research flow over s.App. Sessions a previous
// process left Executing (it was killed mid-run) end Failed with an error
// event first: their executions died with it.
func (s *Server) startResearch(ctx context.Context, o Options) (*ResearchRuntime, error) {
	r, err := s.startRunner(infra.ResearchASL, s.App.ResearchTasks(), s.closeFailedResearch, o.Logger)
	if err != nil {
		return nil, err
	}
	if n, err := s.App.Research.Recover(ctx); err != nil {
		return nil, fmt.Errorf("local: research sessions left running: %w", err)
	} else if n > 0 {
		o.Logger.Warn("research runs interrupted by a restart were failed", "sessions", n)
	}
	routes := s.App.ResearchRoutes(starter[workflow.ResearchState]{r})
	return &ResearchRuntime{runner: r, mount: routes.Mount}, nil
}

// closeFailedResearch runs Finish for a run whose execution failed outside
// every Catch (or was cancelled by a shutdown), so that its session ends
// Failed and its stream closes with an error event.
func (s *Server) closeFailedResearch(ctx context.Context, input json.RawMessage, errName, cause string) {
	var st workflow.ResearchState
	if err := json.Unmarshal(input, &st); err != nil {
		return
	}
	in := workflow.ResearchStepInput{Step: workflow.ResearchStepFinish, Research: st.Research,
		Error: &workflow.ErrorInfo{Error: errName, Cause: cause}}
	if _, err := s.App.Research.Finish(ctx, in); err != nil {
		s.App.Logger.Error("could not close a failed research run", "sessionId", st.Research.SessionID, "err", err)
	}
}
