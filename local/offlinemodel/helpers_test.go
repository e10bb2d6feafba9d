package offlinemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// start runs a Server on a loopback port and returns it with a go-openai
// client pointed at it, as the product's llm package would be.
func start(t *testing.T, opts Options) (*Server, *openai.Client) {
	t.Helper()
	s := New(opts)
	base, shutdown, err := s.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	cfg := openai.DefaultConfig("sk-test-not-a-secret")
	cfg.BaseURL = base
	return s, openai.NewClientWithConfig(cfg)
}

// result is one model response, streamed or not, put back together.
type result struct {
	content string
	calls   []openai.ToolCall
	finish  openai.FinishReason
	deltas  []string // content fragments, when streamed
	// reasoning is the reasoning_content, streamed or not.
	reasoning string
	chunks    int
	usage     *openai.Usage
}

func (r result) call(t *testing.T) openai.ToolCall {
	t.Helper()
	if len(r.calls) != 1 {
		t.Fatalf("want one tool call, got %d (content %q)", len(r.calls), r.content)
	}
	return r.calls[0]
}

// complete sends req streamed or not, and fails the test on an error.
func complete(t *testing.T, c *openai.Client, req openai.ChatCompletionRequest, stream bool) result {
	t.Helper()
	r, err := tryComplete(context.Background(), c, req, stream)
	if err != nil {
		t.Fatalf("chat completion (stream %v): %v", stream, err)
	}
	return r
}

func tryComplete(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest, stream bool) (result, error) {
	if !stream {
		resp, err := c.CreateChatCompletion(ctx, req)
		if err != nil {
			return result{}, err
		}
		if len(resp.Choices) != 1 {
			return result{}, fmt.Errorf("%d choices", len(resp.Choices))
		}
		ch := resp.Choices[0]
		return result{content: ch.Message.Content, calls: ch.Message.ToolCalls, finish: ch.FinishReason, usage: &resp.Usage,
			reasoning: ch.Message.ReasoningContent}, nil
	}
	req.Stream = true
	st, err := c.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return result{}, err
	}
	defer st.Close()
	var r result
	var sb strings.Builder
	for i := 0; ; i++ {
		if i > 100_000 {
			return r, errors.New("stream does not end")
		}
		chunk, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			r.content = sb.String()
			return r, err
		}
		r.chunks++
		if chunk.Usage != nil {
			r.usage = chunk.Usage
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		ch := chunk.Choices[0]
		if i == 0 && ch.Delta.Role != openai.ChatMessageRoleAssistant {
			return r, fmt.Errorf("first delta has role %q", ch.Delta.Role)
		}
		r.reasoning += ch.Delta.ReasoningContent
		if ch.Delta.Content != "" {
			if !utf8.ValidString(ch.Delta.Content) {
				return r, fmt.Errorf("fragment %q is not valid UTF-8", ch.Delta.Content)
			}
			r.deltas = append(r.deltas, ch.Delta.Content)
			sb.WriteString(ch.Delta.Content)
		}
		for _, tc := range ch.Delta.ToolCalls {
			if tc.Index == nil {
				return r, errors.New("streamed tool call without index")
			}
			for len(r.calls) <= *tc.Index {
				r.calls = append(r.calls, openai.ToolCall{})
			}
			acc := &r.calls[*tc.Index]
			if tc.ID != "" {
				acc.ID, acc.Type = tc.ID, tc.Type
			}
			if tc.Function.Name != "" {
				acc.Function.Name = tc.Function.Name
			}
			if !utf8.ValidString(tc.Function.Arguments) {
				return r, fmt.Errorf("argument fragment %q is not valid UTF-8", tc.Function.Arguments)
			}
			acc.Function.Arguments += tc.Function.Arguments
		}
		if ch.FinishReason != "" {
			r.finish = ch.FinishReason
		}
	}
	r.content = sb.String()
	return r, nil
}

func system(header, body string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: header + "\n" + body}
}

func user(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: s}
}

func historyMessage(lines ...string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem,
		Content: prompts.HistoryHeader + "\n" + strings.Join(lines, "\n")}
}

const routerPrompt = `You classify the teacher's message. Answer with one JSON object.

Intents:
- chat_smalltalk: greetings and thanks
- chat_qa: a knowledge question
- quiz_generate: quiz questions

Available generation tools:
- generate_quiz_questions: write quiz questions on a topic
- propose_pptx_outline: propose the outline of a slide deck
- generate_pptx: build a slide deck
- generate_docx: write a Word document
- request_interactive_content: build an interactive web page

Answer in the teacher's language.`

func routerRequest(msg string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model:    "offline-standard",
		Messages: []openai.ChatCompletionMessage{system(prompts.RouterHeader, routerPrompt), user(msg)},
	}
}

// routed reads a router answer as the product does.
func routed(t *testing.T, answer string) workflow.RouterResult {
	t.Helper()
	r, err := workflow.ParseRouterAnswer(answer)
	if err != nil {
		t.Fatalf("router answer %q: %v", answer, err)
	}
	return r
}

func fn(name, desc string, props map[string]jsonschema.Definition, required ...string) openai.Tool {
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: name, Description: desc,
		Parameters: jsonschema.Definition{Type: jsonschema.Object, Properties: props, Required: required},
	}}
}

func strProp(desc string) jsonschema.Definition {
	return jsonschema.Definition{Type: jsonschema.String, Description: desc}
}

// agentTools are the tools the product offers the agent: the base data
// tools, the quiz tool and final_result.
func agentTools() []openai.Tool {
	none := map[string]jsonschema.Definition{}
	return []openai.Tool{
		fn("get_teacher_classes", "the teacher's classes", none),
		fn("get_class_detail", "a class, its students and assignments", map[string]jsonschema.Definition{"classId": strProp("class id or name")}, "classId"),
		fn("get_assignment_submissions", "submissions of an assignment", map[string]jsonschema.Definition{"assignmentId": strProp("")}, "assignmentId"),
		fn("get_student_grades", "a student's grades", map[string]jsonschema.Definition{"studentId": strProp("")}, "studentId"),
		fn("analyze_student_weakness", "weakest students of a class", map[string]jsonschema.Definition{"classId": strProp(""), "skill": strProp("")}, "classId"),
		fn("get_student_error_patterns", "a student's error patterns", map[string]jsonschema.Definition{"studentId": strProp("")}, "studentId"),
		fn("search_teacher_documents", "search documents", map[string]jsonschema.Definition{"query": strProp("")}, "query"),
		fn("list_available_rubrics", "rubrics", none),
		fn("get_rubric", "one rubric", map[string]jsonschema.Definition{"rubricId": strProp("")}, "rubricId"),
		fn("generate_quiz_questions", "write quiz questions", map[string]jsonschema.Definition{
			"topic":        strProp(""),
			"count":        {Type: jsonschema.Integer},
			"questionType": {Type: jsonschema.String, Enum: []string{"single_choice", "multiple_choice", "true_false", "fill_blank", "short_answer"}},
			"difficulty":   {Type: jsonschema.String, Enum: []string{"easy", "medium", "hard"}},
			"subject":      strProp(""),
			"grade":        strProp(""),
		}, "topic", "count", "questionType", "difficulty", "subject"),
		fn(prompts.FinalResultTool, "end the turn", map[string]jsonschema.Definition{
			"status":    {Type: jsonschema.String, Enum: []string{"answer_ready", "artifact_ready", "clarify_needed"}},
			"message":   strProp(""),
			"artifacts": {Type: jsonschema.Array, Items: &jsonschema.Definition{Type: jsonschema.String}},
			"clarify": {Type: jsonschema.Object, Properties: map[string]jsonschema.Definition{
				"question": strProp(""), "options": {Type: jsonschema.Array, Items: &jsonschema.Definition{Type: jsonschema.String}}, "hint": strProp(""),
			}},
		}, "status", "message"),
	}
}

// fakeTool answers a tool call the way the product's tools would (an edge
// of the system under test).
func fakeTool(name, args string) string {
	var in map[string]any
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return `{"error":"invalid arguments: ` + strings.ReplaceAll(err.Error(), `"`, `'`) + `"}`
	}
	switch name {
	case "get_teacher_classes":
		return `{"teacherId":"t-1","classes":[{"classId":"c-1a","name":"1A","grade":"七年级","subject":"英语","studentCount":4},{"classId":"c-1b","name":"1B","grade":"七年级","subject":"物理","studentCount":3}]}`
	case "analyze_student_weakness":
		return `{"classId":"c-1a","skill":"grammar","students":[` +
			`{"studentId":"s-3","studentName":"王芳","average":52.5,"weakestSkill":"grammar"},` +
			`{"studentId":"s-1","studentName":"Li Lei","average":58,"weakestSkill":"grammar"},` +
			`{"studentId":"s-4","studentName":"张伟","average":61.25,"weakestSkill":"vocabulary"},` +
			`{"studentId":"s-2","studentName":"Han Meimei","average":80,"weakestSkill":"reading"}]}`
	case "get_class_detail":
		return `{"class":{"classId":"c-1a","name":"1A"},"students":[{"studentId":"s-1","name":"Li Lei"},{"studentId":"s-2","name":"Han Meimei"}],` +
			`"assignments":[{"assignmentId":"a-1","title":"Unit 1 test","subject":"英语","dueDate":"2026-09-10","maxScore":100},` +
			`{"assignmentId":"a-2","title":"Unit 2 test","subject":"英语","dueDate":"2026-10-08","maxScore":100}]}`
	case "get_assignment_submissions":
		return `{"assignmentId":"` + fmt.Sprint(in["assignmentId"]) + `","title":"Unit 2 test","submissions":[` +
			`{"studentId":"s-1","studentName":"Li Lei","score":66,"maxScore":100},{"studentId":"s-2","studentName":"Han Meimei","score":91,"maxScore":100}],` +
			`"stats":{"count":2,"mean":78.5,"median":78.5,"min":66,"max":91}}`
	case "list_available_rubrics":
		return `{"rubrics":[{"rubricId":"r-1","name":"Essay rubric"},{"rubricId":"r-2","name":"Lab report rubric"}]}`
	case "search_teacher_documents":
		return `{"query":` + mustJSON(in["query"]) + `,"results":[{"documentId":"d-1","title":"Fractions lesson 1"}]}`
	case "generate_quiz_questions":
		n, _ := in["count"].(float64)
		if n < 1 || n > 20 {
			return `{"error":"count must be between 1 and 20"}`
		}
		return fmt.Sprintf(`{"total":%d,"topic":%q}`, int(n), in["topic"])
	}
	return `{"error":"unknown tool ` + name + `"}`
}

// turn is one agent turn played against the server.
type turn struct {
	calls    []openai.ToolCall // every tool call, final_result included, in order
	finals   []finalResult     // each final_result's arguments
	refusals int
	text     string // a plain-text answer, if the agent gave one
}

func (tn turn) names() []string {
	var out []string
	for _, c := range tn.calls {
		out = append(out, c.Function.Name)
	}
	return out
}

func (tn turn) last() finalResult {
	if len(tn.finals) == 0 {
		return finalResult{}
	}
	return tn.finals[len(tn.finals)-1]
}

// validate is the test's stand-in for the product's validate_terminal_state:
// it returns a refusal reason, or "".
type validate func(fr finalResult, attemptCalls []openai.ToolCall, results map[string]string) string

// artifactRule refuses artifact_ready without a successful generation call,
// and (softly) answer_ready with no generation call at all.
func artifactRule(expectArtifact bool) validate {
	return func(fr finalResult, calls []openai.ToolCall, results map[string]string) string {
		var generated, called bool
		for _, c := range calls {
			if c.Function.Name == "generate_quiz_questions" {
				called = true
				if failed, _ := toolFailed(results[c.ID]); !failed {
					generated = true
				}
			}
		}
		switch {
		case fr.Status == statusArtifact && !generated:
			return "artifact_ready but no artifact event"
		case expectArtifact && fr.Status == statusAnswer && !called:
			return "expected an artifact but no tool was called"
		}
		return ""
	}
}

// playAgent runs an agent turn the way the product does: one model call per
// round, tools run by fakeTool, final_result validated, one retry with the
// same turn's history after a refusal.
func playAgent(t *testing.T, c *openai.Client, stream bool, msg string, history []string, check validate) turn {
	t.Helper()
	msgs := []openai.ChatCompletionMessage{system(prompts.AgentHeader, "You are a teaching agent. End every turn with final_result.")}
	if len(history) > 0 {
		msgs = append(msgs, historyMessage(history...))
	}
	msgs = append(msgs, user(msg))
	var tn turn
	var attempt []openai.ToolCall
	results := map[string]string{}
	for round := 0; round < 12; round++ {
		r := complete(t, c, openai.ChatCompletionRequest{Model: "offline-standard", Messages: msgs, Tools: agentTools()}, stream)
		if len(r.calls) == 0 {
			tn.text = r.content
			return tn
		}
		tc := r.call(t)
		if !strings.HasPrefix(tc.ID, "call_") || tc.Type != openai.ToolTypeFunction {
			t.Fatalf("tool call id %q type %q", tc.ID, tc.Type)
		}
		tn.calls = append(tn.calls, tc)
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{tc}})
		if tc.Function.Name != prompts.FinalResultTool {
			out := fakeTool(tc.Function.Name, tc.Function.Arguments)
			attempt = append(attempt, tc)
			results[tc.ID] = out
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: out})
			continue
		}
		var fr finalResult
		if err := json.Unmarshal([]byte(tc.Function.Arguments), &fr); err != nil {
			t.Fatalf("final_result arguments %q: %v", tc.Function.Arguments, err)
		}
		tn.finals = append(tn.finals, fr)
		reason := ""
		if check != nil {
			reason = check(fr, attempt, results)
		}
		if reason == "" || tn.refusals == 1 {
			return tn
		}
		tn.refusals++
		attempt = nil // the retry counts its own calls (seed 000 §7.3.2)
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID,
			Content: prompts.RefusedPrefix + " " + reason})
	}
	t.Fatal("the agent turn did not end in 12 rounds")
	return tn
}

func argsOf(t *testing.T, tc openai.ToolCall) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(tc.Function.Arguments), &m); err != nil {
		t.Fatalf("%s arguments %q: %v", tc.Function.Name, tc.Function.Arguments, err)
	}
	return m
}

func bothModes(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) { f(t, stream) })
	}
}
