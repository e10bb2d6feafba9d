package research

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Significance levels of a SkeletonNode.
const (
	Revolutionary = "revolutionary"
	High          = "high"
	Medium        = "medium"
)

// NodeStatus is the status of every node of the skeleton event.
const NodeStatus = "skeleton"

// Limits of the agent's output.
const (
	maxMilestones  = 30
	maxTitle       = 200
	maxDescription = 1200
	maxSources     = 10
)

// FinalOutput is the milestone agent's structured final output: the
// arguments of its final_result call.
type FinalOutput struct {
	Milestones []Milestone `json:"milestones" description:"the milestones, sorted by date"`
}

// Milestone is one milestone as the agent writes it.
type Milestone struct {
	Date         string   `json:"date" description:"ISO 8601 date: YYYY, YYYY-MM or YYYY-MM-DD"`
	Title        string   `json:"title"`
	Subtitle     string   `json:"subtitle"`
	Significance string   `json:"significance" enum:"revolutionary,high,medium"`
	Description  string   `json:"description" description:"2 to 3 sentences"`
	Sources      []string `json:"sources" description:"URLs returned by web_search in this run"`
}

// Problem codes of Check that end a run without a retry.
var errNoMilestones = fmt.Errorf("no milestones")

// Check validates the agent's final output before it is accepted: ISO
// dates, the significance enum, no duplicate milestones, every source a URL
// that a search of this run returned (returned), non-empty titles and
// descriptions. It returns the skeleton (sorted by date, ids assigned,
// status "skeleton") or the problems, each a sentence the agent is sent
// back. An empty list is errNoMilestones: there is nothing to fix.
func Check(raw []byte, returned map[string]bool) ([]SkeletonNode, []string, error) {
	var out FinalOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, []string{"the arguments are not the JSON object {\"milestones\": [...]}: " + err.Error()}, nil
	}
	if len(out.Milestones) == 0 {
		return nil, nil, errNoMilestones
	}
	var problems []string
	if len(out.Milestones) > maxMilestones {
		problems = append(problems, fmt.Sprintf("%d milestones: keep the %d most important at most", len(out.Milestones), maxMilestones))
	}
	seen := map[string]int{}
	nodes := make([]SkeletonNode, 0, len(out.Milestones))
	for i, m := range out.Milestones {
		at := fmt.Sprintf("milestone %d (%q)", i+1, m.Title)
		title, desc := strings.TrimSpace(m.Title), strings.TrimSpace(m.Description)
		switch {
		case title == "":
			problems = append(problems, fmt.Sprintf("milestone %d has no title", i+1))
		case utf8.RuneCountInString(title) > maxTitle:
			problems = append(problems, at+": the title is too long")
		}
		if desc == "" {
			problems = append(problems, at+": the description is empty; write 2 to 3 sentences")
		} else if utf8.RuneCountInString(desc) > maxDescription {
			problems = append(problems, at+": the description is too long; write 2 to 3 sentences")
		}
		if _, ok := parseDate(m.Date); !ok {
			problems = append(problems, fmt.Sprintf("%s: date %q is not an ISO 8601 date (YYYY, YYYY-MM or YYYY-MM-DD)", at, m.Date))
		}
		sig := strings.ToLower(strings.TrimSpace(m.Significance))
		if sig != Revolutionary && sig != High && sig != Medium {
			problems = append(problems, fmt.Sprintf("%s: significance %q is not one of revolutionary, high, medium", at, m.Significance))
		}
		if key := dupKey(title); key != "" {
			if j, dup := seen[key]; dup {
				problems = append(problems, fmt.Sprintf("%s duplicates milestone %d: merge them", at, j))
			} else {
				seen[key] = i + 1
			}
		}
		if len(m.Sources) > maxSources {
			problems = append(problems, fmt.Sprintf("%s: at most %d sources", at, maxSources))
		}
		sources := []string{}
		for _, u := range m.Sources {
			u = strings.TrimSpace(u)
			if !returned[u] {
				problems = append(problems, fmt.Sprintf("%s: source %s was not returned by any web_search of this run; cite only URLs from the search results", at, u))
				continue
			}
			if !slices.Contains(sources, u) {
				sources = append(sources, u)
			}
		}
		nodes = append(nodes, SkeletonNode{Date: strings.TrimSpace(m.Date), Title: title, Subtitle: strings.TrimSpace(m.Subtitle),
			Significance: sig, Description: desc, Sources: sources, Status: NodeStatus})
	}
	if len(problems) > 0 {
		return nil, problems, nil
	}
	slices.SortStableFunc(nodes, func(a, b SkeletonNode) int {
		da, _ := parseDate(a.Date)
		db, _ := parseDate(b.Date)
		return cmp.Or(cmp.Compare(da.year, db.year), cmp.Compare(da.month, db.month), cmp.Compare(da.day, db.day))
	})
	for i := range nodes {
		nodes[i].ID = fmt.Sprintf("m%02d", i+1)
	}
	return nodes, nil, nil
}

// dupKey identifies a milestone for the duplicate check: its title, case
// and spacing and punctuation ignored.
func dupKey(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		if r == ' ' || strings.ContainsRune("\"'“”‘’《》「」.,，。:：-—·()（）", r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

type date struct{ year, month, day int }

// isoDate is compiled on first use, not at start-up.
var isoDate = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(-?\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$`) })

// parseDate reads an ISO 8601 calendar date of reduced precision (YYYY,
// YYYY-MM, YYYY-MM-DD; -YYYY before the common era) and checks that it is
// a real day.
func parseDate(s string) (date, bool) {
	m := isoDate().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return date{}, false
	}
	d := date{}
	d.year, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		d.month, _ = strconv.Atoi(m[2])
		if d.month < 1 || d.month > 12 {
			return date{}, false
		}
	}
	if m[3] != "" {
		d.day, _ = strconv.Atoi(m[3])
		t := time.Date(d.year, time.Month(d.month), d.day, 0, 0, 0, 0, time.UTC)
		if d.day < 1 || t.Day() != d.day {
			return date{}, false
		}
	}
	if d.year > 9999 {
		return date{}, false
	}
	return d, true
}
