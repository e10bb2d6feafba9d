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

// Find returns the topic a text is about, or false. The topics' own words
// decide; when none matches, the milestones' words (a name, a discovery)
// do, except the words every topic shares ("recent").
func Find(text string) (Topic, bool) {
	low := strings.ToLower(text)
	score := func(words []string) int {
		n := 0
		for _, w := range words {
			if !generic[w] && strings.Contains(low, w) {
				n += len([]rune(w))
			}
		}
		return n
	}
	best, top := Topic{}, 0
	for _, t := range topics {
		if n := score(t.Words); n > top {
			best, top = t, n
		}
	}
	if top > 0 {
		return clone(best), true
	}
	for _, t := range topics {
		n := 0
		for _, m := range t.Milestones {
			n += score(m.Words)
		}
		if n > top {
			best, top = t, n
		}
	}
	return clone(best), top > 0
}

// generic words mark a milestone as its topic's recent one; they name no topic.
var generic = map[string]bool{"recent": true, "近期": true, "最新": true, "modern": true}

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
	out := make([]Topic, len(topics))
	for i, t := range topics {
		out[i] = clone(t)
	}
	return out
}

func clone(t Topic) Topic {
	t.Milestones = slices.Clone(t.Milestones)
	return t
}

// Sentences counts the sentences of a description: Chinese ones end with
// 。！？, English ones with ". " or the final full stop.
func Sentences(s string) int {
	s = strings.TrimSpace(s)
	n := strings.Count(s, "。") + strings.Count(s, "！") + strings.Count(s, "？") + strings.Count(s, ". ")
	if strings.HasSuffix(s, ".") {
		n++
	}
	return n
}
