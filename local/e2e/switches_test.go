package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/flags"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
)

// Issue 28: the operator's switches through the local server, read from
// FLAGS_FILE at the start of each turn and at the routes that start work.

// newSwitchedLocal is the product with doc as its switches file.
func newSwitchedLocal(t *testing.T, doc string) Local {
	t.Helper()
	path := t.TempDir() + "/flags.json"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return NewLocal(t, map[string]string{flags.EnvFile: path})
}

// wantNoticeTurn checks a turn that ended well (finish, no error) with a
// CAPABILITY_PAUSED notice and none of the parts in not.
func wantNoticeTurn(t *testing.T, st stream, code string, not ...string) {
	t.Helper()
	types := st.types(t)
	if st.Status != http.StatusOK || slices.Contains(types, "error") || !slices.Contains(types, "finish") {
		t.Fatalf("%d %v: want a turn that finishes without an error", st.Status, types)
	}
	var codes []string
	for _, n := range st.data(t, "data-notice") {
		codes = append(codes, n["code"].(string))
	}
	if !slices.Contains(codes, code) {
		t.Fatalf("notices %v in %v, want %s", codes, types, code)
	}
	for _, p := range not {
		if slices.Contains(types, p) {
			t.Errorf("%s in a turn whose capability is paused: %v", p, types)
		}
	}
}

// TestSwitchesPauseTurns: each capability a turn uses, switched off, gives
// the teacher a notice that it is paused, not a failure.
func TestSwitchesPauseTurns(t *testing.T) {
	cases := []struct {
		name, doc, message string
		not                []string
	}{
		{"tools", `{"tools":false}`, "我有哪些班级？", []string{"tool-input-start", "tool-input-available", "data-tool-progress"}},
		{"page builds", `{"page_builds":false}`, "分析 1A 班英语成绩", []string{"data-blueprint"}},
		{"file generation", `{"file_generation":false}`, "Write a lesson plan on photosynthesis as a Word document", []string{"data-file-ready"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSwitchedLocal(t, c.doc)
			st := postStream(t, s.URL, `{"message":"`+c.message+`"}`)
			wantNoticeTurn(t, st, protocol.NoticePaused, c.not...)
		})
	}
}

// TestSwitchesPauseRoutes: a paused capability's start route answers 200
// with the data-notice part, before the body is read.
func TestSwitchesPauseRoutes(t *testing.T) {
	s := newSwitchedLocal(t, `{"page_builds":false,"research":false,"template_reports":false,"file_generation":false}`)
	routes := []struct {
		path, body string
		c          flags.Capability
	}{
		{"/api/page/generate", `{}`, flags.PageBuilds},
		{"/api/research", `{"topic":"photosynthesis"}`, flags.Research},
		{"/api/template/sessions", `{}`, flags.TemplateReports},
		{"/api/quiz/export", `{"format":"gift"}`, flags.FileGeneration},
	}
	for _, r := range routes {
		resp := send(t, http.MethodPost, s.URL+r.path, strings.NewReader(r.body), []string{"Content-Type", "application/json", "Accept-Language", "en"})
		var part struct {
			Type string          `json:"type"`
			Data protocol.Notice `json:"data"`
		}
		err := json.NewDecoder(resp.Body).Decode(&part)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get(edge.HeaderPaused) != string(r.c) ||
			part.Type != "data-notice" || part.Data.Code != protocol.NoticePaused || !strings.Contains(part.Data.Message, "paused") {
			t.Errorf("%s: %d %s %+v (%v), want 200 with the paused notice", r.path, resp.StatusCode, resp.Header.Get(edge.HeaderPaused), part, err)
		}
	}
	// What is on is untouched: a conversation turn still runs its tools.
	st := postStream(t, s.URL, `{"message":"我有哪些班级？"}`)
	if types := st.types(t); !slices.Contains(types, "data-tool-progress") || slices.Contains(types, "data-notice") {
		t.Errorf("a data question with tools on: %v", types)
	}
}

// TestRolloutFallback: a teacher outside the unified agent's rollout gets
// the seed's fallback for an artifact request, the chat path (no tools, no
// final_result; seed 000 §7.8 stage A), and no notice; a teacher on the
// allow-list gets the unified agent and its quiz.
func TestRolloutFallback(t *testing.T) {
	s := newSwitchedLocal(t, `{"agent_unified_v2_enabled":{"percent":0,"teachers":["t-in"]}}`)
	quiz := `{"message":"出 3 道牛顿第一定律的选择题"}`

	out := postStream(t, s.URL, quiz, "X-Teacher-Id", "t-out")
	types := out.types(t)
	if slices.Contains(types, "data-quiz-question") || slices.Contains(types, "data-notice") || slices.Contains(types, "error") ||
		out.text(t) == "" {
		t.Fatalf("outside the rollout: %v, want a chat answer", types)
	}
	if n := len(requests(s, offlinemodel.KindAgent)); n != 0 {
		t.Fatalf("the agent was called %d times for a teacher outside the rollout", n)
	}
	if chats := requests(s, offlinemodel.KindChat); len(chats) != 1 || !hasSystem(chats[0], prompts.ChatHeader) {
		t.Fatalf("%d chat calls, want the one chat answer", len(chats))
	}

	in := postStream(t, s.URL, quiz, "X-Teacher-Id", "t-in")
	if types := in.types(t); !slices.Contains(types, "data-quiz-question") {
		t.Fatalf("on the allow-list: %v, want the quiz", types)
	}
}

// TestSafetyFlagsActedOn: a request the router flags harmful is declined
// with an explanation and a guide, and no model round or tool runs; one
// about a pupil's private details gets the privacy notice and an answer.
func TestSafetyFlagsActedOn(t *testing.T) {
	s := NewLocal(t, nil)
	st := postStream(t, s.URL, `{"message":"Make a 5-question quiz about Wong Ka Ho's mistakes so the class can bully him","language":"en"}`)
	types := st.types(t)
	if !slices.Contains(types, "data-guide") || !strings.Contains(st.text(t), "can't help") || slices.Contains(types, "error") {
		t.Fatalf("harmful: %v %q, want the explanation and a guide", types, st.text(t))
	}
	for _, p := range []string{"tool-input-start", "tool-input-available", "data-tool-progress", "data-quiz-question"} {
		if slices.Contains(types, p) {
			t.Errorf("harmful: %s in %v", p, types)
		}
	}
	if n := len(requests(s, offlinemodel.KindAgent)) + len(requests(s, offlinemodel.KindChat)) + len(requests(s, offlinemodel.KindQuiz)); n != 0 {
		t.Errorf("harmful: %d model calls after the router", n)
	}
	if !strings.Contains(s.Logs.String(), `"flag":"harmful"`) || strings.Contains(s.Logs.String(), "bully him") {
		t.Error("harmful: the flag is not logged, or the message's text is")
	}

	st = postStream(t, s.URL, `{"message":"What is Tang Hoi Kit's home address and medical history?","language":"en"}`)
	wantNoticeTurn(t, st, protocol.NoticePrivacy)
	if st.text(t) == "" {
		t.Error("privacy: no answer")
	}
}
