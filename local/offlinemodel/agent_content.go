package offlinemodel

import (
	"fmt"
	"strings"
)

// Content requests (slides, documents, interactive pages): the agent calls
// the generation tool the request offers, filling its arguments from the
// tool's schema, and reports the artifact.

type contentKind int

const (
	slides contentKind = iota
	document
	interactive
)

type contentScenario struct {
	kind  contentKind
	topic string
	// confirmed: the teacher approved a proposed outline, so the deck itself
	// is generated (seed 000 §5.1).
	confirmed bool
	wantsPDF  bool
}

func contentScenarioFrom(c *call) *contentScenario {
	low := strings.ToLower(c.user)
	cs := &contentScenario{topic: topicOf(c.lang, c.user), wantsPDF: strings.Contains(low, "pdf")}
	switch {
	case containsAny(low, "互动", "网页", "动画", "小游戏", "interactive", "web page", "webpage", "simulation", "animation"):
		cs.kind = interactive
	case containsAny(low, "ppt", "课件", "幻灯片", "演示文稿", "slide", "presentation", "powerpoint", "大纲", "outline"):
		cs.kind = slides
	case isConfirmation(c.user) && historyMentionsSlides(c.history):
		cs.kind, cs.confirmed = slides, true
	default:
		cs.kind = document
	}
	if cs.topic == "" && c.history != "" {
		cs.topic, _ = historyTopic(c.lang, c.history)
	}
	return cs
}

// tool is the generation tool to call, the first offered by preference.
func (s *contentScenario) tool(c *call) string {
	var prefs []string
	switch s.kind {
	case slides:
		prefs = []string{toolOutline, toolPptx}
		if s.confirmed {
			prefs = []string{toolPptx, toolOutline}
		}
	case document:
		prefs = []string{toolDocx, toolPDF}
		if s.wantsPDF {
			prefs = []string{toolPDF, toolDocx}
		}
	case interactive:
		prefs = []string{toolInteractive, toolHTML}
	}
	for _, p := range prefs {
		if c.offers(p) {
			return p
		}
	}
	return ""
}

func (s *contentScenario) next(st *agentState) action {
	l := st.c.lang
	tool := s.tool(st.c)
	if tool == "" {
		return answer(l.pick("抱歉，这次对话里没有可用的生成工具，我没法直接生成"+s.describe(l)+"。",
			"Sorry, no generation tool for this is available in this conversation, so I can't produce "+s.describe(l)+"."))
	}
	hints := st.c.argHints()
	hints["topic"], hints["title"] = s.topic, s.topic
	if _, a := st.need(tool, fillArgs(st.c.tools[tool], hints)); a != nil {
		return *a
	}
	return finish(s.done(l, tool))
}

func (s *contentScenario) done(l lang, tool string) finalResult {
	t := s.topic
	msgs := map[string][2]string{
		toolOutline:     {"我先为「" + t + "」拟了一份 PPT 大纲，你看看结构是否合适；确认后我再生成完整的课件。", "I've drafted a slide outline for " + t + ". Have a look at the structure; once you confirm, I'll build the full deck."},
		toolPptx:        {"「" + t + "」的 PPT 课件已经生成好了，可以直接下载使用。需要调整页数或风格的话告诉我。", "The slide deck on " + t + " is ready to download. Tell me if you'd like more slides or a different style."},
		toolDocx:        {"「" + t + "」的文档已经生成好了，可以下载后直接编辑。", "The document on " + t + " is ready; you can download and edit it."},
		toolPDF:         {"「" + t + "」的 PDF 已经生成好了，可以直接下载打印。", "The PDF on " + t + " is ready to download and print."},
		toolInteractive: {"「" + t + "」的互动网页已经生成好了，可以在预览里直接试用。", "The interactive page on " + t + " is ready; try it in the preview."},
		toolHTML:        {"「" + t + "」的互动网页已经生成好了，可以在预览里直接试用。", "The interactive page on " + t + " is ready; try it in the preview."},
	}
	arts := map[string]string{toolOutline: "pptx-outline", toolPptx: "pptx", toolDocx: "docx", toolPDF: "pdf", toolInteractive: "interactive", toolHTML: "interactive"}
	m := msgs[tool]
	return finalResult{Status: statusArtifact, Message: l.pick(m[0], m[1]), Artifacts: []string{arts[tool]}}
}

func (s *contentScenario) finish(st *agentState) finalResult {
	l := st.c.lang
	if tool := s.tool(st.c); tool != "" {
		if last := st.lastCall(tool); last != nil && last.answered && !last.failed {
			return s.done(l, tool)
		} else if last != nil {
			return finalResult{Status: statusAnswer, Message: toolFailedMessage(l, tool, last.errText)}
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

func (s *contentScenario) inline(l lang) string {
	steps := [][2]string{
		{"导入：用一个生活中的问题引出「%s」", "Warm-up: a real-life question that leads into %s"},
		{"核心概念：讲清「%s」的定义和关键点", "Key ideas: what %s is and why it matters"},
		{"例题讲解：两道由浅入深的例题", "Worked examples: two examples, easy to harder"},
		{"课堂练习：三道针对性练习", "Practice: three targeted exercises"},
		{"小结与作业", "Summary and homework"},
	}
	var sb strings.Builder
	sb.WriteString(l.pick("下面直接给出"+s.describe(l)+"的文字大纲：\n\n", "Here is "+s.describe(l)+" written out as an outline:\n\n"))
	for i, st := range steps {
		line := l.pick(st[0], st[1])
		if strings.Contains(line, "%s") {
			line = fmt.Sprintf(line, s.topic)
		}
		fmt.Fprintf(&sb, "%d. %s\n", i+1, line)
	}
	return strings.TrimSpace(sb.String())
}

func isConfirmation(s string) bool {
	low := strings.ToLower(strings.TrimSpace(s))
	return containsAny(low, "确认", "就这样", "生成吧", "开始生成", "没问题", "可以了", "go ahead", "looks good", "confirm", "generate it", "build it")
}

func historyMentionsSlides(history string) bool {
	return containsAny(strings.ToLower(history), "ppt", "课件", "幻灯片", "大纲", "slide", "outline", "presentation")
}
