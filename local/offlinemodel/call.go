package offlinemodel

import (
	"crypto/sha256"
	"encoding/json"
	"strings"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
)

// call is one chat-completions request, read the way the scenarios need it.
type call struct {
	req      *chatRequest
	kind     Kind
	system   string // the first system message
	user     string // the last user message, markers removed
	lastUser int    // index of the last user message, -1 if none
	lang     lang
	history  string // the earlier-turns summary (prompts.HistoryHeader), "" if none
	page     string // the page a follow-up is about (prompts.PageHeader), "" if none
	mode     string // the chat mode named in the system prompt (prompts.ModeHeader), "" if none
	markers  map[Marker]bool
	choice   toolChoice
	jsonMode bool
	// firstAttempt is true the first time this exact request is seen
	// (set by the server for the once-only report misbehaviour).
	firstAttempt bool
	tools        map[string]*schema // offered tools; a nil schema when it does not parse
}

func newCall(req *chatRequest, choice toolChoice) *call {
	c := &call{req: req, choice: choice, lastUser: -1, markers: map[Marker]bool{}, tools: map[string]*schema{}}
	c.jsonMode = req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object"
	c.kind = KindUnknown
	seenSystem := false
	for i, m := range req.Messages {
		content := string(m.Content)
		switch m.Role {
		case "system", "developer":
			if !seenSystem {
				seenSystem = true
				c.system = content
				c.kind = kindOf(content)
				c.mode = modeOf(content)
			}
			if h := sectionIn(content, prompts.HistoryHeader); h != "" {
				c.history = h
			}
			if p := sectionIn(content, prompts.PageHeader); p != "" {
				c.page = p
			}
		case "user":
			c.lastUser = i
		}
	}
	if c.lastUser >= 0 {
		raw := string(req.Messages[c.lastUser].Content)
		for _, m := range misbehaviours() {
			if strings.Contains(raw, string(m.marker)) {
				c.markers[m.marker] = true
			}
		}
		c.user = stripMarkers(raw)
	}
	c.lang = detectLang(c.user)
	// A pick from a question back ("Form 1A · English") keeps the
	// conversation's language: the teacher's words before it.
	if c.lang == en && answersClarify(c) {
		c.lang = detectLang(strings.SplitN(lastTurn(c.history), "\n", 2)[0])
	}
	for _, t := range req.Tools {
		var s *schema
		if len(t.Function.Parameters) > 0 {
			s = new(schema)
			if json.Unmarshal(t.Function.Parameters, s) != nil {
				s = nil
			}
		}
		c.tools[t.Function.Name] = s
	}
	return c
}

// modeOf reads the chat mode from the system prompt's mode section, the way
// a real model reads the instructions under it.
func modeOf(system string) string {
	for _, line := range strings.Split(system, "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), strings.TrimSpace(prompts.ModeHeader)); ok {
			return strings.TrimSpace(m)
		}
	}
	return ""
}

func (c *call) strict() bool { return c.mode == "strict" }

// sectionIn finds the section a header starts in a system message (the
// earlier-turns summary, the page a follow-up is about): the whole message
// when it starts with the header, or the part from the header on.
func sectionIn(content, header string) string {
	content = strings.TrimSpace(content)
	if strings.HasPrefix(content, header) {
		return content
	}
	if i := strings.Index(content, "\n"+header); i >= 0 {
		return content[i+1:]
	}
	return ""
}

// kindOf recognises the kind of call by the first line of the system prompt.
func kindOf(system string) Kind {
	first, _, _ := strings.Cut(strings.TrimSpace(system), "\n")
	if k, ok := kindByHeader[strings.TrimSpace(first)]; ok {
		return k
	}
	return KindUnknown
}

// kindByHeader is the kind of call each of the product's prompt headers
// starts.
var kindByHeader = map[string]Kind{
	prompts.RouterHeader:           KindRouter,
	prompts.AgentHeader:            KindAgent,
	prompts.ChatHeader:             KindChat,
	prompts.QuizHeader:             KindQuiz,
	prompts.PlannerHeader:          KindPlanner,
	prompts.WriterHeader:           KindWriter,
	prompts.EditorHeader:           KindEditor,
	prompts.ProposalHeader:         KindProposal,
	prompts.MilestoneHeader:        KindMilestone,
	prompts.ReportPlannerHeader:    KindReportPlanner,
	prompts.ReportSolverHeader:     KindReportSolver,
	prompts.ReportAggregatorHeader: KindReportEditor,
}

// stripMarkers removes every [[offline:…]] marker, known or not, so that
// the user's words are echoed without them.
func stripMarkers(s string) string {
	s = compiled(`\s*\[\[offline:[A-Za-z0-9_-]+\]\]`).ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

func (c *call) has(m Marker) bool { return c.markers[m] }

func (c *call) markerList() []Marker {
	var out []Marker
	for _, m := range misbehaviours() {
		if c.markers[m.marker] {
			out = append(out, m.marker)
		}
	}
	return out
}

func (c *call) toolNames() []string {
	var out []string
	for _, t := range c.req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

func (c *call) offers(tool string) bool {
	_, ok := c.tools[tool]
	return ok
}

// conversationHash identifies the conversation (not the model, the tools or
// the stream flag): tool-call ids derive from it.
func (c *call) conversationHash() [32]byte {
	b, _ := json.Marshal(c.req.Messages) // our own struct: cannot fail
	return sha256.Sum256(b)
}

// respond plays the scenario of the call's kind, then makes the reply obey
// tool_choice and JSON mode.
func respond(c *call) reply {
	play, ok := scenarios[c.kind]
	if !ok {
		play = unknownReply
	}
	r := play(c)
	return c.reason(c.conform(r))
}

// scenarios are the scenario each kind of call plays.
var scenarios = map[Kind]func(*call) reply{
	KindRouter:        routerReply,
	KindAgent:         agentReply,
	KindChat:          chatReply,
	KindQuiz:          quizReply,
	KindPlanner:       plannerReply,
	KindWriter:        writerReply,
	KindEditor:        editorReply,
	KindProposal:      proposalReply,
	KindMilestone:     milestoneReply,
	KindReportPlanner: reportPlannerReply,
	KindReportSolver:  func(c *call) reply { return reportSolverReply(c, c.firstAttempt) },
	KindReportEditor:  reportEditorReply,
}

func unknownReply(c *call) reply {
	return textReply(c.lang.pick(
		"你好！我是离线演示用的替身模型，没认出这次调用的类型，所以只能简单回复。请检查系统提示的第一行。",
		"Hello! I'm the offline stand-in model and didn't recognise this kind of call, so this is only a short reply. Please check the first line of the system prompt."))
}

// conform makes a reply obey tool_choice and response_format, whatever the
// scenario chose: a forced function is called, "none" gets text only, and
// JSON mode gets a JSON object.
func (c *call) conform(r reply) reply {
	switch c.choice.Mode {
	case "none":
		if len(r.toolCalls) > 0 {
			r = textReply(textOfCall(c, r.toolCalls[0]))
		}
	case "function":
		if !r.calls(c.choice.Name) {
			r = callReply(c.choice.Name, c.forcedArgs(c.choice.Name, r))
		}
	case "required":
		if len(r.toolCalls) == 0 {
			name := finalResultTool
			if !c.offers(name) {
				name = c.req.Tools[0].Function.Name
			}
			r = callReply(name, c.forcedArgs(name, r))
		}
	}
	if c.jsonMode && len(r.toolCalls) == 0 && !isJSONObject(r.content) {
		r.content = mustJSON(map[string]string{"message": r.content})
	}
	return r
}

// forcedArgs are the arguments of a tool the scenario did not choose but
// tool_choice forces: final_result carries the text, others get arguments
// filled from their schema (a generation tool's, from the request's
// material).
func (c *call) forcedArgs(name string, r reply) string {
	if name == finalResultTool {
		msg := r.content
		if msg == "" {
			msg = c.lang.pick("好的，我已经处理完了。", "All right, I'm done.")
		}
		return mustJSON(finalResult{Status: statusAnswer, Message: msg})
	}
	if isContentTool(name) {
		if cs := contentScenarioFrom(c); cs.topic != "" {
			return mustJSON(cs.argsFor(c, name))
		}
	}
	return mustJSON(c.argsFor(name, nil, nil))
}

// textOfCall is what a tool call becomes when tools are not allowed.
func textOfCall(c *call, tc replyCall) string {
	if tc.name == finalResultTool {
		var fr finalResult
		if json.Unmarshal([]byte(tc.args), &fr) == nil && fr.Message != "" {
			return fr.Message
		}
	}
	return c.lang.pick("我需要先调用工具 "+tc.name+" 才能完成这个请求。", "I would need to call the tool "+tc.name+" to do this.")
}

func isJSONObject(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}

// mustJSON encodes v as protocol.Marshal does (no HTML escaping); v is
// always one of our own values, which cannot fail to encode.
func mustJSON(v any) string {
	b, err := protocol.Marshal(v)
	if err != nil {
		panic("offlinemodel: encode: " + err.Error())
	}
	return string(b)
}
