package offlinemodel

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The agent loop (prompts.AgentHeader): one step per request. The scenario
// is chosen from the last user message; what to do next is decided from the
// tool calls and results since that message, so a retried attempt, which
// carries the same turn's history, picks up where the last one stopped.

// FinalResult statuses.
const (
	statusAnswer   = "answer_ready"
	statusArtifact = "artifact_ready"
	statusClarify  = "clarify_needed"
)

// finalResult is the arguments of final_result (FinalResult of seed 000 §7.2).
type finalResult struct {
	Status    string            `json:"status"`
	Message   string            `json:"message"`
	Artifacts []string          `json:"artifacts,omitempty"`
	Clarify   *workflow.Clarify `json:"clarify,omitempty"`
}

// action is the agent's next step: one tool call, or the final result.
type action struct {
	tool  string
	args  string
	final *finalResult
	// plain answers final's message as text, without calling final_result.
	plain bool
}

func callTool(c *call, name string, args map[string]any) action {
	return action{tool: name, args: mustJSON(c.argsFor(name, args, nil))}
}

func finish(fr finalResult) action { return action{final: &fr} }

func answer(msg string) action { return finish(finalResult{Status: statusAnswer, Message: msg}) }

// scenario is one kind of agent request.
type scenario interface {
	// next decides the next step.
	next(st *agentState) action
	// finish is the best final result from what happened so far, for when
	// tool_choice forces final_result.
	finish(st *agentState) finalResult
	// artifact names what the scenario produces ("quiz", "pptx" …), "" for
	// a plain answer.
	artifact() string
	// describe names the artifact in a sentence.
	describe(l lang) string
	// inline is the artifact written as text instead (a model that skips
	// its tools).
	inline(l lang) string
}

func agentReply(c *call) reply {
	st := newAgentState(c)
	sc := agentScenarioFor(c)
	plan := planFunc(sc.next)
	for _, m := range misbehaviours() {
		if m.steer != nil && c.has(m.marker) {
			prev, steer := plan, m.steer
			plan = func(st *agentState) action { return steer(st, sc, prev) }
		}
	}
	a := plan(st)
	if c.choice.forces(finalResultTool) && a.final == nil {
		a = finish(sc.finish(st))
	}
	a = strictTurn(st, a)
	if a.final != nil {
		if a.plain || !c.offers(finalResultTool) {
			return textReply(a.final.Message)
		}
		return callReply(finalResultTool, mustJSON(a.final))
	}
	return callReply(a.tool, a.args)
}

// agentScenarioFor reads the teacher's request.
func agentScenarioFor(c *call) scenario {
	if _, ok := outOfScope(c.user); ok || asksLimits(c.user) {
		return answerScenario{} // no tool does it: said plainly
	}
	switch {
	case wantsExport(c): // issue 31: before the quiz and content words it shares
		return &exportScenario{format: exportFormat(teacherWords(c.user))}
	case wantsQuiz(c):
		spec := quizSpecFrom(c)
		if spec.Topic == "" {
			class := classMention(c.user)
			if class == "" && answersQuizClarify(c) {
				class = classMention(lastTurn(c.history))
				if label, _, ok := pickedChoice(c); ok {
					class = classMention(label)
				}
			}
			return &clarifyScenario{class: class}
		}
		return &quizScenario{spec: spec}
	case wantsContent(c):
		cs := contentScenarioFrom(c)
		if cs.topic == "" {
			return &clarifyScenario{class: classMention(c.user)}
		}
		return cs
	case isDataQuestion(c.user):
		if d, ok := clarifiedData(c); ok {
			return d
		}
		return dataScenarioFrom(c.user)
	case answersDataClarify(c):
		d, _ := clarifiedData(c)
		return d
	}
	return answerScenario{}
}

// step is one tool call since the last user message, with its result.
type step struct {
	id, name, args string
	result         string
	answered       bool
	failed         bool
	errText        string
	teacherMsg     string // the product's words for the teacher about a failure
	refusal        bool   // the answer to a refused final_result
	refusedBefore  int    // refusals seen before this call
}

type agentState struct {
	c     *call
	steps []step
}

func newAgentState(c *call) *agentState {
	st := &agentState{c: c}
	if c.lastUser < 0 {
		return st
	}
	byID := map[string]int{}
	refusals := 0
	for _, m := range c.req.Messages[c.lastUser+1:] {
		switch m.Role {
		case "assistant":
			for _, tc := range m.ToolCalls {
				byID[tc.ID] = len(st.steps)
				st.steps = append(st.steps, step{id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments, refusedBefore: refusals})
			}
		case "tool":
			i, ok := byID[m.ToolCallID]
			if !ok { // no id match: the first call still waiting for an answer
				i = -1
				for k := range st.steps {
					if !st.steps[k].answered {
						i = k
						break
					}
				}
				if i < 0 {
					continue
				}
			}
			s := &st.steps[i]
			s.result, s.answered = string(m.Content), true
			if strings.HasPrefix(strings.TrimSpace(s.result), prompts.RefusedPrefix) {
				s.refusal = true
				refusals++
				continue
			}
			s.failed, s.errText = toolFailed(s.result)
			if s.failed {
				s.teacherMsg = teacherMessage(s.result)
			}
		}
	}
	return st
}

func (st *agentState) refused() bool {
	for _, s := range st.steps {
		if s.refusal {
			return true
		}
	}
	return false
}

func (st *agentState) callsOf(name string) []step {
	var out []step
	for _, s := range st.steps {
		if s.name == name {
			out = append(out, s)
		}
	}
	return out
}

func (st *agentState) lastCall(name string) *step {
	for i := len(st.steps) - 1; i >= 0; i-- {
		if st.steps[i].name == name {
			return &st.steps[i]
		}
	}
	return nil
}

// without is the state with some steps put behind, as if they had not
// happened.
func (st *agentState) without(drop func(i int, s step) bool) *agentState {
	out := &agentState{c: st.c}
	for i, s := range st.steps {
		if !drop(i, s) {
			out.steps = append(out.steps, s)
		}
	}
	return out
}

// need returns the result of the latest call of tool, or else the action to
// take first: call it with args, or explain why its data cannot be had.
func (st *agentState) need(tool string, args map[string]any) (map[string]any, *action) {
	l := st.c.lang
	if !st.c.offers(tool) {
		a := answer(l.pick("抱歉，这次对话里查不了这项数据，我没法查到需要的信息。",
			"Sorry, I can't look that data up in this conversation."))
		return nil, &a
	}
	s := st.lastCall(tool)
	if s == nil {
		a := callTool(st.c, tool, args)
		return nil, &a
	}
	if !s.answered || s.failed {
		a := answer(toolFailedMessage(l, s))
		return nil, &a
	}
	var obj map[string]any
	if json.Unmarshal([]byte(s.result), &obj) != nil {
		obj = map[string]any{"text": s.result}
	}
	// A result wrapped in an envelope ({"output": {...}}) is read inside it.
	for _, k := range []string{"output", "data", "result"} {
		if inner, ok := obj[k].(map[string]any); ok {
			for ik, v := range inner {
				if _, taken := obj[ik]; !taken {
					obj[ik] = v
				}
			}
		}
	}
	return obj, nil
}

// toolFailed reads a tool result: an object with a non-empty "error" (or
// success false, or status "error") is a failure.
func toolFailed(content string) (bool, string) {
	var obj map[string]any
	if json.Unmarshal([]byte(content), &obj) == nil {
		if e, ok := obj["error"]; ok && e != nil && e != "" && e != false {
			if code, _ := obj["code"].(string); code != "" {
				return true, code + ": " + errString(e)
			}
			return true, errString(e)
		}
		if ok, isBool := obj["success"].(bool); isBool && !ok {
			return true, errString(obj["message"])
		}
		if s, _ := obj["status"].(string); s == "error" {
			return true, errString(obj["message"])
		}
		return false, ""
	}
	low := strings.ToLower(strings.TrimSpace(content))
	for _, p := range []string{"error", "tool error", "failed", "invalid arguments"} {
		if strings.HasPrefix(low, p) {
			return true, strings.TrimSpace(content)
		}
	}
	return false, ""
}

func errString(v any) string {
	switch e := v.(type) {
	case nil:
		return ""
	case string:
		return e
	case map[string]any:
		if m, ok := e["message"].(string); ok {
			return m
		}
	}
	return mustJSON(v)
}

func toolFailedMessage(l lang, s *step) string {
	// The product's own words for the teacher come first: a model relays
	// them, never the tool's name or its error's internals.
	if s.teacherMsg != "" {
		return l.pick("抱歉，"+s.teacherMsg+"你也可以换个说法告诉我需要什么。",
			"Sorry: "+s.teacherMsg+" You can also tell me what you need in another way.")
	}
	// A data service failure is said as what it is, in the teacher's words.
	code, _, coded := strings.Cut(s.errText, ": ")
	switch {
	case coded && code == "SERVICE_UNAVAILABLE":
		return l.pick("抱歉，数据服务暂时不可用，这次没能查到数据。请稍后再试。",
			"Sorry, the data service is temporarily unavailable, so I couldn't look that up. Please try again later.")
	case coded && code == "DATA_ERROR":
		return l.pick("抱歉，数据获取失败：数据服务这次没有返回可用的数据。请稍后再试；如果一直如此，请联系管理员。",
			"Sorry, the data could not be fetched: the data service did not return usable data. Please try again later, or tell your administrator if it keeps happening.")
	}
	return l.pick("抱歉，这一步这次没有成功，没能拿到结果。你可以稍后再试，或者换个说法告诉我需要什么。",
		"Sorry, that step didn't work this time, so I couldn't get a result. You can try again in a moment, or tell me what you need in another way.")
}

// teacherMessage is the teacherMessage of a failed call's result, if any.
func teacherMessage(content string) string {
	var obj struct {
		TeacherMessage string `json:"teacherMessage"`
	}
	_ = json.Unmarshal([]byte(content), &obj) // not JSON: no message
	return strings.TrimSpace(obj.TeacherMessage)
}

// answerScenario answers from knowledge, with no tool.
type answerScenario struct{}

func (answerScenario) next(st *agentState) action { return finish(answerScenario{}.finish(st)) }

func (answerScenario) finish(st *agentState) finalResult {
	return finalResult{Status: statusAnswer, Message: knowledgeAnswer(st.c)}
}

func (answerScenario) artifact() string { return "" }

func (answerScenario) describe(l lang) string { return l.pick("你要的内容", "what you asked for") }

func (answerScenario) inline(l lang) string { return "" }

// quizScenario generates questions with generate_quiz_questions.
type quizScenario struct{ spec quizSpec }

func (q *quizScenario) argsJSON(c *call, count int, typ string, first int) string {
	args := map[string]any{
		"topic": q.spec.Topic, "count": count, "questionType": typ,
		"difficulty": q.spec.Difficulty, "subject": q.spec.Subject,
	}
	if first > 1 { // a mixed quiz's later part (prompts.Agent)
		args["firstNumber"] = first
	}
	if q.spec.Grade != "" {
		args["grade"] = q.spec.Grade
	}
	if len(q.spec.Avoid) > 0 {
		args["avoid"] = q.spec.Avoid
	}
	if q.spec.edit != nil || q.spec.langAsked { // the quiz's language, which may not be the teacher's message's
		args["language"] = q.spec.Language.pick("zh-CN", "en")
	}
	return mustJSON(c.argsFor(toolQuiz, args, nil))
}

func (q *quizScenario) next(st *agentState) action {
	l := st.c.lang
	if !st.c.offers(toolQuiz) {
		return answer(l.pick("抱歉，这次对话里没有可用的出题工具，我没法直接生成题目。", "Sorry, the quiz tool isn't available in this conversation, so I can't generate the questions."))
	}
	last := st.lastCall(toolQuiz)
	switch {
	case last == nil && q.spec.mixed():
		return action{tool: toolQuiz, args: q.argsJSON(st.c, q.spec.parts[0].count, q.spec.parts[0].typ, 1)}
	case last == nil:
		return action{tool: toolQuiz, args: q.argsJSON(st.c, q.spec.Count, q.spec.QuestionType, 1)}
	case !last.answered || last.failed:
		if last.teacherMsg != "" {
			return answer(toolFailedMessage(l, last))
		}
		return answer(l.pick(
			fmt.Sprintf("抱歉，这次没能出好题。你可以稍后再试，或者换个题目数量、题型，我再帮你生成关于「%s」的题目。", q.spec.Topic),
			fmt.Sprintf("Sorry, I couldn't write the questions this time. You can try again in a moment, or change the number or type of questions, and I'll generate the questions on %s again.", q.spec.Topic)))
	case q.spec.mixed() && len(st.callsOf(toolQuiz)) < len(q.spec.parts):
		p := q.spec.parts[len(st.callsOf(toolQuiz))]
		return action{tool: toolQuiz, args: q.argsJSON(st.c, p.count, p.typ, partsTotal(q.writtenParts(st))+1)}
	}
	return finish(q.done(st, last))
}

// writtenParts are a mixed quiz's parts this turn's calls wrote, each
// with how many questions it gave.
func (q *quizScenario) writtenParts(st *agentState) []quizPart {
	var parts []quizPart
	for i, c := range st.callsOf(toolQuiz) {
		if c.answered && !c.failed && i < len(q.spec.parts) {
			p := q.spec.parts[i]
			p.count = written(c, p.count)
			parts = append(parts, p)
		}
	}
	return parts
}

// written is how many questions a successful quiz call gave (want when its
// result does not say).
func written(s step, want int) int {
	var obj map[string]any
	if json.Unmarshal([]byte(s.result), &obj) == nil {
		if v, ok := num(obj, "total", "count"); ok && v > 0 {
			return int(v)
		} else if qs := list(obj, "questions"); len(qs) > 0 {
			return len(qs)
		}
	}
	return want
}

func (q *quizScenario) done(st *agentState, last *step) finalResult {
	l := st.c.lang
	spec := q.spec
	spec.asked = max(q.spec.asked, q.spec.Count)
	spec.Count = written(*last, q.spec.Count)
	if spec.mixed() {
		spec.parts = q.writtenParts(st)
		spec.Count = partsTotal(spec.parts)
	}
	said := spec // named in the teacher's words: the topic in their language, and the questions' if they asked for another
	if said.Topic = topicIn(l, spec.Topic); spec.langAsked && spec.Language != l && l == en {
		said.Topic += " (in " + spec.Language.pick("Chinese", "English") + ")"
	}
	msg := l.pick(
		fmt.Sprintf("已为你生成 %s（难度：%s），每道题都附有答案和解析。需要的话，我可以调整难度或换一种题型。", said.describe(l), difficultyName(l, spec.Difficulty)),
		fmt.Sprintf("I've created %s at %s difficulty, each with the answer and an explanation. Let me know if you'd like them easier, harder or in another format.", said.describe(l), difficultyName(l, spec.Difficulty)))
	if spec.langAsked && spec.Language != l && l == zh { // "…关于「光合作用」的英文单选题"
		msg = strings.Replace(msg, "」的", "」的"+spec.Language.pick("中文", "英文"), 1)
	}
	if spec.edit != nil {
		msg = editDone(l, spec)
	}
	if short := shortfall(l, spec); short != "" {
		msg += l.pick("", " ") + short
	}
	return finalResult{Status: statusArtifact, Message: msg, Artifacts: []string{"quiz"}}
}

func (q *quizScenario) finish(st *agentState) finalResult {
	l := st.c.lang
	if last := st.lastCall(toolQuiz); last != nil && last.answered && !last.failed {
		return q.done(st, last)
	}
	if last := st.lastCall(toolQuiz); last != nil {
		return finalResult{Status: statusAnswer, Message: toolFailedMessage(l, last)}
	}
	return finalResult{Status: statusAnswer, Message: l.pick(
		fmt.Sprintf("我还没有调用出题工具，题目尚未生成。需要的话，我可以现在为你生成 %s。", q.spec.describe(l)),
		fmt.Sprintf("I haven't called the quiz tool yet, so no questions exist so far. I can create %s now if you like.", q.spec.describe(l)))}
}

func (q *quizScenario) artifact() string { return "quiz" }

func (q *quizScenario) describe(l lang) string { return q.spec.describe(l) }

// inline writes the questions into the answer, as a model that ignores its
// tools would.
func (q *quizScenario) inline(l lang) string {
	var sb strings.Builder
	sb.WriteString(l.pick("下面是 "+q.spec.describe(l)+"：\n\n", "Here are "+q.spec.describe(l)+":\n\n"))
	for i, qq := range quizQuestions(q.spec) {
		fmt.Fprintf(&sb, "%d. %s\n", i+1, qq.Question)
		for _, o := range qq.Options {
			fmt.Fprintf(&sb, "   %s\n", o)
		}
		sb.WriteString(l.pick("   答案："+qq.Answer+"\n", "   Answer: "+qq.Answer+"\n"))
	}
	return strings.TrimSpace(sb.String())
}

// clarifyScenario is a generation request with nothing to go on: it looks
// up the teacher's classes and asks which one, and on what.
type clarifyScenario struct{ class string }

func (s *clarifyScenario) next(st *agentState) action {
	// The classes also tell a named class's subject, whose topics to offer.
	if st.c.offers(toolClasses) && st.lastCall(toolClasses) == nil {
		return callTool(st.c, toolClasses, map[string]any{})
	}
	return finish(s.finish(st))
}

func (s *clarifyScenario) finish(st *agentState) finalResult {
	l := st.c.lang
	var choices []protocol.Choice
	var subjects []string
	if last := st.lastCall(toolClasses); last != nil && last.answered && !last.failed {
		var obj map[string]any
		if json.Unmarshal([]byte(last.result), &obj) == nil {
			choices = classChoices(obj, 4)
			for _, cl := range list(obj, "classes") {
				if s.class == "" || classMention(str(cl, "name")) == s.class {
					subjects = append(subjects, str(cl, "subject"))
				}
			}
		}
	}
	topics := suggestTopics(l, subjects)
	// One question per dimension, so the options are of one kind: the
	// class first (when the teacher has classes to choose from), then the
	// topic in the next turn.
	cl := &workflow.Clarify{Hint: "needClassId"}
	switch {
	case s.class != "":
		cl.Hint = "needTopic"
		cl.Question = l.pick("好的！想给 "+s.class+" 班出哪个知识点的练习？", "Sure! Which topic should the practice for class "+s.class+" cover?")
		cl.Options = topics
	case len(choices) > 0:
		cl.Question = l.pick("好的！这份练习是给哪个班的？（知识点下一步再选）", "Sure! Which class is the practice for? (We'll pick the topic next.)")
		offerChoices(cl, choices)
	default:
		cl.Hint = "needTopic"
		cl.Question = l.pick("好的！想练哪个知识点？", "Sure! Which topic should the practice cover?")
		cl.Options = topics
	}
	return finalResult{Status: statusClarify, Message: cl.Question, Clarify: cl}
}

func (s *clarifyScenario) artifact() string { return "quiz" }

func (s *clarifyScenario) describe(l lang) string {
	return l.pick("一份练习", "a practice worksheet")
}

func (s *clarifyScenario) inline(l lang) string {
	return l.pick(
		"可以按这个思路出一份练习：1. 先用 3 道选择题检查本周的重点概念；2. 再用 2 道填空题巩固关键术语；3. 最后用 1 道简答题看学生能否用自己的话解释。告诉我班级和知识点，我可以把题目具体写出来。",
		"Here is a way to build the worksheet: 1. three multiple-choice questions on this week's key ideas; 2. two fill-in-the-blank items for the key terms; 3. one short-answer question to check understanding. Tell me the class and topic and I'll write the questions.")
}

// suggestTopics proposes known topics, those of the classes' subjects first.
func suggestTopics(l lang, subjects []string) []string {
	var out []string
	add := func(t topic) {
		name := l.pick(t.zh, t.en)
		for _, o := range out {
			if o == name {
				return
			}
		}
		out = append(out, name)
	}
	for _, sub := range subjects {
		for _, t := range knowledgeBase() {
			if sub != "" && (strings.EqualFold(sub, t.subjectEn) || strings.Contains(sub, t.subjectZh)) {
				add(t)
			}
		}
	}
	for _, t := range knowledgeBase() {
		if len(out) >= 2 {
			break
		}
		add(t)
	}
	return out
}
