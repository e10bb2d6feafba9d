package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// The frontend's contract for pages (seed 004 §1.3.1, PROTOCOL.md §1): the
// stream carries the blueprint, a follow-up on a built page is refined
// (a patch plan /api/page/patch applies) or rebuilt (a new blueprint), and a
// question about it is answered as chat.

// convAnswer is the part of a ConversationResponse these tests read.
type convAnswer struct {
	Mode           string          `json:"mode"`
	Action         string          `json:"action"`
	ChatKind       *string         `json:"chatKind"`
	LegacyAction   string          `json:"legacyAction"`
	ChatResponse   string          `json:"chatResponse"`
	Blueprint      json.RawMessage `json:"blueprint"`
	PatchPlan      json.RawMessage `json:"patchPlan"`
	ConversationID string          `json:"conversationId"`
	Artifacts      []struct {
		Type string          `json:"type"`
		ID   string          `json:"id"`
		Data json.RawMessage `json:"data"`
	} `json:"artifacts"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func askJSON(t *testing.T, s Local, body string, headers ...string) (int, convAnswer) {
	t.Helper()
	var a convAnswer
	code := PostJSON(t, s.URL+"/api/conversation", body, &a, headers...)
	return code, a
}

// bpShape is the part of a Blueprint these tests read.
type bpShape struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Version      int    `json:"version"`
	ComputeGraph struct {
		Nodes []struct{ ID, Op, GroupBy string }
	} `json:"computeGraph"`
	UIComposition struct {
		Tabs []struct {
			ID     string
			Blocks []struct{ ID, ComponentType, DataBinding, Variant, Title string }
		}
	} `json:"uiComposition"`
}

func (b bpShape) blockIDs() []string {
	var out []string
	for _, t := range b.UIComposition.Tabs {
		for _, bl := range t.Blocks {
			out = append(out, bl.ID)
		}
	}
	return out
}

func decodeBP(t *testing.T, raw []byte) bpShape {
	t.Helper()
	var b bpShape
	if err := json.Unmarshal(raw, &b); err != nil || len(b.UIComposition.Tabs) == 0 {
		t.Fatalf("not a blueprint (%v): %s", err, raw)
	}
	return b
}

// The first finding: "分析 1A 班英语成绩" on the stream carried no
// blueprint. A streaming client now gets it as data-blueprint, the AI SDK
// keeps it as a part, and /api/page/generate builds the page from it.
func TestStreamCarriesBlueprint(t *testing.T) {
	s := NewLocal(t, nil)
	st := postStream(t, s.URL, `{"message":"分析 1A 班英语成绩","language":"zh-CN"}`)
	want := []string{"start", "text-start", "text-delta+", "text-end", "data-blueprint", "finish", "[DONE]"}
	if got := st.types(t); st.Status != 200 || !slices.Equal(got, want) {
		t.Fatalf("status %d chunks\n got %v\nwant %v", st.Status, got, want)
	}
	msg := aiSDK(t, st.Raw)
	var part json.RawMessage
	for _, p := range msg.Parts {
		if p.Type == "data-blueprint" {
			part = p.Data
		}
	}
	if part == nil {
		t.Fatalf("the AI SDK's message has no data-blueprint part: %+v", msg.Parts)
	}
	bp := decodeBP(t, part)
	if !strings.Contains(string(part), `"value":"class-hk-f1a"`) || bp.Name == "" {
		t.Errorf("the streamed blueprint is not the resolved plan: %s", part)
	}
	pg := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, part))
	if _, page := completeOf(t, pg); pg.Status != 200 || len(page.Tabs) != len(bp.UIComposition.Tabs) {
		t.Fatalf("page/generate from the streamed blueprint: %d %v", pg.Status, pageTypes(t, pg))
	}
}

// A built page, as a frontend holds it after /api/page/generate.
type builtState struct {
	conv, bp string
	res      pageResult
	page     builtPage
}

func buildPage(t *testing.T, s Local) builtState {
	t.Helper()
	code, a := askJSON(t, s, `{"message":"分析 1A 班英语成绩","language":"zh-CN"}`)
	if code != 200 || a.Action != "build" || a.LegacyAction != "build_workflow" || a.ChatKind != nil || a.Mode != "entry" {
		t.Fatalf("build: %d %+v", code, a)
	}
	pg := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, a.Blueprint))
	res, page := completeOf(t, pg)
	return builtState{conv: a.ConversationID, bp: string(a.Blueprint), res: res, page: page}
}

func followUpBody(b builtState, message string) string {
	return fmt.Sprintf(`{"message":%q,"conversationId":%q,"blueprint":%s,"pageContext":{"meta":{"pageTitle":%q},"dataSummary":"全班 4 项作业，平均得分率约 70%%"}}`,
		message, b.conv, b.bp, b.page.Meta.PageTitle)
}

type patchPlan struct {
	Scope        string `json:"scope"`
	Instructions []struct {
		Op, BlockID, Prompt, Variant, Title string
	} `json:"instructions"`
}

func TestPageRefine(t *testing.T) {
	s := NewLocal(t, nil)
	b := buildPage(t, s)

	// On the stream: a patch plan, accepted by the AI SDK.
	st := postStream(t, s.URL, followUpBody(b, "把分析总结改得更简短"))
	want := []string{"start", "text-start", "text-delta+", "text-end", "data-patch-plan", "finish", "[DONE]"}
	if got := st.types(t); st.Status != 200 || !slices.Equal(got, want) {
		t.Fatalf("status %d chunks\n got %v\nwant %v\n%s", st.Status, got, want, st.Raw)
	}
	aiSDK(t, st.Raw)
	var streamed patchPlan
	raw, _ := json.Marshal(st.data(t, "data-patch-plan")[0])
	_ = json.Unmarshal(raw, &streamed)
	if streamed.Scope != "patch" || len(streamed.Instructions) != 1 || streamed.Instructions[0].BlockID != "summary" ||
		streamed.Instructions[0].Op != "recompose" {
		t.Fatalf("the patch plan does not touch the summary slot: %s", raw)
	}
	if txt := st.text(t); !strings.Contains(txt, "分析总结") {
		t.Errorf("the notice %q does not say what changes", txt)
	}

	// A stock useChat body with the page in its extra body fields.
	chat := postStream(t, s.URL, fmt.Sprintf(`{"id":"chat-page-1","messages":[{"id":"m1","role":"user","parts":[{"type":"text","text":"把分析总结改得更简短"}]}],"trigger":"submit-message","blueprint":%s,"pageContext":{"meta":{"pageTitle":"1A"},"dataSummary":"均分 72%%"}}`, b.bp))
	if got := chat.types(t); !slices.Equal(got, want) || chat.Header.Get("X-Conversation-Id") != "chat-page-1" {
		t.Fatalf("useChat body: chunks %v, conversation %q", got, chat.Header.Get("X-Conversation-Id"))
	}
	aiSDK(t, chat.Raw)

	// The JSON answer: refine, the page's blueprint and the same plan.
	code, a := askJSON(t, s, followUpBody(b, "把分析总结改得更简短"))
	if code != 200 || a.Action != "refine" || a.LegacyAction != "refine" || a.Mode != "followup" || a.ChatKind != nil {
		t.Fatalf("refine: %d %+v", code, a)
	}
	var jplan patchPlan
	if err := json.Unmarshal(a.PatchPlan, &jplan); err != nil || fmt.Sprint(jplan) != fmt.Sprint(streamed) {
		t.Errorf("JSON patchPlan %s, stream %s", a.PatchPlan, raw)
	}
	if decodeBP(t, a.Blueprint).ID != decodeBP(t, []byte(b.bp)).ID {
		t.Errorf("a refine answers with the page's own blueprint, got %s", a.Blueprint)
	}
	t.Logf("refine: %q %s", a.ChatResponse, a.PatchPlan)
	if len(a.Artifacts) != 1 || a.Artifacts[0].Type != "data-patch-plan" {
		t.Errorf("artifacts %+v", a.Artifacts)
	}

	// /api/page/patch accepts the plan and applies it: a shorter summary,
	// the numbers untouched, no data-service call.
	before := s.Java.RequestCount()
	body := fmt.Sprintf(`{"blueprint":%s,"page":%s,"dataContext":%s,"computeResults":%s,"patchPlan":%s}`,
		a.Blueprint, b.res.Page, mustJSON(t, b.res.DataContext), mustJSON(t, b.res.ComputeResults), a.PatchPlan)
	pt := postSSE(t, s.URL+"/api/page/patch", body)
	if pt.Status != 200 || pt.Header.Get("X-Build-Mode") != "patch" {
		t.Fatalf("patch: %d %s %s", pt.Status, pt.Header.Get("X-Build-Mode"), pt.Raw)
	}
	_, patched := completeOf(t, pt)
	old, now := b.page.block(t, "summary").Content, patched.block(t, "summary").Content
	if now == "" || len([]rune(now)) >= len([]rune(old)) {
		t.Errorf("the summary is not shorter:\nbefore %q\nafter  %q", old, now)
	}
	if patched.block(t, "kpis").Data[0] != b.page.block(t, "kpis").Data[0] || s.Java.RequestCount() != before {
		t.Error("a patch must keep the numbers and not fetch data again")
	}
}

func TestPageRebuild(t *testing.T) {
	s := NewLocal(t, nil)
	b := buildPage(t, s)
	old := decodeBP(t, []byte(b.bp))

	st := postStream(t, s.URL, followUpBody(b, "加一个按作业的对比图"))
	want := []string{"start", "text-start", "text-delta+", "text-end", "data-blueprint", "finish", "[DONE]"}
	if got := st.types(t); st.Status != 200 || !slices.Equal(got, want) {
		t.Fatalf("status %d chunks\n got %v\nwant %v\n%s", st.Status, got, want, st.Raw)
	}
	aiSDK(t, st.Raw)
	raw, _ := json.Marshal(st.data(t, "data-blueprint")[0])
	nb := decodeBP(t, raw)
	added := ""
	for _, tab := range nb.UIComposition.Tabs {
		for _, bl := range tab.Blocks {
			if !slices.Contains(old.blockIDs(), bl.ID) {
				added = bl.ID
				if bl.ComponentType != "chart" {
					t.Errorf("the new block %s is a %s, want a chart", bl.ID, bl.ComponentType)
				}
				if !slices.ContainsFunc(nb.ComputeGraph.Nodes, func(n struct{ ID, Op, GroupBy string }) bool {
					return n.ID == bl.DataBinding && n.Op == "breakdown" && n.GroupBy == "assignment"
				}) {
					t.Errorf("the new chart %s does not show a breakdown by assignment (%s)", bl.ID, bl.DataBinding)
				}
			}
		}
	}
	if added == "" || len(nb.blockIDs()) != len(old.blockIDs())+1 || nb.ID == old.ID || nb.Version != old.Version+1 {
		t.Fatalf("rebuild: blocks %v (were %v), id %s (was %s), version %d", nb.blockIDs(), old.blockIDs(), nb.ID, old.ID, nb.Version)
	}
	for _, id := range old.blockIDs() {
		if !slices.Contains(nb.blockIDs(), id) {
			t.Errorf("the rebuild lost block %s", id)
		}
	}

	code, a := askJSON(t, s, followUpBody(b, "加一个按作业的对比图"))
	if code != 200 || a.Action != "rebuild" || a.LegacyAction != "rebuild" || a.Mode != "followup" || string(a.PatchPlan) != "null" {
		t.Fatalf("rebuild: %d %+v", code, a)
	}
	if !slices.Equal(decodeBP(t, a.Blueprint).blockIDs(), nb.blockIDs()) || !strings.Contains(a.ChatResponse, "生成页面") {
		t.Errorf("JSON rebuild %s / %q", a.Blueprint, a.ChatResponse)
	}
	t.Logf("rebuild: %q", a.ChatResponse)
	// The new page has the chart, one bar per assignment.
	pg := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, a.Blueprint))
	_, page := completeOf(t, pg)
	chart := page.block(t, added)
	if len(chart.Series) != 1 || len(chart.XAxis) != len(referenceFor("class-hk-f1a").assignments) {
		t.Errorf("the new chart %+v", chart)
	}
}

func TestPageQuestionIsChat(t *testing.T) {
	s := NewLocal(t, nil)
	b := buildPage(t, s)
	code, a := askJSON(t, s, followUpBody(b, "这个页面的数据可靠吗？"))
	if code != 200 || a.Action != "chat" || a.LegacyAction != "chat" || a.ChatKind == nil || *a.ChatKind != "page" ||
		string(a.Blueprint) != "null" || string(a.PatchPlan) != "null" || a.Mode != "followup" {
		t.Fatalf("question: %d %+v", code, a)
	}
	t.Logf("question: %q", a.ChatResponse)
	if !strings.Contains(a.ChatResponse, b.page.Meta.PageTitle) || !strings.Contains(a.ChatResponse, "平均得分率约 70%") {
		t.Errorf("the answer does not rest on the page: %q", a.ChatResponse)
	}
}

// A follow-up's blueprint is checked like /api/page/generate's (issue 14
// F10): every field, on both conversation routes, before anything runs.
func TestFollowUpBlueprintValidated(t *testing.T) {
	s := NewLocal(t, nil)
	_, a := askJSON(t, s, `{"message":"分析 1A 班英语成绩"}`)
	var bp map[string]any
	_ = json.Unmarshal(a.Blueprint, &bp)
	cases := map[string]func(m map[string]any){
		"description too long": func(m map[string]any) { m["description"] = strings.Repeat("长", 2001) },
		"unknown data tool": func(m map[string]any) {
			m["dataContract"].(map[string]any)["bindings"].([]any)[0].(map[string]any)["toolName"] = "drop_tables"
		},
		"unknown field":         func(m map[string]any) { m["surprise"] = 1 },
		"sourcePrompt too long": func(m map[string]any) { m["sourcePrompt"] = strings.Repeat("x", 8001) },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			_ = json.Unmarshal(a.Blueprint, &m)
			mutate(m)
			body := fmt.Sprintf(`{"message":"把分析总结改得更简短","blueprint":%s}`, mustJSON(t, m))
			for _, route := range []string{"/api/conversation", "/api/conversation/stream"} {
				var e convAnswer
				if code := PostJSON(t, s.URL+route, body, &e); code != http.StatusUnprocessableEntity || e.Error == nil || e.Error.Code != "BLUEPRINT_ERROR" {
					t.Errorf("%s: %d %+v", route, code, e.Error)
				}
				gen := postSSE(t, s.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, mustJSON(t, m)))
				if gen.Status != http.StatusUnprocessableEntity {
					t.Errorf("/api/page/generate accepts what the conversation refuses? %d", gen.Status)
				}
			}
		})
	}
	var e convAnswer
	if code := PostJSON(t, s.URL+"/api/conversation", `{"message":"x","pageContext":{"meta":{"pageTitle":7}}}`, &e); code != 400 || e.Error.Code != "VALIDATION_ERROR" {
		t.Errorf("bad pageContext: %d %+v", code, e.Error)
	}
}
