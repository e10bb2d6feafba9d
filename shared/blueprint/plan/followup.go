package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Follow-ups on a built page (seed 004 §1.3.1): the router chose refine or
// rebuild; this step asks the model how. A refine is a PatchPlan from the
// page editor, checked against the page's blueprint; when the editor finds
// the change structural (scope rebuild), or the router chose rebuild, the
// planner revises the blueprint, checked like every blueprint.

// followUp plans a refine or a rebuild of the turn's page.
func (p *Planner) followUp(ctx context.Context, in workflow.PlanInput) (workflow.PlanOutput, error) {
	t := in.Turn
	base, err := p.pageBlueprint(ctx, t)
	if err != nil {
		return workflow.PlanOutput{}, err
	}
	req := requestOf(t)
	if base == nil {
		// A pageContext without its blueprint: the page can only be planned
		// again, from the request.
		res, err := p.Plan(ctx, req)
		if err != nil {
			return p.failed(ctx, t, err)
		}
		if err := p.store(ctx, t, res, notice(t.Language, t.Message, res)); err != nil {
			return workflow.PlanOutput{}, err
		}
		return workflow.PlanOutput{Status: workflow.PlanPlanned, Action: workflow.PlanActionRebuild}, nil
	}
	if req.Language == "" {
		req.Language = base.Language
	}
	if in.Route.Result.Intent == workflow.IntentRefine {
		plan, err := p.Refine(ctx, req, *base)
		if u := (*UnchangedError)(nil); errors.As(err, &u) {
			l := i18n.Of(t.Language, t.Message)
			p.o.Logger.InfoContext(ctx, "the refine changes nothing", "turnId", t.TurnID, "blocks", len(u.Blocks))
			return workflow.PlanOutput{Status: workflow.PlanFailed, Code: string(apperr.BlueprintError),
				Message: l.Text(i18n.RefineUnchanged, l.List(u.Blocks))}, nil
		}
		if err != nil {
			return p.failed(ctx, t, err)
		}
		if plan.Scope == blueprint.ScopePatch {
			return p.storeRefine(ctx, t, *base, plan)
		}
		p.o.Logger.InfoContext(ctx, "the editor found the change structural: a rebuild", "turnId", t.TurnID)
	}
	res, err := p.plan(ctx, req, base)
	if err != nil {
		return p.failed(ctx, t, err)
	}
	if err := p.store(ctx, t, res, reviseNotice(t, *base, res.Blueprint)); err != nil {
		return workflow.PlanOutput{}, err
	}
	return workflow.PlanOutput{Status: workflow.PlanPlanned, Action: workflow.PlanActionRebuild}, nil
}

func (p *Planner) failed(ctx context.Context, t workflow.Turn, err error) (workflow.PlanOutput, error) {
	if ctx.Err() != nil {
		return workflow.PlanOutput{}, err
	}
	return p.planFailure(ctx, t, err), nil
}

// pageBlueprint reads the follow-up's page record: its blueprint (checked
// at the edge), or nil when the client sent only a pageContext.
func (p *Planner) pageBlueprint(ctx context.Context, t workflow.Turn) (*blueprint.Blueprint, error) {
	raw, err := p.records.GetRecord(ctx, t.SessionID, workflow.PageKey(t.TurnID))
	if err != nil {
		return nil, fmt.Errorf("plan: load the page: %w", err)
	}
	var rec workflow.PageRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("plan: decode the page: %w", err)
	}
	if len(rec.Blueprint) == 0 {
		return nil, nil
	}
	bp, err := blueprint.Parse(rec.Blueprint)
	if err != nil {
		return nil, err
	}
	return &bp, nil
}

// editorBlock is a block as the page editor sees it.
type editorBlock struct {
	ID            string   `json:"id"`
	ComponentType string   `json:"componentType"`
	Title         string   `json:"title,omitempty"`
	Variant       string   `json:"variant,omitempty"`
	Slots         []string `json:"slots,omitempty"`
}

// Refine asks the page editor for a PatchPlan of bp that does what the
// request says, until one passes ValidatePatch (BLUEPRINT_ERROR when none
// does). A plan of scope rebuild means the change is structural.
func (p *Planner) Refine(ctx context.Context, req Request, bp blueprint.Blueprint) (blueprint.PatchPlan, error) {
	blocks := []editorBlock{}
	for _, b := range bp.Blocks() {
		eb := editorBlock{ID: b.ID, ComponentType: b.ComponentType, Title: b.Title, Variant: b.Variant}
		for _, s := range b.Slots {
			eb.Slots = append(eb.Slots, s.Key)
		}
		blocks = append(blocks, eb)
	}
	user, err := json.Marshal(map[string]any{"request": req.Message, "language": req.Language,
		"page": map[string]any{"title": bp.Name, "blocks": blocks}})
	if err != nil {
		return blueprint.PatchPlan{}, fmt.Errorf("plan: encode the editor's request: %w", err)
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: prompts.Editor}, {Role: llm.RoleUser, Content: string(user)}}
	var last error
	for attempt := 1; attempt <= p.o.Attempts; attempt++ {
		resp, err := p.model.Stream(ctx, llm.Request{Tier: p.o.Tier, Messages: msgs, JSON: true}, llm.Handler{})
		if err != nil {
			if ctx.Err() != nil {
				return blueprint.PatchPlan{}, err
			}
			return blueprint.PatchPlan{}, apperr.Wrap(err, apperr.AIError, "the page editor is unavailable")
		}
		content := resp.Message.Content
		plan, err := parsePatch(llm.StripFence(content))
		if err == nil {
			err = blueprint.ValidatePatch(plan, bp)
		}
		if err == nil {
			noop := blueprint.Unchanged(plan, bp)
			if len(noop) == 0 {
				return plan, nil
			}
			if attempt == p.o.Attempts {
				return withoutUnchanged(plan, noop, bp)
			}
			err = unchangedError(noop, bp)
		}
		last = err
		p.o.Logger.WarnContext(ctx, "the editor's patch plan was refused", "attempt", attempt, "err", err)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: content},
			llm.Message{Role: llm.RoleUser, Content: "The patch plan was refused: " +
				apperr.As(err).Message + "\nAnswer with the corrected PatchPlan, one JSON object only."})
	}
	return blueprint.PatchPlan{}, last
}

// UnchangedError is a refine whose every instruction would leave the page
// as it is: the teacher is told so, and nothing is announced as done.
type UnchangedError struct {
	Blocks []string // the titles of the blocks already as asked
}

func (e *UnchangedError) Error() string {
	return fmt.Sprintf("the patch plan changes nothing: %s already as asked", strings.Join(e.Blocks, ", "))
}

// unchangedError is the editor's feedback about no-op instructions.
func unchangedError(noop []blueprint.PatchInstruction, bp blueprint.Blueprint) error {
	var why []string
	for _, in := range noop {
		b, _ := bp.Block(in.BlockID)
		why = append(why, fmt.Sprintf("block %q is already titled %q with variant %q", in.BlockID, b.Title, b.Variant))
	}
	return apperr.New(apperr.BlueprintError, "these instructions change nothing (%s); change the block the teacher means, "+
		"into something it is not yet", strings.Join(why, "; "))
}

// withoutUnchanged keeps the instructions that change the page; when none
// does, it is an UnchangedError.
func withoutUnchanged(plan blueprint.PatchPlan, noop []blueprint.PatchInstruction, bp blueprint.Blueprint) (blueprint.PatchPlan, error) {
	kept := []blueprint.PatchInstruction{}
	var names []string
	for _, in := range plan.Instructions {
		if slices.Contains(noop, in) {
			b, _ := bp.Block(in.BlockID)
			names = append(names, cmpTitle(b))
			continue
		}
		kept = append(kept, in)
	}
	if len(kept) == 0 {
		return blueprint.PatchPlan{}, &UnchangedError{Blocks: names}
	}
	plan.Instructions = kept
	return plan, nil
}

// parsePatch decodes a PatchPlan strictly, as /api/page/patch does.
func parsePatch(s string) (blueprint.PatchPlan, error) {
	var plan blueprint.PatchPlan
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&plan); err != nil {
		return plan, apperr.Wrap(err, apperr.BlueprintError, "the patch plan is not a PatchPlan: %v", err)
	}
	if plan.Instructions == nil {
		plan.Instructions = []blueprint.PatchInstruction{}
	}
	return plan, nil
}

// storeRefine keeps a refine's plan: the page's own blueprint and the
// patch plan the client sends with it to /api/page/patch.
func (p *Planner) storeRefine(ctx context.Context, t workflow.Turn, bp blueprint.Blueprint, plan blueprint.PatchPlan) (workflow.PlanOutput, error) {
	rawBP, err := json.Marshal(bp)
	if err != nil {
		return workflow.PlanOutput{}, fmt.Errorf("plan: encode blueprint: %w", err)
	}
	rawPlan, err := json.Marshal(plan)
	if err != nil {
		return workflow.PlanOutput{}, fmt.Errorf("plan: encode patch plan: %w", err)
	}
	rec := workflow.PlanRecord{Blueprint: rawBP, ResolvedEntities: json.RawMessage("[]"), PatchPlan: rawPlan,
		Notice: refineNotice(t, bp, plan)}
	if err := p.putPlan(ctx, t, rec); err != nil {
		return workflow.PlanOutput{}, err
	}
	p.o.Logger.InfoContext(ctx, "planned a patch", "turnId", t.TurnID, "blueprintId", bp.ID, "instructions", len(plan.Instructions))
	return workflow.PlanOutput{Status: workflow.PlanPlanned, Action: workflow.PlanActionRefine}, nil
}

// refineNotice is what the teacher reads about a patch plan: the blocks it
// changes.
func refineNotice(t workflow.Turn, bp blueprint.Blueprint, plan blueprint.PatchPlan) string {
	l := i18n.Of(t.Language, t.Message)
	var names []string
	for _, in := range plan.Instructions {
		b, _ := bp.Block(in.BlockID)
		name := cmpTitle(b)
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return l.Text(i18n.RefineNotice, l.List(names))
}

// reviseNotice is what the teacher reads about a revised blueprint: the
// blocks added and removed.
func reviseNotice(t workflow.Turn, base, bp blueprint.Blueprint) string {
	l := i18n.Of(t.Language, t.Message)
	var added, removed []string
	for _, b := range bp.Blocks() {
		if _, ok := base.Block(b.ID); !ok {
			added = append(added, cmpTitle(b))
		}
	}
	for _, b := range base.Blocks() {
		if _, ok := bp.Block(b.ID); !ok {
			removed = append(removed, cmpTitle(b))
		}
	}
	var change []string
	if len(added) > 0 {
		change = append(change, l.Text(i18n.RebuildAdds, l.List(added)))
	}
	if len(removed) > 0 {
		change = append(change, l.Text(i18n.RebuildRemoves, l.List(removed)))
	}
	if len(change) == 0 {
		change = append(change, l.Text(i18n.RebuildAdjusts))
	}
	return l.Text(i18n.RebuildNotice, bp.Name, strings.Join(change, l.Text(i18n.ClauseSeparator)), len(bp.Blocks()))
}

func cmpTitle(b blueprint.Block) string {
	if b.Title != "" {
		return b.Title
	}
	return b.ID
}
