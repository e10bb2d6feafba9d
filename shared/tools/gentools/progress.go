package gentools

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

// An interactive page is the longest thing a model writes: while it writes
// the tool's arguments, data-interactive-progress shows the page's plan
// (its title) and which section was written last; the tool then shows it
// being built, and data-interactive-content ends it, all under the call's
// id (issue 30, PROTOCOL.md §1).

// maxSectionLabel bounds a progress part's section, in characters.
const maxSectionLabel = 60

// itemsDraft reads request_interactive_content's arguments: the title,
// then each item as it is complete.
type itemsDraft struct {
	last protocol.InteractiveProgress
	sent bool
}

func newItemsDraft() tools.Drafter { return &itemsDraft{} }

func (d *itemsDraft) Draft(args string) (any, bool) {
	p := protocol.InteractiveProgress{Stage: protocol.StagePlanning, Title: draftTitle(args)}
	if items := llm.CompleteItems(args, "items"); len(items) > 0 {
		var it ItemArg
		_ = json.Unmarshal(items[len(items)-1], &it)
		p.Stage, p.Section = protocol.StageWriting, sectionLabel(itemLabel(it))
	}
	return d.changed(p)
}

func (d *itemsDraft) changed(p protocol.InteractiveProgress) (any, bool) {
	if d.sent && p == d.last {
		return nil, false
	}
	d.last, d.sent = p, true
	return p, true
}

// htmlDraft reads generate_interactive_html's arguments: the title, then
// the page's headings as its HTML is written.
type htmlDraft struct {
	itemsDraft
	html llm.PartialField
}

func newHTMLDraft() tools.Drafter { return &htmlDraft{html: llm.PartialField{Field: "html"}} }

// heading finds the headings of a page being written.
var heading = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)<h[1-3][^>]*>(.*?)</h[1-3]>`)
})

// tag matches an HTML tag inside a heading.
var tag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })

func (d *htmlDraft) Draft(args string) (any, bool) {
	p := protocol.InteractiveProgress{Stage: protocol.StagePlanning, Title: draftTitle(args)}
	if body, _ := d.html.Value(args); strings.TrimSpace(body) != "" {
		p.Stage = protocol.StageWriting
		if hs := heading().FindAllStringSubmatch(body, -1); len(hs) > 0 {
			p.Section = sectionLabel(tag().ReplaceAllString(hs[len(hs)-1][1], " "))
		}
	}
	return d.changed(p)
}

// draftTitle is the page's title once the model has written all of it.
func draftTitle(args string) string {
	if t, done := llm.PartialString(args, "title"); done {
		return office.Line(t)
	}
	return ""
}

func sectionLabel(s string) string {
	return i18n.Clip(strings.Join(strings.Fields(office.PlainText(s)), " "), maxSectionLabel)
}
