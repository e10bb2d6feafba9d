package offlinemodel

import (
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"

	"github.com/insightedge/insightedge/shared/prompts"
)

func TestAgentScenarios(t *testing.T) {
	tests := []struct {
		name      string
		msg       string
		history   []string
		wantCalls []string
		wantArgs  map[string]map[string]any // tool → arguments that must be present
		status    string
		contains  []string
		artifacts []string
	}{
		{
			name: "quiz zh", msg: "出 5 道牛顿第一定律的选择题",
			wantCalls: []string{"generate_quiz_questions", "final_result"},
			wantArgs: map[string]map[string]any{"generate_quiz_questions": {
				"topic": "牛顿第一定律", "count": 5.0, "questionType": "single_choice", "difficulty": "medium", "subject": "物理"}},
			status: statusArtifact, contains: []string{"5 道", "牛顿第一定律"}, artifacts: []string{"quiz"},
		},
		{
			name: "quiz en", msg: "Create 3 multiple-choice questions about photosynthesis",
			wantCalls: []string{"generate_quiz_questions", "final_result"},
			wantArgs: map[string]map[string]any{"generate_quiz_questions": {
				"topic": "photosynthesis", "count": 3.0, "questionType": "single_choice", "difficulty": "medium", "subject": "Biology"}},
			status: statusArtifact, contains: []string{"3 multiple-choice questions", "photosynthesis"}, artifacts: []string{"quiz"},
		},
		{
			name: "quiz follow-up takes the topic from the history", msg: "再出 3 道",
			history:   []string{"- 老师：出 5 道牛顿第一定律的判断题", "- 助手：已为你生成 5 道关于「牛顿第一定律」的判断题。"},
			wantCalls: []string{"generate_quiz_questions", "final_result"},
			wantArgs: map[string]map[string]any{"generate_quiz_questions": {
				"topic": "牛顿第一定律", "count": 3.0, "questionType": "true_false"}},
			status: statusArtifact, contains: []string{"3 道", "牛顿第一定律"},
		},
		{
			name: "quiz other topic with grade and difficulty", msg: "给初二学生出 4 道关于一次函数的填空题，难一点",
			wantCalls: []string{"generate_quiz_questions", "final_result"},
			wantArgs: map[string]map[string]any{"generate_quiz_questions": {
				"topic": "一次函数", "count": 4.0, "questionType": "fill_blank", "difficulty": "hard", "subject": "数学", "grade": "初二"}},
			status: statusArtifact, contains: []string{"4 道", "一次函数", "填空题"},
		},
		{
			name: "weakest students zh", msg: "1A 班哪些学生语法最弱？",
			wantCalls: []string{"analyze_student_weakness", "final_result"},
			wantArgs:  map[string]map[string]any{"analyze_student_weakness": {"classId": "1A", "skill": "grammar"}},
			status:    statusAnswer, contains: []string{"王芳", "52.5", "Li Lei", "58", "张伟", "61.3", "语法"},
		},
		{
			name: "weakest students en", msg: "Which students in 1A are weakest in grammar?",
			wantCalls: []string{"analyze_student_weakness", "final_result"},
			wantArgs:  map[string]map[string]any{"analyze_student_weakness": {"classId": "1A", "skill": "grammar"}},
			status:    statusAnswer, contains: []string{"王芳", "average 52.5", "Li Lei", "张伟"},
		},
		{
			name: "classes", msg: "我有哪些班？",
			wantCalls: []string{"get_teacher_classes", "final_result"},
			status:    statusAnswer, contains: []string{"2 个班", "1A", "1B", "4 名学生"},
		},
		{
			name: "latest assignment scores", msg: "How did Form 1A do on the latest assignment?",
			wantCalls: []string{"get_class_detail", "get_assignment_submissions", "final_result"},
			wantArgs: map[string]map[string]any{
				"get_class_detail":           {"classId": "1A"},
				"get_assignment_submissions": {"assignmentId": "a-2"},
			},
			status: statusAnswer, contains: []string{"Unit 2 test", "78.5", "Li Lei (66)"},
		},
		{
			name: "ambiguous zh asks which class", msg: "帮我给班上出一份练习",
			wantCalls: []string{"get_teacher_classes", "final_result"},
			status:    statusClarify, contains: []string{"哪个班"},
		},
		{
			name: "ambiguous en asks which class", msg: "make a worksheet for my class",
			wantCalls: []string{"get_teacher_classes", "final_result"},
			status:    statusClarify, contains: []string{"Which class"},
		},
		{
			name: "students of a class", msg: "1A 班有哪些学生？",
			wantCalls: []string{"get_class_detail", "final_result"},
			wantArgs:  map[string]map[string]any{"get_class_detail": {"classId": "1A"}},
			status:    statusAnswer, contains: []string{"2 名学生", "Li Lei、Han Meimei", "2 份作业"},
		},
		{
			name: "rubrics", msg: "What rubrics do I have?",
			wantCalls: []string{"list_available_rubrics", "final_result"},
			status:    statusAnswer, contains: []string{"2 rubrics", "Essay rubric"},
		},
		{
			name: "documents", msg: "search my documents for fractions",
			wantCalls: []string{"search_teacher_documents", "final_result"},
			wantArgs:  map[string]map[string]any{"search_teacher_documents": {"query": "search my documents for fractions"}},
			status:    statusAnswer, contains: []string{"Fractions lesson 1"},
		},
		{
			name: "knowledge question needs no tool", msg: "什么是勾股定理？",
			wantCalls: []string{"final_result"},
			status:    statusAnswer, contains: []string{"a² + b² = c²"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bothModes(t, func(t *testing.T, stream bool) {
				_, c := start(t, Options{})
				tn := playAgent(t, c, stream, tt.msg, tt.history, nil)
				if got := tn.names(); !slices.Equal(got, tt.wantCalls) {
					t.Fatalf("calls = %v, want %v", got, tt.wantCalls)
				}
				for _, call := range tn.calls {
					for k, want := range tt.wantArgs[call.Function.Name] {
						if got := argsOf(t, call)[k]; got != want {
							t.Errorf("%s %s = %v, want %v (args %s)", call.Function.Name, k, got, want, call.Function.Arguments)
						}
					}
				}
				fr := tn.last()
				if fr.Status != tt.status {
					t.Fatalf("status = %q, want %q (message %q)", fr.Status, tt.status, fr.Message)
				}
				for _, s := range tt.contains {
					if !strings.Contains(fr.Message, s) {
						t.Errorf("message %q does not contain %q", fr.Message, s)
					}
				}
				if tt.artifacts != nil && !slices.Equal(fr.Artifacts, tt.artifacts) {
					t.Errorf("artifacts = %v, want %v", fr.Artifacts, tt.artifacts)
				}
				if tt.status == statusClarify {
					if fr.Clarify == nil || fr.Clarify.Question == "" || fr.Clarify.Hint != "needClassId" {
						t.Fatalf("clarify = %+v", fr.Clarify)
					}
					for _, want := range []string{"1A", "1B"} {
						if !slices.Contains(fr.Clarify.Options, want) {
							t.Errorf("clarify options %v lack %q", fr.Clarify.Options, want)
						}
					}
				}
			})
		})
	}
}

// afterFirstCall asks the agent about msg and answers its first tool call
// with result: the conversation so far.
func afterFirstCall(t *testing.T, c *openai.Client, msg string, result func(openai.ToolCall) string) []openai.ChatCompletionMessage {
	t.Helper()
	msgs := []openai.ChatCompletionMessage{system(prompts.AgentHeader, ""), user(msg)}
	first := complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: agentTools()}, false).call(t)
	return append(msgs,
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{first}},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: first.ID, Content: result(first)})
}

func TestAgentExplainsAToolError(t *testing.T) {
	_, c := start(t, Options{})
	msgs := afterFirstCall(t, c, "出 5 道牛顿第一定律的选择题",
		func(openai.ToolCall) string {
			return `{"error":"quiz service unavailable","teacherMessage":"出题暂不可用，请稍后再试。"}`
		})
	final := complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: agentTools()}, true).call(t)
	if final.Function.Name != prompts.FinalResultTool {
		t.Fatalf("called %s, want final_result", final.Function.Name)
	}
	args := argsOf(t, final)
	msg := args["message"].(string)
	if args["status"] != statusAnswer || !strings.Contains(msg, "出题暂不可用") {
		t.Fatalf("final_result = %v, want the product's teacherMessage relayed", args)
	}
	if strings.Contains(msg, "quiz service") || strings.Contains(msg, toolQuiz) {
		t.Errorf("the teacher reads internals: %q", msg)
	}
}

func TestAgentExplainsADataToolError(t *testing.T) {
	_, c := start(t, Options{})
	msgs := afterFirstCall(t, c, "which students in 1A are weakest in grammar?",
		func(openai.ToolCall) string { return `{"error":"class 1A not found"}` })
	args := argsOf(t, complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: agentTools()}, false).call(t))
	// Without the product's words for the teacher, a plain apology: no
	// tool name, no error text.
	if msg := args["message"].(string); args["status"] != statusAnswer || strings.Contains(msg, "not found") || strings.Contains(msg, "_") {
		t.Fatalf("final_result = %v", args)
	}
}

func TestAgentDataQuestionWithoutClassAsksWhichClass(t *testing.T) {
	_, c := start(t, Options{})
	tn := playAgent(t, c, false, "which students are weakest in grammar?", nil, nil)
	fr := tn.last()
	if !slices.Equal(tn.names(), []string{"get_teacher_classes", "final_result"}) || fr.Status != statusClarify ||
		fr.Clarify == nil || !slices.Equal(fr.Clarify.Options, []string{"1A", "1B"}) {
		t.Fatalf("calls %v, final %+v", tn.names(), fr)
	}
}

func TestAgentToolChoice(t *testing.T) {
	quiz := []openai.ChatCompletionMessage{system(prompts.AgentHeader, ""), user("Create 3 multiple-choice questions about photosynthesis")}
	tests := []struct {
		name     string
		choice   any
		wantTool string // "" for text
		check    func(t *testing.T, r result)
	}{
		{
			name: "forced final_result before any tool", wantTool: prompts.FinalResultTool,
			choice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: prompts.FinalResultTool}},
			check: func(t *testing.T, r result) {
				args := argsOf(t, r.call(t))
				if args["status"] != statusAnswer || args["message"] == "" {
					t.Errorf("final_result = %v", args)
				}
			},
		},
		{
			name: "forced other tool", wantTool: "get_teacher_classes",
			choice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: "get_teacher_classes"}},
		},
		{name: "auto", choice: "auto", wantTool: "generate_quiz_questions"},
		{name: "required", choice: "required", wantTool: "generate_quiz_questions"},
		{
			name: "none gives text", choice: "none",
			check: func(t *testing.T, r result) {
				if r.content == "" || r.finish != openai.FinishReasonStop {
					t.Errorf("content %q finish %q", r.content, r.finish)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bothModes(t, func(t *testing.T, stream bool) {
				s, c := start(t, Options{})
				r := complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: quiz, Tools: agentTools(), ToolChoice: tt.choice}, stream)
				if tt.wantTool == "" {
					if len(r.calls) != 0 {
						t.Fatalf("tool calls %v with tool_choice none", r.calls)
					}
				} else {
					if got := r.call(t).Function.Name; got != tt.wantTool {
						t.Fatalf("called %s, want %s", got, tt.wantTool)
					}
					if r.finish != openai.FinishReasonToolCalls {
						t.Errorf("finish = %q", r.finish)
					}
				}
				if tt.check != nil {
					tt.check(t, r)
				}
				rec := s.Requests()
				if len(rec) != 1 || rec[0].Kind != KindAgent || len(rec[0].Tools) != len(agentTools()) {
					t.Fatalf("recorded %+v", rec)
				}
			})
		})
	}
}

func TestAgentFinishForcedAfterTools(t *testing.T) {
	_, c := start(t, Options{})
	msgs := afterFirstCall(t, c, "How did 1A do on the latest assignment?",
		func(tc openai.ToolCall) string { return fakeTool(tc.Function.Name, tc.Function.Arguments) })
	forced := openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: prompts.FinalResultTool}}
	r := complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: agentTools(), ToolChoice: forced}, true)
	args := argsOf(t, r.call(t))
	if r.calls[0].Function.Name != prompts.FinalResultTool || args["status"] != statusAnswer {
		t.Fatalf("got %s %v", r.calls[0].Function.Name, args)
	}
}

func contentTools() []openai.Tool {
	return append(agentTools(),
		fn("propose_pptx_outline", "propose a slide outline", map[string]jsonschema.Definition{
			"topic": strProp(""), "slideCount": {Type: jsonschema.Integer}, "language": {Type: jsonschema.String, Enum: []string{"zh", "en"}},
		}, "topic", "slideCount"),
		fn("generate_pptx", "build the deck", map[string]jsonschema.Definition{
			"title": strProp(""), "slides": {Type: jsonschema.Array, Items: &jsonschema.Definition{Type: jsonschema.Object,
				Properties: map[string]jsonschema.Definition{"title": strProp(""), "bullets": {Type: jsonschema.Array, Items: &jsonschema.Definition{Type: jsonschema.String}}}}},
		}, "title", "slides"),
		fn("generate_docx", "write a document", map[string]jsonschema.Definition{"title": strProp(""), "requirements": strProp("")}, "title"),
	)
}

// TestAgentContent offers content tools whose schemas differ from the
// product's: the stand-in fills what they declare.
func TestAgentContent(t *testing.T) {
	tests := []struct {
		name, msg string
		history   []string
		tool      string
		args      map[string]any
		artifact  string
	}{
		{"slides outline first", "帮我做一个光合作用的 PPT 课件", nil, "propose_pptx_outline",
			map[string]any{"topic": "光合作用", "slideCount": 8.0, "language": "zh"}, "pptx-outline"},
		{"deck after the outline is confirmed", "确认，生成吧", []string{"- 老师：帮我做一个光合作用的 PPT 课件", "- 助手：我先为「光合作用」拟了一份 PPT 大纲"},
			"generate_pptx", map[string]any{"title": "光合作用"}, "pptx"},
		{"document", "Write a lesson plan on fractions", nil, "generate_docx",
			map[string]any{"title": "Fractions — lesson plan", "requirements": "Write a lesson plan on fractions"}, "docx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c := start(t, Options{})
			msgs := []openai.ChatCompletionMessage{system(prompts.AgentHeader, "")}
			if tt.history != nil {
				msgs = append(msgs, historyMessage(tt.history...))
			}
			msgs = append(msgs, user(tt.msg))
			call := complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: contentTools()}, true).call(t)
			args := argsOf(t, call)
			if call.Function.Name != tt.tool {
				t.Fatalf("called %s %s, want %s", call.Function.Name, call.Function.Arguments, tt.tool)
			}
			for k, v := range tt.args {
				if args[k] != v {
					t.Errorf("%s = %v, want %v (%s)", k, args[k], v, call.Function.Arguments)
				}
			}
			msgs = append(msgs,
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{call}},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: call.ID, Content: `{"ok":true}`})
			final := argsOf(t, complete(t, c, openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: contentTools()}, false).call(t))
			if final["status"] != statusArtifact || !slices.Equal(toStrings(final["artifacts"]), []string{tt.artifact}) {
				t.Fatalf("final_result %v", final)
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	arr, _ := v.([]any)
	for _, x := range arr {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
