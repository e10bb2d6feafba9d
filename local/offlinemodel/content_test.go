package offlinemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/gentools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The content scenarios are played against the product's own generation
// tools (their schemas offered as the agent offers them, their code run on
// every call), so an argument that does not fit fails here.

// fakePDF stands in for the PDF renderer, an edge whose output these tests
// do not read (local/files_test.go reads real PDFs).
type fakePDF struct{}

func (fakePDF) Bytes(office.Document, time.Time) ([]byte, error) {
	return []byte("%PDF-1.4\n%fake\n"), nil
}

// generation returns the product's generation tools over a file store in
// a temporary directory.
func generation(t *testing.T) map[string]tools.Tool {
	t.Helper()
	fs, err := blob.NewFS(blob.FSConfig{Dir: t.TempDir(), BaseURL: "http://127.0.0.1:1", Secret: []byte("0123456789abcdef0123")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	out := map[string]tools.Tool{}
	for _, tl := range gentools.New(gentools.Deps{Blob: fs, PDF: fakePDF{}}) {
		out[tl.Name] = tl
	}
	return out
}

// offered is what the agent offers the model: the data and quiz tools,
// final_result and the generation tools with their real schemas.
func offered(gen map[string]tools.Tool) []openai.Tool {
	out := agentTools()
	names := make([]string, 0, len(gen))
	for n := range gen {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		tl := gen[n]
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: tl.Name, Description: tl.Description, Parameters: tl.Schema}})
	}
	return out
}

// contentTurn is one agent turn whose generation calls ran the real tools.
type contentTurn struct {
	turn
	args    map[string]string // tool → its last arguments
	events  []string          // chunk types the tools emitted
	files   []gentools.FileReady
	pages   []gentools.InteractiveContent
	outline []gentools.PptxOutline
	memory  []string
	errs    []string // errors the tools returned
}

// summary is the turn as the product's history summary (prompts.HistoryHeader) tells it.
func (ct contentTurn) summary(msg string) []string {
	fr := ct.last()
	lines := []string{"Teacher: " + msg, "Assistant: " + fr.Message}
	if len(fr.Artifacts) > 0 {
		lines = append(lines, "Artifacts: "+strings.Join(fr.Artifacts, ", "))
	}
	for _, m := range ct.memory {
		lines = append(lines, "Produced: "+m)
	}
	return lines
}

// playContent plays one agent turn: generation calls run the real tools,
// other tools are answered by fakeTool, and final_result is checked the way
// validate_terminal_state checks it (artifact_ready needs an artifact event
// in the attempt), with one retry after a refusal.
// playOneTool plays msg and requires one call of tool, then final_result,
// with no error.
func playOneTool(t *testing.T, c *openai.Client, gen map[string]tools.Tool, msg, tool string) contentTurn {
	t.Helper()
	ct := playContent(t, c, gen, msg, nil)
	if !slices.Equal(ct.names(), []string{tool, "final_result"}) || len(ct.errs) > 0 {
		t.Fatalf("calls %v errors %v", ct.names(), ct.errs)
	}
	return ct
}

func playContent(t *testing.T, c *openai.Client, gen map[string]tools.Tool, msg string, history []string) contentTurn {
	t.Helper()
	msgs := []openai.ChatCompletionMessage{system(prompts.AgentHeader, "End every turn with final_result.")}
	if len(history) > 0 {
		msgs = append(msgs, historyMessage(history...))
	}
	msgs = append(msgs, user(msg))
	ct := contentTurn{args: map[string]string{}}
	var attemptEvents []string
	for range 12 {
		r := complete(t, c, openai.ChatCompletionRequest{Model: "offline-strong", Messages: msgs, Tools: offered(gen)}, true)
		if len(r.calls) == 0 {
			ct.text = r.content
			return ct
		}
		tc := r.call(t)
		ct.calls = append(ct.calls, tc)
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{tc}})
		if tc.Function.Name == prompts.FinalResultTool {
			var fr finalResult
			if err := json.Unmarshal([]byte(tc.Function.Arguments), &fr); err != nil {
				t.Fatalf("final_result %q: %v", tc.Function.Arguments, err)
			}
			ct.finals = append(ct.finals, fr)
			refuse := fr.Status == statusArtifact && !slices.ContainsFunc(attemptEvents, func(e string) bool { return protocol.ArtifactEventTypes[e] })
			if !refuse || ct.refusals == 1 {
				return ct
			}
			ct.refusals++
			attemptEvents = nil
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID,
				Content: prompts.RefusedPrefix + " artifact_ready without an artifact event"})
			continue
		}
		var out string
		if tl, ok := gen[tc.Function.Name]; ok {
			ct.args[tc.Function.Name] = tc.Function.Arguments
			call := tools.Call{TeacherID: "t-1", SessionID: "s-1", CallID: tc.ID, Language: detectLang(msg).code(),
				Emit: func(_ context.Context, ch protocol.Chunk) error {
					attemptEvents = append(attemptEvents, ch.ChunkType())
					ct.events = append(ct.events, ch.ChunkType())
					ct.collect(t, ch)
					return nil
				}}
			res, err := tl.Run(context.Background(), call, json.RawMessage(tc.Function.Arguments))
			if err != nil {
				ct.errs = append(ct.errs, err.Error())
				b, _ := json.Marshal(map[string]string{"error": err.Error()})
				out = string(b)
			} else {
				b, _ := json.Marshal(res.Output)
				out = string(b)
				if res.Memory != "" {
					ct.memory = append(ct.memory, res.Memory)
				}
			}
		} else {
			out = fakeTool(tc.Function.Name, tc.Function.Arguments)
		}
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: out})
	}
	t.Fatal("the agent turn did not end in 12 rounds")
	return ct
}

func (ct *contentTurn) collect(t *testing.T, ch protocol.Chunk) {
	t.Helper()
	b, err := json.Marshal(ch)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	var into any
	switch ch.ChunkType() {
	case "data-" + protocol.DataFileReady:
		ct.files = append(ct.files, gentools.FileReady{})
		into = &ct.files[len(ct.files)-1]
	case "data-" + protocol.DataInteractiveContent:
		ct.pages = append(ct.pages, gentools.InteractiveContent{})
		into = &ct.pages[len(ct.pages)-1]
	case "data-" + protocol.DataPptxOutline:
		ct.outline = append(ct.outline, gentools.PptxOutline{})
		into = &ct.outline[len(ct.outline)-1]
	default:
		return
	}
	if err := json.Unmarshal(d.Data, into); err != nil {
		t.Fatalf("%s: %v", ch.ChunkType(), err)
	}
}

func decode[T any](t *testing.T, raw string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

// checkDeckSlides asserts 6–10 slides, each with a title, 2–6 bullets and
// notes.
func checkDeckSlides(t *testing.T, slides []slideArg) {
	t.Helper()
	if len(slides) < 6 || len(slides) > 10 {
		t.Fatalf("%d slides, want 6–10", len(slides))
	}
	for i, s := range slides {
		if s.Title == "" || len(s.Bullets) < 2 || len(s.Bullets) > 6 || s.Notes == "" {
			t.Errorf("slide %d is thin: %+v", i+1, s)
		}
	}
}

// TestDeckAndDocumentConversations plays, in each language, a deck (outline,
// then the teacher's confirmation), a lesson plan and its PDF, each turn
// seeing the earlier ones only through the history summary.
func TestDeckAndDocumentConversations(t *testing.T) {
	tests := []struct {
		lang                            string
		deck, confirm, plan, pdf        string
		topic                           string
		headings                        []string
		confirmWords, tableHead, planIn []string
	}{
		{lang: "zh", deck: "做一个光合作用的 PPT", confirm: "可以，就按这个提纲生成", plan: "写一份牛顿第一定律的教案", pdf: "把这份教案导出成 PDF",
			topic: "光合作用", headings: []string{"教学目标", "重点难点", "教学过程", "作业"}, confirmWords: []string{"确认", "可以，就按这个提纲生成"},
			tableHead: []string{"环节", "时间", "教师活动", "学生活动"}, planIn: []string{"惯性", "伽利略"}},
		{lang: "en", deck: "Make a slide deck on photosynthesis", confirm: "yes, go ahead", plan: "Write a lesson plan on Newton's first law", pdf: "export it as PDF",
			topic: "photosynthesis", headings: []string{"objectives", "Key points and difficulties", "procedure", "Homework"}, confirmWords: []string{"yes, go ahead"},
			tableHead: []string{"Phase", "Time", "Teacher", "Students"}, planIn: []string{"inertia", "Galileo"}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			_, c := start(t, Options{})
			gen := generation(t)

			first := playContent(t, c, gen, tt.deck, nil)
			if !slices.Equal(first.names(), []string{"propose_pptx_outline", "final_result"}) || len(first.errs) > 0 {
				t.Fatalf("outline turn: calls %v errors %v", first.names(), first.errs)
			}
			fr := first.last()
			if fr.Status != statusArtifact || !slices.Equal(fr.Artifacts, []string{"pptx-outline"}) || len(first.outline) != 1 {
				t.Fatalf("outline turn ended with %+v, outline events %d", fr, len(first.outline))
			}
			for _, w := range tt.confirmWords {
				if !strings.Contains(fr.Message, w) {
					t.Errorf("the outline message does not ask to confirm (%q): %q", w, fr.Message)
				}
			}
			outline := decode[outlineArgs](t, first.args["propose_pptx_outline"])
			checkDeckSlides(t, outline.Slides)
			if !strings.Contains(strings.ToLower(outline.Title), tt.topic) {
				t.Errorf("outline title %q", outline.Title)
			}
			if len(first.memory) != 1 || !strings.Contains(first.memory[0], "{") {
				t.Fatalf("the outline's note carries no arguments (too long?): %q", first.memory)
			}

			history := first.summary(tt.deck)
			second := playContent(t, c, gen, tt.confirm, history)
			if !slices.Equal(second.names(), []string{"generate_pptx", "final_result"}) || len(second.errs) > 0 {
				t.Fatalf("confirm turn: calls %v errors %v", second.names(), second.errs)
			}
			deck := decode[pptxArgs](t, second.args["generate_pptx"])
			if deck.Title != outline.Title || len(deck.Slides) != len(outline.Slides) {
				t.Fatalf("the deck %q (%d slides) is not the confirmed outline %q (%d)", deck.Title, len(deck.Slides), outline.Title, len(outline.Slides))
			}
			for i := range deck.Slides {
				if deck.Slides[i].Title != outline.Slides[i].Title || !slices.Equal(deck.Slides[i].Bullets, outline.Slides[i].Bullets) || deck.Slides[i].Notes == "" {
					t.Errorf("slide %d: %+v, outline had %+v", i+1, deck.Slides[i], outline.Slides[i])
				}
			}
			if len(second.files) != 1 || second.files[0].Type != "pptx" || second.last().Status != statusArtifact {
				t.Fatalf("deck turn: files %+v final %+v", second.files, second.last())
			}
			if !strings.Contains(second.last().Message, fmt.Sprint(len(deck.Slides)+1)) {
				t.Errorf("the deck message does not give the slide count %d: %q", len(deck.Slides)+1, second.last().Message)
			}

			history = append(history, second.summary(tt.confirm)...)
			third := playContent(t, c, gen, tt.plan, history)
			if !slices.Equal(third.names(), []string{"generate_docx", "final_result"}) || len(third.errs) > 0 {
				t.Fatalf("plan turn: calls %v errors %v", third.names(), third.errs)
			}
			plan := decode[documentArgs](t, third.args["generate_docx"])
			if plan.Kind != kindLessonPlan || len(plan.Sections) != len(tt.headings) {
				t.Fatalf("lesson plan kind %q with %d sections", plan.Kind, len(plan.Sections))
			}
			var tables int
			for i, h := range tt.headings {
				sec := plan.Sections[i]
				if !strings.Contains(sec.Heading, h) || len(sec.Paragraphs)+len(sec.Bullets)+len(sec.Numbered) == 0 {
					t.Errorf("section %d %+v, want heading with %q and content", i+1, sec, h)
				}
				if sec.Table != nil {
					tables++
					if !slices.Equal(sec.Table.Headers, tt.tableHead) || len(sec.Table.Rows) < 4 {
						t.Errorf("procedure table %+v", sec.Table)
					}
				}
			}
			if tables != 1 || !strings.Contains(mustJSON(plan), tt.planIn[0]) || !strings.Contains(mustJSON(plan), tt.planIn[1]) {
				t.Errorf("lesson plan: %d tables, text %s", tables, mustJSON(plan))
			}
			if len(third.files) != 1 || third.files[0].Type != "docx" || len(third.memory) != 1 || !strings.Contains(third.memory[0], "{") {
				t.Fatalf("plan turn: files %+v, note %q", third.files, third.memory)
			}

			history = append(history, third.summary(tt.plan)...)
			fourth := playContent(t, c, gen, tt.pdf, history)
			if !slices.Equal(fourth.names(), []string{"render_pdf", "final_result"}) || len(fourth.errs) > 0 {
				t.Fatalf("pdf turn: calls %v errors %v", fourth.names(), fourth.errs)
			}
			if got := decode[documentArgs](t, fourth.args["render_pdf"]); mustJSON(got) != mustJSON(plan) {
				t.Errorf("the PDF is not the earlier document:\n got %s\nwant %s", mustJSON(got), mustJSON(plan))
			}
			if len(fourth.files) != 1 || fourth.files[0].Type != "pdf" || fourth.last().Status != statusArtifact {
				t.Fatalf("pdf turn: files %+v final %+v", fourth.files, fourth.last())
			}
		})
	}
}

func TestInteractivePages(t *testing.T) {
	tests := []struct {
		msg      string
		tool     string
		template string
		minItems int
		contains string
	}{
		{"做一个光合作用的互动网页", "request_interactive_content", templateExplainer, 6, "叶绿体"},
		{"做一套牛顿第一定律的闪卡", "request_interactive_content", templateFlashcards, 6, "惯性"},
		{"做一个光合作用的互动自测题", "request_interactive_content", templateQuiz, 4, "叶绿体"},
		{"Make interactive flashcards on photosynthesis", "request_interactive_content", templateFlashcards, 6, "Chlorophyll"},
		{"Make an interactive quiz page on Newton's first law", "request_interactive_content", templateQuiz, 4, "inertia"},
		{"Make an interactive page about the water cycle", "request_interactive_content", templateExplainer, 6, "water cycle"},
		{"Make a self-check quiz web page about fractions", "request_interactive_content", templateQuiz, 4, "fractions"},
		{"做一个简单的网页介绍光合作用", "generate_interactive_html", "custom", 0, "叶绿体"},
		{"Make a simple web page about the water cycle", "generate_interactive_html", "custom", 0, "water cycle"},
	}
	_, c := start(t, Options{})
	gen := generation(t)
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			ct := playOneTool(t, c, gen, tt.msg, tt.tool)
			if len(ct.pages) != 1 || ct.pages[0].Template != tt.template || ct.pages[0].Items < tt.minItems {
				t.Fatalf("pages %+v, want template %s with at least %d items", ct.pages, tt.template, tt.minItems)
			}
			if !strings.Contains(ct.args[tt.tool], tt.contains) {
				t.Errorf("arguments lack %q: %s", tt.contains, ct.args[tt.tool])
			}
			if fr := ct.last(); fr.Status != statusArtifact || !slices.Equal(fr.Artifacts, []string{"interactive"}) || fr.Message == "" {
				t.Errorf("final %+v", fr)
			}
			if tt.tool == "generate_interactive_html" {
				h := decode[htmlArgs](t, ct.args[tt.tool])
				for _, bad := range []string{"<script src", "<link", "http://", "https://", "<iframe", "@import"} {
					if strings.Contains(h.HTML, bad) {
						t.Errorf("the page loads from outside (%q)", bad)
					}
				}
				if !strings.Contains(h.HTML, "<script>") || !strings.Contains(h.HTML, "<style>") {
					t.Errorf("the page has no inline script or style:\n%s", h.HTML)
				}
			}
		})
	}
}

// TestDocumentKinds covers the other documents and a PDF asked for directly.
func TestDocumentKinds(t *testing.T) {
	tests := []struct {
		msg, tool, kind string
		minSections     int
	}{
		{"写一份光合作用的讲稿", "generate_docx", kindLectureNotes, 6},
		{"Write a homework sheet on the Pythagorean theorem as a Word document", "generate_docx", kindHomework, 2},
		{"Write a lesson plan on fractions", "generate_docx", kindLessonPlan, 4},
		{"把勾股定理的教案做成 PDF", "render_pdf", kindLessonPlan, 4},
	}
	_, c := start(t, Options{})
	gen := generation(t)
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			ct := playOneTool(t, c, gen, tt.msg, tt.tool)
			d := decode[documentArgs](t, ct.args[tt.tool])
			if d.Kind != tt.kind || len(d.Sections) < tt.minSections || len(ct.files) != 1 {
				t.Fatalf("kind %q, %d sections, files %+v", d.Kind, len(d.Sections), ct.files)
			}
		})
	}
}

func TestFileToolFailsThenRetries(t *testing.T) {
	_, c := start(t, Options{})
	gen := generation(t)
	for _, msg := range []string{"写一份牛顿第一定律的教案", "Make a slide deck on photosynthesis", "做一个光合作用的互动网页"} {
		t.Run(msg, func(t *testing.T) {
			ct := playContent(t, c, gen, msg+" "+string(MarkerFileToolFails), nil)
			names := ct.names()
			if len(names) != 4 || names[0] != names[2] || names[1] != "final_result" || names[3] != "final_result" {
				t.Fatalf("calls %v, want tool, final_result (refused), tool, final_result", names)
			}
			if len(ct.errs) != 1 || !strings.Contains(ct.errs[0], "invalid arguments") {
				t.Fatalf("errors %v, want one invalid-arguments error", ct.errs)
			}
			if ct.refusals != 1 || ct.finals[0].Status != statusArtifact || ct.last().Status != statusArtifact {
				t.Fatalf("refusals %d finals %+v", ct.refusals, ct.finals)
			}
			if ct.calls[0].ID == ct.calls[2].ID {
				t.Error("the retried call reuses the failed call's id")
			}
			if n := len(ct.files) + len(ct.pages) + len(ct.outline); n != 1 {
				t.Errorf("%d artifacts, want the retried call's one", n)
			}
		})
	}
}

// TestRouterOffersGenerationTools routes content requests with the
// product's router prompt: the candidates come from its tool list.
func TestRouterOffersGenerationTools(t *testing.T) {
	var prompt strings.Builder
	prompt.WriteString(prompts.Router)
	gen := generation(t)
	names := make([]string, 0, len(gen))
	for n := range gen {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&prompt, "- %s: %s\n", n, gen[n].Description)
	}
	outlineNoteLine := `Produced: PPT outline proposed, awaiting the teacher's confirmation (propose_pptx_outline arguments): {"title":"光合作用","slides":[{"title":"概念","bullets":["a","b"]}]}`
	docNoteLine := `Produced: docx file 牛顿第一定律教案.docx generated from this document: {"title":"牛顿第一定律教案","kind":"lesson_plan","sections":[{"heading":"一、教学目标","bullets":["a"]}]}`
	tests := []struct {
		msg     string
		history []string
		intent  workflow.Intent
		tools   []string
	}{
		{"做一个光合作用的 PPT", nil, workflow.IntentContent, []string{"propose_pptx_outline", "generate_pptx"}},
		{"可以，就按这个提纲生成", []string{"Teacher: 做一个光合作用的 PPT", "Assistant: 我先拟了一份提纲", outlineNoteLine}, workflow.IntentContent, []string{"generate_pptx", "propose_pptx_outline"}},
		{"yes, go ahead", []string{"Teacher: make a deck on photosynthesis", "Assistant: here is an outline", outlineNoteLine}, workflow.IntentContent, []string{"generate_pptx", "propose_pptx_outline"}},
		{"可以", []string{"Teacher: 出 5 道题", "Assistant: 已生成", "Produced: quiz"}, workflow.IntentQA, []string{}},
		{"写一份牛顿第一定律的教案", nil, workflow.IntentContent, []string{"generate_docx", "render_pdf"}},
		{"把这份教案导出成 PDF", []string{"Teacher: 写一份牛顿第一定律的教案", "Assistant: 好了", docNoteLine}, workflow.IntentContent, []string{"render_pdf", "generate_docx"}},
		{"export it as PDF", []string{"Teacher: write a lesson plan", "Assistant: done", docNoteLine}, workflow.IntentContent, []string{"render_pdf", "generate_docx"}},
		{"做一个光合作用的互动网页", nil, workflow.IntentContent, []string{"request_interactive_content", "generate_interactive_html"}},
		{"做一个简单的网页介绍光合作用", nil, workflow.IntentContent, []string{"generate_interactive_html", "request_interactive_content"}},
		{"Make an interactive quiz page on Newton's first law", nil, workflow.IntentContent, []string{"request_interactive_content", "generate_interactive_html"}},
		{"出 5 道光合作用的选择题", nil, workflow.IntentQuiz, []string{"generate_quiz_questions"}},
	}
	_, c := start(t, Options{})
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: prompt.String()}}
			if tt.history != nil {
				msgs = append(msgs, historyMessage(tt.history...))
			}
			req := openai.ChatCompletionRequest{Model: "m", Messages: append(msgs, user(tt.msg))}
			res := routed(t, complete(t, c, req, false).content)
			// The quiz tool is not in this prompt's list: only listed tools are named.
			want := slices.DeleteFunc(slices.Clone(tt.tools), func(n string) bool { _, ok := gen[n]; return !ok })
			if res.Intent != tt.intent || !slices.Equal(res.CandidateTools, want) {
				t.Fatalf("intent %s tools %v, want %s %v", res.Intent, res.CandidateTools, tt.intent, want)
			}
		})
	}
}

func TestReadingContentRequests(t *testing.T) {
	for s, want := range map[string]bool{
		"可以，就按这个提纲生成": true, "确认，生成吧": true, "yes, go ahead": true, "Looks good": true, "ok": true, "Fine, generate the deck": true,
		"可以再加两页吗": false, "不行，换一个": false, "no, change slide 3": false, "yes but add a slide on respiration": false,
		"Can you look at my book?": false,
	} {
		if got := isConfirmation(s); got != want {
			t.Errorf("isConfirmation(%q) = %v", s, got)
		}
	}
	history := "## Earlier in this conversation\nTeacher: a\nAssistant: b\nProduced: docx file a.docx generated from this document: {\"title\":\"A\",\"sections\":[{\"heading\":\"h\"}]}\n" +
		"Teacher: c\nAssistant: d\nProduced: PPT outline proposed, awaiting the teacher's confirmation (propose_pptx_outline arguments): {\"title\":\"T\",\"slides\":[{\"title\":\"s\",\"bullets\":[\"x\"]}]}\n"
	if o, ok := pendingOutline(history); !ok || o.Title != "T" {
		t.Errorf("pendingOutline = %+v %v", o, ok)
	}
	if d, ok := earlierDocument(history); !ok || d.Title != "A" {
		t.Errorf("earlierDocument = %+v %v", d, ok)
	}
	later := history + "Teacher: e\nAssistant: f\nProduced: PPT generated: T.pptx\n"
	if _, ok := pendingOutline(later); ok || awaitsOutline(later) {
		t.Error("an outline proposed two turns ago is still taken as pending")
	}
	if _, ok := pendingOutline(strings.Replace(history, `{"title":"T"`, `{"title":`, 1)); ok {
		t.Error("a broken note was read")
	}
}

// TestArgumentsFitTheNotes keeps the outline and the documents small enough
// for the tools' notes to carry them to the next turn (gentools keeps at
// most 8000 bytes of arguments in a note).
func TestArgumentsFitTheNotes(t *testing.T) {
	const limit = 8000
	for _, l := range []lang{zh, en} {
		for _, topic := range []string{"光合作用", "牛顿第一定律", "勾股定理", "the water cycle", "一次函数"} {
			m := materialFor(l, topic)
			if n := len(mustJSON(outlineOf(m))); n > limit {
				t.Errorf("%s outline (%v): %d bytes", topic, l, n)
			}
			for _, k := range []string{kindLessonPlan, kindLectureNotes, kindHomework} {
				b, _ := json.Marshal(documentOf(l, m, k)) // as gentools encodes it (HTML-escaped)
				if len(b) > limit {
					t.Errorf("%s %s (%v): %d bytes", topic, k, l, len(b))
				}
			}
			checkDeckSlides(t, m.slides)
		}
	}
}

// TestForcedGenerationTool: a tool_choice that forces a generation tool
// gets arguments the tool accepts.
func TestForcedGenerationTool(t *testing.T) {
	_, c := start(t, Options{})
	gen := generation(t)
	for _, name := range []string{"generate_pptx", "generate_docx", "render_pdf", "request_interactive_content", "generate_interactive_html"} {
		t.Run(name, func(t *testing.T) {
			req := openai.ChatCompletionRequest{Model: "m", Tools: offered(gen),
				Messages:   []openai.ChatCompletionMessage{system(prompts.AgentHeader, ""), user("做一个光合作用的 PPT")},
				ToolChoice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: name}}}
			tc := complete(t, c, req, false).call(t)
			if tc.Function.Name != name {
				t.Fatalf("called %s", tc.Function.Name)
			}
			call := tools.Call{TeacherID: "t-1", SessionID: "s-1", CallID: tc.ID, Emit: func(context.Context, protocol.Chunk) error { return nil }}
			if _, err := gen[name].Run(context.Background(), call, json.RawMessage(tc.Function.Arguments)); err != nil {
				t.Fatalf("%s rejected %s: %v", name, tc.Function.Arguments, err)
			}
		})
	}
}

func TestArticle(t *testing.T) {
	for n, want := range map[int]string{5: "a", 8: "an", 10: "a", 11: "an", 12: "a", 18: "an", 80: "an", 100: "a"} {
		if got := article(n); got != want {
			t.Errorf("article(%d) = %q, want %q", n, got, want)
		}
	}
}
