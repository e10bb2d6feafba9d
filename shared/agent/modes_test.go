package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/agent"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/guide"
	"github.com/insightedge/insightedge/shared/workflow"
)

// TestStrictRules: the StrictMode guard beside validate_terminal_state, the
// free mode's unforced tools, and the fallback chosen by the last tool
// status (seed 003 §4.3).
func TestStrictRules(t *testing.T) {
	answerR := agent.FinalResult{Status: agent.StatusAnswerReady, Message: "1A 班有 32 名学生。"}
	clarifyR := agent.FinalResult{Status: agent.StatusClarifyNeeded, Message: "哪个班？", Clarify: &workflow.Clarify{Question: "哪个班？"}}
	claimR := agent.FinalResult{Status: agent.StatusArtifactReady, Message: "已生成。"}
	none := agent.Evidence{Emitted: map[string]bool{}}
	oneTool := agent.Evidence{Emitted: map[string]bool{}, ToolEnds: 1, LastStatus: "success"}
	cases := []struct {
		name     string
		mode     workflow.ChatMode
		expected string
		r        agent.FinalResult
		ev       agent.Evidence
		want     error // nil, ErrStrictNoTool, ErrRetryNeeded or ErrSoftRetryNeeded
	}{
		{"strict answer without a tool", workflow.ModeStrict, workflow.ExpectAnswer, answerR, none, agent.ErrStrictNoTool},
		{"strict answer after a tool", workflow.ModeStrict, workflow.ExpectAnswer, answerR, oneTool, nil},
		{"strict clarify question without a tool", workflow.ModeStrict, workflow.ExpectAnswer, clarifyR, none, nil},
		{"strict artifact claim without a tool", workflow.ModeStrict, workflow.ExpectArtifact, claimR, none, agent.ErrRetryNeeded},
		{"natural answer without a tool", workflow.ModeNatural, workflow.ExpectAnswer, answerR, none, nil},
		{"natural answer where an artifact was expected", workflow.ModeNatural, workflow.ExpectArtifact, answerR, none, agent.ErrSoftRetryNeeded},
		{"free answer where an artifact was expected", workflow.ModeFree, workflow.ExpectArtifact, answerR, none, nil},
		{"free artifact claim without a tool", workflow.ModeFree, workflow.ExpectArtifact, claimR, none, agent.ErrRetryNeeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := agent.CheckAttempt(c.r, c.ev, c.expected, c.mode)
			if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("CheckAttempt = %v, want %v", err, c.want)
			}
			if c.want == agent.ErrStrictNoTool {
				if v := agent.Decide(err, 1); v.Verdict != workflow.VerdictRetry || v.Rule != "hard" {
					t.Errorf("first refusal: %+v, want a hard retry", v)
				}
				if v := agent.Decide(err, 2); v.Verdict != workflow.VerdictGiveUp {
					t.Errorf("second refusal: %+v, want give-up (one retry in total)", v)
				}
			}
		})
	}
	fallbacks := []struct {
		ev     agent.Evidence
		branch string
		msg    i18n.Msg
	}{
		{none, agent.FallbackNoToolEnd, i18n.StrictNotice},
		{agent.Evidence{ToolEnds: 2, LastStatus: "empty"}, agent.FallbackEmpty, i18n.StrictNoResult},
		{agent.Evidence{ToolEnds: 3, LastStatus: "error"}, agent.FallbackError, i18n.StrictToolError},
		{oneTool, agent.FallbackSuccess, i18n.StrictNotice},
	}
	for _, f := range fallbacks {
		if b, m := agent.StrictFallback(f.ev); b != f.branch || m != f.msg {
			t.Errorf("StrictFallback(%+v) = %s, %v; want %s, %v", f.ev, b, m, f.branch, f.msg)
		}
	}
}

// TestRouteModes: the intent step turns the router's result into the agent's
// tools by chat mode.
func TestRouteModes(t *testing.T) {
	const (
		small = `{"intent":"chat_smalltalk","confidence":0.9,"modelTier":"fast","expectedMode":"answer"}`
		qa    = `{"intent":"chat_qa","confidence":0.8,"modelTier":"standard","expectedMode":"answer"}`
		quiz  = `{"intent":"quiz_generate","candidateTools":["generate_quiz_questions"],"modelTier":"standard","expectedMode":"artifact"}`
		data  = `{"intent":"data_query","candidateTools":[],"modelTier":"standard","expectedMode":"answer"}`
	)
	all := []string{"get_teacher_classes", "generate_pptx", "generate_quiz_questions", "guide_user"}
	cases := []struct {
		mode   workflow.ChatMode
		answer string
		path   string
		tools  []string
	}{
		{workflow.ModeNatural, small, workflow.PathChat, nil},
		{workflow.ModeFree, qa, workflow.PathChat, nil},
		{workflow.ModeStrict, small, workflow.PathAgent, []string{"guide_user"}},
		{workflow.ModeStrict, qa, workflow.PathAgent, []string{"guide_user"}},
		{workflow.ModeNatural, quiz, workflow.PathAgent, []string{"get_teacher_classes", "generate_quiz_questions", "guide_user"}},
		{workflow.ModeStrict, quiz, workflow.PathAgent, []string{"get_teacher_classes", "generate_quiz_questions", "guide_user"}},
		{workflow.ModeFree, quiz, workflow.PathAgent, all},
		{workflow.ModeNatural, data, workflow.PathAgent, all},
		{"", quiz, workflow.PathAgent, []string{"get_teacher_classes", "generate_quiz_questions", "guide_user"}},
	}
	for _, c := range cases {
		t.Run(string(c.mode)+" "+c.answer[11:25], func(t *testing.T) {
			m := &scriptedModel{replies: []modelReply{{content: c.answer}}}
			f := newFixture(t, m, guide.Tool())
			turn := f.turn
			turn.Mode = c.mode
			out, err := f.agent.Route(context.Background(), workflow.RouteInput{Turn: turn})
			if err != nil {
				t.Fatal(err)
			}
			if out.Path != c.path || !slices.Equal(out.Tools, c.tools) {
				t.Errorf("path %q tools %v, want %q %v", out.Path, out.Tools, c.path, c.tools)
			}
		})
	}
}

// strictFixture runs whole attempts through the steps (Turn, RunTool,
// Validate, Finish) with a scripted model, in one chat mode.
type strictFixture struct {
	*fixture
	route workflow.RouteOutput
}

func newModeFixture(t *testing.T, mode workflow.ChatMode, m *scriptedModel) *strictFixture {
	t.Helper()
	empty := tools.Define("search_teacher_documents", "Search documents.", tools.Base, i18n.None,
		func(context.Context, tools.Call, struct{}) (tools.Result, error) {
			return tools.Result{Status: protocol.ToolEmpty, Message: "没有找到文档", Output: map[string]any{"documents": []any{}}}, nil
		})
	failing := tools.Define("get_class_detail", "A class.", tools.Base, i18n.None,
		func(context.Context, tools.Call, struct{}) (tools.Result, error) {
			return tools.Result{}, errors.New("data service unavailable")
		})
	f := newFixture(t, m, guide.Tool(), empty, failing)
	f.turn.Mode = mode
	route := workflow.RouteOutput{Path: workflow.PathAgent, Result: workflow.RouterResult{Intent: workflow.IntentData,
		ModelTier: "standard", ExpectedMode: workflow.ExpectAnswer, CandidateTools: []string{}, SafetyFlags: []string{}},
		Tools: []string{"get_class_detail", "get_teacher_classes", "search_teacher_documents", "guide_user"}}
	return &strictFixture{fixture: f, route: route}
}

// run plays the conversation workflow's loop for the turn and returns the
// ended turn.
func (f *strictFixture) run(t *testing.T) session.Turn {
	t.Helper()
	ctx := context.Background()
	var v workflow.ValidateOutput
	attempt := 1
	var retry *workflow.RetryReason
	for ; attempt <= 2; attempt++ {
		in := workflow.AgentInput{Turn: f.turn, Route: f.route, Attempt: attempt, Prev: workflow.AgentOutput{ToolCalls: []workflow.ToolCallRef{}}, Retry: retry}
		for round := 0; ; round++ {
			if round > 6 {
				t.Fatal("no final result")
			}
			out, err := f.agent.Turn(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if out.Next != workflow.NextTools {
				break
			}
			for _, c := range out.ToolCalls {
				if _, err := f.agent.RunTool(ctx, workflow.ToolInput{Turn: f.turn, Attempt: attempt, Call: c}); err != nil {
					t.Fatal(err)
				}
			}
			in.Prev = out
		}
		var err error
		v, err = f.agent.Validate(ctx, workflow.ValidateInput{Turn: f.turn, Route: f.route, Attempt: attempt})
		if err != nil {
			t.Fatal(err)
		}
		if v.Verdict != workflow.VerdictRetry {
			break
		}
		retry = &workflow.RetryReason{Verdict: v.Verdict, Reason: v.Reason}
	}
	if _, err := f.agent.Finish(ctx, workflow.FinishInput{Turn: f.turn, Attempt: min(attempt, 2), Route: &f.route, Validation: &v}); err != nil {
		t.Fatal(err)
	}
	done, err := f.store.GetTurn(ctx, f.turn.SessionID, f.turn.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	return done
}

// TestStrictFallbackByLastToolStatus: the strict reply of seed 003 §4.3
// through the real steps, and the answers that stand.
func TestStrictFallbackByLastToolStatus(t *testing.T) {
	zh := i18n.Chinese
	plain := modelReply{content: "1A 班一共有 32 名学生。"}
	emptyFinal := modelReply{calls: []llm.ToolCall{finalCall("call_f", agent.FinalResult{Status: agent.StatusAnswerReady, Message: ""})}}
	cases := []struct {
		name     string
		mode     workflow.ChatMode
		replies  []modelReply
		text     string
		fallback string
		guards   float64
	}{
		{"strict: text without a tool, twice", workflow.ModeStrict, []modelReply{plain, plain}, zh.Text(i18n.StrictNotice), agent.FallbackNoToolEnd, 2},
		{"strict: text without a tool, then a tool", workflow.ModeStrict, []modelReply{plain,
			{calls: []llm.ToolCall{toolCall("call_c", "get_teacher_classes", `{}`)}},
			{calls: []llm.ToolCall{finalCall("call_f2", agent.FinalResult{Status: agent.StatusAnswerReady, Message: "你有 3 个班。"})}}},
			"你有 3 个班。", "", 1},
		{"strict: empty result, empty content", workflow.ModeStrict, []modelReply{
			{calls: []llm.ToolCall{toolCall("call_s", "search_teacher_documents", `{}`)}}, emptyFinal},
			zh.Text(i18n.StrictNoResult), agent.FallbackEmpty, 0},
		{"strict: tool error, empty content", workflow.ModeStrict, []modelReply{
			{calls: []llm.ToolCall{toolCall("call_d", "get_class_detail", `{}`)}}, emptyFinal},
			zh.Text(i18n.StrictToolError), agent.FallbackError, 0},
		{"strict: empty then error: the last status decides", workflow.ModeStrict, []modelReply{
			{calls: []llm.ToolCall{toolCall("call_s", "search_teacher_documents", `{}`)}},
			{calls: []llm.ToolCall{toolCall("call_d", "get_class_detail", `{}`)}}, emptyFinal},
			zh.Text(i18n.StrictToolError), agent.FallbackError, 0},
		{"strict: guidance, then an answer", workflow.ModeStrict, []modelReply{
			{calls: []llm.ToolCall{toolCall("call_g", "guide_user", `{"message":"我可以帮你查看班级。","suggestions":["查看 1A 班","出 5 道题"]}`)}},
			{calls: []llm.ToolCall{finalCall("call_f", agent.FinalResult{Status: agent.StatusAnswerReady, Message: "你好！请看上面的建议。"})}}},
			"你好！请看上面的建议。", "", 0},
		{"natural: text without a tool stands", workflow.ModeNatural, []modelReply{plain}, plain.content, "", 0},
		{"natural: empty content is not replaced", workflow.ModeNatural, []modelReply{
			{calls: []llm.ToolCall{toolCall("call_s", "search_teacher_documents", `{}`)}}, emptyFinal}, "", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newModeFixture(t, c.mode, &scriptedModel{fragSize: 5, replies: c.replies})
			done := f.run(t)
			cs := f.chunks(t)
			got, _ := text(cs)
			if done.Status != session.TurnCompleted || done.Outcome.Text != c.text || got != c.text {
				t.Fatalf("turn %s, outcome text %q, streamed %q; want %q", done.Status, done.Outcome.Text, got, c.text)
			}
			if done.Outcome.Fallback != c.fallback {
				t.Errorf("fallback recorded %q, want %q", done.Outcome.Fallback, c.fallback)
			}
			if f.metrics["StrictGuard"] != c.guards {
				t.Errorf("StrictGuard counted %v, want %v", f.metrics["StrictGuard"], c.guards)
			}
			if want := map[bool]float64{true: 1, false: 0}[c.fallback != ""]; f.metrics["StrictFallback"] != want {
				t.Errorf("StrictFallback counted %v, want %v", f.metrics["StrictFallback"], want)
			}
			if strings.Contains(got, plain.content) && c.mode == workflow.ModeStrict {
				t.Errorf("an answer without a tool reached the teacher in strict mode: %q", got)
			}
			if last := cs[len(cs)-1]; last.Type != "finish" {
				t.Errorf("stream ends with %s", last.Type)
			}
		})
	}
}

// TestStrictGreetingOffersGuideOnly: a strict greeting's agent call offers
// guide_user and final_result, nothing else.
func TestStrictGreetingOffersGuideOnly(t *testing.T) {
	m := &scriptedModel{replies: []modelReply{
		{content: `{"intent":"chat_smalltalk","confidence":0.9,"modelTier":"fast","expectedMode":"answer"}`},
		{calls: []llm.ToolCall{toolCall("call_g", "guide_user", `{"message":"你好！","suggestions":["查看 1A 班","出 5 道题"]}`)}},
	}}
	f := newFixture(t, m, guide.Tool())
	f.turn.Mode = workflow.ModeStrict
	ctx := context.Background()
	route, err := f.agent.Route(ctx, workflow.RouteInput{Turn: f.turn})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.agent.Turn(ctx, workflow.AgentInput{Turn: f.turn, Route: route, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range m.requests[1].Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"guide_user", "final_result"}) {
		t.Errorf("strict greeting offered %v", names)
	}
	if sys := m.requests[1].Messages[0].Content; !strings.Contains(sys, "## Chat mode: strict") {
		t.Errorf("system prompt has no strict section: %q", sys)
	}
}

// TestReasoningPromotion: reasoning streams as a reasoning part before the
// text; a round with reasoning and no content answers with the reasoning
// (seed 003 §1.2); reasoning never becomes content in the history.
func TestReasoningPromotion(t *testing.T) {
	const thought = "光合作用是植物利用光能把二氧化碳和水合成有机物、并放出氧气的过程。"
	cases := []struct {
		name     string
		path     string
		reply    modelReply
		want     string
		promoted float64
	}{
		{"chat: reasoning only", workflow.PathChat, modelReply{reasoning: thought}, thought, 1},
		{"chat: reasoning and content", workflow.PathChat, modelReply{reasoning: "想一想。", content: "你好！"}, "你好！", 0},
		{"agent: reasoning only, no tool call", workflow.PathAgent, modelReply{reasoning: thought}, thought, 1},
		{"agent: final_result with an empty message", workflow.PathAgent, modelReply{reasoning: thought,
			calls: []llm.ToolCall{finalCall("call_f", agent.FinalResult{Status: agent.StatusAnswerReady})}}, thought, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &scriptedModel{fragSize: 6, replies: []modelReply{c.reply}}
			f := newFixture(t, m)
			in := agentInput(f.turn, workflow.ExpectAnswer, 1)
			in.Route.Path = c.path
			if _, err := f.agent.Turn(context.Background(), in); err != nil {
				t.Fatal(err)
			}
			cs := f.chunks(t)
			got, _ := text(cs)
			if got != c.want {
				t.Errorf("text %q, want %q", got, c.want)
			}
			var reasoning strings.Builder
			for _, ch := range cs {
				if ch.Type == "reasoning-delta" {
					reasoning.WriteString(ch.Delta)
				}
			}
			if reasoning.String() != c.reply.reasoning {
				t.Errorf("reasoning part %q, want %q", reasoning.String(), c.reply.reasoning)
			}
			ts := types(cs)
			rs, re, txt := slices.Index(ts, "reasoning-start"), slices.Index(ts, "reasoning-end"), slices.Index(ts, "text-start")
			if rs < 0 || re < rs || txt < re || ts[len(ts)-1] != "finish-step" {
				t.Errorf("chunks %v: want the reasoning part closed before the text", ts)
			}
			if f.metrics["ReasoningPromoted"] != c.promoted {
				t.Errorf("ReasoningPromoted %v, want %v", f.metrics["ReasoningPromoted"], c.promoted)
			}
			if _, err := f.agent.Finish(context.Background(), workflow.FinishInput{Turn: f.turn, Attempt: 1, Route: &in.Route}); err != nil {
				t.Fatal(err)
			}
			done, _ := f.store.GetTurn(context.Background(), f.turn.SessionID, f.turn.TurnID)
			if done.Outcome.Text != c.want {
				t.Errorf("stored answer %q, want %q", done.Outcome.Text, c.want)
			}
		})
	}
}

// TestReasoningStaysOutOfContent: after a round with reasoning and a tool
// call, the next round's request carries the assistant message without the
// reasoning in its content.
func TestReasoningStaysOutOfContent(t *testing.T) {
	m := &scriptedModel{fragSize: 6, replies: []modelReply{
		{reasoning: "先查班级。", calls: []llm.ToolCall{toolCall("call_c", "get_teacher_classes", `{}`)}},
		{calls: []llm.ToolCall{finalCall("call_f", agent.FinalResult{Status: agent.StatusAnswerReady, Message: "你有 3 个班。"})}},
	}}
	f := newFixture(t, m)
	ctx := context.Background()
	in := agentInput(f.turn, workflow.ExpectAnswer, 1)
	out, err := f.agent.Turn(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.agent.RunTool(ctx, workflow.ToolInput{Turn: f.turn, Attempt: 1, Call: out.ToolCalls[0]}); err != nil {
		t.Fatal(err)
	}
	in.Prev = out
	if _, err := f.agent.Turn(ctx, in); err != nil {
		t.Fatal(err)
	}
	for _, msg := range m.requests[1].Messages {
		if strings.Contains(msg.Content, "先查班级") {
			t.Errorf("reasoning sent back as content: %+v", msg)
		}
	}
	ts := types(f.chunks(t))
	if i := slices.Index(ts, "reasoning-end"); i < 0 || i > slices.Index(ts, "data-tool-progress") {
		t.Errorf("chunks %v: the reasoning part must close before the tool runs", ts)
	}
}
