package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/search"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Model is the chat-completions client (llm.Client).
type Model interface {
	Complete(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Options configure a Flow. Zero values take the defaults in brackets.
type Options struct {
	Logger *slog.Logger
	// RequestLimit bounds the model requests of one milestone agent run
	// (seed 001 §1: request_limit) [15].
	RequestLimit int
	// OutputRetries is how many times a final output that fails the checks
	// is sent back with the reasons (seed 001 §1: retries) [2].
	OutputRetries int
	// SearchResults and SearchDepth shape each search [5, "basic"].
	SearchResults int
	SearchDepth   string
	// SearchTimeout bounds one search, retries included [30s].
	SearchTimeout time.Duration
	// TTL is how long a session is kept [7 days].
	TTL time.Duration
	// Tier is the model tier of both calls [standard].
	Tier  llm.Tier
	Now   func() time.Time
	NewID func() string
}

// Flow is the research flow's steps: Propose (behind POST /api/research),
// Milestones and Finish (the Research workflow's states), and Abandon (the
// edge's way to close a run that went silent).
type Flow struct {
	model  Model
	search search.Searcher
	store  Store
	log    eventlog.Appender
	o      Options
}

// New returns a Flow.
func New(model Model, s search.Searcher, store Store, log eventlog.Appender, o Options) *Flow {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.RequestLimit <= 0 {
		o.RequestLimit = 15
	}
	if o.OutputRetries < 0 {
		o.OutputRetries = 0
	} else if o.OutputRetries == 0 {
		o.OutputRetries = 2
	}
	if o.SearchResults <= 0 {
		o.SearchResults = 5
	}
	if o.SearchDepth == "" {
		o.SearchDepth = "basic"
	}
	if o.SearchTimeout <= 0 {
		o.SearchTimeout = 30 * time.Second
	}
	if o.TTL <= 0 {
		o.TTL = 7 * 24 * time.Hour
	}
	if o.Tier == "" {
		o.Tier = llm.TierStandard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = func() string { return "research-" + uuid.Must(uuid.NewV7()).String() }
	}
	return &Flow{model: model, search: s, store: store, log: log, o: o}
}

// Store returns the session store.
func (f *Flow) Store() Store { return f.store }

// Logger returns the flow's logger.
func (f *Flow) Logger() *slog.Logger { return f.o.Logger }

// Error codes of the error event.
const (
	CodeInvalidOutput = "invalid_output"
	CodeRequestLimit  = "request_limit_exceeded"
	CodeNoMilestones  = "no_milestones"
	CodeAIError       = "ai_error"
	CodeTimeout       = "timeout"
	CodeInterrupted   = "interrupted"
	CodeInternal      = "internal_error"
)

// MaxTopicRunes bounds a topic.
const MaxTopicRunes = 500

// Propose creates a session for the topic and asks the model for its
// proposal: Created → ProposalReady. It starts no background work. A
// proposal the model cannot make fails the session and is an AI_ERROR.
func (f *Flow) Propose(ctx context.Context, teacherID, topic, language string) (Session, error) {
	topic = strings.TrimSpace(topic)
	if topic == "" {
		return Session{}, apperr.New(apperr.ValidationError, "topic is required")
	}
	if n := utf8.RuneCountInString(topic); n > MaxTopicRunes {
		return Session{}, apperr.New(apperr.ValidationError, "topic is %d characters; at most %d", n, MaxTopicRunes).
			WithStatus(413)
	}
	now := f.o.Now()
	s := Session{ID: f.o.NewID(), TeacherID: teacherID, Topic: topic, Language: language, Status: Created,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(f.o.TTL)}
	if err := f.store.CreateResearch(ctx, s); err != nil {
		return Session{}, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	p, err := f.proposal(ctx, topic, language)
	if err != nil {
		f.o.Logger.WarnContext(ctx, "research proposal failed", "sessionId", s.ID, "err", err)
		_, _ = End(context.WithoutCancel(ctx), f.store, s.ID, Failed,
			&Failure{Code: CodeAIError, Message: lang(s).Text(i18n.ResearchAIUnavailable)}, f.o.Now())
		return Session{}, apperr.Wrap(err, apperr.AIError, "the research proposal could not be made; please try again")
	}
	s, err = ReadyProposal(ctx, f.store, s.ID, p, f.o.Now())
	if err != nil {
		return Session{}, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	f.o.Logger.InfoContext(ctx, "research proposed", "sessionId", s.ID, "teacherId", teacherID, "language", p.Language)
	return s, nil
}

// proposal asks the model, once more with the problem when the first answer
// does not parse.
func (f *Flow) proposal(ctx context.Context, topic, language string) (Proposal, error) {
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: prompts.Proposal},
		{Role: llm.RoleUser, Content: topic},
	}
	if language != "" {
		msgs[0].Content += prompts.LanguageLine + language + "\n"
	}
	var last error
	for range 2 {
		resp, err := f.model.Complete(ctx, llm.Request{Tier: f.o.Tier, Messages: msgs, JSON: true})
		if err != nil {
			return Proposal{}, err
		}
		p, err := parseProposal(resp.Message.Content, language)
		if err == nil {
			return p, nil
		}
		last = err
		msgs = append(msgs, resp.Message, llm.Message{Role: llm.RoleUser,
			Content: "That proposal cannot be used: " + err.Error() + ". Answer again with the JSON object only."})
	}
	return Proposal{}, last
}

func parseProposal(content, language string) (Proposal, error) {
	var p Proposal
	if err := json.Unmarshal([]byte(llm.StripFence(strings.TrimSpace(content))), &p); err != nil {
		return p, fmt.Errorf("not a JSON object: %w", err)
	}
	p.Topic, p.TimeRange = strings.TrimSpace(p.Topic), strings.TrimSpace(p.TimeRange)
	switch {
	case p.Topic == "":
		return p, errors.New("topic is empty")
	case p.TimeRange == "":
		return p, errors.New("time_range is empty")
	case len(p.FocusPoints) == 0:
		return p, errors.New("focus_points is empty")
	case len(p.SearchPlan) == 0:
		return p, errors.New("search_plan is empty")
	}
	p.ExpectedMilestones = min(max(p.ExpectedMilestones, 3), maxMilestones)
	p.FocusPoints, p.SearchPlan = p.FocusPoints[:min(len(p.FocusPoints), 8)], p.SearchPlan[:min(len(p.SearchPlan), 8)]
	if p.Language == "" {
		p.Language = language
	}
	return p, nil
}

// lang is the teacher's language for the flow's own messages: the
// request's tag, else the proposal's, else the topic's words (i18n.Of).
func lang(s Session) i18n.Lang {
	tag := s.Language
	if tag == "" && s.Proposal != nil {
		tag = s.Proposal.Language
	}
	return i18n.Of(tag, s.Topic)
}

// emitter appends research events to a session's stream.
func (f *Flow) emitter(id string) eventlog.Emitter[protocol.ResearchEvent] {
	return eventlog.Emitter[protocol.ResearchEvent]{Log: f.log, Stream: Stream(id),
		Encode: protocol.MarshalResearchEvent, Name: protocol.ResearchEventName}
}

// Milestones is the Research workflow's Milestones state: one milestone
// agent run (seed 001 §1, §5). Its progress goes to the session's stream;
// an accepted skeleton is kept in the session for Finish. A run that cannot
// produce one returns a failed result with the reason (not an error: the
// workflow goes on to Finish either way).
func (f *Flow) Milestones(ctx context.Context, in workflow.ResearchStepInput) (workflow.ResearchResult, error) {
	s, err := f.store.GetResearch(ctx, in.Research.SessionID)
	if err != nil {
		return workflow.ResearchResult{}, fmt.Errorf("research: milestones: %w", err)
	}
	if s.Status != Executing {
		return workflow.ResearchResult{Status: workflow.ResearchFailed, Code: CodeInterrupted,
			Message: "the session is " + string(s.Status)}, nil
	}
	r := &run{f: f, s: s, l: lang(s), em: f.emitter(s.ID), returned: map[string]bool{}}
	return r.do(ctx)
}

// run is one milestone agent run.
type run struct {
	f        *Flow
	s        Session
	l        i18n.Lang
	em       eventlog.Emitter[protocol.ResearchEvent]
	returned map[string]bool
	percent  int
	searches int
	refusals int
}

func (r *run) progress(ctx context.Context, phase, msg string, want int) error {
	r.percent = min(max(r.percent+1, want), 95) // rises, and 100 is complete's
	return r.em.Emit(ctx, protocol.ResearchProgress{Phase: phase, Message: msg, Percent: r.percent})
}

func failed(code, msg string) workflow.ResearchResult {
	return workflow.ResearchResult{Status: workflow.ResearchFailed, Code: code, Message: msg}
}

func (r *run) do(ctx context.Context) (workflow.ResearchResult, error) {
	if err := r.progress(ctx, protocol.ResearchPhaseSkeleton, r.l.Text(i18n.ResearchBuilding), 5); err != nil {
		return workflow.ResearchResult{}, err
	}
	proposal, _ := json.Marshal(r.s.Proposal)
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: prompts.Milestones},
		{Role: llm.RoleUser, Content: "Topic: " + r.s.Topic + "\nConfirmed proposal: " + string(proposal)},
	}
	// Step 1 of the prompt: the agent drafts from its own knowledge first.
	if err := r.progress(ctx, protocol.ResearchPhaseDraft, r.l.Text(i18n.ResearchDrafting), 8); err != nil {
		return workflow.ResearchResult{}, err
	}
	req := llm.Request{Tier: r.f.o.Tier, Tools: agentTools(), ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceRequired}}
	for n := 1; n <= r.f.o.RequestLimit; n++ {
		req.Messages = msgs
		resp, err := r.f.model.Complete(ctx, req)
		if err != nil {
			// Named AI_ERROR for the workflow's Catch (wire.Typed).
			return workflow.ResearchResult{}, apperr.Wrap(err, apperr.AIError, "research: model request %d failed", n)
		}
		msgs = append(msgs, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			if done := r.refuse(); done != nil {
				return *done, nil
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: "Call web_search or final_result; do not answer in text."})
			continue
		}
		for _, tc := range resp.Message.ToolCalls {
			reply, done, err := r.call(ctx, tc)
			if err != nil || done != nil {
				return deref(done), err
			}
			msgs = append(msgs, reply)
		}
	}
	return failed(CodeRequestLimit, r.l.Text(i18n.ResearchRequestLimit, r.f.o.RequestLimit)), nil
}

func deref(r *workflow.ResearchResult) workflow.ResearchResult {
	if r == nil {
		return workflow.ResearchResult{}
	}
	return *r
}

// refuse counts an output sent back; past OutputRetries the run ends.
func (r *run) refuse() *workflow.ResearchResult {
	r.refusals++
	if r.refusals > r.f.o.OutputRetries {
		res := failed(CodeInvalidOutput, r.l.Text(i18n.ResearchNoStructure))
		return &res
	}
	return nil
}

// call runs one tool call: its reply to the model, or the run's result
// when the call ends the run.
func (r *run) call(ctx context.Context, tc llm.ToolCall) (llm.Message, *workflow.ResearchResult, error) {
	switch tc.Function.Name {
	case prompts.WebSearchTool:
		msg, err := r.webSearch(ctx, tc)
		return msg, nil, err
	case prompts.FinalResultTool:
		return r.final(ctx, tc)
	}
	return toolMessage(tc.ID, "unknown tool "+tc.Function.Name+"; use web_search or final_result"), nil, nil
}

// final checks the agent's output (Check): accepted, it is kept for
// Finish and ends the run; refused, the reasons go back to the agent, at
// most OutputRetries times.
func (r *run) final(ctx context.Context, tc llm.ToolCall) (llm.Message, *workflow.ResearchResult, error) {
	if err := r.progress(ctx, protocol.ResearchPhaseCheck, r.l.Text(i18n.ResearchChecking), 80+5*r.refusals); err != nil {
		return llm.Message{}, nil, err
	}
	nodes, problems, err := Check([]byte(tc.Function.Arguments), r.returned)
	if errors.Is(err, errNoMilestones) {
		res := failed(CodeNoMilestones, r.l.Text(i18n.ResearchNoMilestones))
		return llm.Message{}, &res, nil
	}
	if len(problems) == 0 {
		if err := SaveSkeleton(ctx, r.f.store, r.s.ID, nodes, r.f.o.Now()); err != nil {
			return llm.Message{}, nil, fmt.Errorf("research: keep the skeleton: %w", err)
		}
		return llm.Message{}, &workflow.ResearchResult{Status: workflow.ResearchOK, Nodes: len(nodes)}, nil
	}
	r.f.o.Logger.InfoContext(ctx, "milestones refused", "sessionId", r.s.ID, "attempt", r.refusals+1, "problems", problems)
	if r.refuse() != nil {
		res := failed(CodeInvalidOutput, r.l.Text(i18n.ResearchRejected, problems[0]))
		return llm.Message{}, &res, nil
	}
	if err := r.progress(ctx, protocol.ResearchPhaseDraft, r.l.Text(i18n.ResearchCorrecting), 82+5*r.refusals); err != nil {
		return llm.Message{}, nil, err
	}
	return toolMessage(tc.ID, prompts.MilestoneRefusedPrefix+"\n- "+strings.Join(problems, "\n- ")), nil, nil
}

func toolMessage(id, content string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: content}
}

// webSearch runs one web_search call and reports it; a failed search is
// the tool's error status, told to the model, not the run's failure.
func (r *run) webSearch(ctx context.Context, tc llm.ToolCall) (llm.Message, error) {
	var args struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil || strings.TrimSpace(args.Query) == "" {
		return toolMessage(tc.ID, `status: error. The arguments must be {"query": "..."}.`), nil
	}
	r.searches++
	want := min(10+10*r.searches, 70)
	if err := r.progress(ctx, protocol.ResearchPhaseSearch, r.l.Text(i18n.ResearchSearching, args.Query), want); err != nil {
		return llm.Message{}, err
	}
	sctx, cancel := context.WithTimeout(ctx, r.f.o.SearchTimeout)
	resp, err := r.f.search.Search(sctx, search.Request{Query: args.Query, SearchDepth: r.f.o.SearchDepth,
		MaxResults: r.f.o.SearchResults, IncludeAnswer: true})
	cancel()
	var status, content, msg string
	switch {
	case err != nil:
		status, content = string(protocol.ToolError), "status: error. The search failed: "+err.Error()
		msg = r.l.Text(i18n.ResearchSearchFailed, args.Query)
		r.f.o.Logger.WarnContext(ctx, "web search failed", "sessionId", r.s.ID, "query", args.Query, "err", err)
	case len(resp.Results) == 0:
		status, content = string(protocol.ToolEmpty), "status: empty. No results for this query."
		msg = r.l.Text(i18n.ResearchNoResults, args.Query)
	default:
		status, content = string(protocol.ToolSuccess), "status: success.\n"+search.Format(resp)
		msg = r.l.Text(i18n.ResearchFound, len(resp.Results), args.Query)
		for _, res := range resp.Results {
			r.returned[strings.TrimSpace(res.URL)] = true
		}
	}
	r.f.o.Logger.InfoContext(ctx, "web search", "sessionId", r.s.ID, "query", args.Query, "status", status, "results", len(resp.Results))
	if err := r.progress(ctx, protocol.ResearchPhaseSearch, msg, want+4); err != nil {
		return llm.Message{}, err
	}
	return toolMessage(tc.ID, content), nil
}

// agentTools are web_search and final_result, with schemas from Go types.
// The run reads their arguments itself (call), so they are signatures.
func agentTools() []llm.Tool {
	type searchArgs struct {
		Query string `json:"query" description:"what to search the web for"`
	}
	return []llm.Tool{
		tools.Signature[searchArgs](prompts.WebSearchTool, "Search the web. Returns a summary and results as [title](url) with a snippet."),
		tools.Signature[FinalOutput](prompts.FinalResultTool, "Submit the final milestones of the timeline skeleton."),
	}
}

// Finish is the Research workflow's Finish state (also its Catch target):
// it ends the session, Completed with the skeleton and complete events, or
// Failed with an error event, closing the stream. When the session has
// already ended (the edge abandoned a silent run), it does nothing.
func (f *Flow) Finish(ctx context.Context, in workflow.ResearchStepInput) (workflow.ResearchResult, error) {
	id := in.Research.SessionID
	s, err := f.store.GetResearch(ctx, id)
	if err != nil {
		return workflow.ResearchResult{}, fmt.Errorf("research: finish: %w", err)
	}
	l := lang(s)
	res := workflow.ResearchResult{Status: workflow.ResearchFailed, Code: CodeInternal, Message: l.Text(i18n.ResearchFailed)}
	switch {
	case in.Error != nil && in.Error.TimedOut():
		res.Code, res.Message = CodeTimeout, l.Text(i18n.ResearchTimedOut)
	case in.Error != nil && in.Error.Code() == apperr.AIError:
		res.Code, res.Message = CodeAIError, l.Text(i18n.ResearchAIUnavailable)
	case in.Error != nil:
		f.o.Logger.WarnContext(ctx, "research run failed", "sessionId", id, "error", in.Error.Error, "cause", in.Error.Cause)
	case in.Result != nil:
		res = *in.Result
	}
	if res.Status == workflow.ResearchOK && len(s.Skeleton) == 0 {
		res = workflow.ResearchResult{Status: workflow.ResearchFailed, Code: CodeInternal, Message: res.Message}
	}
	now := f.o.Now()
	var events []protocol.ResearchEvent
	if res.Status == workflow.ResearchOK {
		s, err = End(ctx, f.store, id, Completed, nil, now)
		secs := math.Round(now.Sub(s.StartedAt).Seconds()*100) / 100
		events = []protocol.ResearchEvent{protocol.ResearchSkeleton{Nodes: s.Skeleton},
			protocol.ResearchComplete{TotalNodes: len(s.Skeleton), DurationSeconds: secs}}
	} else {
		s, err = End(ctx, f.store, id, Failed, &Failure{Code: res.Code, Message: res.Message}, now)
		events = []protocol.ResearchEvent{protocol.ResearchError{Error: res.Code, Message: res.Message}}
	}
	if errors.Is(err, ErrConflict) {
		return res, nil // already ended: its stream is closed
	}
	if err != nil {
		return workflow.ResearchResult{}, fmt.Errorf("research: finish: %w", err)
	}
	if err := f.emitter(id).Close(ctx, events...); err != nil && !errors.Is(err, eventlog.ErrClosed) {
		return workflow.ResearchResult{}, err
	}
	f.o.Logger.InfoContext(ctx, "research finished", "sessionId", id, "status", s.Status, "nodes", len(s.Skeleton), "code", res.Code)
	return res, nil
}

// Abandon fails a run that has not ended, closing its stream with an error
// event: for a run that went silent past the edge's wait bound, whose
// workflow could not start, or that a restart interrupted. Exactly one of
// Abandon and Finish ends a session.
func (f *Flow) Abandon(ctx context.Context, id, code, why string) error {
	ctx = context.WithoutCancel(ctx)
	s, err := f.store.GetResearch(ctx, id)
	if err != nil {
		return err
	}
	msg := lang(s).Text(i18n.ResearchInterrupted)
	if code == CodeTimeout {
		msg = lang(s).Text(i18n.ResearchTimedOut)
	}
	if _, err := End(ctx, f.store, id, Failed, &Failure{Code: code, Message: msg}, f.o.Now()); err != nil {
		if errors.Is(err, ErrConflict) {
			return nil
		}
		return err
	}
	f.o.Logger.WarnContext(ctx, "research abandoned", "sessionId", id, "code", code, "why", why)
	if err := f.emitter(id).Close(ctx, protocol.ResearchError{Error: code, Message: msg}); err != nil && !errors.Is(err, eventlog.ErrClosed) {
		return err
	}
	return nil
}

// Recover abandons every session a restart left Executing (stores that can
// list them); it returns how many.
func (f *Flow) Recover(ctx context.Context) (int, error) {
	l, ok := f.store.(Lister)
	if !ok {
		return 0, nil
	}
	ss, err := l.ListResearch(ctx, Executing)
	if err != nil {
		return 0, err
	}
	for _, s := range ss {
		if err := f.Abandon(ctx, s.ID, CodeInterrupted, "the process restarted during the run"); err != nil {
			return 0, err
		}
		// Its stream's holder died with the process too.
		if err := Detach(ctx, f.store, s.ID, s.Attached, f.o.Now()); err != nil {
			return 0, err
		}
	}
	return len(ss), nil
}
