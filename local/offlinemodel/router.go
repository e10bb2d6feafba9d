package offlinemodel

import (
	"slices"
	"strings"

	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The router (prompts.RouterHeader): classify the last user message into a
// RouterResult, naming as candidate tools only generation tools that the
// router's prompt lists.

// routeCase is one row of the router's decision table: the first whose
// test holds decides the result.
type routeCase struct {
	intent   workflow.Intent
	test     func(c *call) bool
	mode     string
	tier     string
	strategy string
}

func routeCases() []routeCase {
	return []routeCase{
		{workflow.IntentClarify, func(c *call) bool { return isVague(c.user) }, workflow.ExpectClarify, "standard", "ask what the teacher needs"},
		{workflow.IntentContent, wantsExport, workflow.ExpectArtifact, "standard", "export the conversation's quiz as a file"}, // issue 31
		{workflow.IntentQA, func(c *call) bool { _, ok := outOfScope(c.user); return ok || asksLimits(c.user) }, workflow.ExpectAnswer, "fast", "say what cannot be done and what can"},
		{workflow.IntentQA, asksAboutPage, workflow.ExpectAnswer, "standard", "answer from the page's figures"},
		{workflow.IntentQuiz, wantsQuiz, workflow.ExpectArtifact, "standard", "generate quiz questions with the quiz tool"},
		{workflow.IntentContent, wantsContent, workflow.ExpectArtifact, "strong", "draft the content with a generation tool"},
		{workflow.IntentBuild, func(c *call) bool { return wantsAnalysis(c.user) || answersBuildClarify(c) }, workflow.ExpectAnswer, "standard", "build an analysis page from the class's results"},
		{workflow.IntentData, func(c *call) bool { return isDataQuestion(c.user) || answersDataClarify(c) }, workflow.ExpectAnswer, "standard", "look up the teacher's data, then answer"},
		{workflow.IntentSmalltalk, func(c *call) bool { return isSmalltalk(c.user) }, workflow.ExpectAnswer, "fast", "reply briefly and offer help"},
		{workflow.IntentQA, func(*call) bool { return true }, workflow.ExpectAnswer, "standard", "answer the question directly"},
	}
}

func routerReply(c *call) reply {
	var rc routeCase
	cases := routeCases()
	// Refine and rebuild only when the prompt offers them (the product
	// adds prompts.RouterFollowup when it has the page's blueprint).
	if c.page != "" && strings.Contains(c.system, prompts.RouterFollowup) {
		switch followUpIntent(c) {
		case workflow.IntentRefine:
			cases = []routeCase{{workflow.IntentRefine, nil, workflow.ExpectArtifact, "standard", "change the page's blocks in place with a patch plan"}}
		case workflow.IntentRebuild:
			cases = []routeCase{{workflow.IntentRebuild, nil, workflow.ExpectArtifact, "standard", "revise the page's blueprint"}}
		}
	}
	for _, r := range cases {
		if r.test == nil {
			rc = r
			break
		}
		if r.test(c) {
			rc = r
			break
		}
	}
	res := workflow.RouterResult{
		Intent:         rc.intent,
		Confidence:     routeConfidence(c, rc.intent),
		CandidateTools: candidateTools(c, rc.intent),
		ModelTier:      rc.tier,
		ExpectedMode:   rc.mode,
		Strategy:       rc.strategy,
		SafetyFlags:    safetyFlags(c.user),
	}
	if rc.intent == workflow.IntentClarify {
		res.ClarifyNeeded = true
		res.Clarify = &workflow.Clarify{
			Question: c.lang.pick("想让我帮你做什么呢？可以具体说说。", "What would you like me to help with? Tell me a bit more."),
			Options: []string{
				c.lang.pick("出一份练习题", "Create a practice quiz"),
				c.lang.pick("分析班级成绩", "Analyse a class's results"),
				c.lang.pick("讲解一个知识点", "Explain a topic"),
			},
		}
	}
	return textReply(workflow.FormatRouterAnswer(res))
}

func routeConfidence(c *call, intent workflow.Intent) float64 {
	switch intent {
	case workflow.IntentSmalltalk:
		return 0.95
	case workflow.IntentQuiz:
		if quizSpecFrom(c).Topic == "" {
			return 0.7
		}
		return 0.92
	case workflow.IntentContent:
		return 0.88
	case workflow.IntentBuild:
		return 0.86
	case workflow.IntentRefine, workflow.IntentRebuild:
		return 0.84
	case workflow.IntentData:
		return 0.85
	case workflow.IntentClarify:
		return 0.6
	}
	if _, ok := findTopic(c.user); ok {
		return 0.9
	}
	return 0.75
}

// candidateTools picks the generation tools an intent calls for, among
// those the router's prompt lists; never a name the prompt does not list.
func candidateTools(c *call, intent workflow.Intent) []string {
	var want []string
	switch intent {
	case workflow.IntentQuiz:
		want = []string{toolQuiz}
	case workflow.IntentContent:
		want = contentScenarioFrom(c).prefs()
		if wantsExport(c) { // issue 31
			want = []string{toolExport}
		}
	}
	listed := listedTools(c.system)
	out := []string{}
	for _, w := range want {
		if slices.Contains(listed, w) {
			out = append(out, w)
		}
	}
	return out
}

// listedTools reads the router prompt's generation tools, one per line as
// "- <tool_name>: <description>". Lines under a heading that mentions tools
// are taken; when no heading does, every such line is, except intent names.
func listedTools(system string) []string {
	item := compiled(`^\s*[-*]\s*` + "`?" + `([a-z][a-z0-9_]*)` + "`?" + `\s*[:：]`)
	var inSection, anySection []string
	section := false
	for _, line := range strings.Split(system, "\n") {
		m := item.FindStringSubmatch(line)
		if m == nil {
			if t := strings.TrimSpace(line); t != "" {
				low := strings.ToLower(t)
				section = strings.Contains(low, "tool") || strings.Contains(t, "工具")
			}
			continue
		}
		anySection = append(anySection, m[1])
		if section {
			inSection = append(inSection, m[1])
		}
	}
	if len(inSection) > 0 {
		return inSection
	}
	intents := []workflow.Intent{workflow.IntentSmalltalk, workflow.IntentQA, workflow.IntentData, workflow.IntentQuiz, workflow.IntentContent, workflow.IntentBuild, workflow.IntentClarify}
	return slices.DeleteFunc(anySection, func(n string) bool { return slices.Contains(intents, workflow.Intent(n)) })
}

// issue 28: the safety flags of prompts.Router, by the stand-in's rules: a
// request to hurt, humiliate or deceive is harmful; one for a pupil's
// private details (health, family, address, contacts, counselling) is
// student_privacy.
func safetyFlags(user string) []string {
	t := strings.ToLower(user)
	flags := []string{}
	if matches(`\b(humiliate|humiliating|bully|bullying|hurt|slap|threaten|beat up|hit (a|the|my|this) (student|pupil|child|kid)|fake (the )?(grades|scores))\b`, t) ||
		matches(`(羞辱|霸凌|欺负|体罚|打骂|殴打|伤害|威胁|恐吓|伪造成绩|篡改成绩)`, t) {
		flags = append(flags, prompts.SafetyHarmful)
	}
	if matches(`\b(home address|phone number|medical (history|record)|health record|diagnosis|family income|divorce|counselling|counseling|id number)\b`, t) ||
		matches(`(家庭住址|电话号码|手机号|病史|病历|诊断|家庭收入|离婚|心理咨询|身份证)`, t) {
		flags = append(flags, prompts.SafetyPrivacy)
	}
	return flags
}
