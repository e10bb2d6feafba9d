// Package plan turns a teacher's request into a Blueprint: the page planner
// model writes it (JSON mode, checked against the Blueprint contract and
// sent back once with the problems when it does not pass), then the entities
// it names are resolved against the teacher's own data, so that a blueprint
// leaves the planner with ids, not mentions ("1A" → class-hk-f1a).
//
// The model extracts the mentions; resolving them is data lookup by the
// data tools (which match names the way Hong Kong schools write them), not
// keyword routing.
package plan

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Model is the language model as the planner uses it.
type Model = llm.Streamer

// Records is where the conversation step stores a turn's plan
// (session.Store is one).
type Records = session.ClaimChecks

// The tool that resolves a class mention and lists the class's students
// and assignments.
const classTool = "get_class_detail"

// Options configure a Planner.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	NewID  func() string
	// Tier is the planner's model tier (standard).
	Tier llm.Tier
	// Attempts bounds the model calls of one plan (2: one correction).
	Attempts int
}

// Planner plans blueprints.
type Planner struct {
	model   Model
	tools   *tools.Registry
	records Records
	o       Options
}

// New returns a Planner; reg holds the data tools, records keeps the plans
// of conversation turns.
func New(m Model, reg *tools.Registry, records Records, o Options) *Planner {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = func() string { return "bp-" + uuid.Must(uuid.NewV7()).String() }
	}
	if o.Tier == "" {
		o.Tier = llm.TierStandard
	}
	if o.Attempts <= 0 {
		o.Attempts = 2
	}
	return &Planner{model: m, tools: reg, records: records, o: o}
}

// Request is what to plan.
type Request struct {
	Message   string
	Language  string
	TeacherID string
	TraceID   string
	// Context holds choices the teacher already made ({"classId": …}); they
	// override the planned input values.
	Context map[string]any
	// Picked names the choices of Context the teacher picked from a
	// question back (by context key: "Form 1A · English"), for the planner
	// to name the page after them rather than after the request's mention.
	Picked map[string]string
}

// Result is a planned, resolved blueprint.
type Result struct {
	Blueprint blueprint.Blueprint
	Resolved  []blueprint.ResolvedEntity
	// Notices say what is used instead of what was asked for.
	Notices []protocol.Notice
}

// DataTools returns the tools a binding may call.
func (p *Planner) DataTools() []string { return p.tools.Names(tools.Base) }

// Plan plans and resolves a blueprint. Errors carry a code: BLUEPRINT_ERROR
// (no valid blueprint), AI_ERROR (the model failed), ENTITY_NOT_FOUND with
// javaapi.NotFound details (an unknown or ambiguous entity), or the data
// service's codes.
func (p *Planner) Plan(ctx context.Context, req Request) (Result, error) {
	return p.plan(ctx, req, nil)
}

// plan drafts a blueprint, or a revision of base when base is not nil, and
// resolves it.
func (p *Planner) plan(ctx context.Context, req Request, base *blueprint.Blueprint) (Result, error) {
	bp, err := p.draft(ctx, req, base)
	if err != nil {
		return Result{}, err
	}
	for i, in := range bp.DataContract.Inputs {
		for _, k := range []string{in.ID, in.ID + "Id"} {
			if s, ok := req.Context[k].(string); ok && strings.TrimSpace(s) != "" {
				bp.DataContract.Inputs[i].Value = strings.TrimSpace(s)
				break
			}
		}
	}
	resolved, notices, err := p.resolve(ctx, req, &bp)
	if err != nil {
		return Result{}, err
	}
	return Result{Blueprint: bp, Resolved: resolved, Notices: notices}, nil
}

// draft asks the model for a blueprint until one passes the contract; with
// base, for a revision of base.
func (p *Planner) draft(ctx context.Context, req Request, base *blueprint.Blueprint) (blueprint.Blueprint, error) {
	var sys strings.Builder
	sys.WriteString(prompts.Planner)
	for _, n := range p.DataTools() {
		t, _ := p.tools.Get(n)
		fmt.Fprintf(&sys, "- %s: %s\n", t.Name, t.Description)
	}
	if req.Language != "" {
		fmt.Fprintf(&sys, "\nThe teacher's language: %s\n", req.Language)
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: sys.String()}}
	if base != nil {
		cur, err := json.Marshal(base)
		if err != nil {
			return blueprint.Blueprint{}, fmt.Errorf("plan: encode the current blueprint: %w", err)
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: prompts.CurrentBlueprintHeader + "\n" + string(cur) + "\n" + prompts.PlannerRevise})
	}
	if picked := pickedNote(req); picked != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: picked})
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: req.Message})
	var last error
	for attempt := 1; attempt <= p.o.Attempts; attempt++ {
		resp, err := p.model.Stream(ctx, llm.Request{Tier: p.o.Tier, Messages: msgs, JSON: true}, llm.Handler{})
		if err != nil {
			if ctx.Err() != nil {
				return blueprint.Blueprint{}, err
			}
			return blueprint.Blueprint{}, apperr.Wrap(err, apperr.AIError, "the page planner is unavailable")
		}
		content := resp.Message.Content
		bp, err := blueprint.Parse([]byte(llm.StripFence(content)))
		if err == nil {
			p.normalize(&bp, req, base)
			err = blueprint.Validate(bp, p.DataTools())
		}
		if err == nil {
			return bp, nil
		}
		last = err
		p.o.Logger.WarnContext(ctx, "the planner's blueprint was refused", "attempt", attempt, "err", err)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: content},
			llm.Message{Role: llm.RoleUser, Content: "The blueprint was refused: " +
				apperr.As(err).Message + "\nAnswer with the corrected blueprint, one JSON object only."})
	}
	return blueprint.Blueprint{}, last
}

// pickedNote tells the planner what the teacher picked from a question
// back, "" when nothing was.
func pickedNote(req Request) string {
	if len(req.Picked) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(prompts.PlannerPickedHeader + "\n")
	for _, k := range slices.Sorted(maps.Keys(req.Picked)) {
		fmt.Fprintf(&b, "- %s: %v (%s)\n", k, req.Context[k], req.Picked[k])
	}
	return b.String()
}

// normalize fills what the server owns: the id, the version, the time, the
// source prompt and the language. A revision is the next version of its
// base and keeps the request the page was first planned from.
func (p *Planner) normalize(bp *blueprint.Blueprint, req Request, base *blueprint.Blueprint) {
	bp.ID = p.o.NewID()
	bp.Version = max(bp.Version, 1)
	bp.CreatedAt = p.o.Now().UTC().Format(time.RFC3339)
	bp.SourcePrompt = req.Message
	if base != nil {
		bp.Version = base.Version + 1
		bp.SourcePrompt = cmp.Or(base.SourcePrompt, req.Message)
		req.Language = cmp.Or(req.Language, base.Language)
	}
	bp.Language = cmp.Or(req.Language, bp.Language)
	if bp.UIComposition.Layout == "" {
		bp.UIComposition.Layout = blueprint.LayoutTabs
	}
}

// classDetail is the part of get_class_detail's output resolution reads.
type classDetail struct {
	Class       javaapi.ClassInfo    `json:"class"`
	Students    []javaapi.Student    `json:"students"`
	Assignments []javaapi.Assignment `json:"assignments"`
}

// resolve replaces the entity inputs' mentions with ids: a class through
// get_class_detail (which resolves names), an assignment or a student
// within the class its input depends on (or the blueprint's class input).
// A class that does not teach the subject the input asks about is used as
// it is, with a notice that says so.
func (p *Planner) resolve(ctx context.Context, req Request, bp *blueprint.Blueprint) ([]blueprint.ResolvedEntity, []protocol.Notice, error) {
	resolved, notices := []blueprint.ResolvedEntity{}, []protocol.Notice(nil)
	classes := map[string]classDetail{} // by input id
	var firstClass string
	for i := range bp.DataContract.Inputs {
		in := &bp.DataContract.Inputs[i]
		mention := strings.TrimSpace(in.Value)
		if mention == "" {
			continue
		}
		switch in.Type {
		case blueprint.InputClass:
			d, err := p.classDetail(ctx, req, mention)
			if err != nil {
				return nil, nil, err
			}
			classes[in.ID] = d
			if c := d.Class; in.Subject != "" && c.Subject != "" && !strings.EqualFold(in.Subject, c.Subject) {
				l := i18n.Of(req.Language, req.Message)
				notices = append(notices, protocol.Notice{Code: protocol.NoticeSubstituted,
					Message: l.Text(i18n.PlanOtherSubject, c.Name, l.Subject(in.Subject), l.Subject(c.Subject))})
			}
			if firstClass == "" {
				firstClass = in.ID
			}
			in.Value = d.Class.ClassID
			name := d.Class.Name
			if d.Class.Subject != "" {
				name += " · " + d.Class.Subject
			}
			resolved = append(resolved, blueprint.ResolvedEntity{EntityType: in.Type, Mention: mention, EntityID: d.Class.ClassID,
				DisplayName: name, InputID: in.ID})
		case blueprint.InputAssignment, blueprint.InputStudent:
			d, ok := classes[cmp.Or(in.DependsOn, firstClass)]
			if !ok {
				// No class to look in: the id is taken as given and checked
				// by the data tools when the page is built.
				continue
			}
			id, name, err := within(d, in.Type, mention)
			if err != nil {
				return nil, nil, err
			}
			in.Value = id
			resolved = append(resolved, blueprint.ResolvedEntity{EntityType: in.Type, Mention: mention, EntityID: id,
				DisplayName: name, InputID: in.ID})
		}
	}
	return resolved, notices, nil
}

func (p *Planner) classDetail(ctx context.Context, req Request, mention string) (classDetail, error) {
	tool, ok := p.tools.Get(classTool)
	if !ok {
		return classDetail{}, apperr.New(apperr.ServiceUnavailable, "the data tools are not available")
	}
	args, _ := json.Marshal(map[string]string{"classId": mention})
	res, err := tool.Run(ctx, tools.Call{TeacherID: req.TeacherID, TraceID: req.TraceID, Language: req.Language,
		CallID: "plan-resolve", Emit: func(context.Context, protocol.Chunk) error { return nil }}, args)
	if err != nil {
		return classDetail{}, err
	}
	raw, err := json.Marshal(res.Output)
	if err != nil {
		return classDetail{}, fmt.Errorf("plan: encode class detail: %w", err)
	}
	var d classDetail
	if err := json.Unmarshal(raw, &d); err != nil || d.Class.ClassID == "" {
		return classDetail{}, apperr.New(apperr.DataError, "the class detail of %q has no class", mention)
	}
	return d, nil
}

// within resolves an assignment or a student of a class.
func within(d classDetail, kind, mention string) (id, name string, err error) {
	if kind == blueprint.InputStudent {
		s, err := javaapi.ResolveStudent(mention, d.Students)
		return s.StudentID, s.Name, err
	}
	var hits []javaapi.Assignment
	low := strings.ToLower(mention)
	for _, a := range d.Assignments {
		switch {
		case strings.EqualFold(a.AssignmentID, mention) || strings.EqualFold(a.Title, mention):
			return a.AssignmentID, a.Title, nil
		case strings.Contains(strings.ToLower(a.Title), low):
			hits = append(hits, a)
		}
	}
	if len(hits) == 1 {
		return hits[0].AssignmentID, hits[0].Title, nil
	}
	sugg := []javaapi.Suggestion{}
	options := hits
	if len(options) == 0 {
		options = d.Assignments
	}
	for _, a := range options {
		sugg = append(sugg, javaapi.Suggestion{Label: a.Title, Value: a.AssignmentID})
	}
	return "", "", apperr.New(apperr.EntityNotFound, "no single assignment of %s matches %q", d.Class.Name, mention).
		WithDetails(javaapi.NotFound{Kind: "assignment", Mention: mention, Ambiguous: len(hits) > 1, Suggestions: sugg})
}

// PlanBuild is the plan phase of the conversation's build path: it plans
// the turn's blueprint and stores it for Finish and the JSON API. An
// unknown or ambiguous entity asks the teacher back; a plan that fails for
// another reason is reported as data (status failed), so that Finish ends
// the turn with the right code.
func (p *Planner) PlanBuild(ctx context.Context, in workflow.PlanInput) (workflow.PlanOutput, error) {
	t := in.Turn
	switch in.Route.Result.Intent {
	case workflow.IntentRefine, workflow.IntentRebuild:
		if t.Followup {
			return p.followUp(ctx, in)
		}
	}
	req := p.answered(ctx, t)
	res, err := p.Plan(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return workflow.PlanOutput{}, err
		}
		return p.planFailure(ctx, t, err), nil
	}
	if err := p.store(ctx, t, res, notice(req.Language, req.Message, res)); err != nil {
		return workflow.PlanOutput{}, err
	}
	return workflow.PlanOutput{Status: workflow.PlanPlanned, Action: workflow.PlanActionBuild}, nil
}

func requestOf(t workflow.Turn) Request {
	return Request{Message: t.Message, Language: t.Language, TeacherID: t.TeacherID, TraceID: t.TraceID, Context: t.Context}
}

// store keeps a turn's planned blueprint for Finish and the JSON API.
func (p *Planner) store(ctx context.Context, t workflow.Turn, res Result, notice string) error {
	bp, err := json.Marshal(res.Blueprint)
	if err != nil {
		return fmt.Errorf("plan: encode blueprint: %w", err)
	}
	ents, err := json.Marshal(res.Resolved)
	if err != nil {
		return fmt.Errorf("plan: encode entities: %w", err)
	}
	if err := p.putPlan(ctx, t, workflow.PlanRecord{Blueprint: bp, ResolvedEntities: ents, Notice: notice, Notices: res.Notices}); err != nil {
		return err
	}
	p.o.Logger.InfoContext(ctx, "planned a blueprint", "turnId", t.TurnID, "blueprintId", res.Blueprint.ID,
		"blocks", len(res.Blueprint.Blocks()), "entities", len(res.Resolved))
	return nil
}

func (p *Planner) putPlan(ctx context.Context, t workflow.Turn, rec workflow.PlanRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("plan: encode the plan: %w", err)
	}
	if err := p.records.PutRecord(ctx, t.SessionID, workflow.PlanKey(t.TurnID), b); err != nil {
		return fmt.Errorf("plan: store the plan: %w", err)
	}
	return nil
}

func (p *Planner) planFailure(ctx context.Context, t workflow.Turn, err error) workflow.PlanOutput {
	e := apperr.As(err)
	p.o.Logger.WarnContext(ctx, "planning failed", "turnId", t.TurnID, "code", e.Code, "err", err)
	nf, _ := e.Details.(javaapi.NotFound)
	if e.Code == apperr.EntityNotFound && nf.Kind != "" {
		c := &workflow.Clarify{Hint: "need" + strings.ToUpper(nf.Kind[:1]) + nf.Kind[1:] + "Id"}
		for _, s := range nf.Suggestions {
			c.Options = append(c.Options, s.Label)
			c.Choices = append(c.Choices, protocol.Choice{Label: s.Label, Value: s.Value})
		}
		p.keepPending(ctx, t, nf.Kind, c.Choices)
		c.Question = i18n.Of(t.Language, t.Message).Text(i18n.PlanNotFound, nf.Mention)
		if nf.Ambiguous {
			c.Question = i18n.Of(t.Language, t.Message).Text(i18n.PlanAmbiguous, nf.Mention)
		}
		return workflow.PlanOutput{Status: workflow.PlanClarify, Code: string(e.Code), Message: e.Message, Clarify: c}
	}
	l, msg := i18n.Of(t.Language, t.Message), e.Message
	switch e.Code {
	case apperr.BlueprintError:
		msg = l.Text(i18n.PlanRephrase)
	case apperr.AIError, apperr.Internal, apperr.DataError, apperr.ServiceUnavailable:
		msg = l.Failure(i18n.Turn, e.Code, false)
	}
	return workflow.PlanOutput{Status: workflow.PlanFailed, Code: string(e.Code), Message: msg}
}

// notice is what the teacher reads about the plan.
func notice(lang, msg string, r Result) string {
	var names []string
	for _, e := range r.Resolved {
		names = append(names, e.DisplayName)
	}
	l := i18n.Of(lang, msg)
	scope := ""
	if len(names) > 0 {
		scope = l.Text(i18n.PlanNoticeScope, l.List(names))
	}
	bp := r.Blueprint
	text := l.Text(i18n.PlanNotice, bp.Name, len(bp.DataContract.Bindings), len(bp.ComputeGraph.Nodes), len(bp.Blocks()), scope)
	for _, n := range r.Notices {
		text += "\n\n" + n.Message
	}
	return text
}
