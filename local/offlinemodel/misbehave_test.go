package offlinemodel

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

func TestMisbehavioursInTheAgentLoop(t *testing.T) {
	const quiz = "出 5 道牛顿第一定律的选择题 "
	tests := []struct {
		name     string
		msg      string
		calls    []string
		statuses []string // of each final_result in order
		refusals int
		answer   bool // the router would expect an answer, not an artifact
		check    func(t *testing.T, tn turn)
	}{
		{
			name: "claim without tool, then behave after the refusal", msg: quiz + string(MarkerClaimWithoutTool),
			calls:    []string{"final_result", "generate_quiz_questions", "final_result"},
			statuses: []string{statusArtifact, statusArtifact}, refusals: 1,
		},
		{
			name: "claim always", msg: quiz + string(MarkerClaimAlways),
			calls:    []string{"final_result", "final_result"},
			statuses: []string{statusArtifact, statusArtifact}, refusals: 1,
		},
		{
			name: "skip tools on every attempt", msg: string(MarkerSkipTools) + " Create 3 multiple-choice questions about photosynthesis",
			calls:    []string{"final_result", "final_result"},
			statuses: []string{statusAnswer, statusAnswer}, refusals: 1,
			check: func(t *testing.T, tn turn) {
				if !strings.Contains(tn.finals[0].Message, "Which gas do plants take in") {
					t.Errorf("the text answer does not carry the questions: %q", tn.finals[0].Message)
				}
			},
		},
		{
			name: "tool fails, claimed anyway, then called properly", msg: quiz + string(MarkerToolFails),
			calls:    []string{"generate_quiz_questions", "final_result", "generate_quiz_questions", "final_result"},
			statuses: []string{statusArtifact, statusArtifact}, refusals: 1,
			check: func(t *testing.T, tn turn) {
				if n := argsOf(t, tn.calls[0])["count"]; n != 0.0 {
					t.Errorf("first count = %v, want 0", n)
				}
				if n := argsOf(t, tn.calls[2])["count"]; n != 5.0 {
					t.Errorf("second count = %v, want 5", n)
				}
				if tn.calls[0].ID == tn.calls[2].ID {
					t.Error("the retried call reuses the failed call's id")
				}
			},
		},
		{
			name: "bad arguments, then proper ones", msg: quiz + string(MarkerBadArgs),
			calls:    []string{"generate_quiz_questions", "generate_quiz_questions", "final_result"},
			statuses: []string{statusArtifact},
			check: func(t *testing.T, tn turn) {
				if json.Valid([]byte(tn.calls[0].Function.Arguments)) {
					t.Errorf("first arguments are valid JSON: %s", tn.calls[0].Function.Arguments)
				}
				if argsOf(t, tn.calls[1])["topic"] != "牛顿第一定律" {
					t.Errorf("second arguments %s", tn.calls[1].Function.Arguments)
				}
			},
		},
		{
			name: "bad arguments on a data question", msg: "1A 班哪些学生语法最弱？" + string(MarkerBadArgs),
			calls:    []string{"analyze_student_weakness", "analyze_student_weakness", "final_result"},
			statuses: []string{statusAnswer}, answer: true,
		},
		{
			name: "an unknown marker is ignored", msg: quiz + "[[offline:no-such-thing]]",
			calls:    []string{"generate_quiz_questions", "final_result"},
			statuses: []string{statusArtifact},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bothModes(t, func(t *testing.T, stream bool) {
				_, c := start(t, Options{})
				tn := playAgent(t, c, stream, tt.msg, nil, artifactRule(!tt.answer))
				if !slices.Equal(tn.names(), tt.calls) {
					t.Fatalf("calls = %v, want %v", tn.names(), tt.calls)
				}
				var statuses []string
				for _, f := range tn.finals {
					statuses = append(statuses, f.Status)
					if strings.Contains(f.Message, "[[offline:") {
						t.Errorf("message echoes a marker: %q", f.Message)
					}
				}
				if !slices.Equal(statuses, tt.statuses) || tn.refusals != tt.refusals {
					t.Fatalf("statuses %v refusals %d, want %v %d", statuses, tn.refusals, tt.statuses, tt.refusals)
				}
				if tt.check != nil {
					tt.check(t, tn)
				}
			})
		})
	}
}

func TestThrottleOncePerBody(t *testing.T) {
	bothModes(t, func(t *testing.T, stream bool) {
		s, c := start(t, Options{})
		req := routerRequest("你好 " + string(MarkerThrottle))
		_, err := tryComplete(context.Background(), c, req, stream)
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusTooManyRequests {
			t.Fatalf("first call: %v, want a 429 APIError", err)
		}
		r := complete(t, c, req, stream)
		if rr := routed(t, r.content); rr.Intent != workflow.IntentSmalltalk {
			t.Fatalf("second call %q: intent %q", r.content, rr.Intent)
		}
		rec := s.Requests()
		if len(rec) != 2 || rec[0].Status != http.StatusTooManyRequests || rec[1].Status != http.StatusOK ||
			!slices.Equal(rec[0].Markers, []Marker{MarkerThrottle}) {
			t.Fatalf("recorded %+v", rec)
		}
	})
}

func TestThrottleHeaders(t *testing.T) {
	s := New(Options{})
	base, shutdown, err := s.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	body := `{"model":"x","messages":[{"role":"user","content":"hi [[offline:429]]"}]}`
	for i, want := range []int{429, 200} {
		resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("request %d: status %d, want %d", i, resp.StatusCode, want)
		}
		if want == 429 {
			var e apiError
			if resp.Header.Get("Retry-After") != "0" || json.Unmarshal(b, &e) != nil || e.Error.Type != "rate_limit_error" {
				t.Fatalf("429 headers %v body %s", resp.Header, b)
			}
		}
	}
}

func TestCutStreamOnce(t *testing.T) {
	s, c := start(t, Options{})
	msgs := []openai.ChatCompletionMessage{system(prompts.AgentHeader, ""), user("什么是光合作用？" + string(MarkerCutStream))}
	req := openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: agentTools()}

	r, err := tryComplete(context.Background(), c, req, true)
	if err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("cut stream ended with %v, want a stream error", err)
	}
	if len(r.calls) != 1 || !strings.Contains(r.calls[0].Function.Arguments, `"message":"`) || json.Valid([]byte(r.calls[0].Function.Arguments)) {
		t.Fatalf("before the cut got %+v", r.calls)
	}
	partial := r.calls[0].Function.Arguments

	full := complete(t, c, req, true)
	args := argsOf(t, full.call(t))
	if args["status"] != statusAnswer || !strings.Contains(args["message"].(string), "叶绿体") {
		t.Fatalf("second stream %v", args)
	}
	if !strings.HasPrefix(full.calls[0].Function.Arguments, partial) {
		t.Errorf("the cut stream was not a prefix of the full one")
	}
	rec := s.Requests()
	if len(rec) != 2 || !rec[0].Cut || rec[1].Cut || rec[0].Cancelled {
		t.Fatalf("recorded cut flags %v %v", rec[0].Cut, rec[1].Cut)
	}
	// Not streamed: never cut.
	if r := complete(t, c, req, false); len(r.calls) != 1 {
		t.Fatalf("non-streamed: %+v", r)
	}
}

func TestCancelledMidStream(t *testing.T) {
	s, c := start(t, Options{})
	req := openai.ChatCompletionRequest{Model: "m", Stream: true, Messages: []openai.ChatCompletionMessage{
		system(prompts.ChatHeader, ""), user("什么是牛顿第一定律？" + string(MarkerSlow)),
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := c.CreateChatCompletionStream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := st.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	st.Close()

	deadline := time.Now().Add(10 * time.Second)
	for s.Cancelled() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("Cancelled() = %d after the client went away", s.Cancelled())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rec := s.Requests(); len(rec) != 1 || !rec[0].Cancelled {
		t.Fatalf("recorded %+v", rec)
	}
	s.Reset()
	if s.Cancelled() != 0 || len(s.Requests()) != 0 {
		t.Fatal("Reset kept state")
	}
}

func TestMarkerTableIsComplete(t *testing.T) {
	seen := map[Marker]bool{}
	for _, m := range misbehaviours() {
		if seen[m.marker] || !strings.HasPrefix(string(m.marker), "[[offline:") || stripMarkers("a "+string(m.marker)+" b") != "a b" {
			t.Errorf("marker %q", m.marker)
		}
		seen[m.marker] = true
	}
	if len(seen) != 23 {
		t.Errorf("%d markers", len(seen))
	}
}
