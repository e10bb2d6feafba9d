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
	} {
		t.Run(c.name, func(t *testing.T) {
			r, ok := routerPrefix(c.sofar)
			if ok != c.ok || string(r.Intent) != c.intent {
				t.Errorf("routerPrefix = %q, %v; want %q, %v", r.Intent, ok, c.intent, c.ok)
			}
		})
	}
}
