package offlinemodel

import (
	"strings"
)

// The chat path (prompts.ChatHeader): a plain-text answer, streamed. Small
// talk, explanations from the small knowledge base, follow-ups on the topic
// of the history summary, and an honest answer for everything else.

func chatReply(c *call) reply { return textReply(knowledgeAnswer(c)) }

// knowledgeAnswer answers the last user message without tools.
func knowledgeAnswer(c *call) string {
	if lm, ok := outOfScope(c.user); ok {
		return declined(c.lang, lm)
	}
	if asksLimits(c.user) {
		return limitsAnswer(c.lang)
	}
	simpler := wantsSimpler(c.user)
	if t, ok := findTopic(c.user); ok {
		return t.explain(c.lang, simpler)
	}
	if c.history != "" && (simpler || isFollowUpQuestion(c.user)) {
		if t, ok := findTopicLast(teacherSide(c.history)); ok {
			return t.explain(c.lang, simpler)
		}
	}
	if isSmalltalk(c.user) {
		return smalltalk(c.lang, c.user)
	}
	if c.page != "" {
		return pageAnswer(c)
	}
	if c.mode == "free" {
		return freeAnswer(c.lang, c.user)
	}
	return honestAnswer(c.lang, c.user)
}

// freeAnswer is free mode's answer to what the stand-in does not know: the
// same honesty, without steering the teacher back to teaching (seed 003 §3).
func freeAnswer(l lang, question string) string {
	q := []rune(strings.TrimSpace(question))
	if len(q) > 40 {
		q = append(q[:40], '…')
	}
	return l.pick(
		"「"+string(q)+"」是个好问题！不过我是离线演示用的替身模型，这方面没有可靠的知识，没法给你靠谱的回答；连接真实模型后就能畅聊这个话题。",
		"\""+string(q)+"\" is a good question! I'm the offline stand-in model, though, and have no reliable knowledge about it; connected to a real model, I could talk it through with you.")
}

// isFollowUpQuestion refers back without naming its topic ("能举个例子吗",
// "explain that again").
func isFollowUpQuestion(s string) bool {
	return containsAny(s, "再说", "再讲", "再解释", "刚才", "上面", "这个", "那个", "举个例子") ||
		matches(`(?i)\b(again|that|it|this|example|more detail)\b`, s)
}

func smalltalk(l lang, s string) string {
	low := strings.ToLower(s)
	switch {
	case containsAny(low, "谢谢", "多谢", "感谢", "辛苦", "thank"):
		return l.pick("不客气！还有什么需要帮忙的，随时告诉我。", "You're welcome! Let me know whenever you need anything else.")
	case containsAny(low, "再见", "拜拜", "晚安", "bye"):
		return l.pick("再见！祝你上课顺利。", "Goodbye, and good luck with your lessons!")
	case containsAny(low, "你是谁", "你能做什么", "who are you", "what can you do"):
		return l.pick(
			"我是你的 AI 教学助手：可以讲解学科知识、出练习题、查看班级学生的成绩和薄弱点，也能生成课件、文档和成绩分析页面。（当前运行的是离线演示模型，回答来自内置的示例场景。）",
			"I'm your AI teaching assistant: I can explain topics, create practice questions, look at your classes' results and weak points, and produce slides, documents and analysis pages. (This is the offline demo model, answering from built-in sample scenarios.)")
	}
	return l.pick(
		"你好！我是你的 AI 教学助手，可以帮你讲解知识点、出练习题、查看班级成绩和学生的薄弱点，或者生成课件和分析报告。今天想先做点什么？",
		"Hello! I'm your AI teaching assistant. I can explain topics, create practice questions, look at your classes' results and students' weak points, or produce slides and analysis reports. What would you like to start with?")
}

// honestAnswer says plainly that the stand-in does not know; a request
// (not a question) is not quoted back as if it were a topic.
func honestAnswer(l lang, question string) string {
	if isRequest(question) {
		return l.pick(
			"这个请求我现在没法可靠地完成：我是离线演示用的替身模型，只会内置的示例场景。连接真实模型后就能处理这类请求。"+canOffer(l),
			"I can't do that reliably right now: I'm the offline stand-in model and only play a few built-in scenarios. Connected to a real model, requests like this would be handled. "+canOffer(l))
	}
	q := []rune(strings.TrimSpace(question))
	if len(q) > 40 {
		q = append(q[:40], '…')
	}
	return l.pick(
		"关于「"+string(q)+"」，我现在没法给出可靠的解答：我是离线演示用的替身模型，只内置了少量示例知识（牛顿第一定律、光合作用、现在完成时、勾股定理）。"+
			"连接真实模型后就能完整回答这类问题。你也可以让我讲解上面这些知识点、出练习题，或者查看班级数据。",
		"I can't give a reliable answer to \""+string(q)+"\" right now: I'm the offline stand-in model and only know a few sample topics (Newton's first law, photosynthesis, the present perfect, the Pythagorean theorem). "+
			"Connected to a real model, this question would get a full answer. Meanwhile I can explain those topics, create practice questions or look at your class data.")
}

// teacherSide is the history summary without the assistant's answers:
// an answer's own words (such as the stand-in's list of the topics it
// knows) name no topic of the conversation; the teacher's lines and the
// notes of what was made do.
func teacherSide(history string) string {
	var b strings.Builder
	for _, line := range strings.Split(history, "\n") {
		low := strings.ToLower(strings.TrimSpace(line))
		if !strings.HasPrefix(low, "assistant:") && !strings.HasPrefix(low, "- assistant") && !strings.HasPrefix(low, "- 助手") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
