package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
)

// The chat modes of seed 003 end to end: every mode × situation through the
// local server (router, agent, tools, validation, finish, relay), with the
// exact chunks, the branch the final text comes from, and the AI SDK's own
// client accepting the stream.

// A round that calls guide_user, then a round that answers.
var guideChunks = []string{"start", "start-step", "data-tool-progress", "data-guide", "data-tool-progress", "finish-step",
	"start-step", "text-start", "text-delta+", "text-end", "finish-step", "finish", "[DONE]"}

// A round that calls one data tool, then a round that answers.
var dataChunks = []string{"start", "start-step", "data-tool-progress", "data-tool-progress", "finish-step",
	"start-step", "text-start", "text-delta+", "text-end", "finish-step", "finish", "[DONE]"}

// A data round, then a round that leaves the content empty: strict mode's
// reply follows, chosen by the last tool status.
var strictFallbackChunks = []string{"start", "start-step", "data-tool-progress", "data-tool-progress", "finish-step",
	"start-step", "finish-step", "text-start", "text-delta+", "text-end", "finish", "[DONE]"}

// Final-text branches.
const (
	branchModel     = "model"      // the model's own answer
	branchGuide     = "guide"      // guidance after guide_user
	branchSteer     = "steer-back" // an off-topic answer steered back to teaching
	branchNoSteer   = "no-steer"   // an off-topic answer left where it is
	branchNoResult  = "strict-empty"
	branchToolError = "strict-error"
	branchNotice    = "strict-notice"
)

type situation struct {
	name    string
	message string
}

var situations = []situation{
	{"greeting", "你好"},
	{"knowledge question", "What is photosynthesis?"},
	{"data question with results", "1A 班有哪些学生？"},
	{"data question with empty results", "在我的文档里找火星殖民的资料"},
	{"failing tool", "1A 班有哪些学生？[[offline:tool-error]]"},
	{"artifact request", "出 5 道牛顿第一定律的选择题"},
	{"off-topic request", "推荐一部周末看的电影"},
}

type modeCase struct {
	chunks []string
	branch string
	// tools is what the agent was offered, final_result aside ("" for the chat path).
	tools string
}

const allTools = "get_assignment_submissions,get_class_detail,get_student_error_patterns,get_student_grades,get_teacher_classes," +
	"list_available_rubrics,get_rubric,analyze_student_weakness,search_teacher_documents"

// matrix[mode][situation] is what a teacher gets.
var matrix = map[string]map[string]modeCase{
	"natural": modelAnswers("data", "quiz", branchSteer),
	"free":    modelAnswers("all", "all", branchNoSteer),
	"strict": {
		"greeting":                         {guideChunks, branchGuide, "guide"},
		"knowledge question":               {guideChunks, branchGuide, "guide"},
		"data question with results":       {dataChunks, branchModel, "data"},
		"data question with empty results": {strictFallbackChunks, branchNoResult, "data"},
		"failing tool":                     {strictFallbackChunks, branchToolError, "data"},
		"artifact request":                 {quizChunks, branchModel, "quiz"},
		"off-topic request":                {guideChunks, branchGuide, "guide"},
	},
}

// modelAnswers is the row of a mode in which the model answers every
// situation: natural and free differ only in the tools offered for data
// and artifact questions and in how an off-topic request ends.
func modelAnswers(dataTools, artifactTools, offTopic string) map[string]modeCase {
	return map[string]modeCase{
		"greeting":                         {chatChunks, branchModel, ""},
		"knowledge question":               {chatChunks, branchModel, ""},
		"data question with results":       {dataChunks, branchModel, dataTools},
		"data question with empty results": {dataChunks, branchModel, dataTools},
		"failing tool":                     {dataChunks, branchModel, dataTools},
		"artifact request":                 {quizChunks, branchModel, artifactTools},
		"off-topic request":                {chatChunks, offTopic, ""},
	}
}

func TestModeMatrix(t *testing.T) {
	s := NewLocal(t, nil)
	for _, mode := range []string{"natural", "free", "strict"} {
		for _, sit := range situations {
			want := matrix[mode][sit.name]
			t.Run(mode+"/"+sit.name, func(t *testing.T) {
				s.Offline.Reset()
				st := postChecked(t, s.URL, fmt.Sprintf(`{"message":%q,"mode":%q}`, sit.message, mode), want.chunks)
				if m := st.Events[0].chunk(t)["messageMetadata"].(map[string]any)["mode"]; m != mode {
					t.Errorf("start chunk reports mode %v, want %s", m, mode)
				}
				txt := st.text(t)
				if got := branchOf(t, st, txt); got != want.branch {
					t.Errorf("final text %q is the %s branch, want %s", txt, got, want.branch)
				}
				checkOffered(t, s, mode, want.tools)
				checkToolStatus(t, st, sit.name)
				msg := aiSDK(t, st.Raw)
				if msg.Role != "assistant" || len(msg.Parts) == 0 {
					t.Errorf("the AI SDK assembled %+v", msg)
				}
			})
		}
	}
}

// branchOf says where the final text comes from.
func branchOf(t *testing.T, st stream, txt string) string {
	t.Helper()
	zh := i18n.Chinese
	switch txt {
	case zh.Text(i18n.StrictNoResult):
		return branchNoResult
	case zh.Text(i18n.StrictToolError):
		return branchToolError
	case zh.Text(i18n.StrictNotice), i18n.English.Text(i18n.StrictNotice):
		return branchNotice
	}
	if len(st.data(t, "data-guide")) == 1 {
		return branchGuide
	}
	if strings.Contains(txt, "替身模型") { // the stand-in's honest answer to what it does not know
		if strings.Contains(txt, "出练习题") {
			return branchSteer
		}
		return branchNoSteer
	}
	if txt == "" {
		return "empty"
	}
	return branchModel
}

// checkOffered checks the tools of the agent's first call.
func checkOffered(t *testing.T, s Local, mode, want string) {
	t.Helper()
	agents := requests(s, offlinemodel.KindAgent)
	if want == "" {
		if len(agents) != 0 {
			t.Errorf("%s: the chat path made %d agent calls", mode, len(agents))
		}
		for _, r := range requests(s, offlinemodel.KindChat) {
			if len(r.Tools) != 0 || !hasSystemLine(r, "## Chat mode: "+mode) {
				t.Errorf("chat call: tools %v, system prompt without its mode section", r.Tools)
			}
		}
		return
	}
	if len(agents) == 0 {
		t.Fatal("no agent call")
	}
	got := agents[0].Tools
	if !hasSystemLine(agents[0], "## Chat mode: "+mode) {
		t.Errorf("the agent's system prompt has no %s section", mode)
	}
	has := func(n string) bool { return slices.Contains(got, n) }
	switch want {
	case "guide":
		if !slices.Equal(got, []string{"guide_user", "final_result"}) {
			t.Errorf("tools %v, want guide_user and final_result only", got)
		}
	case "all":
		if !has("generate_quiz_questions") || !has("generate_pptx") || !has("guide_user") || !has("get_class_detail") {
			t.Errorf("free mode filtered the tools: %v", got)
		}
	case "quiz":
		if !has("generate_quiz_questions") || has("generate_pptx") || !has("guide_user") || !has("get_class_detail") {
			t.Errorf("tools %v: want the router's candidate, the data tools and guide_user", got)
		}
	case "data":
		if !has("get_class_detail") || !has("guide_user") {
			t.Errorf("tools %v", got)
		}
	}
	for _, n := range strings.Split(allTools, ",") {
		if want != "guide" && !has(n) {
			t.Errorf("data tool %s missing from %v", n, got)
		}
	}
}

// checkToolStatus: data-tool-progress tells the truth: success, empty, error.
func checkToolStatus(t *testing.T, st stream, situation string) {
	t.Helper()
	progress := st.data(t, "data-tool-progress")
	if len(progress) == 0 {
		return
	}
	want := map[string]string{"data question with empty results": "empty", "failing tool": "error"}[situation]
	if want == "" {
		want = "success"
	}
	if got := progress[len(progress)-1]["status"]; got != want {
		t.Errorf("last tool status %v, want %s", got, want)
	}
}

func hasSystemLine(r offlinemodel.Recorded, line string) bool {
	for _, m := range r.Messages {
		if m.Role == "system" && slices.Contains(strings.Split(m.Content, "\n"), line) {
			return true
		}
	}
	return false
}

// TestModeFromServerConfig: without mode in the request the server's
// CHAT_MODE applies; the request's mode wins; both APIs report the effective
// mode (the stream's start chunk, the JSON answer's chatMode, beside seed
// 004's mode entry/followup).
func TestModeFromServerConfig(t *testing.T) {
	s := NewLocal(t, map[string]string{"CHAT_MODE": "strict"})
	st := postStream(t, s.URL, `{"message":"你好"}`)
	if got := st.types(t); !slices.Equal(got, guideChunks) {
		t.Fatalf("a greeting under CHAT_MODE=strict: %v", got)
	}
	if m := st.Events[0].chunk(t)["messageMetadata"].(map[string]any)["mode"]; m != "strict" {
		t.Errorf("start chunk mode %v, want strict", m)
	}
	st = postStream(t, s.URL, `{"message":"你好","mode":"natural"}`)
	if got := st.types(t); !slices.Equal(got, chatChunks) {
		t.Errorf("the request's natural mode did not win: %v", got)
	}
	var resp map[string]any
	if code := PostJSON(t, s.URL+"/api/conversation", `{"message":"推荐一部周末看的电影"}`, &resp); code != http.StatusOK {
		t.Fatalf("JSON API: %d %v", code, resp)
	}
	if resp["chatMode"] != "strict" || resp["mode"] != "entry" || resp["action"] != "chat" ||
		!strings.Contains(resp["chatResponse"].(string), "严格模式") {
		t.Errorf("JSON answer %v", resp)
	}
	if code := PostJSON(t, s.URL+"/api/conversation", `{"message":"你好","mode":"free"}`, &resp); code != http.StatusOK || resp["chatMode"] != "free" {
		t.Errorf("JSON answer with mode free: %d %v", code, resp)
	}
	var bad map[string]map[string]any
	if code := PostJSON(t, s.URL+"/api/conversation/stream", `{"message":"你好","mode":"loose"}`, &bad); code != http.StatusBadRequest || bad["error"]["code"] != "VALIDATION_ERROR" {
		t.Errorf("an unknown mode: %d %v", code, bad)
	}
}

// TestStrictGuardEndToEnd: a model that answers with text and no tool call
// ([[offline:text-no-tools]]) is refused twice in strict mode, and the
// teacher reads the strict-mode notice; in natural and free mode its answer
// stands.
func TestStrictGuardEndToEnd(t *testing.T) {
	s := NewLocal(t, nil)
	const msg = "1A 班有哪些学生？[[offline:text-no-tools]]"
	st := postStream(t, s.URL, fmt.Sprintf(`{"message":%q,"mode":"strict"}`, msg))
	want := []string{"start", "start-step", "finish-step", "start-step", "finish-step", "text-start", "text-delta+", "text-end", "finish", "[DONE]"}
	if got := st.types(t); !slices.Equal(got, want) {
		t.Fatalf("chunks\n got %v\nwant %v", got, want)
	}
	if txt := st.text(t); txt != i18n.Chinese.Text(i18n.StrictNotice) {
		t.Errorf("final text %q, want the strict-mode notice", txt)
	}
	if n := len(requests(s, offlinemodel.KindAgent)); n != 2 {
		t.Errorf("%d agent calls, want 2 (one retry in total)", n)
	}
	aiSDK(t, st.Raw)
	for _, mode := range []string{"natural", "free"} {
		st := postStream(t, s.URL, fmt.Sprintf(`{"message":%q,"mode":%q}`, msg, mode))
		if got := st.types(t); !slices.Equal(got, chatChunks) || strings.Contains(st.text(t), "严格模式") {
			t.Errorf("%s: %v %q", mode, got, st.text(t))
		}
	}
}

// TestReasoningEndToEnd: a reasoning model's reasoning_content reaches the
// client as reasoning parts, /messages returns them, and the model never
// gets them back.
func TestReasoningEndToEnd(t *testing.T) {
	s := NewLocal(t, nil)
	st := postStream(t, s.URL, `{"message":"1A 班有哪些学生？[[offline:reasoning]]","mode":"natural"}`)
	want := []string{"start", "start-step", "reasoning-start", "reasoning-delta+", "reasoning-end", "data-tool-progress", "data-tool-progress", "finish-step",
		"start-step", "reasoning-start", "reasoning-delta+", "reasoning-end", "text-start", "text-delta+", "text-end", "finish-step", "finish", "[DONE]"}
	if got := foldDeltas(st.types(t)); !slices.Equal(got, want) {
		t.Fatalf("chunks\n got %v\nwant %v", got, want)
	}
	if txt := st.text(t); !strings.Contains(txt, "35 名学生") {
		t.Errorf("answer %q", txt)
	}
	msg := aiSDK(t, st.Raw)
	if n := countParts(msg.Parts, "reasoning"); n != 2 {
		t.Errorf("the AI SDK assembled %d reasoning parts, want 2: %+v", n, msg.Parts)
	}
	agents := requests(s, offlinemodel.KindAgent)
	if len(agents) != 2 {
		t.Fatalf("%d agent calls", len(agents))
	}
	for _, m := range agents[1].Messages {
		if m.Reasoning != "" || strings.Contains(m.Content, "get_class_detail，拿到结果") {
			t.Errorf("reasoning sent back to the model: %+v", m)
		}
	}
	var got struct {
		Messages []struct {
			Role  string
			Parts []struct {
				Type, Text, State string
			}
		}
	}
	conv := st.Header.Get("X-Conversation-Id")
	if code := GetJSON(t, s.URL+"/api/conversation/"+conv+"/messages", &got); code != http.StatusOK || len(got.Messages) != 2 {
		t.Fatalf("/messages: %d %+v", code, got)
	}
	var reasoning []string
	for _, p := range got.Messages[1].Parts {
		if p.Type == "reasoning" {
			reasoning = append(reasoning, p.Text)
			if p.State != "done" {
				t.Errorf("stored reasoning part %+v", p)
			}
		}
	}
	// The reasoning is shown to the teacher: it says what is done, never a tool's name.
	if len(reasoning) != 2 || !strings.Contains(reasoning[0], "查一下相关数据") || strings.Contains(reasoning[0], "get_class_detail") || !strings.Contains(reasoning[1], "组织回答") {
		t.Errorf("/messages returned the reasoning parts %q", reasoning)
	}
}

// TestReasoningOnlyIsPromoted: a reasoning model that answers in
// reasoning_content with empty content is shown its reasoning as the answer
// (seed 003 §1.2), in every mode.
func TestReasoningOnlyIsPromoted(t *testing.T) {
	s := NewLocal(t, nil)
	cases := []struct {
		mode, message string
		want          []string
		text          string
	}{
		{"natural", "What is photosynthesis? [[offline:reasoning-only]]",
			[]string{"start", "start-step", "reasoning-start", "reasoning-delta+", "reasoning-end", "text-start", "text-delta+", "text-end", "finish-step", "finish", "[DONE]"},
			"Photosynthesis"},
		{"strict", "你好[[offline:reasoning-only]]",
			[]string{"start", "start-step", "reasoning-start", "reasoning-delta+", "reasoning-end", "data-tool-progress", "data-guide", "data-tool-progress", "finish-step",
				"start-step", "reasoning-start", "reasoning-delta+", "reasoning-end", "text-start", "text-delta+", "text-end", "finish-step", "finish", "[DONE]"},
			"可以从上面的建议里选一个开始"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			st := postStream(t, s.URL, fmt.Sprintf(`{"message":%q,"mode":%q}`, c.message, c.mode))
			if got := foldDeltas(st.types(t)); !slices.Equal(got, c.want) {
				t.Fatalf("chunks\n got %v\nwant %v", got, c.want)
			}
			txt := st.text(t)
			if !strings.Contains(txt, c.text) {
				t.Errorf("answer %q does not contain %q", txt, c.text)
			}
			var last strings.Builder
			for _, e := range st.Events {
				switch e.typ(t) {
				case "reasoning-start":
					last.Reset()
				case "reasoning-delta":
					last.WriteString(e.chunk(t)["delta"].(string))
				}
			}
			if last.String() != txt {
				t.Errorf("the answer %q is not the promoted reasoning %q", txt, last.String())
			}
			aiSDK(t, st.Raw)
		})
	}
}

// foldDeltas folds runs of any *-delta chunk into one "<type>+".
func foldDeltas(ts []string) []string {
	var out []string
	for _, ty := range ts {
		if strings.HasSuffix(ty, "-delta") || strings.HasSuffix(ty, "-delta+") {
			ty = strings.TrimSuffix(ty, "+") + "+"
			if len(out) > 0 && out[len(out)-1] == ty {
				continue
			}
		}
		out = append(out, ty)
	}
	return out
}

func countParts(parts []protocol.Part, typ string) int {
	n := 0
	for _, p := range parts {
		if p.Type == typ {
			n++
		}
	}
	return n
}
