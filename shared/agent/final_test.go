package agent

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/insightedge/insightedge/shared/workflow"
)

func set(xs ...string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// TestValidateTerminalState is seed 000 §7.3.1 rule by rule.
func TestValidateTerminalState(t *testing.T) {
	clarify := &workflow.Clarify{Question: "哪个班？"}
	cases := []struct {
		name    string
		r       FinalResult
		emitted map[string]bool
		called  map[string]bool
		mode    string
		want    error
	}{
		{"artifact with its event", FinalResult{Status: StatusArtifactReady}, set("data-quiz-complete"), set("generate_quiz_questions"), "artifact", nil},
		{"artifact with an event only", FinalResult{Status: StatusArtifactReady}, set("data-file-ready"), set(), "artifact", nil},
		{"artifact claimed with nothing", FinalResult{Status: StatusArtifactReady}, set(), set(), "artifact", ErrRetryNeeded},
		{"artifact claimed with only data tools", FinalResult{Status: StatusArtifactReady}, set(), set("get_teacher_classes"), "artifact", ErrRetryNeeded},
		{"artifact tool called but no event", FinalResult{Status: StatusArtifactReady}, set(), set("generate_pptx"), "artifact", ErrRetryNeeded},
		{"non-artifact data event does not count", FinalResult{Status: StatusArtifactReady}, set("data-quiz-question", "data-tool-progress"), set(), "answer", ErrRetryNeeded},
		{"clarify with question", FinalResult{Status: StatusClarifyNeeded, Clarify: clarify}, set(), set(), "artifact", nil},
		{"clarify without payload", FinalResult{Status: StatusClarifyNeeded}, set(), set(), "answer", ErrRetryNeeded},
		{"clarify with empty question", FinalResult{Status: StatusClarifyNeeded, Clarify: &workflow.Clarify{}}, set(), set(), "answer", ErrRetryNeeded},
		{"answer when answer expected", FinalResult{Status: StatusAnswerReady}, set(), set(), "answer", nil},
		{"answer when artifact expected, no tool", FinalResult{Status: StatusAnswerReady}, set(), set(), "artifact", ErrSoftRetryNeeded},
		{"answer when artifact expected, tool called", FinalResult{Status: StatusAnswerReady}, set(), set("generate_docx"), "artifact", nil},
		{"answer when artifact expected, event present", FinalResult{Status: StatusAnswerReady}, set("data-pptx-outline"), set(), "artifact", nil},
		{"unknown status", FinalResult{Status: "done"}, set(), set(), "answer", ErrRetryNeeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateTerminalState(c.r, c.emitted, c.called, c.mode)
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
