package workflow

import (
	"reflect"
	"testing"
)

func TestRouterAnswerRoundTrip(t *testing.T) {
	for _, r := range []RouterResult{
		{Intent: IntentQA, ModelTier: "standard", SafetyFlags: []string{}, ExpectedMode: ExpectAnswer, CandidateTools: []string{}, Confidence: 0.9, Strategy: "answer directly"},
		{Intent: IntentQuiz, ModelTier: "strong", SafetyFlags: []string{"student_privacy", "harmful"}, ExpectedMode: ExpectArtifact,
			CandidateTools: []string{"generate_quiz_questions"}, Confidence: 0.5, Strategy: "a quiz, then: more"},
		{Intent: IntentClarify, ModelTier: "fast", ClarifyNeeded: true, SafetyFlags: []string{}, ExpectedMode: ExpectClarify, CandidateTools: []string{},
			Clarify: &Clarify{Question: "哪个班？\n1A 还是 1B？", Options: []string{"1A", "1B"}}},
	} {
		answer := FormatRouterAnswer(r)
		got, err := ParseRouterAnswer(answer)
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("ParseRouterAnswer(%q) = %+v, %v; want %+v", answer, got, err, r)
		}
	}
}

func TestParseRouterAnswer(t *testing.T) {
	for _, c := range []struct {
		name, answer string
		intent       Intent
		tier         string
		flags        []string
		tools        []string
		ok           bool
	}{
		{"a line and its JSON", "quiz_generate standard\n" + `{"expectedMode":"artifact","candidateTools":["q"]}`, IntentQuiz, "standard", []string{}, []string{"q"}, true},
		{"a line alone", "chat_smalltalk fast", IntentSmalltalk, "fast", []string{}, nil, true},
		{"the JSON on the line's end", `chat_qa standard {"expectedMode":"answer"}`, IntentQA, "standard", []string{}, nil, true},
		{"flags written as a list", "data_query standard [student_privacy]\n{}", IntentData, "standard", []string{"student_privacy"}, nil, true},
		{"no flags written as a dash", "data_query standard -\n{}", IntentData, "standard", []string{}, nil, true},
		{"one JSON object", `{"intent":"build_workflow","modelTier":"standard","safetyFlags":["harmful"]}`, IntentBuild, "standard", []string{"harmful"}, nil, true},
		{"the JSON's intent does not overrule the line", "chat_qa fast\n" + `{"intent":"quiz_generate"}`, IntentQA, "fast", []string{}, nil, true},
		{"a numbered answer", "1. chat_qa fast\n2. {\"expectedMode\":\"answer\"}", IntentQA, "fast", []string{}, nil, true},
		{"a labelled route", "Route: **quiz_generate standard**\n{}", IntentQuiz, "standard", []string{}, nil, true},
		{"prose", "I would call this small talk.", "", "", nil, nil, false},
		{"prose naming an intent late", "I would call this one chat_qa fast.", "", "", nil, nil, false},
		{"a line without a tier", "chat_qa\n{}", "", "", nil, nil, false},
		{"broken JSON after the line", "chat_qa fast\n{\"expectedMode\":", "", "", nil, nil, false},
		{"broken JSON alone", `{"intent":`, "", "", nil, nil, false},
		{"nothing", "", "", "", nil, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseRouterAnswer(c.answer)
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want ok %v", err, c.ok)
			}
			if !c.ok {
				return
			}
			if r.Intent != c.intent || r.ModelTier != c.tier || !reflect.DeepEqual(r.SafetyFlags, c.flags) || !reflect.DeepEqual(r.CandidateTools, c.tools) {
				t.Errorf("got %+v", r)
			}
		})
	}
}
