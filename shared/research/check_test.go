package research

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	returned := map[string]bool{"https://a.org/1": true, "https://b.org/2": true}
	m := func(date, title, sig string, sources ...string) Milestone {
		if sources == nil {
			sources = []string{}
		}
		return Milestone{Date: date, Title: title, Subtitle: "s", Significance: sig, Description: "One. Two.", Sources: sources}
	}
	tests := []struct {
		name     string
		in       []Milestone
		problems []string // substrings, one per expected problem
		dates    []string // of the accepted skeleton, in order
	}{
		{"accepted and sorted", []Milestone{m("1905", "B", "high"), m("1687-07-05", "A", "revolutionary", "https://a.org/1", "https://a.org/1"),
			m("-0350", "Aristotle", "medium"), m("1687", "Earlier in 1687", "High", "https://b.org/2")}, nil,
			[]string{"-0350", "1687", "1687-07-05", "1905"}},
		{"bad dates", []Milestone{m("1687年", "A", "high"), m("1687-13", "B", "high"), m("1900-02-29", "C", "high"), m("July 1687", "D", "high"),
			m("2000-02-29", "E", "high")}, []string{`"1687年"`, `"1687-13"`, `"1900-02-29"`, `"July 1687"`}, nil},
		{"significance enum", []Milestone{m("1687", "A", "critical")}, []string{`significance "critical"`}, nil},
		{"invented url", []Milestone{m("1687", "A", "high", "https://a.org/1", "https://invented.example/x")}, []string{"invented.example"}, nil},
		{"duplicates", []Milestone{m("1687", "《原理》出版", "high"), m("1687-07-05", "原理 出版", "high")}, []string{"duplicates milestone 1"}, nil},
		{"empty title and description", []Milestone{{Date: "1687", Significance: "high"}}, []string{"no title", "description is empty"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(FinalOutput{Milestones: tt.in})
			nodes, problems, err := Check(raw, returned)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems %q, want %d", problems, len(tt.problems))
			}
			for i, p := range tt.problems {
				if !strings.Contains(problems[i], p) {
					t.Errorf("problem %q lacks %q", problems[i], p)
				}
			}
			if tt.dates == nil {
				if nodes != nil {
					t.Errorf("nodes %v with problems", nodes)
				}
				return
			}
			for i, n := range nodes {
				if n.Date != tt.dates[i] || n.Status != "skeleton" || n.ID == "" || n.Sources == nil {
					t.Errorf("node %d %+v", i, n)
				}
			}
			if nodes[2].Significance != "revolutionary" || len(nodes[2].Sources) != 1 || nodes[1].Significance != "high" {
				t.Errorf("normalised nodes %+v", nodes)
			}
		})
	}
	if _, _, err := Check([]byte(`{"milestones":[]}`), returned); !errors.Is(err, errNoMilestones) {
		t.Errorf("empty list: %v", err)
	}
	if _, problems, _ := Check([]byte(`{"milestones":`), returned); len(problems) != 1 {
		t.Errorf("broken JSON: %v", problems)
	}
}
