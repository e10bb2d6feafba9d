package agent_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/flags"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// outsideRollout is a teacher id whose bucket is at or above percent.
func outsideRollout(t *testing.T, percent int) string {
	for i := range 1000 {
		id := fmt.Sprintf("teacher-%d", i)
		if flags.Bucket(id) >= percent {
			return id
		}
	}
	t.Fatal("no teacher outside the rollout")
	return ""
}

// TestRouteGate: issue 28. Each switch and safety flag, through the Route
// and AgentTurn steps: the path, the notices, and whether the model is
// asked again after the router (a declined turn runs no model and no tool).
func TestRouteGate(t *testing.T) {
	quiz := `{"intent":"quiz_generate","candidateTools":["generate_quiz_questions"],"expectedMode":"artifact"}`
	slides := `{"intent":"content_create","candidateTools":["generate_pptx"],"expectedMode":"artifact"}`
	build := `{"intent":"build_workflow","expectedMode":"artifact"}`
	data := `{"intent":"data_query","expectedMode":"answer"}`
	off := func(c flags.Capability) flags.Switches {
		s := flags.Default()
		s.Paused = map[flags.Capability]bool{c: true}
		return s
	}
	cases := []struct {
		name     string
		route    string
		switches flags.Switches
		teacher  string // "" is the fixture's
		path     string
		decline  string
		notice   string
		tools    []string // nil: not checked
		metric   string
	}{
		{name: "every switch on", route: quiz, switches: flags.Default(), path: workflow.PathAgent},
		{name: "outside the rollout: chat path", route: quiz, switches: flags.Switches{UnifiedV2: flags.Rollout{Percent: 10}},
			teacher: "out", path: workflow.PathChat, metric: "RolloutFallback"},
		{name: "the allow-list admits", route: quiz, switches: flags.Switches{UnifiedV2: flags.Rollout{Teachers: []string{"t-1"}}},
			path: workflow.PathAgent},
		{name: "data questions stay on the agent outside the rollout", route: data,
			switches: flags.Switches{UnifiedV2: flags.Rollout{Percent: 0}}, path: workflow.PathAgent},
		{name: "tools paused", route: data, switches: off(flags.Tools), path: workflow.PathChat,
			notice: protocol.NoticePaused, metric: "CapabilityPaused"},
		{name: "page builds paused", route: build, switches: off(flags.PageBuilds), path: workflow.PathChat,
			decline: workflow.DeclinePaused, notice: protocol.NoticePaused, metric: "CapabilityPaused"},
		{name: "file generation paused", route: slides, switches: off(flags.FileGeneration), path: workflow.PathAgent,
			notice: protocol.NoticePaused, tools: []string{"get_teacher_classes"}, metric: "CapabilityPaused"},
		{name: "harmful", route: `{"intent":"chat_qa","safetyFlags":["harmful"]}`, switches: flags.Default(),
			path: workflow.PathChat, decline: workflow.DeclineHarmful, metric: "SafetyFlag"},
		{name: "harmful on the agent path", route: `{"intent":"data_query","safetyFlags":["harmful","student_privacy"]}`,
			switches: flags.Default(), path: workflow.PathChat, decline: workflow.DeclineHarmful, metric: "SafetyFlag"},
		{name: "student privacy", route: `{"intent":"data_query","safetyFlags":["student_privacy"]}`, switches: flags.Default(),
			path: workflow.PathAgent, notice: protocol.NoticePrivacy, metric: "SafetyFlag"},
		{name: "an unknown flag is not acted on", route: `{"intent":"chat_qa","safetyFlags":["pii"]}`, switches: flags.Default(),
			path: workflow.PathChat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &scriptedModel{replies: []modelReply{{content: c.route}, {content: "answer"}}, fragSize: 50}
			f := newFixture(t, m)
			f.agent.Switches = flags.Static(c.switches)
			if c.teacher == "out" {
				f.turn.TeacherID = outsideRollout(t, c.switches.UnifiedV2.Percent)
			}
			ctx := context.Background()
			out, err := f.agent.Route(ctx, workflow.RouteInput{Turn: f.turn})
			if err != nil {
				t.Fatal(err)
			}
			if out.Path != c.path || out.Decline != c.decline {
				t.Fatalf("path %q decline %q, want %q %q", out.Path, out.Decline, c.path, c.decline)
			}
			var codes []string
			for _, n := range out.Notices {
				codes = append(codes, n.Code)
			}
			if (c.notice == "") != (len(codes) == 0) || c.notice != "" && !slices.Contains(codes, c.notice) {
				t.Fatalf("notices %v, want %q", codes, c.notice)
			}
			if c.tools != nil && !slices.Equal(out.Tools, c.tools) { // the fixture has no guide tool
				t.Fatalf("tools %v, want %v", out.Tools, c.tools)
			}
			if c.metric != "" && f.metrics[c.metric] < 1 {
				t.Errorf("metric %s = %v, want a count", c.metric, f.metrics[c.metric])
			}
			if out.Path == workflow.PathBuild {
				return
			}
			in := agentInput(f.turn, out.Result.ExpectedMode, 1)
			in.Route = out
			if _, err := f.agent.Turn(ctx, in); err != nil {
				t.Fatal(err)
			}
			calls := len(m.requests)
			if c.decline != "" && calls != 1 {
				t.Errorf("a declined turn called the model %d times after the router", calls-1)
			}
			if c.decline == "" && calls != 2 {
				t.Errorf("the model was called %d times, want the router and one round", calls)
			}
			if c.decline == "" && out.Path == workflow.PathAgent && len(m.requests[1].Tools) == 0 {
				t.Error("the agent round had no tools")
			}
			cs := f.chunks(t)
			ts := types(cs)
			if c.notice != "" && !slices.Contains(ts, "data-notice") {
				t.Errorf("no data-notice in %v", ts)
			}
			if slices.Contains(ts, "error") {
				t.Errorf("a gated turn failed: %v", ts)
			}
			if c.decline == workflow.DeclineHarmful && (!slices.Contains(ts, "data-guide") || !slices.Contains(ts, "text-delta")) {
				t.Errorf("a declined request lacks its explanation or guide: %v", ts)
			}
		})
	}
}

// TestPrivacyNoteReachesTheModel: the flagged turn's system prompt asks
// the model to leave private details out.
func TestPrivacyNoteReachesTheModel(t *testing.T) {
	m := &scriptedModel{replies: []modelReply{{content: `{"intent":"chat_qa","safetyFlags":["student_privacy"]}`}, {content: "ok"}}}
	f := newFixture(t, m)
	ctx := context.Background()
	out, err := f.agent.Route(ctx, workflow.RouteInput{Turn: f.turn})
	if err != nil {
		t.Fatal(err)
	}
	in := agentInput(f.turn, "answer", 1)
	in.Route = out
	if _, err := f.agent.Turn(ctx, in); err != nil {
		t.Fatal(err)
	}
	if sys := m.requests[1].Messages[0].Content; !strings.Contains(sys, "private information") {
		t.Errorf("the system prompt lacks the privacy note: %q", sys)
	}
}
