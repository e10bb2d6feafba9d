package offlinemodel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/insightedge/insightedge/local/researchdata"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/research"
)

// The research flow's calls (seed 001): the proposal (prompts.ProposalHeader,
// JSON mode) and the milestone agent (prompts.MilestoneHeader, one request
// per step). The agent plays the seed's four steps: it lists milestones
// "from memory" (the corpus of local/researchdata), verifies with 4–6
// web_search calls (an overview, the key milestones, the recent
// development), and submits final_result citing only URLs that appeared in
// its search results. A topic outside the corpus gets two searches and, with
// nothing found, an empty list: it does not invent a history.
//
// Misbehaviours a test selects with a marker in the topic:
// invent-url (one invented source, then corrected after the refusal),
// invent-url-always, bad-date (a date in words, then corrected) and
// endless-search (searches until the request limit stops it).

// Kinds of the research flow's calls.
const (
	KindProposal  Kind = "proposal"
	KindMilestone Kind = "milestone"
)

// Markers of the milestone agent's misbehaviours.
const (
	MarkerInventURL       Marker = "[[offline:invent-url]]"
	MarkerInventURLAlways Marker = "[[offline:invent-url-always]]"
	MarkerBadDate         Marker = "[[offline:bad-date]]"
	MarkerEndlessSearch   Marker = "[[offline:endless-search]]"
)

// inventedURL is the source the invent-url misbehaviours cite: a page no
// search returned.
const inventedURL = "https://www.history-of-science.example/timeline"

func proposalReply(c *call) reply {
	l := detectLang(c.user)
	if strings.Contains(c.system, prompts.LanguageLine+"en") {
		l = en
	}
	t, ok := researchdata.Find(c.user)
	if !ok {
		topic := cleanTopic(c.user)
		if topic == "" {
			topic = c.user
		}
		return textReply(mustJSON(map[string]any{
			"topic":               topic,
			"time_range":          l.pick("从最早的记载到今天", "from the earliest records to today"),
			"focus_points":        []string{l.pick("起源", "origins"), l.pick("关键突破", "key breakthroughs"), l.pick("近期进展", "recent developments")},
			"expected_milestones": 6,
			"search_plan":         genericQueries(l, topic),
			"language":            l.pick("zh-CN", "en"),
		}))
	}
	return textReply(mustJSON(map[string]any{
		"topic":               l.pick(t.NameZh, t.NameEn),
		"time_range":          l.pick(t.RangeZh, t.RangeEn),
		"focus_points":        pickList(l, t.FocusZh, t.FocusEn),
		"expected_milestones": len(t.Milestones),
		"search_plan":         plannedQueries(l, t),
		"language":            l.pick("zh-CN", "en"),
	}))
}

func pickList(l lang, zhList, enList []string) []string {
	if l == zh {
		return zhList
	}
	return enList
}

func genericQueries(l lang, topic string) []string {
	return []string{topic + l.pick(" 历史", " history"), topic + l.pick(" 最新进展", " recent developments")}
}

// plannedQueries are the agent's searches: an overview, up to three key
// milestones (the revolutionary ones first), and the recent development.
func plannedQueries(l lang, t researchdata.Topic) []string {
	qs := []string{l.pick(t.NameZh+" 时间线", t.NameEn+" timeline")}
	var key []researchdata.Milestone
	for _, sig := range []string{"revolutionary", "high"} {
		for _, m := range t.Milestones[:len(t.Milestones)-1] {
			if m.Significance == sig && len(key) < 3 {
				key = append(key, m)
			}
		}
	}
	for _, m := range key {
		qs = append(qs, l.pick(m.TitleZh, m.TitleEn)+" "+year(m.Date))
	}
	return append(qs, l.pick(t.NameZh+" 最新进展", t.NameEn+" recent developments"))
}

func year(date string) string { y, _, _ := strings.Cut(date, "-"); return y }

var markdownURL = regexp.MustCompile(`\]\((https?://[^)\s]+)\)`)

// milestoneState is what the agent has done in this run, read from the
// conversation.
type milestoneState struct {
	topic    string
	lang     lang
	searches int
	urls     map[string]bool
	refused  int
}

func readMilestoneState(c *call) milestoneState {
	st := milestoneState{urls: map[string]bool{}}
	first := firstUser(c)
	topicLine, rest, _ := strings.Cut(first, "\n")
	st.topic = strings.TrimSpace(strings.TrimPrefix(topicLine, "Topic:"))
	st.lang = detectLang(st.topic)
	if _, p, ok := strings.Cut(rest, "Confirmed proposal:"); ok {
		var prop struct {
			Language string `json:"language"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(p)), &prop) == nil && strings.HasPrefix(prop.Language, "en") {
			st.lang = en
		} else if prop.Language != "" {
			st.lang = zh
		}
	}
	for _, m := range c.req.Messages {
		switch m.Role {
		case "assistant":
			for _, tc := range m.ToolCalls {
				if tc.Function.Name == prompts.WebSearchTool {
					st.searches++
				}
			}
		case "tool":
			content := string(m.Content)
			if strings.HasPrefix(content, prompts.MilestoneRefusedPrefix) {
				st.refused++
			}
			for _, u := range markdownURL.FindAllStringSubmatch(content, -1) {
				st.urls[u[1]] = true
			}
		}
	}
	return st
}

func milestoneReply(c *call) reply {
	st := readMilestoneState(c)
	t, known := researchdata.Find(st.topic)
	var queries []string
	if known {
		queries = plannedQueries(st.lang, t)
	} else {
		queries = genericQueries(st.lang, st.topic)
	}
	if c.has(MarkerEndlessSearch) {
		q := queries[st.searches%len(queries)]
		if st.searches >= len(queries) {
			q += fmt.Sprintf(" %d", st.searches/len(queries)+1)
		}
		return searchReply(c, "", q)
	}
	if st.searches < len(queries) {
		draft := ""
		if st.searches == 0 && known {
			draft = memoryDraft(st.lang, t)
		}
		return searchReply(c, draft, queries[st.searches])
	}
	if !known {
		return c.toolCall(prompts.FinalResultTool, map[string]any{"milestones": []any{}})
	}
	return c.toolCall(prompts.FinalResultTool, map[string]any{"milestones": finalMilestones(c, st, t)})
}

func searchReply(c *call, content, query string) reply {
	r := c.toolCall(prompts.WebSearchTool, map[string]any{"query": query})
	r.content = content
	return r
}

// memoryDraft is step 1: the milestones as remembered, before any search.
func memoryDraft(l lang, t researchdata.Topic) string {
	var b strings.Builder
	b.WriteString(l.pick("先凭记忆列出关键里程碑：\n", "From memory, the key milestones are:\n"))
	for _, m := range t.Milestones {
		fmt.Fprintf(&b, "- %s %s\n", year(m.Date), l.pick(m.TitleZh, m.TitleEn))
	}
	b.WriteString(l.pick("接下来用搜索核实日期并查找近期进展。", "Next I verify the dates with searches and look for recent developments."))
	return b.String()
}

// finalMilestones is step 4, with the selected misbehaviour applied to the
// first milestone.
func finalMilestones(c *call, st milestoneState, t researchdata.Topic) []research.Milestone {
	l := st.lang
	out := make([]research.Milestone, 0, len(t.Milestones))
	for _, m := range t.Milestones {
		sources := []string{}
		if st.urls[m.Source.URL] {
			sources = append(sources, m.Source.URL)
		}
		out = append(out, research.Milestone{Date: m.Date, Title: l.pick(m.TitleZh, m.TitleEn), Subtitle: l.pick(m.SubtitleZh, m.SubtitleEn),
			Significance: m.Significance, Description: l.pick(m.DescZh, m.DescEn), Sources: sources})
	}
	if c.has(MarkerInventURLAlways) || (c.has(MarkerInventURL) && st.refused == 0) {
		out[0].Sources = append(out[0].Sources, inventedURL)
	}
	if c.has(MarkerBadDate) && st.refused == 0 {
		out[0].Date = l.pick(year(out[0].Date)+"年", "around "+year(out[0].Date))
	}
	return out
}
