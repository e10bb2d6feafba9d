package offlinemodel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/local/searchsvc"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/research"
)

var isoDateRe = regexp.MustCompile(`^-?\d{4}(-\d{2}(-\d{2})?)?$`)

func TestProposal(t *testing.T) {
	_, c := start(t, Options{})
	tests := []struct {
		topic, lang, name string
		expected          int
	}{
		{"牛顿力学的发展", "zh-CN", "牛顿力学的发展", 6},
		{"the history of the periodic table [[offline:bad-date]]", "en", "the history of the periodic table", 7},
		{"宋代瓷器的发展", "zh-CN", "宋代瓷器的发展", 6},
	}
	for _, tt := range tests {
		t.Run(tt.topic, func(t *testing.T) {
			r := complete(t, c, openai.ChatCompletionRequest{Model: ModelStandard, ResponseFormat: &openai.ChatCompletionResponseFormat{Type: "json_object"},
				Messages: []openai.ChatCompletionMessage{system(prompts.ProposalHeader, ""), user(tt.topic)}}, false)
			var p struct {
				Topic, TimeRange, Language string
				FocusPoints, SearchPlan    []string
				ExpectedMilestones         int
			}
			raw := strings.NewReplacer(`"time_range"`, `"TimeRange"`, `"focus_points"`, `"FocusPoints"`, `"search_plan"`, `"SearchPlan"`,
				`"expected_milestones"`, `"ExpectedMilestones"`).Replace(r.content)
			if err := json.Unmarshal([]byte(raw), &p); err != nil {
				t.Fatalf("%v: %s", err, r.content)
			}
			if p.Topic != tt.name || p.Language != tt.lang || p.ExpectedMilestones != tt.expected || len(p.FocusPoints) < 3 ||
				len(p.SearchPlan) < 2 || p.TimeRange == "" || strings.Contains(r.content, "[[offline") {
				t.Fatalf("proposal %+v", p)
			}
		})
	}
}

// playMilestones runs the milestone agent against the local search
// service's answers until final_result (or limit requests), sending back
// refusal once when refuse says so; it returns the queries and each
// final_result's milestones.
func playMilestones(t *testing.T, c *openai.Client, topic string, limit int, refuse func([]research.Milestone, map[string]bool) string) ([]string, [][]research.Milestone, map[string]bool) {
	t.Helper()
	tools := []openai.Tool{fn(prompts.WebSearchTool, "search", nil), fn(prompts.FinalResultTool, "final", nil)}
	msgs := []openai.ChatCompletionMessage{system(prompts.MilestoneHeader, ""), user("Topic: " + topic + "\nConfirmed proposal: {}")}
	var queries []string
	var finals [][]research.Milestone
	returned := map[string]bool{}
	for range limit {
		r := complete(t, c, openai.ChatCompletionRequest{Model: ModelStandard, Messages: msgs, Tools: tools, ToolChoice: "required"}, false)
		tc := r.call(t)
		msgs = append(msgs, openai.ChatCompletionMessage{Role: "assistant", Content: r.content, ToolCalls: r.calls})
		switch tc.Function.Name {
		case prompts.WebSearchTool:
			q := argsOf(t, tc)["query"].(string)
			queries = append(queries, q)
			var b strings.Builder
			for _, res := range searchsvc.Search(searchsvc.Request{Query: q, MaxResults: 5}).Results {
				fmt.Fprintf(&b, "- [%s](%s)\n  %s\n", res.Title, res.URL, res.Content)
				returned[res.URL] = true
			}
			msgs = append(msgs, openai.ChatCompletionMessage{Role: "tool", ToolCallID: tc.ID, Content: "status: success.\n" + b.String()})
		case prompts.FinalResultTool:
			var out struct{ Milestones []research.Milestone }
			if err := json.Unmarshal([]byte(tc.Function.Arguments), &out); err != nil {
				t.Fatal(err)
			}
			finals = append(finals, out.Milestones)
			why := refuse(out.Milestones, returned)
			if why == "" {
				return queries, finals, returned
			}
			msgs = append(msgs, openai.ChatCompletionMessage{Role: "tool", ToolCallID: tc.ID, Content: prompts.MilestoneRefusedPrefix + "\n- " + why})
		}
	}
	return queries, finals, returned
}

func TestMilestoneAgent(t *testing.T) {
	_, c := start(t, Options{})
	accept := func([]research.Milestone, map[string]bool) string { return "" }
	check := func(ms []research.Milestone, returned map[string]bool) string {
		for _, m := range ms {
			for _, u := range m.Sources {
				if !returned[u] {
					return "source " + u + " was not returned"
				}
			}
			if !isoDateRe.MatchString(m.Date) {
				return "date " + m.Date
			}
		}
		return ""
	}
	t.Run("four steps", func(t *testing.T) {
		queries, finals, returned := playMilestones(t, c, "光合作用研究史", 15, accept)
		if len(queries) < 4 || len(queries) > 6 || len(finals) != 1 {
			t.Fatalf("%d searches, %d finals", len(queries), len(finals))
		}
		if why := check(finals[0], returned); why != "" || len(finals[0]) != 6 {
			t.Fatalf("%s in %+v", why, finals[0])
		}
		cited := 0
		for _, m := range finals[0] {
			cited += len(m.Sources)
		}
		if cited < 3 {
			t.Errorf("%d sources cited", cited)
		}
	})
	for _, marker := range []Marker{MarkerInventURL, MarkerBadDate} {
		t.Run(string(marker), func(t *testing.T) {
			_, finals, _ := playMilestones(t, c, "the history of vaccines "+string(marker), 15, check)
			if len(finals) != 2 {
				t.Fatalf("%d finals, want a bad one and a corrected one", len(finals))
			}
		})
	}
	t.Run("endless search", func(t *testing.T) {
		queries, finals, _ := playMilestones(t, c, "牛顿力学的发展 [[offline:endless-search]]", 12, accept)
		if len(finals) != 0 || len(queries) != 12 || len(slices.Compact(slices.Clone(queries))) != 12 {
			t.Fatalf("%d finals, queries %v", len(finals), queries)
		}
	})
	t.Run("nothing known", func(t *testing.T) {
		queries, finals, _ := playMilestones(t, c, "宋代瓷器的发展", 15, accept)
		if len(queries) != 2 || len(finals) != 1 || len(finals[0]) != 0 {
			t.Fatalf("queries %v finals %v", queries, finals)
		}
	})
}
