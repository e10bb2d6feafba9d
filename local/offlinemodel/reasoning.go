package offlinemodel

import (
	"encoding/json"
	"strings"
)

// A reasoning model ([[offline:reasoning]]) streams a short reasoning_content
// before its reply; a reasoning model that misbehaves
// ([[offline:reasoning-only]]) puts its whole answer in reasoning_content
// and leaves the content empty (seed 003 §1.2: the client must promote it).

// reason adds reasoning to the agent's and the chat path's replies when a
// marker asks for it.
func (c *call) reason(r reply) reply {
	if c.kind != KindAgent && c.kind != KindChat {
		return r
	}
	switch {
	case c.has(MarkerReasoningOnly) && c.choice.Mode != "function" && c.choice.Mode != "required":
		if len(r.toolCalls) == 0 {
			return reply{reasoning: r.content}
		}
		if r.calls(finalResultTool) {
			var fr finalResult
			if json.Unmarshal([]byte(r.toolCalls[0].args), &fr) == nil && fr.Message != "" {
				return reply{reasoning: fr.Message}
			}
		}
		r.reasoning = c.thought(r)
	case c.has(MarkerReasoning):
		r.reasoning = c.thought(r)
	}
	return r
}

// thought is a short reasoning about what the reply does.
func (c *call) thought(r reply) string {
	ask := []rune(strings.TrimSpace(c.user))
	if len(ask) > 30 {
		ask = append(ask[:30], '…')
	}
	l := c.lang
	switch {
	case len(r.toolCalls) > 0 && r.toolCalls[0].name != finalResultTool:
		what := toolThing(l, r.toolCalls[0].name)
		return l.pick("老师的请求是「"+string(ask)+"」。我先"+what+"，拿到结果再回答。",
			"The teacher asked: “"+string(ask)+"”. I'll "+what+" first and answer from the result.")
	case c.mode == "strict":
		return l.pick("严格模式：回答必须以本轮的工具结果为依据。现在整理回答。",
			"Strict mode: the answer must rest on this turn's tool results. Writing it now.")
	default:
		return l.pick("老师的请求是「"+string(ask)+"」。信息已经够了，我来组织回答。",
			"The teacher asked: “"+string(ask)+"”. I have what I need; writing the answer.")
	}
}

// toolThing says what a tool does, in the teacher's words: a reasoning
// shown to the teacher never names a tool.
func toolThing(l lang, tool string) string {
	thing, ok := toolThings[tool]
	if !ok {
		thing = [2]string{"查一下相关数据", "look up the data"}
	}
	return l.pick(thing[0], thing[1])
}

// toolThings are the generation tools' toolThing, in Chinese and English.
var toolThings = map[string][2]string{
	toolQuiz:        {"出题", "write the questions"},
	toolOutline:     {"拟一份课件提纲", "draft a slide outline"},
	toolPptx:        {"生成课件", "make the slides"},
	toolDocx:        {"写好文档", "write the document"},
	toolPDF:         {"写好文档", "write the document"},
	toolInteractive: {"做好互动网页", "make the interactive page"},
	toolHTML:        {"做好互动网页", "make the interactive page"},
}
