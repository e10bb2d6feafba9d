package report

import (
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestEncodeGolden(t *testing.T) {
	tasks := []SectionTask{{ID: 1, Title: "班级概况", Objective: "按模板撰写「班级概况」", Template: "## 班级概况\n\n<!-- 人数、均分 -->\n", RequiredInputs: []string{"datasets/class_1A.json"}}}
	events := []ServerEvent{
		SessionCreated{},
		PlanStart{Question: "请基于指定模版与知识库生成报告"},
		ToolCall{Scope: ScopePlan, Tool: "list_local_dir", Args: json.RawMessage(`{"path":"datasets"}`)},
		ToolResult{Scope: ScopePlan, Tool: "list_local_dir", Output: []string{"datasets/class_1A.json"}},
		ToolResult{Scope: ScopeSolver, Tool: "read_local_file", TaskID: 2, Error: "not found: datasets/x.json"},
		PlanCompleted{Tasks: tasks, PlanSummary: "1 个章节"},
		UserConfirm{StepID: "tok-1", Message: "确认以下 1 个章节的计划？", Tasks: tasks},
		SolverStart{ID: 1, Title: "班级概况"},
		SolverCompleted{ID: 1, Title: "班级概况", Summary: "1A 班 32 人 <均分 71.5>", Status: "completed"},
		AggregateStart{},
		AggregateCompleted{Output: Output{Sections: []Section{{ID: 1, Title: "班级概况", Content: "1A 班共 32 人。"}},
			Report: Report{Content: "# 报告\n\n## 班级概况\n\n1A 班共 32 人。\n", VFSPath: ReportPath, Path: ReportPath}}},
		PipelineCompleted{},
		FinalAnswer{Text: "报告已生成：1 个章节。"},
		Error{Message: "Session not found", Code: "ENTITY_NOT_FOUND"},
		SystemError{Message: "Agent execution error: model unavailable"},
		Heartbeat{ActiveSessions: 2},
		State{State: "eyJ…", ExpiresAt: "2026-11-26T05:00:00Z"},
		Reconnected{Status: "resumed"},
		Cancelled{What: "task", TaskID: 3},
	}
	var b strings.Builder
	for _, ev := range events {
		line, err := Encode("s-1", ev)
		if err != nil {
			t.Fatalf("%s: %v", ev.Name(), err)
		}
		var back Envelope
		if err := json.Unmarshal(line, &back); err != nil || back.Event != ev.Name() {
			t.Fatalf("%s: does not decode as an envelope: %v %+v", ev.Name(), err, back)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	golden.Check(t, filepath.Join("testdata", "server_events.jsonl"), []byte(b.String()), *update)
}

func TestDecodeClient(t *testing.T) {
	tests := []struct {
		frame string
		want  ClientEvent
		err   string
	}{
		{`{"event":"user.create_session"}`, CreateSession{}, ""},
		{`{"event":"user.message","session_id":"s","content":"写一份报告"}`, Message{Question: "写一份报告"}, ""},
		{`{"event":"user.message","session_id":"s","content":{"question":"q","template_name":"学期教学工作总结","knowledge_base_name":"中一甲班"}}`,
			Message{Question: "q", TemplateName: "学期教学工作总结", KnowledgeBaseName: "中一甲班"}, ""},
		{`{"event":"user.message","session_id":"s","content":""}`, nil, "content is empty"},
		{`{"event":"user.message","session_id":"s"}`, nil, "content is empty"},
		{`{"event":"user.message","session_id":"s","content":{"question":"  "}}`, nil, "content is empty"},
		{`{"event":"user.message","content":"q"}`, nil, "session_id is required"},
		{`{"event":"user.response","session_id":"s","step_id":"t","content":{"confirmed":true}}`, Response{StepID: "t", Confirmed: true}, ""},
		{`{"event":"user.response","session_id":"s","content":{"confirmed":true}}`, nil, "step_id"},
		{`{"event":"user.response","session_id":"s","step_id":"t","content":{"confirmed":"yes"}}`, nil, "content"},
		{`{"event":"user.cancel","session_id":"s"}`, Cancel{}, ""},
		{`{"event":"user.cancel_task","session_id":"s","content":{"task_id":2}}`, CancelTask{TaskID: 2}, ""},
		{`{"event":"user.cancel_task","session_id":"s","content":{"task_id":0}}`, nil, "positive"},
		{`{"event":"user.restart_task","session_id":"s","content":{"task_id":3}}`, RestartTask{TaskID: 3}, ""},
		{`{"event":"user.cancel_plan","session_id":"s"}`, CancelPlan{}, ""},
		{`{"event":"user.replan","session_id":"s"}`, Replan{}, ""},
		{`{"event":"user.replan","session_id":"s","content":{"question":"更短"}}`, Replan{Question: "更短"}, ""},
		{`{"event":"user.solve_tasks","session_id":"s","content":{"tasks":[{"id":1}]}}`, SolveTasks{Tasks: []UserTask{{ID: 1}}}, ""},
		{`{"event":"user.solve_tasks","session_id":"s","content":{"tasks":[]}}`, nil, "at least one"},
		{`{"event":"user.request_state","session_id":"s"}`, RequestState{}, ""},
		{`{"event":"user.reconnect_with_state","session_id":"s","content":{"state":"x"}}`, ReconnectWithState{State: "x"}, ""},
		{`{"event":"user.reconnect_with_state","session_id":"s","content":{}}`, nil, "needs content"},
		{`{"event":"user.dance","session_id":"s"}`, nil, "unknown event"},
		{`{"session_id":"s"}`, nil, "event is required"},
		{`[1,2]`, nil, "not a JSON object"},
	}
	for _, tt := range tests {
		_, got, err := DecodeClient([]byte(tt.frame))
		if tt.err != "" {
			if err == nil || !errors.Is(err, ErrBadEnvelope) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one containing %q", tt.frame, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v, %v; want %#v", tt.frame, got, err, tt.want)
		}
	}
}

func TestDecodeClientTooLarge(t *testing.T) {
	big := `{"event":"user.message","session_id":"s","content":"` + strings.Repeat("a", MaxFrameBytes) + `"}`
	if _, _, err := DecodeClient([]byte(big)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v", err)
	}
}
