package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
)

// Issue 30: the stream details a frontend renders.

// TestDataToolProgressCountsAndPreviews: a data question's tool progress
// ends with how many items the tool found and a few of their labels, and
// the AI SDK's own client accepts the parts.
func TestDataToolProgressCountsAndPreviews(t *testing.T) {
	s := NewLocal(t, nil)
	st := postStream(t, s.URL, `{"message":"我有哪些班？"}`)
	var names []string
	for _, c := range mockdata.Default().ClassesOf("t-001") {
		names = append(names, c.Name)
	}
	var end map[string]any
	for _, p := range st.data(t, "data-tool-progress") {
		if p["tool"] == "get_teacher_classes" && p["status"] == "success" {
			end = p
		}
	}
	if end == nil {
		t.Fatalf("no successful get_teacher_classes progress in %v", st.data(t, "data-tool-progress"))
	}
	if end["count"] != float64(len(names)) {
		t.Errorf("count %v, want %d", end["count"], len(names))
	}
	preview, _ := end["preview"].([]any)
	if len(preview) == 0 || len(preview) > 3 {
		t.Fatalf("preview %v", end["preview"])
	}
	for _, p := range preview {
		if !slices.Contains(names, fmt.Sprint(p)) {
			t.Errorf("preview label %v is not one of the classes %v", p, names)
		}
	}
	aiSDK(t, st.Raw)
}

// TestClarifyAnsweredWithChoiceValue: a data question without a class is
// asked back with the teacher's classes as choices whose value is the
// class id and whose label is its name; sending a choice's value answers
// the first question at once, with no second question back (seed 004
// S4-12). The JSON answer's clarifyOptions carry the same choices.
func TestClarifyAnsweredWithChoiceValue(t *testing.T) {
	s := NewLocal(t, nil)
	ask := postStream(t, s.URL, `{"message":"哪些学生语法最弱？"}`)
	clarify := ask.last(t, "data-clarify")["data"].(map[string]any)
	choices, _ := clarify["choices"].([]any)
	var value, label string
	for _, c := range choices {
		ch := c.(map[string]any)
		if ch["label"] == "Form 1A" {
			value, label = fmt.Sprint(ch["value"]), fmt.Sprint(ch["label"])
		}
	}
	if value != "class-hk-f1a" {
		t.Fatalf("choices %v: want Form 1A with its id as the value", choices)
	}
	aiSDK(t, ask.Raw)
	id := ask.last(t, "start")["messageMetadata"].(map[string]any)["conversationId"].(string)
	next := postStream(t, s.URL, fmt.Sprintf(`{"message":%q,"conversationId":%q}`, value, id))
	if types := next.types(t); slices.Contains(types, "data-clarify") {
		t.Fatalf("a second question back: %v", types)
	}
	var ended []string
	for _, p := range next.data(t, "data-tool-progress") {
		if p["status"] == "success" {
			ended = append(ended, fmt.Sprint(p["tool"]))
		}
	}
	if !slices.Contains(ended, "analyze_student_weakness") {
		t.Fatalf("tools %v: the first question was not answered", ended)
	}
	weakest := weakestInGrammar("class-hk-f1a")[0]
	if answer := next.text(t); !strings.Contains(answer, weakest) || !strings.Contains(answer, label) {
		t.Fatalf("the answer does not name %s in %s:\n%s", weakest, label, answer)
	}
	var resp struct {
		ClarifyOptions struct {
			Choices []struct{ Label, Value string } `json:"choices"`
		} `json:"clarifyOptions"`
	}
	PostJSON(t, s.URL+"/api/conversation", `{"message":"Which students are weakest in grammar?"}`, &resp)
	if !slices.Contains(resp.ClarifyOptions.Choices, struct{ Label, Value string }{"Form 1A", "class-hk-f1a"}) {
		t.Fatalf("clarifyOptions.choices %+v", resp.ClarifyOptions.Choices)
	}
}

// TestInteractivePageShowsProgress: an interactive page's turn shows the
// page's plan and progress (data-interactive-progress: planning, writing
// with the section last written, building) under the call's id before its
// data-interactive-content, and the AI SDK's own client accepts the parts.
func TestInteractivePageShowsProgress(t *testing.T) {
	s := NewLocal(t, nil)
	for msg, template := range map[string]string{
		"做一个光合作用的互动闪卡":                                        "flashcards",
		"Make a simple web page about Newton's first law":     "custom",
		"做一个光合作用的互动配对练习网页":                                    "matching", // a page kind beyond the three
		"Make an interactive timeline page of photosynthesis": "timeline",
	} {
		t.Run(msg, func(t *testing.T) {
			st := postStream(t, s.URL, fmt.Sprintf(`{"message":%q}`, msg))
			var stages, sections []string
			var progressID, contentID string
			for _, e := range st.Events {
				switch e.typ(t) {
				case "data-interactive-progress":
					if contentID != "" {
						t.Fatal("progress after the content")
					}
					c := e.chunk(t)
					progressID = fmt.Sprint(c["id"])
					d := c["data"].(map[string]any)
					if n := len(stages); n == 0 || stages[n-1] != d["stage"] {
						stages = append(stages, fmt.Sprint(d["stage"]))
					}
					if sec, _ := d["section"].(string); sec != "" {
						sections = append(sections, sec)
					}
				case "data-interactive-content":
					contentID = fmt.Sprint(e.chunk(t)["id"])
					if got := e.chunk(t)["data"].(map[string]any)["template"]; got != template {
						t.Errorf("template %v, want %s", got, template)
					}
				}
			}
			if !slices.Equal(stages, []string{"planning", "writing", "building"}) {
				t.Errorf("stages %v, want planning, writing, building", stages)
			}
			if contentID == "" || progressID != contentID {
				t.Errorf("progress id %q, content id %q: want one part id", progressID, contentID)
			}
			if len(sections) == 0 {
				t.Error("no section named while the page was written")
			}
			msgOut := aiSDK(t, st.Raw)
			var kinds []string
			for _, p := range msgOut.Parts {
				kinds = append(kinds, p.Type)
			}
			if !slices.Contains(kinds, "data-interactive-progress") || !slices.Contains(kinds, "data-interactive-content") {
				t.Errorf("the SDK's message has parts %v", kinds)
			}
		})
	}
}

// TestConsoleDrawsStreamDetails: the dev console draws an interactive
// page's progress before its frame and a tool's count and preview, and its
// clarify buttons show a choice's label and send its value.
func TestConsoleDrawsStreamDetails(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.send("做一个光合作用的互动闪卡", 1)
	var page struct {
		Stage    string
		Before   bool
		Progress string
	}
	b.eval(`(() => { const m = [...document.querySelectorAll('#chat .msg.assistant')].pop();
		const p = m.querySelector('.page-progress'), f = m.querySelector('.interactive');
		return {Stage: p ? p.dataset.stage : '', Before: !!(p && f && (p.compareDocumentPosition(f) & Node.DOCUMENT_POSITION_FOLLOWING)), Progress: p ? p.innerText : ''}; })()`, &page)
	if page.Stage != "building" || !page.Before || !strings.Contains(page.Progress, "光合作用") {
		t.Errorf("interactive progress %+v:\n%s", page, b.lastAssistant())
	}
	var tool string
	b.eval(`(() => { const c = [...document.querySelectorAll('#chat .msg.assistant')].pop().querySelector('.tool .count'); return c ? c.parentElement.innerText : ''; })()`, &tool)
	if !strings.Contains(tool, "× 8") || !strings.Contains(tool, "叶绿体") {
		t.Errorf("tool line %q: want its count and preview", tool)
	}
	b.send("哪些学生语法最弱？", 2)
	var choices []struct{ Label, Value string }
	b.eval(`[...[...document.querySelectorAll('#chat .msg.assistant')].pop().querySelectorAll('.clarify .choices button')].map(e => ({Label: e.innerText, Value: e.dataset.value}))`, &choices)
	if len(choices) == 0 || choices[0].Label != "Form 1A" || choices[0].Value != "class-hk-f1a" {
		t.Fatalf("clarify buttons %+v", choices)
	}
	b.run("choose", chromedp.Click(chromedp.CSS("#chat .clarify .choices button")))
	b.waitTurn(3)
	var asked string
	b.eval(`[...document.querySelectorAll('#chat .msg.user')].pop().innerText`, &asked)
	if asked != "Form 1A" {
		t.Errorf("the choice shows %q, want its label", asked)
	}
	if last := b.lastAssistant(); strings.Contains(last, "你想看哪个班") || !strings.Contains(last, weakestInGrammar("class-hk-f1a")[0]) {
		t.Errorf("the value did not go straight on:\n%s", last)
	}
	b.noRawJSON()
}
