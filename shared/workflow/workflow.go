// Package workflow holds the inputs and outputs of the workflow steps: the JSON
// the state machines in infra/statemachines pass between states. Payloads stay
// small (ids, routes, verdicts); histories and results live in the store.
package workflow

import (
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/protocol"
)

// Turn identifies a conversation turn and what the user asked. It is the
// "turn" field of the conversation workflow's state.
type Turn struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	TeacherID string `json:"teacherId"`
	MessageID string `json:"messageId"`
	Message   string `json:"message"`
	Language  string `json:"language,omitempty"`
	// Mode is the turn's effective chat mode of seed 003 (the request's, else
	// the server's CHAT_MODE), decided once at the edge.
	Mode    ChatMode `json:"mode,omitempty"`
	TraceID string   `json:"traceId,omitempty"`
	// Context is the clarify selection sent by the client.
	Context map[string]any `json:"context,omitempty"`
	// Followup is true when the teacher asks about a built page (seed 004
	// §1.3.1 follow-up mode): the page's blueprint and context are the
	// turn's PageRecord, kept under PageKey (claim check: a blueprint can
	// be larger than a state may carry).
	Followup bool `json:"followup,omitempty"`
	// LeaseUntil is how long the edge's lease on the turn (session.LeaseTurn)
	// lasts from its start: the steps renew it only when less than 2/3 of
	// session.LeaseTTL is left (session.KeepLease), so that the steps of a
	// short turn write no lease.
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
}

// PageRecord is the page a follow-up turn is about: the blueprint it was
// built from (validated at the edge) and the client's pageContext.
type PageRecord struct {
	Blueprint   json.RawMessage `json:"blueprint,omitempty"`
	PageContext *PageContext    `json:"pageContext,omitempty"`
}

// PageContext is the client's summary of the page on screen (seed 004
// §1.3.1 pageContext).
type PageContext struct {
	Meta struct {
		PageTitle string `json:"pageTitle"`
	} `json:"meta"`
	DataSummary string `json:"dataSummary"`
}

// PageKey is the record key of a follow-up turn's PageRecord.
func PageKey(turnID string) string { return "turn/" + turnID + "/page" }

// ChatMode is a chat mode of seed 003: how the agent treats tools and
// off-topic requests.
type ChatMode string

// The chat modes.
const (
	// ModeNatural: the teaching assistant first; tools recommended; an
	// off-topic request is answered briefly and steered back.
	ModeNatural ChatMode = "natural"
	// ModeFree: free conversation; tools when needed, never forced.
	ModeFree ChatMode = "free"
	// ModeStrict: answers about the teacher's data and artifacts rest on a
	// tool result of the turn; guide_user always available.
	ModeStrict ChatMode = "strict"
)

// ParseChatMode reads a mode name; "" is not a mode.
func ParseChatMode(s string) (ChatMode, bool) {
	switch m := ChatMode(s); m {
	case ModeNatural, ModeFree, ModeStrict:
		return m, true
	}
	return "", false
}

// Or returns m, or def when m is not a mode (a turn started before modes
// were carried).
func (m ChatMode) Or(def ChatMode) ChatMode {
	if _, ok := ParseChatMode(string(m)); ok {
		return m
	}
	return def
}

// ConversationState is the conversation workflow's execution input: the turn,
// the first attempt, and no agent round yet.
type ConversationState struct {
	Turn    Turn        `json:"turn"`
	Attempt int         `json:"attempt"`
	Agent   AgentOutput `json:"agent"`
	// Retry is null until a validation asks for the one retry; it is present
	// so that the AgentTurn state's "$.retry" path always resolves.
	Retry *RetryReason `json:"retry"`
}

// NewConversationState is the execution input for a new turn.
func NewConversationState(t Turn) ConversationState {
	return ConversationState{Turn: t, Attempt: 1, Agent: AgentOutput{ToolCalls: []ToolCallRef{}}}
}

// Paths the router sends a turn down (seed 000 §7.3 step 2).
const (
	PathChat    = "chat"
	PathAgent   = "agent"
	PathClarify = "clarify"
	PathBuild   = "build"
)

// Expected modes of RouterResult.
const (
	ExpectAnswer   = "answer"
	ExpectArtifact = "artifact"
	ExpectClarify  = "clarify"
)

// Intent is the router's classification of a message (seed 000 §7.3 step 2).
type Intent string

// The intents the router may return.
const (
	IntentSmalltalk Intent = "chat_smalltalk"
	IntentQA        Intent = "chat_qa"
	IntentData      Intent = "data_query"
	IntentQuiz      Intent = "quiz_generate"
	IntentContent   Intent = "content_create"
	IntentBuild     Intent = "build_workflow"
	IntentClarify   Intent = "clarify"
	// The follow-up intents of seed 004 §1.3.1, for a turn about a built
	// page: refine changes blocks of the page (a PatchPlan), rebuild changes
	// its structure (a new Blueprint). A question about the page is chat_qa.
	IntentRefine  Intent = "refine"
	IntentRebuild Intent = "rebuild"
)

// RouterResult is the router model's classification of a message (seed 000 §7.2).
// The model answers it as a route line and a JSON object
// (FormatRouterAnswer); the fields that govern the route come first.
type RouterResult struct {
	Intent         Intent   `json:"intent"`
	ModelTier      string   `json:"modelTier"`
	ClarifyNeeded  bool     `json:"clarifyNeeded"`
	SafetyFlags    []string `json:"safetyFlags"`
	ExpectedMode   string   `json:"expectedMode"`
	CandidateTools []string `json:"candidateTools"`
	Confidence     float64  `json:"confidence"`
	Strategy       string   `json:"strategy"`
	// Clarify is the question to ask when ClarifyNeeded.
	Clarify *Clarify `json:"clarify,omitempty"`
}

// Clarify is a question asked back to the teacher (ClarifyPayload of the seed).
type Clarify struct {
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
	Hint     string   `json:"hint,omitempty"`
	// Choices (issue 30) are the options with the value a client sends
	// back: the entity's id when an option names one (seed 004 S4-12).
	Choices []protocol.Choice `json:"choices,omitempty" description:"when the options name classes or students: each option as {label, value: its id from a tool result}"`
}

// RouteInput is the Route step's input.
type RouteInput struct {
	Turn Turn `json:"turn"`
}

// RouteOutput is the Route step's output, at $.route.
type RouteOutput struct {
	Path   string       `json:"path"`
	Result RouterResult `json:"result"`
	// Tools is the agent path's tool list (final_result aside), decided at
	// the intent step by the chat mode (seed 003 IntentRecognition): nil
	// from an execution started before modes, when the router's candidates
	// decide.
	Tools []string `json:"tools,omitempty"`
	// issue 28: Notices are shown before the answer (a paused capability,
	// a safety flag); a Decline ("harmful", "paused") is answered by the
	// AgentTurn step without the model or a tool.
	Notices []protocol.Notice `json:"notices,omitempty"`
	Decline string            `json:"decline,omitempty"`
	// First is the agent's first round when the Route step ran it (issue
	// 29: the router and the first round share one step, so that the
	// round can start before the route is decided); AgentTurn takes it
	// instead of calling the model. Nil on the clarify and build paths.
	First *AgentOutput `json:"first,omitempty"`
}

// Declines: why a turn is answered without the model.
const (
	DeclineHarmful = "harmful"
	DeclinePaused  = "paused"
)

// AgentInput is the AgentTurn step's input.
type AgentInput struct {
	Turn    Turn         `json:"turn"`
	Route   RouteOutput  `json:"route"`
	Attempt int          `json:"attempt"`
	Prev    AgentOutput  `json:"prev"`
	Retry   *RetryReason `json:"retry,omitempty"`
}

// RetryReason tells a retried attempt why the previous one was refused.
type RetryReason struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

// Next values of AgentOutput.
const (
	NextTools = "tools" // run ToolCalls, then another round
	NextFinal = "final" // the agent called final_result: validate it
	NextReply = "reply" // the chat path answered in plain text: finish
)

// AgentOutput is the AgentTurn step's output, at $.agent.
type AgentOutput struct {
	Next      string        `json:"next"`
	Round     int           `json:"round"`
	ToolCalls []ToolCallRef `json:"toolCalls"`
}

// ToolCallRef names one tool call of an agent round; the arguments are in the
// store under the turn's history.
type ToolCallRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Announced (issue 29): the round showed the call's data-tool-progress
	// (running) as soon as its name arrived; the tool step does not repeat it.
	Announced bool `json:"announced,omitempty"`
	// File (issue 25): the tool delivers a file (tools.Tool.DeliversFile),
	// so the Tools map runs the call on the file tool function, sized for
	// rendering; every other call runs on the small tool function.
	File bool `json:"file,omitempty"`
}

// ToolInput is one iteration of the Tools map.
type ToolInput struct {
	Turn    Turn        `json:"turn"`
	Attempt int         `json:"attempt"`
	Call    ToolCallRef `json:"call"`
}

// ToolOutput is a tool step's output (discarded by the map; the result is stored).
type ToolOutput struct {
	Status string `json:"status"`
}

// ValidateInput is the Validate step's input.
type ValidateInput struct {
	Turn    Turn        `json:"turn"`
	Route   RouteOutput `json:"route"`
	Attempt int         `json:"attempt"`
}

// Verdicts of ValidateOutput.
const (
	VerdictOK     = "ok"      // accept the FinalResult
	VerdictRetry  = "retry"   // run the agent once more (hard or soft rule)
	VerdictAccept = "accept"  // soft rule failed again: accept with a warning
	VerdictGiveUp = "give-up" // hard rule failed again: fall back to an error
)

// ValidateOutput is the Validate step's output, at $.validation.
type ValidateOutput struct {
	Verdict string `json:"verdict"`
	// Rule is "hard" or "soft" when a rule failed.
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// ErrorInfo is what a Catch puts at $.error.
type ErrorInfo struct {
	Error string `json:"Error"`
	Cause string `json:"Cause"`
}

// Code is the seed 004 §3.2 code of a caught error, read from its name: a
// step that fails with an *apperr.Error is named by its code (wire.Typed
// does that for Lambda and for the local interpreter alike), so a Catch can
// match "DATA_ERROR". Any other name is INTERNAL_ERROR.
func (e ErrorInfo) Code() apperr.Code {
	if c, ok := apperr.Parse(e.Error); ok {
		return c
	}
	return apperr.Internal
}

// Message is the caught error's message: Step Functions gives the Cause
// of a Lambda function's error as the function's error JSON
// ({"errorMessage", "errorType", "stackTrace"}), the local interpreter and
// the emulators as the message itself; a seed code prefix ("CODE: ") is
// dropped.
func (e ErrorInfo) Message() string {
	msg := e.Cause
	var lambda struct {
		ErrorMessage *string `json:"errorMessage"`
	}
	if json.Unmarshal([]byte(msg), &lambda) == nil && lambda.ErrorMessage != nil {
		msg = *lambda.ErrorMessage
	}
	if c, rest, ok := strings.Cut(msg, ": "); ok {
		if _, known := apperr.Parse(c); known {
			msg = rest
		}
	}
	return msg
}

// TimedOut reports whether the error is a step's or an execution's timeout
// (Step Functions' States.Timeout, a Lambda function's Sandbox.Timedout).
func (e ErrorInfo) TimedOut() bool {
	return e.Error == "States.Timeout" || e.Error == "Sandbox.Timedout"
}

// FinishInput is the Finish step's input: the whole state, any part of which
// may be missing when an earlier state failed.
type FinishInput struct {
	Turn       Turn            `json:"turn"`
	Attempt    int             `json:"attempt"`
	Route      *RouteOutput    `json:"route,omitempty"`
	Agent      *AgentOutput    `json:"agent,omitempty"`
	Validation *ValidateOutput `json:"validation,omitempty"`
	// Plan is the PlanBuild step's output on the build path.
	Plan  *PlanOutput `json:"plan,omitempty"`
	Error *ErrorInfo  `json:"error,omitempty"`
}

// FinishOutput is the Finish step's output.
type FinishOutput struct {
	Status string `json:"status"`
}

// TurnStream is the event-log stream of a conversation turn.
func TurnStream(turnID string) string { return "turn/" + turnID }

// LogAttrs are the ids every log line of a step shows.
func (t Turn) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.String("sessionId", t.SessionID), slog.String("turnId", t.TurnID), slog.String("traceId", t.TraceID)}
}

// LogAttrs implements the steps' logging contract.
func (in RouteInput) LogAttrs() []slog.Attr { return in.Turn.LogAttrs() }

// LogAttrs implements the steps' logging contract.
func (in AgentInput) LogAttrs() []slog.Attr { return in.Turn.LogAttrs() }

// LogAttrs implements the steps' logging contract.
func (in ToolInput) LogAttrs() []slog.Attr { return in.Turn.LogAttrs() }

// LogAttrs implements the steps' logging contract.
func (in ValidateInput) LogAttrs() []slog.Attr { return in.Turn.LogAttrs() }

// LogAttrs implements the steps' logging contract.
func (in FinishInput) LogAttrs() []slog.Attr { return in.Turn.LogAttrs() }

// The Build runtime (seed 004 §1): the conversation's build path plans a
// blueprint (the plan phase); the Build workflow runs it (data, compute,
// compose, finish). One function, buildstep, serves every phase; the phase
// is in its input.
const (
	PhasePlan    = "plan"
	PhaseData    = "data"
	PhaseCompute = "compute"
	PhaseCompose = "compose"
	PhaseFinish  = "finish"
)

// PlanInput is the plan phase's input: the turn and its route.
type PlanInput struct {
	Phase string      `json:"phase"`
	Turn  Turn        `json:"turn"`
	Route RouteOutput `json:"route"`
}

// Statuses of PlanOutput.
const (
	PlanPlanned = "planned" // the blueprint is stored under PlanKey
	PlanClarify = "clarify" // an entity is unknown or ambiguous: ask
	PlanFailed  = "failed"  // no valid blueprint (Code says why)
)

// Actions of PlanOutput.
const (
	PlanActionBuild   = "build"
	PlanActionRefine  = "refine"
	PlanActionRebuild = "rebuild"
)

// PlanOutput is the plan phase's output, at $.plan.
type PlanOutput struct {
	Status string `json:"status"`
	// Action is what was planned: build (a new page), rebuild (a new
	// blueprint for the page on screen) or refine (a patch plan for it).
	Action  string   `json:"action,omitempty"`
	Code    string   `json:"code,omitempty"`
	Message string   `json:"message,omitempty"`
	Clarify *Clarify `json:"clarify,omitempty"`
}

// PlanRecord is a turn's planned blueprint, kept in the session's records
// under PlanKey for Finish and the JSON API.
type PlanRecord struct {
	Blueprint        json.RawMessage `json:"blueprint"`
	ResolvedEntities json.RawMessage `json:"resolvedEntities"`
	// PatchPlan is a refine's change to the page (Blueprint is then the
	// page's own blueprint).
	PatchPlan json.RawMessage `json:"patchPlan,omitempty"`
	// Notice is the text the teacher reads about the plan.
	Notice string `json:"notice"`
	// Notices are the data-notice parts sent with it (a substitution).
	Notices []protocol.Notice `json:"notices,omitempty"`
}

// PlanKey is the record key of a turn's PlanRecord.
func PlanKey(turnID string) string { return "turn/" + turnID + "/plan" }

// Build identifies a page build; the Build workflow's state carries only
// this (the blueprint, the data and the results are records of the build).
type Build struct {
	BuildID   string `json:"buildId"`
	TeacherID string `json:"teacherId"`
	// Mode is "build" (data, compute, compose) or "patch" (compose only).
	Mode    string `json:"mode"`
	TraceID string `json:"traceId,omitempty"`
	// LeaseUntil is how long the build's lease (session.LeaseBuild) lasts
	// from its start; see Turn.LeaseUntil.
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
}

// BuildState is the Build workflow's execution input.
type BuildState struct {
	Build Build `json:"build"`
	// Error is null until a Catch fills it; it is present so that the
	// Finish state's "$.error" path always resolves.
	Error *ErrorInfo `json:"error"`
}

// NewBuildState is the execution input of a build.
func NewBuildState(b Build) BuildState { return BuildState{Build: b} }

// BuildStepInput is the input of the build phases.
type BuildStepInput struct {
	Phase string     `json:"phase"`
	Build Build      `json:"build"`
	Error *ErrorInfo `json:"error,omitempty"`
}

// Statuses of BuildStepOutput.
const (
	BuildOK     = "ok"     // go on to the next phase
	BuildFailed = "failed" // the phase recorded why the build ends: go to Finish
)

// BuildStepOutput is a build phase's output.
type BuildStepOutput struct {
	Status string `json:"status"`
}

// BuildStream is the event-log stream of a page build.
func BuildStream(buildID string) string { return "build/" + buildID }

// LogAttrs implements the steps' logging contract.
func (in PlanInput) LogAttrs() []slog.Attr { return in.Turn.LogAttrs() }

// LogAttrs implements the steps' logging contract.
func (in BuildStepInput) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.String("buildId", in.Build.BuildID), slog.String("phase", in.Phase), slog.String("traceId", in.Build.TraceID)}
}

// The Research workflow (seed 001): the milestone agent's run, then Finish
// (skeleton and complete, or error). One function, research, serves both;
// the step is in its input.
const (
	ResearchStepMilestones = "milestones"
	ResearchStepFinish     = "finish"
)

// Research identifies a research session; the workflow's state carries
// only this (the topic, the proposal and the skeleton are in the session).
type Research struct {
	SessionID string `json:"sessionId"`
	TeacherID string `json:"teacherId"`
	TraceID   string `json:"traceId,omitempty"`
}

// ResearchState is the Research workflow's execution input.
type ResearchState struct {
	Research Research `json:"research"`
	// Result is null until the Milestones step has run, and Error until a
	// Catch fills it; both are present so that the Finish state's paths
	// always resolve.
	Result *ResearchResult `json:"result"`
	Error  *ErrorInfo      `json:"error"`
}

// NewResearchState is the execution input of a research run.
func NewResearchState(r Research) ResearchState { return ResearchState{Research: r} }

// ResearchStepInput is the research function's input.
type ResearchStepInput struct {
	Step     string          `json:"step"`
	Research Research        `json:"research"`
	Result   *ResearchResult `json:"result,omitempty"`
	Error    *ErrorInfo      `json:"error,omitempty"`
}

// Statuses of ResearchResult.
const (
	ResearchOK     = "ok"     // the skeleton is in the session
	ResearchFailed = "failed" // Code and Message say why
)

// ResearchResult is the research function's output, at $.result.
type ResearchResult struct {
	Status  string `json:"status"`
	Nodes   int    `json:"nodes,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// LogAttrs implements the steps' logging contract.
func (in ResearchStepInput) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.String("sessionId", in.Research.SessionID), slog.String("step", in.Step),
		slog.String("traceId", in.Research.TraceID)}
}
