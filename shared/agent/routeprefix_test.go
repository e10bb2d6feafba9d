package agent

import "testing"

func TestRouterPrefix(t *testing.T) {
	for _, c := range []struct {
		name, sofar string
		ok          bool
		intent      string
	}{
		{"a chat route: intent, tier, no question", `{"intent":"chat_qa","modelTier":"standard","clarifyNeeded":false,"safetyFlags":[],"expec`, true, "chat_qa"},
		{"the last governing field still open", `{"intent":"chat_qa","modelTier":"standard","clarifyNeeded":false,"safetyFlags":[`, false, ""},
		{"the safety flags not yet in", `{"intent":"chat_qa","modelTier":"standard","clarifyNeeded":false,"expectedMode":"answer",`, false, ""},
		{"a chat route without its tier", `{"intent":"chat_qa","clarifyNeeded":false,"safetyFlags":[],"confidence":0.9,`, false, ""},
		{"an agent route waits for its tools", `{"intent":"quiz_generate","modelTier":"standard","clarifyNeeded":false,"safetyFlags":[],"expectedMode":"artifact","candidateTools":["gen`, false, ""},
		{"an agent route with its tools", `{"intent":"quiz_generate","modelTier":"standard","clarifyNeeded":false,"safetyFlags":[],"expectedMode":"artifact","candidateTools":["generate_quiz_questions"],"co`, true, "quiz_generate"},
		{"a build route needs no tier", `{"intent":"build_workflow","clarifyNeeded":false,"safetyFlags":[],"mod`, true, "build_workflow"},
		{"commas inside strings and lists", `{"intent":"quiz_generate","strategy":"a, b","modelTier":"standard","expectedMode":"artifact","candidateTools":["a","b"],"clarifyNeeded":false,"safetyFlags":["x, y"],"confidence":1}`, true, "quiz_generate"},
		{"a fenced answer", "```json\n" + `{"intent":"chat_qa","modelTier":"fast","expectedMode":"answer","candidateTools":[],"clarifyNeeded":false,"safetyFlags":[],"strategy":"x\"y",`, true, "chat_qa"},
		{"a clarify waits for its question", `{"intent":"clarify","modelTier":"fast","clarifyNeeded":true,"expectedMode":"clarify","candidateTools":[],"confidence":0.5,`, false, ""},
		{"asking back on another intent waits too", `{"intent":"data_query","modelTier":"fast","clarifyNeeded":true,"expectedMode":"answer","candidateTools":[],`, false, ""},
		{"not JSON", `Sure! {"intent"`, false, ""},
		// The route line (workflow.FormatRouterAnswer).
		{"a chat route line, ended", "chat_qa standard\n", true, "chat_qa"},
		{"a chat route line still streaming", "chat_qa stand", false, ""},
		{"a chat route line with its flags", "chat_smalltalk fast student_privacy\n{", true, "chat_smalltalk"},
		{"a build route line", "build_workflow standard\n", true, "build_workflow"},
		{"an agent route line waits for its tools", "quiz_generate standard\n" + `{"expectedMode":"artifact","candidateTools":["gen`, false, ""},
		{"an agent route line with its tools", "quiz_generate standard\n" + `{"expectedMode":"artifact","candidateTools":["generate_quiz_questions"],"co`, true, "quiz_generate"},
		{"a clarify route line waits for its question", "clarify fast\n" + `{"expectedMode":"clarify","candidateTools":[],"confidence":0.5,`, false, ""},
		{"a route line without a tier", "chat_qa\n{", false, ""},
		{"prose", "I think this is small talk.\n", false, ""},
		{"a fenced route line", "```\nchat_qa fast\n{", true, "chat_qa"},
		{"numbered lines", "1. quiz_generate standard\n2. " + `{"expectedMode":"artifact","candidateTools":["q"],"co`, true, "quiz_generate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, ok := routerEarly(c.sofar)
			if ok != c.ok || string(r.Intent) != c.intent {
				t.Errorf("routerEarly = %q, %v; want %q, %v", r.Intent, ok, c.intent, c.ok)
			}
		})
	}
}
