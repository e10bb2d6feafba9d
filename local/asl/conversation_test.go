package asl

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The real conversation workflow, run against fake step handlers.

var conversationSubs = map[string]string{
	"RouterFunctionArn":    "arn:local:router",
	"AgentTurnFunctionArn": "arn:local:agentturn",
	"ToolFunctionArn":      "arn:local:tool",
	"FileToolFunctionArn":  "arn:local:filetool",
	"ValidateFunctionArn":  "arn:local:validate",
	"FinishFunctionArn":    "arn:local:finish",
	"BuildStepFunctionArn": "arn:local:buildstep",
}

func conversationMachine(t testing.TB) *Machine {
	t.Helper()
	def, err := os.ReadFile("../../infra/statemachines/conversation.asl.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(def, conversationSubs)
	if err != nil {
		t.Fatalf("Parse conversation.asl.json: %v", err)
	}
	return m
}

// steps is a scripted set of the workflow's step handlers that records, per
// step, the decoded inputs it received.
type steps struct {
	mu        sync.Mutex
	route     workflow.RouteOutput
	agent     []workflow.AgentOutput // one per AgentTurn call
	validate  []workflow.ValidateOutput
	agentErr  map[int]error // AgentTurn call index → error to return instead
	agentOK   int           // AgentTurn calls that returned an output
	routeIn   []workflow.RouteInput
	agentIn   []workflow.AgentInput
	toolIn    []workflow.ToolInput
	fileIn    []workflow.ToolInput // the calls run on the file tool function (issue 25)
	validIn   []workflow.ValidateInput
	finishIn  []workflow.FinishInput
	finishRaw []string
}

func (s *steps) handlers() map[string]Handler {
	return map[string]Handler{
		"arn:local:router": typed(func(_ context.Context, in workflow.RouteInput) (workflow.RouteOutput, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.routeIn = append(s.routeIn, in)
			return s.route, nil
		}),
		"arn:local:agentturn": typed(func(_ context.Context, in workflow.AgentInput) (workflow.AgentOutput, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			n := len(s.agentIn)
			s.agentIn = append(s.agentIn, in)
			if err := s.agentErr[n]; err != nil {
				delete(s.agentErr, n)
				return workflow.AgentOutput{}, err
			}
			out := s.agent[s.agentOK]
			s.agentOK++
			return out, nil
		}),
		"arn:local:tool": typed(func(_ context.Context, in workflow.ToolInput) (workflow.ToolOutput, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.toolIn = append(s.toolIn, in)
			return workflow.ToolOutput{Status: "ok"}, nil
		}),
		"arn:local:filetool": typed(func(_ context.Context, in workflow.ToolInput) (workflow.ToolOutput, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.fileIn = append(s.fileIn, in)
			return workflow.ToolOutput{Status: "ok"}, nil
		}),
		"arn:local:validate": typed(func(_ context.Context, in workflow.ValidateInput) (workflow.ValidateOutput, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.validIn = append(s.validIn, in)
			return s.validate[len(s.validIn)-1], nil
		}),
		"arn:local:buildstep": typed(func(_ context.Context, in workflow.PlanInput) (workflow.PlanOutput, error) {
			return workflow.PlanOutput{Status: workflow.PlanPlanned}, nil
		}),
		"arn:local:finish": func(_ context.Context, raw json.RawMessage) (json.RawMessage, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			var in workflow.FinishInput
			if err := json.Unmarshal(raw, &in); err != nil {
				return nil, err
			}
			s.finishIn = append(s.finishIn, in)
			s.finishRaw = append(s.finishRaw, string(raw))
			return json.Marshal(workflow.FinishOutput{Status: "finished"})
		},
	}
}

func conversationInput(t testing.TB) json.RawMessage {
	t.Helper()
	in, err := json.Marshal(workflow.NewConversationState(workflow.Turn{
		SessionID: "s1", TurnID: "t1", TeacherID: "teacher-1", MessageID: "m1", Message: "make a quiz", Mode: "natural",
	}))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestConversationWorkflow runs route → agent turn with 3 tool calls (one
// of a tool that delivers a file, on the file tool function) → map →
// agent turn final → validate retry → PrepareRetry → agent turn → validate
// ok → finish, and checks the states visited and every step's input.
func TestConversationWorkflow(t *testing.T) {
	m := conversationMachine(t)
	route := workflow.RouteOutput{Path: workflow.PathAgent, Result: workflow.RouterResult{Intent: "quiz", Confidence: 0.9, ModelTier: "standard", ExpectedMode: workflow.ExpectArtifact}}
	calls := []workflow.ToolCallRef{{ID: "call-1", Name: "teacher_data"}, {ID: "call-2", Name: "generate_quiz"}, {ID: "call-3", Name: "render_pdf", File: true}}
	s := &steps{
		route: route,
		agent: []workflow.AgentOutput{
			{Next: workflow.NextTools, Round: 1, ToolCalls: calls},
			{Next: workflow.NextFinal, Round: 2, ToolCalls: []workflow.ToolCallRef{}},
			{Next: workflow.NextFinal, Round: 1, ToolCalls: []workflow.ToolCallRef{}},
		},
		validate: []workflow.ValidateOutput{
			{Verdict: workflow.VerdictRetry, Rule: "soft", Reason: "promised a quiz file without one"},
			{Verdict: workflow.VerdictOK},
		},
	}
	rec := newRecorder()
	out, err := m.Run(context.Background(), conversationInput(t), Options{
		Handlers: s.handlers(), OnTransition: rec.onTransition, ExecutionID: "arn:local:execution:conversation:t1",
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	assertJSON(t, "output", out, `{"status":"finished"}`)

	wantStates := []string{
		"Route", "RoutePath",
		"AgentTurn", "AfterAgentTurn", "Tools", "PickTool", "PickTool", "PickTool", "RunFileTool", "RunTool", "RunTool",
		"AgentTurn", "AfterAgentTurn", "Validate", "Verdict", "PrepareRetry",
		"AgentTurn", "AfterAgentTurn", "Validate", "Verdict", "Finish",
	}
	got := rec.visited()
	if len(got) == len(wantStates) {
		slices.Sort(got[5:11]) // the map's iterations run at once, in any order
	}
	if !slices.Equal(got, wantStates) {
		t.Errorf("states visited:\n got %v\nwant %v", got, wantStates)
	}

	in := s.routeIn
	if len(in) != 1 || in[0].Turn.TurnID != "t1" || in[0].Turn.Message != "make a quiz" {
		t.Errorf("Route input %+v", in)
	}

	if len(s.agentIn) != 3 {
		t.Fatalf("AgentTurn called %d times, want 3", len(s.agentIn))
	}
	a1, a2, a3 := s.agentIn[0], s.agentIn[1], s.agentIn[2]
	if a1.Attempt != 1 || a1.Prev.Next != "" || a1.Prev.Round != 0 || a1.Retry != nil || a1.Route.Path != workflow.PathAgent || a1.Turn.TurnID != "t1" {
		t.Errorf("AgentTurn #1 input %+v", a1)
	}
	if a2.Attempt != 1 || a2.Prev.Next != workflow.NextTools || a2.Prev.Round != 1 || !slices.Equal(a2.Prev.ToolCalls, calls) || a2.Retry != nil {
		t.Errorf("AgentTurn #2 input %+v: want the previous round as prev", a2)
	}
	// PrepareRetry: attempt 1 → 2 through States.MathAdd, a fresh agent loop,
	// and the validation's verdict and reason as the retry reason.
	wantRetry := &workflow.RetryReason{Verdict: workflow.VerdictRetry, Reason: "promised a quiz file without one"}
	if a3.Attempt != 2 || a3.Prev.Next != "" || a3.Prev.Round != 0 || len(a3.Prev.ToolCalls) != 0 || a3.Retry == nil || *a3.Retry != *wantRetry || a3.Route.Result.Intent != "quiz" {
		t.Errorf("AgentTurn #3 input %+v, retry %+v", a3, a3.Retry)
	}

	// The Tools map: one iteration per call, with $$.Map.Item.Value as the call.
	// A call of a tool that delivers a file runs on the file tool function,
	// every other call on the small tool function (issue 25).
	if len(s.fileIn) != 1 || s.fileIn[0].Call != calls[2] {
		t.Errorf("file tool function's calls %+v, want only %+v", s.fileIn, calls[2])
	}
	gotCalls := []workflow.ToolCallRef{}
	for _, ti := range append(s.toolIn, s.fileIn...) {
		if ti.Attempt != 1 || ti.Turn.TurnID != "t1" {
			t.Errorf("tool input %+v", ti)
		}
		gotCalls = append(gotCalls, ti.Call)
	}
	slices.SortFunc(gotCalls, func(a, b workflow.ToolCallRef) int { return strings.Compare(a.ID, b.ID) })
	if !slices.Equal(gotCalls, calls) {
		t.Errorf("tool calls %+v, want %+v", gotCalls, calls)
	}

	if len(s.validIn) != 2 || s.validIn[0].Attempt != 1 || s.validIn[1].Attempt != 2 || s.validIn[1].Route.Path != workflow.PathAgent {
		t.Errorf("Validate inputs %+v", s.validIn)
	}

	if len(s.finishIn) != 1 {
		t.Fatalf("Finish called %d times", len(s.finishIn))
	}
	f := s.finishIn[0]
	if f.Attempt != 2 || f.Error != nil || f.Validation == nil || f.Validation.Verdict != workflow.VerdictOK ||
		f.Agent == nil || f.Agent.Next != workflow.NextFinal || f.Route == nil || f.Turn.TurnID != "t1" {
		t.Errorf("Finish input %s", s.finishRaw[0])
	}
}

func TestConversationClarifyGoesStraightToFinish(t *testing.T) {
	m := conversationMachine(t)
	s := &steps{route: workflow.RouteOutput{Path: workflow.PathClarify, Result: workflow.RouterResult{ClarifyNeeded: true, Clarify: &workflow.Clarify{Question: "Which class?"}}}}
	rec := newRecorder()
	if _, err := m.Run(context.Background(), conversationInput(t), Options{Handlers: s.handlers(), OnTransition: rec.onTransition}); err != nil {
		t.Fatal(err)
	}
	if got := rec.visited(); !slices.Equal(got, []string{"Route", "RoutePath", "Finish"}) {
		t.Errorf("visited %v", got)
	}
	if f := s.finishIn[0]; f.Route == nil || f.Route.Result.Clarify == nil || f.Route.Result.Clarify.Question != "Which class?" {
		t.Errorf("Finish input %s", s.finishRaw[0])
	}
}

// TestConversationErrors: a Lambda service error is retried; any other step
// error goes to Finish with $.error set.
func TestConversationErrors(t *testing.T) {
	m := conversationMachine(t)
	s := &steps{
		route: workflow.RouteOutput{Path: workflow.PathChat},
		agent: []workflow.AgentOutput{{Next: workflow.NextReply, Round: 1, ToolCalls: []workflow.ToolCallRef{}}},
		agentErr: map[int]error{
			0: &namedErr{"Lambda.TooManyRequestsException", "Rate exceeded"},
		},
	}
	sl := &clocktest.Sleeps{}
	rec := newRecorder()
	if _, err := m.Run(context.Background(), conversationInput(t), Options{Handlers: s.handlers(), Sleep: sl.Sleep, OnTransition: rec.onTransition}); err != nil {
		t.Fatal(err)
	}
	// The throttling retrier's first wait: IntervalSeconds 2, FULL jitter.
	if d := sl.Got(); len(d) != 1 || d[0] < 0 || d[0] > 2*time.Second {
		t.Errorf("retry waits %v, want one within [0, 2s] (FULL jitter)", d)
	}
	if got := rec.visited(); !slices.Equal(got, []string{"Route", "RoutePath", "AgentTurn", "AfterAgentTurn", "Finish"}) {
		t.Errorf("visited %v", got)
	}

	failing := &steps{
		route:    workflow.RouteOutput{Path: workflow.PathAgent},
		agentErr: map[int]error{0: &namedErr{"AI_ERROR", "the model is unavailable"}},
	}
	rec = newRecorder()
	if _, err := m.Run(context.Background(), conversationInput(t), Options{Handlers: failing.handlers(), Sleep: sl.Sleep, OnTransition: rec.onTransition}); err != nil {
		t.Fatal(err)
	}
	if got := rec.visited(); !slices.Equal(got, []string{"Route", "RoutePath", "AgentTurn", "Finish"}) {
		t.Errorf("visited %v", got)
	}
	if f := failing.finishIn[0]; f.Error == nil || f.Error.Error != "AI_ERROR" || f.Error.Cause != "the model is unavailable" || f.Route == nil {
		t.Errorf("Finish input %s", failing.finishRaw[0])
	}
}

func BenchmarkConversationWorkflow(b *testing.B) {
	m := conversationMachine(b)
	in := conversationInput(b)
	for b.Loop() {
		s := &steps{
			route: workflow.RouteOutput{Path: workflow.PathAgent},
			agent: []workflow.AgentOutput{
				{Next: workflow.NextTools, Round: 1, ToolCalls: []workflow.ToolCallRef{{ID: "1", Name: "a"}, {ID: "2", Name: "b"}}},
				{Next: workflow.NextFinal, Round: 2, ToolCalls: []workflow.ToolCallRef{}},
			},
			validate: []workflow.ValidateOutput{{Verdict: workflow.VerdictOK}},
		}
		if _, err := m.Run(context.Background(), in, Options{Handlers: s.handlers()}); err != nil {
			b.Fatal(err)
		}
	}
}
