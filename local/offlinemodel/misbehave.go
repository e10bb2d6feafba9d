package offlinemodel

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Marker selects a misbehaviour when it appears anywhere in the last user
// message. Markers are removed before the user's words are read or echoed.
type Marker string

// Markers a test can put in a message.
const (
	// MarkerClaimWithoutTool: the agent's first final_result claims
	// artifact_ready without calling any tool; after a refusal it behaves.
	MarkerClaimWithoutTool Marker = "[[offline:claim-without-tool]]"
	// MarkerClaimAlways: artifact_ready without tools on every attempt.
	MarkerClaimAlways Marker = "[[offline:claim-always]]"
	// MarkerSkipTools: a generation request is answered in text
	// (answer_ready, no tool call) on every attempt.
	MarkerSkipTools Marker = "[[offline:skip-tools]]"
	// MarkerToolFails: generate_quiz_questions is first called with count 0
	// (the tool rejects it); artifact_ready is claimed anyway; after a
	// refusal the tool is called properly.
	MarkerToolFails Marker = "[[offline:tool-fails]]"
	// MarkerFileToolFails: a content request's generation tool (deck,
	// document, PDF, page) is first called with an empty list of slides,
	// sections or items (the tool rejects it); artifact_ready is claimed
	// anyway; after a refusal the tool is called properly.
	MarkerFileToolFails Marker = "[[offline:file-tool-fails]]"
	// MarkerBadArgs: the first tool call's arguments are truncated JSON;
	// after the error result the call is made properly.
	MarkerBadArgs Marker = "[[offline:bad-args]]"
	// MarkerThrottle: the first request of each distinct body gets 429 with
	// Retry-After: 0; the identical request later succeeds.
	MarkerThrottle Marker = "[[offline:429]]"
	// MarkerCutStream: the first agent stream of each distinct body that
	// calls final_result is cut half-way through its arguments (no [DONE]).
	MarkerCutStream Marker = "[[offline:cut-stream]]"
	// MarkerSlow: every stream chunk is delayed 25ms, a whole (not
	// streamed) answer 250ms.
	MarkerSlow Marker = "[[offline:slow]]"
	// MarkerTextNoTools: the agent answers in plain text, with no tool call
	// at all (not even final_result), on every attempt: what seed 003's
	// StrictMode guard catches.
	MarkerTextNoTools Marker = "[[offline:text-no-tools]]"
	// MarkerReasoning: a reasoning model: every agent and chat reply
	// streams a short reasoning_content first.
	MarkerReasoning Marker = "[[offline:reasoning]]"
	// MarkerReasoningOnly: a reasoning model that puts its answer in
	// reasoning_content and leaves the content empty (tool calls other than
	// final_result are still made).
	MarkerReasoningOnly Marker = "[[offline:reasoning-only]]"
	// MarkerToolEmpty: a data question is looked up in a way that finds
	// nothing (the teacher's documents are searched for the request itself).
	MarkerToolEmpty Marker = "[[offline:tool-empty]]"
	// MarkerToolError: a data question is looked up with a class that does
	// not exist, and the data tool fails.
	MarkerToolError Marker = "[[offline:tool-error]]"
	// MarkerHold: an answer stream (the agent's final_result, a chat reply)
	// stops half-way through its text until the test calls Server.Release,
	// or until the product cancels the call. Tests use it to act at a known
	// point of a turn (a reload, a stop) without sleeping.
	MarkerHold Marker = "[[offline:hold]]"
)

// planFunc is the agent's normal decision for a state.
type planFunc func(st *agentState) action

// misbehaviour is one row of the table. Those with steer change the agent's
// decision; the others act on the transport (server.go) and steer is nil.
type misbehaviour struct {
	marker Marker
	steer  func(st *agentState, sc scenario, plan planFunc) action
}

// misbehaviours is the table; add a row (and its marker constant) to add one.
func misbehaviours() []misbehaviour {
	return []misbehaviour{
		{MarkerClaimWithoutTool, steerClaimUntilRefused},
		{MarkerClaimAlways, steerClaimAlways},
		{MarkerSkipTools, steerSkipTools},
		{MarkerToolFails, steerToolFails},
		{MarkerFileToolFails, steerFileToolFails},
		{MarkerBadArgs, steerBadArgs},
		{MarkerThrottle, nil},
		{MarkerCutStream, nil},
		{MarkerSlow, nil},
		{MarkerInventURL, nil},
		{MarkerInventURLAlways, nil},
		{MarkerBadDate, nil},
		{MarkerEndlessSearch, nil},
		{MarkerSolverFailsOnce, nil},
		{MarkerPlanUnknownIDs, nil},
		{MarkerSolverRepeatsHeading, nil},
		{MarkerHoldEditor, nil},
		{MarkerTextNoTools, steerTextNoTools},
		{MarkerReasoning, nil},
		{MarkerReasoningOnly, nil},
		{MarkerToolEmpty, steerToolEmpty},
		{MarkerToolError, steerToolError},
		{MarkerHold, nil},
	}
}

func steerTextNoTools(st *agentState, _ scenario, _ planFunc) action {
	a := answer(knowledgeAnswer(st.c))
	a.plain = true
	return a
}

// steerToolEmpty looks a data question up in the teacher's documents, by
// the request's own words: nothing matches, and the tool says empty.
func steerToolEmpty(st *agentState, sc scenario, plan planFunc) action {
	if _, ok := sc.(*dataScenario); !ok {
		return plan(st)
	}
	q := strings.Join(strings.Fields(st.c.user), "")
	return (&dataScenario{ask: askDocuments, query: "«" + q + "»"}).next(st)
}

// steerToolError asks the data tool about a class that does not exist.
func steerToolError(st *agentState, sc scenario, plan planFunc) action {
	d, ok := sc.(*dataScenario)
	if !ok {
		return plan(st)
	}
	bad := *d
	bad.class, bad.ask = "Form 9Z", askStudents
	return bad.next(st)
}

func steerClaimUntilRefused(st *agentState, sc scenario, plan planFunc) action {
	if st.refused() {
		return plan(st)
	}
	return finish(falseClaim(st.c.lang, sc))
}

func steerClaimAlways(st *agentState, sc scenario, _ planFunc) action {
	return finish(falseClaim(st.c.lang, sc))
}

func steerSkipTools(st *agentState, sc scenario, plan planFunc) action {
	if sc.artifact() == "" {
		return plan(st)
	}
	return finish(finalResult{Status: statusAnswer, Message: sc.inline(st.c.lang)})
}

func steerToolFails(st *agentState, sc scenario, plan planFunc) action {
	q, ok := sc.(*quizScenario)
	if !ok {
		return plan(st)
	}
	return failFirstCall(st, sc, plan, toolQuiz, func(string) string { return q.argsJSON(st.c, 0, q.spec.QuestionType, 1) })
}

func steerFileToolFails(st *agentState, sc scenario, plan planFunc) action {
	cs, ok := sc.(*contentScenario)
	if !ok {
		return plan(st)
	}
	return failFirstCall(st, sc, plan, cs.tool(st.c), emptied)
}

// failFirstCall makes the first call of tool fail (spoil gives it
// arguments the tool refuses), then claims the work done until the
// refusal; after it, the failed call is put behind and the tool is called
// again, properly.
func failFirstCall(st *agentState, sc scenario, plan planFunc, tool string, spoil func(args string) string) action {
	calls := st.callsOf(tool)
	switch {
	case len(calls) == 0:
		a := plan(st)
		if a.tool == tool {
			a.args = spoil(a.args)
		}
		return a
	case !st.refused():
		if calls[len(calls)-1].failed {
			return finish(falseClaim(st.c.lang, sc))
		}
		return plan(st)
	default:
		return plan(st.without(func(_ int, s step) bool { return s.name == tool && s.failed && s.refusedBefore == 0 }))
	}
}

// emptied empties the content of generation arguments: the slides,
// sections or items list, or the page's HTML. The JSON stays valid and fits
// the schema; the tool itself rejects it.
func emptied(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return args
	}
	for _, k := range []string{"slides", "sections", "items"} {
		if _, ok := m[k]; ok {
			m[k] = []any{}
		}
	}
	if _, ok := m["html"]; ok {
		m["html"] = ""
	}
	return mustJSON(m)
}

func steerBadArgs(st *agentState, _ scenario, plan planFunc) action {
	if len(st.steps) == 0 {
		a := plan(st)
		if a.final == nil {
			a.args = truncateJSON(a.args)
		}
		return a
	}
	return plan(st.without(func(i int, s step) bool { return i == 0 && s.failed }))
}

// truncateJSON cuts arguments in half, on a rune boundary: never valid JSON,
// since the closing brace is gone.
func truncateJSON(s string) string {
	n := len(s) / 2
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if n == 0 {
		return "{"
	}
	return s[:n]
}

// falseClaim is a final result that claims an artifact nothing produced.
func falseClaim(l lang, sc scenario) finalResult {
	art := sc.artifact()
	if art == "" {
		art = "result"
	}
	return finalResult{
		Status:    statusArtifact,
		Message:   l.pick("已为你生成 "+sc.describe(l)+"，请在下方查看。", "Done! I've created "+sc.describe(l)+" for you; take a look below."),
		Artifacts: []string{art},
	}
}
