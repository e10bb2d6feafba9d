package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/search"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Environment of the research flow.
const (
	EnvTavilyKey            = "TAVILY_API_KEY"
	EnvTavilyBaseURL        = "TAVILY_BASE_URL"
	EnvSearchTimeout        = "SEARCH_TIMEOUT"
	EnvSearchRetries        = "SEARCH_MAX_RETRIES"
	EnvResearchRequestLimit = "RESEARCH_REQUEST_LIMIT"
)

// ResearchConfig configures the research flow and its web search.
type ResearchConfig struct {
	// Tavily is the search client's configuration; without a key every
	// search fails with a message naming TAVILY_API_KEY.
	Tavily search.TavilyConfig
	// RequestLimit bounds a milestone agent run's model requests (15).
	RequestLimit int
}

func researchConfigFromEnv(getenv func(string) string) (ResearchConfig, error) {
	c := ResearchConfig{Tavily: search.TavilyConfig{APIKey: strings.TrimSpace(getenv(EnvTavilyKey)),
		BaseURL: strings.TrimSpace(getenv(EnvTavilyBaseURL))}}
	var err error
	if c.RequestLimit, err = intEnv(getenv, EnvResearchRequestLimit, 15, 2, 50); err != nil {
		return c, err
	}
	if c.Tavily.Timeout, err = durationEnv(getenv, EnvSearchTimeout, 15*time.Second); err != nil {
		return c, err
	}
	retries, err := intEnv(getenv, EnvSearchRetries, 2, 0, 5)
	if err != nil {
		return c, err
	}
	c.Tavily.MaxRetries = retries
	if retries == 0 {
		c.Tavily.MaxRetries = -1 // the client's "no retries"
	}
	return c, nil
}

// unconfiguredSearch answers every search with the setting that is missing.
type unconfiguredSearch struct{}

func (unconfiguredSearch) Search(context.Context, search.Request) (search.Response, error) {
	return search.Response{}, fmt.Errorf("%w: %s is not set", search.ErrUnavailable, EnvTavilyKey)
}

func newResearch(c ResearchConfig, model llm.Model, b Backends) (*research.Flow, error) {
	var s search.Searcher = unconfiguredSearch{}
	if c.Tavily.APIKey != "" {
		tc := c.Tavily
		tc.HTTPClient = b.HTTPClient
		t, err := search.NewTavily(tc)
		if err != nil {
			return nil, fmt.Errorf("wire: %s: %w", EnvTavilyKey, err)
		}
		s = t
	}
	return research.New(model, s, b.Research, b.Log, research.Options{Logger: b.Logger, RequestLimit: c.RequestLimit}), nil
}

// ResearchStep is the research function's handler: the step in its input
// picks Milestones or Finish.
func (a *App) ResearchStep() Task {
	milestones, finish := Typed(a.Research.Milestones), Typed(a.Research.Finish)
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var head struct {
			Step string `json:"step"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("wire: decode step input: %w", err)
		}
		switch head.Step {
		case workflow.ResearchStepMilestones:
			return milestones(ctx, raw)
		case workflow.ResearchStepFinish:
			return finish(ctx, raw)
		}
		return nil, errors.New("wire: research step must be milestones or finish, not " + head.Step)
	}
}

// ResearchTasks are the Research workflow's tasks, keyed by the
// DefinitionSubstitutions names of infra/statemachines/research.asl.json.
func (a *App) ResearchTasks() map[string]Task {
	return map[string]Task{"ResearchFunctionArn": a.ResearchStep()}
}

// ResearchRoutes returns the research flow's HTTP routes over starter.
func (a *App) ResearchRoutes(st edge.ResearchStarter) *edge.Research {
	return edge.NewResearch(researchEdge{f: a.Research, now: time.Now}, a.Relay(), st, a.Authenticator(), edge.ResearchOptions{})
}

// researchEdge adapts research.Flow and its session transitions to the
// edge, with the flow's errors turned into the statuses the edge answers.
type researchEdge struct {
	f   *research.Flow
	now func() time.Time
}

func (r researchEdge) Propose(ctx context.Context, teacherID, topic, language string) (string, any, error) {
	s, err := r.f.Propose(llm.WithPayer(ctx, teacherID), teacherID, topic, language) // issue 26: the proposal's model call
	if err != nil {
		return "", nil, err
	}
	return s.ID, s.Proposal, nil
}

func (r researchEdge) Attach(ctx context.Context, teacherID, id, holder string, lease time.Duration) (bool, error) {
	st := r.f.Store()
	s, err := st.GetResearch(ctx, id)
	if errors.Is(err, research.ErrNotFound) || (err == nil && s.TeacherID != teacherID) {
		// Another teacher's session is not found: ids cannot be probed.
		return false, apperr.New(apperr.EntityNotFound, "research session %q not found", id)
	}
	if err != nil {
		return false, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	if s.Status == research.Created {
		return false, apperr.New(apperr.Conflict, "research session %q has no proposal yet", id)
	}
	now := r.now()
	_, started, err := research.Attach(ctx, st, id, holder, now, now.Add(lease))
	if errors.Is(err, research.ErrConflict) {
		return false, apperr.New(apperr.Conflict, "research session %q is already being streamed", id)
	}
	if err != nil {
		return false, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	return started, nil
}

func (r researchEdge) Renew(ctx context.Context, id, holder string, lease time.Duration) error {
	now := r.now()
	return research.Renew(ctx, r.f.Store(), id, holder, now, now.Add(lease))
}

func (r researchEdge) Detach(ctx context.Context, id, holder string) error {
	return research.Detach(ctx, r.f.Store(), id, holder, r.now())
}

func (r researchEdge) Abandon(ctx context.Context, id string, timedOut bool, why string) {
	code := research.CodeInternal
	if timedOut {
		code = research.CodeTimeout
	}
	if err := r.f.Abandon(ctx, id, code, why); err != nil {
		r.f.Logger().ErrorContext(ctx, "could not abandon a research run", "sessionId", id, "err", err)
	}
}

func (researchEdge) Stream(id string) string { return research.Stream(id) }
