package build

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/compute"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
)

func TestParseItems(t *testing.T) {
	cases := []struct {
		name        string
		text        string
		suggestions bool
		want        []blueprint.ListItem
	}{
		{"findings", "### Findings\n- Grammar is weak: mean 58.3%.\n- **Top students**: steady\nnot an item", false,
			[]blueprint.ListItem{{Title: "Grammar is weak", Description: "mean 58.3%."}, {Title: "Top students", Description: "steady"}}},
		{"chinese colon and numbering", "1. 语法是短板：平均 58.3%\n2、阅读较好", false,
			[]blueprint.ListItem{{Title: "语法是短板", Description: "平均 58.3%"}, {Title: "阅读较好"}}},
		{"dash separator", "* Review the test — focus on tenses", false,
			[]blueprint.ListItem{{Title: "Review the test", Description: "focus on tenses"}}},
		{"priorities", "- [high] Drills: twice a week\n- [低] 拓展：分组\n- No priority: given", true,
			[]blueprint.ListItem{{Title: "Drills", Description: "twice a week", Priority: "high"},
				{Title: "拓展", Description: "分组", Priority: "low"}, {Title: "No priority", Description: "given", Priority: "medium"}}},
		{"nothing", "Just a paragraph.", false, []blueprint.ListItem{}},
		{"a colon inside 「」", "- 「Reading Comprehension: The Lost Kite」最难：及格率 60%", false,
			[]blueprint.ListItem{{Title: "「Reading Comprehension: The Lost Kite」最难", Description: "及格率 60%"}}},
		{"a colon inside quotes", `- "Unit 2: Tenses" went best — mean 81%`, false,
			[]blueprint.ListItem{{Title: `"Unit 2: Tenses" went best`, Description: "mean 81%"}}},
		{"an unclosed quote keeps the rest", "- 「Unit 2: Tenses is hard", false,
			[]blueprint.ListItem{{Title: "「Unit 2: Tenses is hard"}}},
	}
	for _, c := range cases {
		got := parseItems(c.text, c.suggestions, nil)
		if len(got) != len(c.want) {
			t.Errorf("%s: %+v", c.name, got)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: item %d = %+v, want %+v", c.name, i, got[i], c.want[i])
			}
		}
	}
}

// Every assignment name of the mock school stays whole in a list line's
// title, quoted or not, when the page's results name it.
func TestParseItemsKeepsAssignmentNames(t *testing.T) {
	names := []string{}
	for _, a := range mockdata.Default().Assignments {
		names = append(names, a.Title)
	}
	for _, name := range names {
		for _, c := range []struct{ line, title string }{
			{"- 「" + name + "」最难：及格率 60%", "「" + name + "」最难"},
			{"- " + name + ": the weakest, 60% pass", name},
			{"1. **" + name + "** — review it next week", name},
		} {
			got := parseItems(c.line, false, names)
			if len(got) != 1 || got[0].Title != c.title || got[0].Description == "" {
				t.Errorf("%q: %+v, want title %q", c.line, got, c.title)
			}
		}
	}
}

// The names come from the compute results the page shows.
func TestKnownNames(t *testing.T) {
	results := blueprint.ComputeResults{
		"byAssignment": json.RawMessage(`{"groups":[{"key":"a1","label":"Unit 1: Tenses"}]}`),
		"ranking":      json.RawMessage(`{"top":[{"studentName":"Chan Tai Man"}],"bottom":[{"studentName":"Lee Siu Ming"}]}`),
		"stats":        json.RawMessage(`{"mean":70}`),
	}
	got := knownNames(results)
	slices.Sort(got)
	if want := []string{"Chan Tai Man", "Lee Siu Ming", "Unit 1: Tenses"}; !slices.Equal(got, want) {
		t.Errorf("knownNames = %q, want %q", got, want)
	}
}

// With nothing graded there is no figure to show, not a 0; work left out
// of the statistics is said on the count card.
func TestKPIsOfUngradedWork(t *testing.T) {
	empty := kpis(compute.Stats{Metric: blueprint.MetricPercent, Ungraded: 6}, i18n.Chinese)
	if empty[0].Value != "—" || empty[1].Value != "—" || empty[2].Value != "— / —" || empty[3].Value != "0" ||
		!strings.HasPrefix(empty[3].Subtext, "6 份未评分 · ") || empty[3].Status != "warning" {
		t.Errorf("no graded work: %+v", empty)
	}
	some := kpis(compute.Stats{Metric: blueprint.MetricPercent, Count: 4, Mean: 67.5, Ungraded: 2, Unusable: 1}, i18n.English)
	if some[0].Value != "67.5%" || !strings.HasPrefix(some[3].Subtext, "2 not graded yet · 1 without a max score · ") {
		t.Errorf("some graded: %+v", some)
	}
}
