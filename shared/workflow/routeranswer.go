package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The router model's answer (issue 29) is a route line, then the rest of
// the RouterResult as one JSON object:
//
//	chat_qa standard
//	{"expectedMode":"answer","candidateTools":[],"confidence":0.9,"strategy":"answer directly"}
//
// The line holds what decides a direct answer's route: the intent, the
// model tier and the safety flags, if any (space-separated after the
// tier); asking back is the intent clarify. A tokenizer has the line in
// its first four or five tokens, where the same fields as JSON under the
// seed's names take about twenty, and the agent's first words wait for
// them (shared/agent Start). An answer that is one JSON object, as a model
// may still give, reads as the whole RouterResult.

// intents are the intents a router may answer.
var intents = []Intent{IntentSmalltalk, IntentQA, IntentData, IntentQuiz, IntentContent, IntentBuild, IntentClarify, IntentRefine, IntentRebuild}

// routerDetail is the part of a RouterResult after the route line.
type routerDetail struct {
	ExpectedMode   string   `json:"expectedMode"`
	CandidateTools []string `json:"candidateTools"`
	Confidence     float64  `json:"confidence"`
	Strategy       string   `json:"strategy"`
	Clarify        *Clarify `json:"clarify,omitempty"`
}

// FormatRouterAnswer is r as the router answers it.
func FormatRouterAnswer(r RouterResult) string {
	intent := r.Intent
	if r.ClarifyNeeded {
		intent = IntentClarify
	}
	line := append([]string{string(intent), r.ModelTier}, r.SafetyFlags...)
	detail, err := json.Marshal(routerDetail{r.ExpectedMode, r.CandidateTools, r.Confidence, r.Strategy, r.Clarify})
	if err != nil {
		panic(err) // strings, a number and a struct of strings always marshal
	}
	return strings.Join(line, " ") + "\n" + string(detail)
}

// HasRouteLine reports whether a router answer, whole or streamed so far,
// starts with a route line rather than a JSON object; false while nothing
// but space has arrived.
func HasRouteLine(answer string) bool {
	s := strings.TrimLeft(answer, " \t\r\n")
	return s != "" && s[0] != '{'
}

// RouteLine reads the route line that starts a router answer streamed so
// far: ok once the line has ended (a line break, or the JSON object's
// brace) and names one of the intents, then a tier; an opening code fence
// and words before the intent (a "1." or "route:" a model may write) are
// passed over, and a model that answers in prose has no route. rest is
// what follows the line.
func RouteLine(answer string) (r RouterResult, rest string, ok bool) {
	s := strings.TrimLeft(answer, " \t\r\n")
	if strings.HasPrefix(s, "```") { // a fence a model opened: the line is on the next
		_, s, _ = strings.Cut(s, "\n")
	}
	end := strings.IndexAny(s, "\n{")
	if end < 0 {
		return r, "", false
	}
	words := strings.FieldsFunc(s[:end], func(c rune) bool { return strings.ContainsRune(" \t\r,[]\"`*", c) })
	at := slices.IndexFunc(words, func(w string) bool { return slices.Contains(intents, Intent(w)) })
	if at < 0 || at > 2 || len(words) < at+2 {
		return r, "", false
	}
	words = words[at:]
	r.Intent, r.ModelTier, r.SafetyFlags = Intent(words[0]), words[1], []string{}
	for _, f := range words[2:] {
		if f != "-" && f != "none" {
			r.SafetyFlags = append(r.SafetyFlags, f)
		}
	}
	r.ClarifyNeeded = r.Intent == IntentClarify
	return r, strings.TrimPrefix(s[end:], "\n"), true
}

// errNoRouteLine: an answer whose first line is not a route.
var errNoRouteLine = errors.New("the router's answer has no route line (an intent, then a tier)")

// ParseRouterAnswer reads a whole router answer: a route line and its
// JSON object, a route line alone, or one JSON object.
func ParseRouterAnswer(answer string) (RouterResult, error) {
	var r RouterResult
	if !HasRouteLine(answer) {
		if err := json.Unmarshal([]byte(answer), &r); err != nil {
			return r, fmt.Errorf("router answer: %w", err)
		}
		return r, nil
	}
	r, rest, ok := RouteLine(answer + "\n")
	if !ok {
		return r, errNoRouteLine
	}
	var d routerDetail
	if rest = strings.TrimSpace(rest); rest != "" {
		// The object, without what a model may write around it ("2.").
		if i := strings.IndexByte(rest, '{'); i > 0 {
			rest = rest[i:]
		}
		if err := json.Unmarshal([]byte(rest), &d); err != nil {
			return r, fmt.Errorf("router answer after the route line: %w", err)
		}
	}
	r.ExpectedMode, r.CandidateTools, r.Confidence, r.Strategy, r.Clarify = d.ExpectedMode, d.CandidateTools, d.Confidence, d.Strategy, d.Clarify
	return r, nil
}
