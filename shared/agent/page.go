package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// pageNote describes the page a follow-up turn is about (seed 004 §1.3.1)
// for the router, the agent and the chat path: its title, the client's
// data summary and its blocks. It is "" on an entry turn, or when the page
// record cannot be read (the turn then goes on as an entry turn: the
// teacher still gets an answer). editable is true when the client sent the
// page's blueprint, without which it can be neither refined nor rebuilt.
func (a *Agent) pageNote(ctx context.Context, t workflow.Turn) (note string, editable bool) {
	if !t.Followup {
		return "", false
	}
	var rec workflow.PageRecord
	found, err := getJSON(ctx, a.Store, t.SessionID, workflow.PageKey(t.TurnID), &rec)
	if err != nil || !found {
		a.Logger.WarnContext(ctx, "the follow-up's page is unavailable; continuing without it", "found", found, "err", err)
		return "", false
	}
	return PageNote(rec), len(rec.Blueprint) > 0
}

// PageNote writes a page record as the PageHeader system message.
func PageNote(rec workflow.PageRecord) string {
	var b strings.Builder
	b.WriteString(prompts.PageHeader + "\n")
	var bp blueprint.Blueprint
	hasBP := len(rec.Blueprint) > 0 && json.Unmarshal(rec.Blueprint, &bp) == nil
	title := bp.Name
	if rec.PageContext != nil && rec.PageContext.Meta.PageTitle != "" {
		title = rec.PageContext.Meta.PageTitle
	}
	if title != "" {
		fmt.Fprintf(&b, "Title: %s\n", i18n.Clip(title, 200))
	}
	if rec.PageContext != nil && strings.TrimSpace(rec.PageContext.DataSummary) != "" {
		fmt.Fprintf(&b, "Data summary: %s\n", i18n.Clip(rec.PageContext.DataSummary, 4000))
	}
	if hasBP {
		b.WriteString("Blocks:\n")
		for _, bl := range bp.Blocks() {
			fmt.Fprintf(&b, "- %s (%s): %s\n", bl.ID, bl.ComponentType, bl.Title)
		}
	}
	return b.String()
}
