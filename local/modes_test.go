package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/i18n"
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
	"natural": {
		"greeting":                         {chatChunks, branchModel, ""},
		"knowledge question":               {chatChunks, branchModel, ""},
		"data question with results":       {dataChunks, branchModel, "data"},
		"data question with empty results": {dataChunks, branchModel, "data"},
		"failing tool":                     {dataChunks, branchModel, "data"},
		"artifact request":                 {quizChunks, branchModel, "quiz"},
		"off-topic request":                {chatChunks, branchSteer, ""},
	},
	"free": {
		"greeting":                         {chatChunks, branchModel, ""},
		"knowledge question":               {chatChunks, branchModel, ""},
		"data question with results":       {dataChunks, branchModel, "all"},
		"data question with empty results": {dataChunks, branchModel, "all"},
		"failing tool":                     {dataChunks, branchModel, "all"},
		"artifact request":                 {quizChunks, branchModel, "all"},
		"off-topic request":                {chatChunks, branchNoSteer, ""},
	},
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

func TestModeMatrix(t *testing.T) {
	s := newLocal(t, nil)
	for _, mode := range []string{"natural", "free", "strict"} {
		for _, sit := range situations {
			want := matrix[mode][sit.name]
			t.Run(mode+"/"+sit.name, func(t *testing.T) {
				s.Offline.Reset()
				st := postStream(t, s.URL, fmt.Sprintf(`{"message":%q,"mode":%q}`, sit.message, mode))
				if st.Status != http.StatusOK {
					t.Fatalf("status %d: %s", st.Status, st.Raw)
				}
				if got := st.types(t); !slices.Equal(got, want.chunks) {
					t.Fatalf("chunks\n got %v\nwant %v", got, want.chunks)
				}
				st.checkIDs(t, 0)
				checkHeaders(t, st)
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
func checkOffered(t *testing.T, s testServer, mode, want string) {
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
