package e2e

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/prompts"
)

// TestValidationRetryContract drives the offline model's misbehaviours
// through the whole workflow: seed 000 §7.3.1–7.3.2.
func TestValidationRetryContract(t *testing.T) {
	s := NewLocal(t, nil)
	quiz := []string{"data-tool-progress", "data-quiz-question", "data-quiz-question", "data-quiz-question",
		"data-quiz-question", "data-quiz-question", "data-quiz-complete", "data-tool-progress"}
	failedTool := []string{"data-tool-progress", "data-tool-progress"}
	seq := func(parts ...any) []string {
		var out []string
		for _, p := range parts {
			switch v := p.(type) {
			case string:
				out = append(out, v)
			case []string:
				out = append(out, v...)
			}
		}
		return out
	}
	answer := []string{"start-step", "text-start", "text-delta+", "text-end", "finish-step"}
	refused := []string{"start-step", "finish-step"} // the held-back claim: nothing reaches the teacher
	cases := []struct {
		name         string
		marker       string
		want         []string
		wantArtifact bool
		wantError    bool
		wantWarning  bool
		// agentAttempts is how many agent loops ran (1 or 2: never more).
		agentAttempts int
	}{
		{"says but does not do → one retry → artifact", "[[offline:claim-without-tool]]",
			seq("start", refused, "start-step", quiz, "finish-step", answer, "finish", "[DONE]"), true, false, false, 2},
		{"a failed tool then a false claim → retry → artifact", "[[offline:tool-fails]]",
			seq("start", "start-step", failedTool, "finish-step", refused, "start-step", quiz, "finish-step", answer, "finish", "[DONE]"), true, false, false, 2},
		{"malformed tool arguments → corrected in the same attempt", "[[offline:bad-args]]",
			seq("start", "start-step", failedTool, "finish-step", "start-step", quiz, "finish-step", answer, "finish", "[DONE]"), true, false, false, 1},
		{"soft rule → one retry → accepted with a warning", "[[offline:skip-tools]]",
			seq("start", refused, answer, "finish", "[DONE]"), false, false, true, 2},
		{"second hard failure → error then finish", "[[offline:claim-always]]",
			seq("start", refused, refused, "error", "finish", "[DONE]"), false, true, false, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.Offline.Reset()
			st := postStream(t, s.URL, `{"message":"出 5 道牛顿第一定律的选择题 `+c.marker+`"}`)
			if st.Status != http.StatusOK {
				t.Fatalf("status %d", st.Status)
			}
			types := st.types(t)
			if !slices.Equal(types, c.want) {
				t.Fatalf("chunks\n got %v\nwant %v", types, c.want)
			}
			completes := len(st.data(t, "data-quiz-complete"))
			switch {
			case c.wantArtifact && completes != 1:
				t.Fatalf("%d quiz-complete events, want exactly 1: %v", completes, types)
			case !c.wantArtifact && completes != 0:
				t.Fatalf("unexpected artifact: %v", types)
			}
			hasErr := slices.Contains(types, "error")
			if hasErr != c.wantError {
				t.Fatalf("error chunk present = %v, want %v: %v", hasErr, c.wantError, types)
			}
			fin := st.last(t, "finish")
			if c.wantError {
				if types[len(types)-3] != "error" || fin["finishReason"] != "error" {
					t.Fatalf("want error, finish(error), [DONE] at the end: %v %v", types, fin)
				}
				if st.text(t) != "" {
					t.Fatalf("a refused claim reached the teacher: %q", st.text(t))
				}
			} else if st.text(t) == "" {
				t.Fatalf("no final message: %v", types)
			}
			if c.wantWarning {
				meta, _ := fin["messageMetadata"].(map[string]any)
				if w, _ := meta["warnings"].([]any); len(w) != 1 {
					t.Fatalf("accepted soft failure without a warning: %v", fin)
				}
			}
			loops := 0
			for _, r := range requests(s, offlinemodel.KindAgent) {
				if !slices.ContainsFunc(r.Messages, func(m offlinemodel.Message) bool { return m.Role == "tool" }) {
					loops++ // an agent loop starts with a request that has no tool message yet
				}
			}
			retried := slices.ContainsFunc(requests(s, offlinemodel.KindAgent), func(r offlinemodel.Recorded) bool {
				return slices.ContainsFunc(r.Messages, func(m offlinemodel.Message) bool {
					return m.Role == "tool" && strings.HasPrefix(m.Content, prompts.RefusedPrefix)
				})
			})
			if got := 1 + btoi(retried); got != c.agentAttempts {
				t.Fatalf("%d attempts, want %d", got, c.agentAttempts)
			}
			if loops > 1 {
				t.Fatalf("the retry restarted from scratch instead of continuing the history (%d fresh loops)", loops)
			}
			st.checkIDs(t, 0)
			aiSDK(t, st.Raw)
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestModelHiccups(t *testing.T) {
	s := NewLocal(t, nil)
	t.Run("429 then success", func(t *testing.T) {
		st := postStream(t, s.URL, `{"message":"你好 [[offline:429]]"}`)
		if got := st.types(t); !slices.Equal(got, chatChunks) {
			t.Fatalf("chunks %v", got)
		}
		throttled := 0
		for _, r := range s.Offline.Requests() {
			if r.Status == http.StatusTooManyRequests {
				throttled++
			}
		}
		if throttled == 0 {
			t.Fatal("the model never answered 429")
		}
	})
	t.Run("stream cut in the middle", func(t *testing.T) {
		st := postStream(t, s.URL, `{"message":"出 5 道牛顿第一定律的选择题 [[offline:cut-stream]]"}`)
		if st.Status != http.StatusOK || slices.Contains(st.types(t), "error") {
			t.Fatalf("turn failed: %v", st.types(t))
		}
		cut := slices.ContainsFunc(s.Offline.Requests(), func(r offlinemodel.Recorded) bool { return r.Cut })
		if !cut {
			t.Fatal("the model never cut a stream")
		}
		// The message the teacher reads is the model's message exactly once.
		var final string
		for _, r := range requests(s, offlinemodel.KindAgent) {
			for _, c := range r.ToolCalls {
				if c.Name == prompts.FinalResultTool && !r.Cut {
					final = c.Arguments
				}
			}
		}
		var args struct{ Message string }
		if err := json.Unmarshal([]byte(final), &args); err != nil || args.Message == "" {
			t.Fatalf("final_result arguments %q: %v", final, err)
		}
		if txt := st.text(t); txt != args.Message {
			t.Fatalf("the teacher read %q, the model said %q (nothing may be sent twice or lost)", txt, args.Message)
		}
	})
}
