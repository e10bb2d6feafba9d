package offlinemodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Content requests (seed 000 §5.1–5.3): a deck is proposed as an outline
// first and generated when the teacher confirms it; a document is written
// straight away and exported as PDF on request, reusing the document the
// earlier turn made; an interactive page uses a template, or plain HTML for
// a simple page. Earlier turns are known only from the history summary: the
// tools' "Produced:" notes carry their arguments as JSON, which is what a
// follow-up ("就按这个提纲生成", "export it as PDF") reuses.

type contentKind int

const (
	slides contentKind = iota
	document
	interactive
)

type contentScenario struct {
	kind  contentKind
	topic string
	// confirmed: the teacher approved the outline the last turn proposed,
	// so the deck itself is generated; outline is that outline, when the
	// history carries it.
	confirmed bool
	outline   *outlineArgs
	// wantsPDF: a document as PDF; source is the earlier document to
	// export, when the history carries it.
	wantsPDF bool
	source   *documentArgs
	fromDeck bool
	docKind  string
	// slidesAsked is the number of slides the request names, 0 for none.
	slidesAsked int
	// revised is the last turn's outline with the change asked for, to
	// propose again; nil otherwise.
	revised *outlineArgs
	// template of an interactive page; simple asks for a plain HTML page.
	template string
	simple   bool
	// sim is the physics simulation a page on the topic demonstrates.
	sim    simulation
	hasSim bool
	grade  string
}

func contentScenarioFrom(c *call) *contentScenario {
	low := strings.ToLower(c.user)
	cs := &contentScenario{topic: topicOf(c.lang, c.user), wantsPDF: strings.Contains(low, "pdf"), grade: gradeMention(c.user),
		slidesAsked: slidesAsked(c.user)}
	if o, ok := revisedOutline(c); ok {
		cs.kind, cs.revised, cs.topic, cs.slidesAsked = slides, &o, o.Title, 0
		return cs
	}
	switch {
	case asksForPage(low):
		cs.kind = interactive
		cs.simple = asksForSimplePage(low)
		cs.template = pageTemplate(low)
		cs.sim, cs.hasSim = simulationFor(cs.topic)
	case isConfirmation(c.user) && awaitsOutline(c.history) && !asksForDocument(low):
		cs.kind, cs.confirmed = slides, true
		if o, ok := pendingOutline(c.history); ok {
			cs.outline = &o
			if cs.topic == "" {
				cs.topic = o.Title
			}
		}
	case asksForSlides(low):
		cs.kind = slides
	default:
		cs.kind = document
		cs.docKind = documentKind(low)
		if cs.wantsPDF {
			// "导出为PDF" exports the conversation's latest artifact: a deck
			// as its slides and notes, or the latest document.
			if d, fromDeck, ok := latestArtifactAsDocument(c.lang, c.history); ok && (cs.topic == "" || sameTopic(cs.topic, d.Title)) {
				cs.source, cs.fromDeck = &d, fromDeck
				if cs.topic == "" {
					cs.topic = d.Title
				}
			}
		}
	}
	if cs.topic == "" && c.history != "" {
		cs.topic, _ = historyTopic(c.lang, c.history)
	}
	return cs
}

func asksForPage(low string) bool {
	return containsAny(low, "互动", "网页", "页面", "动画", "小游戏", "闪卡", "interactive", "web page", "webpage", "html", "simulation", "animation", "flashcard", "flash card")
}

func asksForSimplePage(low string) bool {
	return containsAny(low, "简单的网页", "简单网页", "简单的页面", "简单页面", "simple page", "simple web page", "simple webpage", "simple html", "plain html")
}

func asksForDocument(low string) bool {
	return containsAny(low, "教案", "讲稿", "讲义", "文档", "作业", "pdf", "word", "lesson plan", "document", "handout", "homework", "notes")
}

func asksForSlides(low string) bool {
	return containsAny(low, "ppt", "课件", "幻灯片", "演示文稿", "大纲", "提纲", "slide", "presentation", "powerpoint", "deck", "outline")
}

// pageTemplate picks the template a page request calls for; an explainer
// walks through the topic when nothing else is asked.
func pageTemplate(low string) string {
	switch {
	case containsAny(low, "配对", "连线", "匹配", "matching", "match the", "match each"):
		return templateMatching
	case containsAny(low, "时间线", "时间轴", "大事年表", "timeline", "time line"):
		return templateTimeline
	case containsAny(low, "闪卡", "卡片", "记忆卡", "flashcard", "flash card"):
		return templateFlashcards
	case containsAny(low, "测验", "自测", "小测", "练习", "题", "quiz", "self-check", "test"):
		return templateQuiz
	}
	return templateExplainer
}

func documentKind(low string) string {
	switch {
	case containsAny(low, "讲稿", "讲义", "lecture notes", "handout", "script"):
		return kindLectureNotes
	case containsAny(low, "作业", "练习单", "homework", "worksheet"):
		return kindHomework
	}
	return kindLessonPlan
}

// sameTopic reports whether a document titled title is on topic.
func sameTopic(topic, title string) bool {
	return strings.Contains(strings.ToLower(title), strings.ToLower(topic))
}

// isContentTool reports whether name is one of the generation tools a
// content scenario can fill.
func isContentTool(name string) bool {
	return slices.Contains([]string{toolOutline, toolPptx, toolDocx, toolPDF, toolInteractive, toolHTML}, name)
}

// prefs are the generation tools for the request, best first.
func (s *contentScenario) prefs() []string {
	switch s.kind {
	case slides:
		if s.confirmed {
			return []string{toolPptx, toolOutline}
		}
		return []string{toolOutline, toolPptx}
	case interactive:
		if s.simple || s.hasSim {
			return []string{toolHTML, toolInteractive}
		}
		return []string{toolInteractive, toolHTML}
	}
	if s.wantsPDF {
		return []string{toolPDF, toolDocx}
	}
	return []string{toolDocx, toolPDF}
}

// tool is the generation tool to call, the first offered by preference.
func (s *contentScenario) tool(c *call) string {
	for _, p := range s.prefs() {
		if c.offers(p) {
			return p
		}
	}
	return ""
}

// argsFor writes the arguments of tool for this request.
func (s *contentScenario) argsFor(c *call, tool string) map[string]any {
	l := c.lang
	m := s.material(l)
	var v any
	switch tool {
	case toolOutline:
		v = outlineOf(m)
		if s.revised != nil {
			v = *s.revised
		}
	case toolPptx:
		o := outlineOf(m)
		if s.outline != nil {
			o = *s.outline
		}
		v = deckOf(l, o, m)
	case toolDocx, toolPDF:
		d := documentOf(l, m, s.docKind)
		if s.source != nil {
			d = *s.source
		}
		if tool == toolDocx && d.Kind == "" {
			d.Kind = kindLessonPlan
		}
		v = d
	case toolInteractive:
		template := s.template
		if template == "" {
			template = templateExplainer
		}
		v = pageOf(l, m, template)
	case toolHTML:
		v = simplePageOf(l, m)
		if s.hasSim {
			v = simulationPage(l, s.topic, s.sim)
		}
	}
	// A schema other than the product's may ask for more: it is filled
	// from the request, the material's topic and title first.
	hints := c.argHints()
	hints["topic"], hints["title"] = s.topic, m.title
	return c.argsFor(tool, toArgs(v), hints)
}

func (s *contentScenario) material(l lang) material {
	m := materialFor(l, s.topic)
	if s.grade != "" {
		m.grade = s.grade
	}
	return m
}

func (s *contentScenario) next(st *agentState) action {
	l := st.c.lang
	tool := s.tool(st.c)
	if tool == "" {
		return answer(l.pick("抱歉，这次对话里没有可用的生成工具，我没法直接生成"+s.describe(l)+"。",
			"Sorry, no generation tool for this is available in this conversation, so I can't produce "+s.describe(l)+"."))
	}
	if _, a := st.need(tool, s.argsFor(st.c, tool)); a != nil {
		return *a
	}
	return finish(s.done(st, tool))
}

// done is the final result after tool succeeded, told from its call and
// its result.
func (s *contentScenario) done(st *agentState, tool string) finalResult {
	l := st.c.lang
	last := st.lastCall(tool)
	var out map[string]any
	if last != nil {
		_ = json.Unmarshal([]byte(last.result), &out) // a result that is not JSON only loses the details
	}
	t := s.topic
	fr := finalResult{Status: statusArtifact}
	switch tool {
	case toolOutline:
		var o outlineArgs
		if last != nil {
			_ = json.Unmarshal([]byte(last.args), &o)
		}
		var titles []string
		for i, sl := range o.Slides {
			titles = append(titles, fmt.Sprintf("%d. %s", i+1, sl.Title))
		}
		list := strings.Join(titles, "\n")
		fr.Artifacts = []string{"pptx-outline"}
		fr.Message = l.pick(
			fmt.Sprintf("我先为「%s」拟了一份 %d 页的 PPT 提纲：\n\n%s\n\n请确认是否合适：回复「可以，就按这个提纲生成」，我就生成带讲稿备注的完整课件；也可以告诉我要增删或调整哪几页。", t, len(o.Slides), list),
			fmt.Sprintf("Here is %s %d-slide outline for a deck on %s:\n\n%s\n\nDoes it look right? Reply \"yes, go ahead\" and I'll build the full deck with speaker notes, or tell me which slides to add, drop or change.", article(len(o.Slides)), len(o.Slides), t, list))
		if s.revised != nil {
			fr.Message = l.pick(
				fmt.Sprintf("已按你的意思调整了「%s」的提纲，现在共 %d 页：\n\n%s\n\n请确认是否合适：回复「可以，就按这个提纲生成」，我就生成带讲稿备注的完整课件；也可以继续告诉我要增删或调整哪几页。", t, len(o.Slides), list),
				fmt.Sprintf("I've changed the outline on %s as you asked; it now has %d slides:\n\n%s\n\nDoes it look right? Reply \"yes, go ahead\" and I'll build the full deck with speaker notes, or tell me what else to change.", t, len(o.Slides), list))
		}
		if n := s.slidesAsked; n > 0 && n != len(o.Slides) {
			fr.Message += l.pick(fmt.Sprintf("\n\n（你要的是 %d 页，这份提纲按内容拟了 %d 页；告诉我要增加或删去哪几页，我再调整。）", n, len(o.Slides)),
				fmt.Sprintf("\n\n(You asked for %d slides; this outline has %d, one per part of the lesson. Tell me which to add or drop and I'll adjust it.)", n, len(o.Slides)))
		}
	case toolPptx:
		n, _ := num(out, "slides")
		fr.Artifacts = []string{"pptx"}
		fr.Message = l.pick(
			fmt.Sprintf("「%s」的 PPT 课件已经生成好了：共 %d 页（封面加内容页），每页都附有讲稿备注，可以直接下载使用。需要调整页数或风格的话告诉我。", t, int(n)),
			fmt.Sprintf("The deck on %s is ready: %d slides (a title slide and the content slides), each with speaker notes. Download it from the card; tell me if you'd like changes.", t, int(n)))
	case toolDocx:
		name := s.docName()
		fr.Artifacts = []string{"docx"}
		fr.Message = l.pick(
			fmt.Sprintf("「%s」的%s已经生成好了（%s），可以下载后直接编辑。需要 PDF 版的话，说一声「导出成 PDF」就行。", t, name[0], s.docContents(l)),
			fmt.Sprintf("The %s on %s is ready (%s); download it and edit as you like. Say \"export it as PDF\" if you need a PDF.", name[1], t, s.docContents(l)))
	case toolPDF:
		fr.Artifacts = []string{"pdf"}
		if typ, _ := out["type"].(string); typ == "docx" {
			// The server could not make a PDF and made the .docx instead.
			fr.Artifacts = []string{"docx"}
			title := t
			if s.source != nil {
				title = s.source.Title
			}
			fr.Message = l.pick("PDF 导出暂时不可用，所以我把「"+title+"」生成为内容相同的 Word 文档（.docx），可以直接下载；需要 PDF 的话，可以用 Word 打开后另存为 PDF。",
				"PDF export isn't available right now, so I made \""+title+"\" as a Word document (.docx) with the same content; download it, and save it as PDF from Word if you need one.")
			break
		}
		if s.source != nil {
			what := l.pick("文档", "document")
			if s.fromDeck {
				what = l.pick("课件（每页的要点和讲解提示）", "deck (each slide's points and speaker notes)")
			}
			fr.Message = l.pick("已把「"+s.source.Title+"」导出为 PDF，内容和刚才的"+what+"一致，可以直接下载打印。",
				"I've exported \""+s.source.Title+"\" as a PDF with the same content as the "+what+"; it's ready to download and print.")
		} else {
			name := s.docName()
			fr.Message = l.pick("「"+t+"」的"+name[0]+"已经生成为 PDF，可以直接下载打印。", "The "+name[1]+" on "+t+" is ready as a PDF to download and print.")
		}
	case toolInteractive:
		n, _ := num(out, "items")
		name := map[string][2]string{
			templateFlashcards: {"闪卡", "flashcards"}, templateQuiz: {"自测题", "self-check quiz"}, templateExplainer: {"分步讲解", "step-by-step explainer"},
			templateMatching: {"配对练习", "matching exercise"}, templateTimeline: {"时间线", "timeline"},
		}[s.templateOr()]
		fr.Artifacts = []string{"interactive"}
		fr.Message = l.pick(
			fmt.Sprintf("「%s」的互动网页（%s，共 %d 项）已经生成好了，可以在预览里直接试用，也可以投到大屏上和学生一起操作。", t, name[0], int(n)),
			fmt.Sprintf("The interactive page on %s (%s, %d items) is ready; try it in the preview or show it on the board with the class.", t, name[1], int(n)))
	case toolHTML:
		fr.Artifacts = []string{"interactive"}
		if s.hasSim {
			fr.Message = l.pick("「"+t+"」的互动模拟已经生成好了：可以调整参数后点「开始」看动画，也可以拖动时间滑块逐时刻查看，右侧的数值按公式实时计算，适合课堂演示和学生自主探究。",
				"The interactive simulation of "+t+" is ready: change the settings and press Start to watch it, or drag the time slider to any moment; the values beside it are computed from the equations as it runs.")
			break
		}
		fr.Message = l.pick("「"+t+"」的网页已经生成好了：点击按钮逐条展示要点，适合课堂上边讲边看。", "The page on "+t+" is ready: each click reveals the next key point, handy for walking through it in class.")
	}
	return fr
}

func (s *contentScenario) templateOr() string {
	if s.template == "" {
		return templateExplainer
	}
	return s.template
}

// docName names the kind of document, in Chinese and English.
func (s *contentScenario) docName() [2]string {
	switch s.docKind {
	case kindLectureNotes:
		return [2]string{"讲稿", "lecture notes"}
	case kindHomework:
		return [2]string{"课后作业", "homework sheet"}
	}
	return [2]string{"教案", "lesson plan"}
}

func (s *contentScenario) docContents(l lang) string {
	switch s.docKind {
	case kindLectureNotes:
		return l.pick("按课件顺序逐页写好了讲解要点", "a section for each slide, with what to say")
	case kindHomework:
		return l.pick("包括选择题和简答与实践题", "multiple-choice questions and short tasks")
	}
	return l.pick("包括教学目标、重点难点、教学过程表格和作业", "objectives, key points and difficulties, the procedure as a table, and homework")
}

func (s *contentScenario) finish(st *agentState) finalResult {
	l := st.c.lang
	if tool := s.tool(st.c); tool != "" {
		if last := st.lastCall(tool); last != nil && last.answered && !last.failed {
			return s.done(st, tool)
		} else if last != nil {
			return finalResult{Status: statusAnswer, Message: toolFailedMessage(l, last)}
		}
	}
	return finalResult{Status: statusAnswer, Message: l.pick(
		"我还没有调用生成工具，"+s.describe(l)+"尚未生成。需要的话我现在就可以开始。",
		"I haven't called a generation tool yet, so "+s.describe(l)+" doesn't exist so far. I can start now if you like.")}
}

func (s *contentScenario) artifact() string {
	switch s.kind {
	case slides:
		return "pptx"
	case interactive:
		return "interactive"
	}
	if s.wantsPDF {
		return "pdf"
	}
	return "docx"
}

func (s *contentScenario) describe(l lang) string {
	switch s.kind {
	case slides:
		return l.pick("「"+s.topic+"」的 PPT 课件", "a slide deck on "+s.topic)
	case interactive:
		return l.pick("「"+s.topic+"」的互动网页", "an interactive page on "+s.topic)
	}
	return l.pick("「"+s.topic+"」的文档", "a document on "+s.topic)
}

// inline writes the deck's outline as text, as a model that skips its
// tools would.
func (s *contentScenario) inline(l lang) string {
	var sb strings.Builder
	sb.WriteString(l.pick("下面直接给出"+s.describe(l)+"的文字大纲：\n\n", "Here is "+s.describe(l)+" written out as an outline:\n\n"))
	for i, sl := range s.material(l).slides {
		fmt.Fprintf(&sb, "%d. %s：%s\n", i+1, sl.Title, strings.Join(sl.Bullets, l.pick("；", "; ")))
	}
	return strings.TrimSpace(sb.String())
}

// isConfirmation is a short yes to a proposal, with nothing to change.
func isConfirmation(s string) bool {
	low := strings.ToLower(strings.TrimSpace(s))
	if len([]rune(low)) > 40 {
		return false
	}
	if containsAny(low, "不要", "不用", "不行", "不对", "不好", "改", "换", "调整", "删", "增加", "再") ||
		matches(`(?i)\b(change|instead|but|don't|do not|not|remove|add|replace)\b`, low) {
		return false
	}
	return containsAny(low, "确认", "就这样", "生成吧", "开始生成", "没问题", "可以", "好的", "按这个", "就按", "同意") ||
		matches(`(?i)\b(yes|yeah|yep|ok|okay|sure|go ahead|looks good|sounds good|fine|confirm(ed)?|(generate|build|make|do) (it|the deck|the slides))\b`, low)
}

// awaitsOutline reports whether the last turn proposed an outline: its
// note says so, or (a summary without notes) it talked about slides.
func awaitsOutline(history string) bool {
	if _, ok := pendingOutline(history); ok {
		return true
	}
	last := lastTurn(history)
	return !strings.Contains(last, "Produced:") && containsAny(strings.ToLower(last), "ppt", "课件", "幻灯片", "大纲", "提纲", "slide", "outline", "presentation")
}

// Labels of the tools' notes (shared/tools/gentools), as the summary
// shows them after "Produced:".
const (
	outlineNote  = "propose_pptx_outline arguments"
	documentNote = "generated from this document"
)

// pendingOutline is the outline the last turn proposed.
func pendingOutline(history string) (outlineArgs, bool) {
	var o outlineArgs
	raw, ok := producedJSON(lastTurn(history), outlineNote)
	if !ok || json.Unmarshal(raw, &o) != nil || len(o.Slides) == 0 {
		return outlineArgs{}, false
	}
	return o, true
}

// deckNote labels generate_pptx's note.
const deckNote = "generated from this deck"

// latestArtifactAsDocument is the conversation's latest deck or document,
// as a document: a deck becomes a section per slide with its notes.
func latestArtifactAsDocument(l lang, history string) (documentArgs, bool, bool) {
	doc, docOK := earlierDocument(history)
	var deck pptxArgs
	raw, deckOK := producedJSON(history, deckNote)
	deckOK = deckOK && json.Unmarshal(raw, &deck) == nil && len(deck.Slides) > 0
	if deckOK && (!docOK || strings.LastIndex(history, deckNote) > strings.LastIndex(history, documentNote)) {
		d := documentArgs{Title: deck.Title, Kind: kindLectureNotes}
		for i, sl := range deck.Slides {
			sec := sectionArg{Heading: fmt.Sprintf("%d. %s", i+1, sl.Title), Bullets: sl.Bullets}
			if sl.Notes != "" {
				sec.Paragraphs = []string{l.pick("讲解提示：", "Speaker notes: ") + sl.Notes}
			}
			d.Sections = append(d.Sections, sec)
		}
		return d, true, true
	}
	return doc, false, docOK
}

// earlierDocument is the latest document made in the conversation.
func earlierDocument(history string) (documentArgs, bool) {
	var d documentArgs
	raw, ok := producedJSON(history, documentNote)
	if !ok || json.Unmarshal(raw, &d) != nil || len(d.Sections) == 0 {
		return documentArgs{}, false
	}
	return d, true
}

// producedJSON returns the JSON object of the latest "Produced:" line of
// text whose note contains label.
func producedJSON(text, label string) (json.RawMessage, bool) {
	lines := strings.Split(text, "\n")
	for _, line := range slices.Backward(lines) {
		note, ok := strings.CutPrefix(strings.TrimSpace(line), "Produced:")
		if !ok || !strings.Contains(note, label) {
			continue
		}
		i := strings.Index(note, "{")
		if i < 0 {
			continue
		}
		var raw json.RawMessage
		if json.NewDecoder(strings.NewReader(note[i:])).Decode(&raw) == nil {
			return raw, true
		}
	}
	return nil, false
}

// lastTurn is the part of the summary from its last "Teacher:" line on,
// or all of it when it has no such line.
func lastTurn(history string) string {
	lines := strings.Split(history, "\n")
	for i, line := range slices.Backward(lines) {
		if strings.HasPrefix(strings.TrimSpace(line), "Teacher:") {
			return strings.Join(lines[i:], "\n")
		}
	}
	return history
}

// slidesAsked reads the number of slides a request names ("10 页的 PPT",
// "a 10-slide deck"), 0 for none.
func slidesAsked(s string) int {
	for _, p := range []string{`(?:^|[^第\d一二两三四五六七八九十])(\d+|[一二两三四五六七八九十]+)\s*(?:页|张幻灯片)`, `(?i)\b(\d+|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)[\s-]*slides?\b`} {
		if m := submatch(p, s); m != nil {
			if n, ok := numberWord(m[1]); ok {
				return n
			}
		}
	}
	return 0
}

// article is "a" or "an" before a number of slides written in figures:
// "an 8-slide outline", "an 11-slide", "an 18-slide", "a 10-slide".
func article(n int) string {
	s := strconv.Itoa(n)
	if s[0] == '8' || n == 11 || n == 18 {
		return "an"
	}
	return "a"
}
