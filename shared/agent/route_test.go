package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

func TestRoutePaths(t *testing.T) {
	cases := []struct {
		name   string
		answer string
		path   string
		intent string
	}{
		{"smalltalk", `{"intent":"chat_smalltalk","confidence":0.9,"modelTier":"fast","expectedMode":"answer"}`, workflow.PathChat, "chat_smalltalk"},
		{"qa", `{"intent":"chat_qa","confidence":0.8,"modelTier":"standard","expectedMode":"answer"}`, workflow.PathChat, "chat_qa"},
		{"build", `{"intent":"build_workflow","confidence":0.8,"modelTier":"strong","expectedMode":"artifact"}`, workflow.PathBuild, "build_workflow"},
		{"clarify with a question", `{"intent":"clarify","confidence":0.6,"modelTier":"fast","expectedMode":"clarify","clarify":{"question":"哪个班？","options":["一班","二班"]}}`, workflow.PathClarify, "clarify"},
		{"clarifyNeeded on another intent", `{"intent":"data_query","clarifyNeeded":true,"clarify":{"question":"Which class?"}}`, workflow.PathClarify, "data_query"},
		{"clarify without a question", `{"intent":"clarify","confidence":0.6,"clarifyNeeded":true}`, workflow.PathAgent, "unknown"},
		{"clarify with an empty question", `{"intent":"clarify","clarify":{"question":""}}`, workflow.PathAgent, "unknown"},
		{"data query", `{"intent":"data_query","confidence":0.7,"candidateTools":[],"modelTier":"standard","expectedMode":"answer"}`, workflow.PathAgent, "data_query"},
		{"quiz", `{"intent":"quiz_generate","candidateTools":["generate_quiz_questions"],"modelTier":"standard","expectedMode":"artifact"}`, workflow.PathAgent, "quiz_generate"},
		{"unknown intent", `{"intent":"poetry"}`, workflow.PathAgent, "poetry"},
		{"fenced JSON", "```json\n{\"intent\":\"chat_qa\",\"modelTier\":\"fast\"}\n```", workflow.PathChat, "chat_qa"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &scriptedModel{replies: []modelReply{{content: c.answer}}, fragSize: 5}
			f := newFixture(t, m)
			out, err := f.agent.Route(context.Background(), workflow.RouteInput{Turn: f.turn})
			if err != nil {
				t.Fatal(err)
			}
			if out.Path != c.path || string(out.Result.Intent) != c.intent {
				t.Errorf("path %q intent %q, want %q %q", out.Path, out.Result.Intent, c.path, c.intent)
			}
			if out.Result.ClarifyNeeded != (c.path == workflow.PathClarify) {
				t.Errorf("clarifyNeeded = %v on path %q", out.Result.ClarifyNeeded, out.Path)
			}
			if f.metrics["RouterFallback"] != 0 {
				t.Error("a readable answer counted as a router fallback")
			}
		})
	}
}

func TestRouteNormalizes(t *testing.T) {
	cases := []struct {
		name   string
		answer string
		check  func(t *testing.T, r workflow.RouterResult)
	}{
		{"candidate tools kept within the generation tools",
			`{"intent":"quiz_generate","candidateTools":["generate_pptx","no_such_tool","get_teacher_classes","generate_quiz_questions"]}`,
			func(t *testing.T, r workflow.RouterResult) {
				if !slices.Equal(r.CandidateTools, []string{"generate_pptx", "generate_quiz_questions"}) {
					t.Errorf("candidateTools = %v", r.CandidateTools)
				}
			}},
		{"missing lists become empty, not null",
			`{"intent":"chat_qa"}`,
			func(t *testing.T, r workflow.RouterResult) {
				if r.CandidateTools == nil || r.SafetyFlags == nil {
					t.Errorf("candidateTools %#v safetyFlags %#v, want empty lists", r.CandidateTools, r.SafetyFlags)
				}
			}},
		{"safety flags kept",
			`{"intent":"chat_qa","safetyFlags":["pii"]}`,
			func(t *testing.T, r workflow.RouterResult) {
				if !slices.Equal(r.SafetyFlags, []string{"pii"}) {
					t.Errorf("safetyFlags = %v", r.SafetyFlags)
				}
			}},
		{"bad tier becomes standard",
			`{"intent":"chat_qa","modelTier":"gpt-9"}`,
			func(t *testing.T, r workflow.RouterResult) {
				if r.ModelTier != string(llm.TierStandard) {
					t.Errorf("modelTier = %q", r.ModelTier)
				}
			}},
		{"good tier kept",
			`{"intent":"chat_qa","modelTier":"strong"}`,
			func(t *testing.T, r workflow.RouterResult) {
				if r.ModelTier != string(llm.TierStrong) {
					t.Errorf("modelTier = %q", r.ModelTier)
				}
			}},
		{"bad expected mode becomes answer",
			`{"intent":"chat_qa","expectedMode":"essay"}`,
			func(t *testing.T, r workflow.RouterResult) {
				if r.ExpectedMode != workflow.ExpectAnswer {
					t.Errorf("expectedMode = %q", r.ExpectedMode)
				}
			}},
		{"artifact mode kept",
			`{"intent":"quiz_generate","expectedMode":"artifact"}`,
			func(t *testing.T, r workflow.RouterResult) {
				if r.ExpectedMode != workflow.ExpectArtifact {
					t.Errorf("expectedMode = %q", r.ExpectedMode)
				}
			}},
		{"confidence above 1 clamped",
			`{"intent":"chat_qa","confidence":1.7}`,
			func(t *testing.T, r workflow.RouterResult) {
				if r.Confidence != 1 {
					t.Errorf("confidence = %v", r.Confidence)
				}
			}},
		{"confidence below 0 clamped",
			`{"intent":"chat_qa","confidence":-0.4}`,
			func(t *testing.T, r workflow.RouterResult) {
				if r.Confidence != 0 {
					t.Errorf("confidence = %v", r.Confidence)
				}
			}},
		{"clarify question and options kept",
			`{"intent":"clarify","clarify":{"question":"哪个班？","options":["一班","二班"],"hint":"选一个"}}`,
			func(t *testing.T, r workflow.RouterResult) {
				if r.Clarify == nil || r.Clarify.Question != "哪个班？" || len(r.Clarify.Options) != 2 || r.Clarify.Hint != "选一个" {
					t.Errorf("clarify = %+v", r.Clarify)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, &scriptedModel{replies: []modelReply{{content: c.answer}}})
			out, err := f.agent.Route(context.Background(), workflow.RouteInput{Turn: f.turn})
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, out.Result)
		})
	}
}

func TestRouteFallsBackToTheAgent(t *testing.T) {
	cases := []struct {
		name  string
		reply modelReply
	}{
		{"model error", modelReply{err: llm.ErrRateLimited}},
		{"interrupted", modelReply{content: `{"intent":"chat_qa"`, cut: 1, err: llm.ErrInterrupted}},
		{"not JSON", modelReply{content: "I think this is small talk."}},
		{"truncated JSON", modelReply{content: `{"intent":"chat_qa","confidence":`}},
		{"wrong types", modelReply{content: `{"intent":["chat_qa"],"confidence":"high"}`}},
		{"empty answer", modelReply{content: ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, &scriptedModel{replies: []modelReply{c.reply}})
			out, err := f.agent.Route(context.Background(), workflow.RouteInput{Turn: f.turn})
			if err != nil {
				t.Fatalf("err = %v, want the agent path", err)
			}
			r := out.Result
			if out.Path != workflow.PathAgent || r.Intent != "unknown" || r.ModelTier != string(llm.TierStandard) ||
				r.ExpectedMode != workflow.ExpectAnswer || r.CandidateTools == nil || len(r.CandidateTools) != 0 || r.ClarifyNeeded {
				t.Errorf("fallback = %+v", out)
			}
			if f.metrics["RouterFallback"] != 1 {
				t.Errorf("RouterFallback counted %v times, want 1", f.metrics["RouterFallback"])
			}
		})
	}
}

func TestRouteCanceledIsAnError(t *testing.T) {
	f := newFixture(t, &scriptedModel{replies: []modelReply{{err: context.Canceled}}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.agent.Route(ctx, workflow.RouteInput{Turn: f.turn}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled (the step stops, no fallback)", err)
	}
}

func TestRouteRequest(t *testing.T) {
	m := &scriptedModel{replies: []modelReply{{content: `{"intent":"chat_qa"}`}, {content: `{"intent":"chat_qa"}`}}}
	f := newFixture(t, m)
	ctx := context.Background()
	// An earlier, finished turn is summarised for the router.
	if err := f.store.EndTurn(ctx, "s-1", "u-1", session.TurnCompleted, session.Outcome{Text: "好的，已为您生成。"}); err != nil {
		t.Fatal(err)
	}
	second := f.beginTurn(t, "u-2", "再来3道")
	if _, err := f.agent.Route(ctx, workflow.RouteInput{Turn: second}); err != nil {
		t.Fatal(err)
	}
	req := m.requests[0]
	// Not JSON mode: the answer starts with its route line.
	if req.Tier != llm.TierFast || req.JSON || len(req.Tools) != 0 {
		t.Errorf("request tier %q json %v tools %d, want a fast request without tools or JSON mode", req.Tier, req.JSON, len(req.Tools))
	}
	msgs := req.Messages
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want system prompt, history, user", len(msgs))
	}
	if msgs[0].Role != llm.RoleSystem || !strings.Contains(msgs[0].Content, "- generate_quiz_questions: Write quiz questions.") ||
		!strings.Contains(msgs[0].Content, "- generate_pptx:") || strings.Contains(msgs[0].Content, "get_teacher_classes") {
		t.Errorf("router prompt does not list exactly the generation tools:\n%s", msgs[0].Content)
	}
	if msgs[1].Role != llm.RoleSystem || !strings.Contains(msgs[1].Content, "帮我出5道分数加法题") ||
		!strings.Contains(msgs[1].Content, "好的，已为您生成。") || strings.Contains(msgs[1].Content, "再来3道") {
		t.Errorf("history message = %q", msgs[1].Content)
	}
	if last := msgs[2]; last.Role != llm.RoleUser || last.Content != "再来3道" {
		t.Errorf("last message = %+v", last)
	}
}
