// Package researchdata is the small history-of-science corpus behind the
// research flow's local stand-ins: the local search service
// (local/searchsvc) serves its pages as search results, and the offline
// model (local/offlinemodel) plays a milestone agent that knows its
// milestones "from memory" and cites only the pages its searches returned.
// Both are stand-ins for the outside world (Tavily, a language model); the
// product never reads this package.
//
// Each topic has Chinese and English names, the words that recognise it in a
// query or a request, an overview page, and 5–7 milestones, each with the
// page that documents it. The last milestone of a topic is its recent
// development, found by the agent's "recent" search (seed 001 §5 step 3).
package researchdata

import (
	"slices"
	"strings"
)

// Page is one web page of the corpus.
type Page struct {
	Title   string
	URL     string
	Content string
}

// Milestone is one event of a topic's history, in both languages.
type Milestone struct {
	Date                   string // ISO 8601: YYYY, YYYY-MM or YYYY-MM-DD
	TitleZh, TitleEn       string
	SubtitleZh, SubtitleEn string
	// Significance is revolutionary, high or medium.
	Significance   string
	DescZh, DescEn string
	// Words recognise a query about this milestone.
	Words  []string
	Source Page
}

// Topic is one teaching topic.
type Topic struct {
	Key            string
	NameZh, NameEn string
	// RangeZh and RangeEn describe the time range; Start and End bound it.
	RangeZh, RangeEn string
	Start, End       string
	FocusZh, FocusEn []string
	// Words recognise the topic in a query or a request (lower case).
	Words      []string
	Overview   Page
	OverviewZh Page
	AnswerZh   string
	AnswerEn   string
	Milestones []Milestone
}

// Find returns the topic a text is about, by its words, or false.
func Find(text string) (Topic, bool) {
	low := strings.ToLower(text)
	best, score := Topic{}, 0
	for _, t := range Topics() {
		n := 0
		for _, w := range t.Words {
			if strings.Contains(low, w) {
				n += len([]rune(w))
			}
		}
		if n > score {
			best, score = t, n
		}
	}
	return best, score > 0
}

// Pages returns every page of the topic: the overviews, then the
// milestones' sources.
func (t Topic) Pages() []Page {
	out := []Page{t.Overview, t.OverviewZh}
	for _, m := range t.Milestones {
		out = append(out, m.Source)
	}
	return out
}

// Recent is the topic's most recent milestone.
func (t Topic) Recent() Milestone { return t.Milestones[len(t.Milestones)-1] }

// Topics returns the corpus, a fresh copy each call.
func Topics() []Topic {
	out := slices.Clone(topics)
	for i := range out {
		out[i].Milestones = slices.Clone(out[i].Milestones)
	}
	return out
}
