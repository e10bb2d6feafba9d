package build

import (
	"testing"

	"github.com/insightedge/insightedge/shared/blueprint"
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
	}
	for _, c := range cases {
		got := parseItems(c.text, c.suggestions)
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
