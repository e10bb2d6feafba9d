package agent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

func set(xs ...string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// artifactFacts declares tools as the real packs do: validation reads the
// facts on the tool, not a list of names.
var artifactFacts = func() *tools.Registry {
	noop := func(context.Context, tools.Call, struct{}) (tools.Result, error) { return tools.Result{}, nil }
	return tools.NewRegistry(
		tools.Define("get_teacher_classes", "", tools.Base, i18n.None, noop),
		tools.Define("generate_quiz_questions", "", tools.Generation, i18n.None, noop).Emitting(protocol.DataQuizQuestion, protocol.DataQuizComplete),
		tools.Define("generate_pptx", "", tools.Generation, i18n.None, noop).Emitting(protocol.DataFileReady),
		tools.Define("generate_docx", "", tools.Generation, i18n.None, noop).Emitting(protocol.DataFileReady),
	)
}()

// TestValidateTerminalState is seed 000 §7.3.1 rule by rule.
func TestValidateTerminalState(t *testing.T) {
	clarify := &workflow.Clarify{Question: "哪个班？"}
	cases := []struct {
		name    string
		r       FinalResult
		emitted map[string]bool
		called  string
		mode    string
		want    error
	}{
		{"artifact with its event", FinalResult{Status: StatusArtifactReady}, set("data-quiz-complete"), "generate_quiz_questions", "artifact", nil},
		{"artifact with an event only", FinalResult{Status: StatusArtifactReady}, set("data-file-ready"), "", "artifact", nil},
		{"artifact claimed with nothing", FinalResult{Status: StatusArtifactReady}, set(), "", "artifact", ErrRetryNeeded},
		{"artifact claimed with only data tools", FinalResult{Status: StatusArtifactReady}, set(), "get_teacher_classes", "artifact", ErrRetryNeeded},
		{"artifact tool called but no event", FinalResult{Status: StatusArtifactReady}, set(), "generate_pptx", "artifact", ErrRetryNeeded},
		{"non-artifact data event does not count", FinalResult{Status: StatusArtifactReady}, set("data-quiz-question", "data-tool-progress"), "", "answer", ErrRetryNeeded},
		{"clarify with question", FinalResult{Status: StatusClarifyNeeded, Clarify: clarify}, set(), "", "artifact", nil},
		{"clarify without payload", FinalResult{Status: StatusClarifyNeeded}, set(), "", "answer", ErrRetryNeeded},
		{"clarify with empty question", FinalResult{Status: StatusClarifyNeeded, Clarify: &workflow.Clarify{}}, set(), "", "answer", ErrRetryNeeded},
		{"answer when answer expected", FinalResult{Status: StatusAnswerReady}, set(), "", "answer", nil},
		{"answer when artifact expected, no tool", FinalResult{Status: StatusAnswerReady}, set(), "", "artifact", ErrSoftRetryNeeded},
		{"answer when artifact expected, tool called", FinalResult{Status: StatusAnswerReady}, set(), "generate_docx", "artifact", nil},
		{"answer when artifact expected, event present", FinalResult{Status: StatusAnswerReady}, set("data-pptx-outline"), "", "artifact", nil},
		{"unknown status", FinalResult{Status: "done"}, set(), "", "answer", ErrRetryNeeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateTerminalState(c.r, Evidence{Emitted: c.emitted, ArtifactToolCalled: artifactFacts.IsArtifact(c.called)}, c.mode)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if errors.Is(err, ErrRetryNeeded) && errors.Is(err, ErrSoftRetryNeeded) {
				t.Fatal("an error is hard or soft, not both")
			}
		})
	}
}

// TestDecide is the retry contract of §7.3.2: one retry in total.
func TestDecide(t *testing.T) {
	cases := []struct {
		err     error
		attempt int
		verdict string
	}{
		{nil, 1, workflow.VerdictOK},
		{nil, 2, workflow.VerdictOK},
		{ErrRetryNeeded, 1, workflow.VerdictRetry},
		{ErrRetryNeeded, 2, workflow.VerdictGiveUp},
		{ErrSoftRetryNeeded, 1, workflow.VerdictRetry},
		{ErrSoftRetryNeeded, 2, workflow.VerdictAccept},
		{ErrSoftRetryNeeded, 3, workflow.VerdictAccept},
	}
	for _, c := range cases {
		if got := Decide(c.err, c.attempt); got.Verdict != c.verdict {
			t.Errorf("Decide(%v, %d) = %s, want %s", c.err, c.attempt, got.Verdict, c.verdict)
		}
	}
}

func TestFinalResultToolSchema(t *testing.T) {
	tool := finalResultTool()
	b, err := json.Marshal(tool.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Required   []string
		Properties map[string]struct{ Enum []string }
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Properties["status"].Enum) != 3 || len(s.Required) != 2 {
		t.Fatalf("final_result schema: %s", b)
	}
}

func TestParseFinal(t *testing.T) {
	cases := []struct {
		name, args string
		want       FinalResult
		malformed  bool
	}{
		{"valid", `{"status":"answer_ready","message":"好","artifacts":["quiz"]}`, FinalResult{Status: StatusAnswerReady, Message: "好", Artifacts: []string{"quiz"}}, false},
		{"broken tail, status and message complete", `{"status":"artifact_ready","message":"已生成","artifacts":[qu`, FinalResult{Status: StatusArtifactReady, Message: "已生成"}, false},
		{"message cut", `{"status":"answer_ready","message":"已生`, FinalResult{}, true},
		{"clarify is not salvaged", `{"status":"clarify_needed","message":"哪个班？","clarify":{"question":`, FinalResult{}, true},
		{"not JSON", `status: done`, FinalResult{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, malformed := parseFinal(c.args)
			if (malformed != "") != c.malformed || got.Status != c.want.Status || got.Message != c.want.Message || len(got.Artifacts) != len(c.want.Artifacts) {
				t.Fatalf("got %+v %q", got, malformed)
			}
		})
	}
}
