package offlinemodel

import (
	"encoding/json"
	"strings"
)

// How the stand-in plays the chat modes' agent (seed 003). In strict mode a
// request that gives a data or generation tool nothing to do (a greeting, an
// open or off-topic question) is guided with guide_user first, then answered
// in a line that points at the guidance; and when the last lookup found
// nothing or failed, the stand-in has nothing grounded to say and leaves the
// message empty, which the orchestrator's strict reply replaces (§4.3).

// strictTurn adjusts the agent's next action for strict mode.
func strictTurn(st *agentState, a action) action {
	c := st.c
	if !c.strict() || a.final == nil || a.plain || a.final.Status != statusAnswer {
		return a
	}
	data := st.without(func(_ int, s step) bool { return s.name == toolGuide || s.refusal })
	if len(data.steps) == 0 {
		if !c.offers(toolGuide) {
			return a
		}
		if len(st.callsOf(toolGuide)) == 0 {
			return callTool(c, toolGuide, guidance(c))
		}
		return answer(afterGuidance(c))
	}
	last := data.steps[len(data.steps)-1]
	if last.failed || emptyResult(last.result) {
		return answer("")
	}
	return a
}

// guidance is guide_user's arguments for the request.
func guidance(c *call) map[string]any {
	l := c.lang
	msg := l.pick("严格模式下，我只依据你的班级数据和工具结果来回答。我可以帮你查看班级和学生、分析作业成绩、出练习题或制作课件。",
		"In strict mode I answer only from your class data and tool results. I can look at your classes and students, analyse assignment results, write quizzes or make slides.")
	suggestions := []string{
		l.pick("查看我的班级", "Show my classes"),
		l.pick("查看 1A 班的作业提交情况", "Show the submissions of class 1A"),
	}
	missing := []string{}
	if t, ok := findTopic(c.user); ok {
		name := l.pick(t.zh, t.en)
		suggestions = append(suggestions, l.pick("出 5 道"+name+"的选择题", "Write 5 multiple-choice questions on "+name),
			l.pick("制作一份"+name+"的课件", "Make a slide deck on "+name))
		missing = append(missing, l.pick("要用这个知识点做什么（出题、课件或查看学生掌握情况）", "what to do with the topic (a quiz, slides, or how your students are doing)"))
	} else {
		suggestions = append(suggestions, l.pick("出 5 道勾股定理的选择题", "Write 5 questions on the Pythagorean theorem"))
		if !isSmalltalk(c.user) {
			missing = append(missing, l.pick("与你的班级、学生、作业或文档的关联", "how it relates to your classes, students, assignments or documents"))
		}
	}
	if isSmalltalk(c.user) {
		msg = l.pick("你好！"+msg, "Hello! "+msg)
	}
	return map[string]any{"message": msg, "missing": missing, "suggestions": suggestions}
}

// afterGuidance is the answer once the guidance is shown.
func afterGuidance(c *call) string {
	l := c.lang
	if isSmalltalk(c.user) {
		return l.pick("你好！可以从上面的建议里选一个开始，或者直接告诉我班级和想做的事。",
			"Hello! Pick one of the suggestions above to start, or tell me the class and what you'd like to do.")
	}
	ask := []rune(strings.TrimSpace(c.user))
	if len(ask) > 30 {
		ask = append(ask[:30], '…')
	}
	return l.pick("严格模式下我不凭记忆回答「"+string(ask)+"」；上面列出了我可以依据你的数据和工具完成的请求。",
		"In strict mode I don't answer “"+string(ask)+"” from memory; the suggestions above are what I can do from your data and tools.")
}

// emptyResult reports whether a tool result holds lists and every one is
// empty: the lookup worked and found nothing.
func emptyResult(content string) bool {
	var obj map[string]any
	if json.Unmarshal([]byte(content), &obj) != nil {
		return false
	}
	lists := 0
	for _, v := range obj {
		if arr, ok := v.([]any); ok {
			if len(arr) > 0 {
				return false
			}
			lists++
		}
	}
	return lists > 0
}
