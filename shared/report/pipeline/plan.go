package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/mdtree"
	"github.com/insightedge/insightedge/shared/report/vfs"
	"github.com/insightedge/insightedge/shared/tools"
)

// submittedPlan is the planner's submit_plan arguments.
type submittedPlan struct {
	Tasks       []report.UserTask `json:"tasks" description:"one task per template leaf: id is the leaf number 1..N"`
	PlanSummary string            `json:"plan_summary" description:"one sentence describing the plan, in the user's language"`
}

// Plan is the planning phase: load the template and knowledge base into the
// VFS, let the planner agent explore them and submit tasks, fill the tasks
// from the template's leaves and record them.
func (p *Pipeline) Plan(ctx context.Context, in RunInput) (PlanOutput, error) {
	s, err := p.current(ctx, in.SessionID, in.Run)
	if errors.Is(err, errStale) {
		return PlanOutput{Status: "stale"}, nil
	}
	if err != nil {
		return PlanOutput{}, err
	}
	if err := p.emit(ctx, s.ID, in.Run, report.PlanStart{Question: s.Message.Question}); err != nil {
		return PlanOutput{Status: "stale"}, staleOr(err)
	}
	if s, err = p.load(ctx, s); err != nil {
		return PlanOutput{}, err
	}
	f, doc, err := p.template(ctx, s)
	if err != nil {
		return PlanOutput{}, err
	}
	datasets, err := f.List(ctx, "datasets")
	if err != nil {
		return PlanOutput{}, err
	}
	user, _ := json.Marshal(map[string]any{"question": s.Message.Question, "template": s.TemplatePath,
		"datasets": paths(datasets), "language": s.Language})
	_, args, err := p.runAgent(ctx, agentRun{session: s, run: in.Run, system: prompts.ReportPlanner, user: string(user),
		tools: f.Tools(), exit: tools.Signature[submittedPlan](prompts.SubmitPlanTool, "Submit the plan: one task per template leaf."),
		rounds: p.set.PlannerRounds, scope: report.ScopePlan})
	if errors.Is(err, errStale) || ctx.Err() != nil {
		return PlanOutput{Status: "stale"}, nil
	}
	var plan submittedPlan
	if err == nil && args != nil {
		if jerr := json.Unmarshal(args, &plan); jerr != nil {
			err = fmt.Errorf("submit_plan arguments: %w", jerr)
		}
	} else if err == nil {
		err = errors.New("the planner answered without submitting a plan")
	}
	if err != nil {
		// The tasks come from the template's leaves anyway; the planner only
		// adds references and hints, so its failure costs those, not the run.
		p.logger.Warn("planner gave no usable plan; tasks from the template alone", "sessionId", s.ID, "err", err)
		if err := p.emit(ctx, s.ID, in.Run, report.ToolResult{Scope: report.ScopePlan, Tool: prompts.SubmitPlanTool,
			System: lang(s).Text(i18n.ReportPlanFallback)}); err != nil {
			return PlanOutput{Status: "stale"}, staleOr(err)
		}
	}
	tasks, ignored := Fill(doc, plan.Tasks, paths(datasets), lang(s))
	if len(ignored) > 0 {
		if err := p.emit(ctx, s.ID, in.Run, report.ToolResult{Scope: report.ScopePlan, Tool: prompts.SubmitPlanTool,
			System: lang(s).Text(i18n.ReportIgnoredIDs, ignored, len(doc.Leaves))}); err != nil {
			return PlanOutput{Status: "stale"}, staleOr(err)
		}
	}
	summary := strings.TrimSpace(plan.PlanSummary)
	if summary == "" {
		summary = lang(s).Text(i18n.ReportPlanSummary, doc.Title, len(tasks))
	}
	confirm := p.set.RequireConfirm
	s, err = p.store.UpdateSession(ctx, s.ID, func(x *report.Session) error {
		if x.Run != in.Run {
			return errStale
		}
		x.Tasks, x.PlanSummary = tasks, summary
		x.TaskState, x.Restarts = map[int]string{}, map[int]int{}
		for _, t := range tasks {
			x.TaskState[t.ID] = report.TaskPending
		}
		x.Status = report.StatusSolving
		if confirm {
			x.Status = report.StatusConfirming
		}
		return nil
	})
	if err != nil {
		return PlanOutput{Status: "stale"}, staleOr(err)
	}
	done := report.PlanCompleted{PlanSummary: summary}
	if p.set.BroadcastTasks {
		done.Tasks = tasks
	}
	if err := p.emit(ctx, s.ID, in.Run, done); err != nil {
		return PlanOutput{Status: "stale"}, staleOr(err)
	}
	return PlanOutput{Status: "planned", Confirm: confirm, Tasks: len(tasks)}, nil
}

// staleOr is nil for errStale (a stale run's step ends quietly) and err otherwise.
func staleOr(err error) error {
	if errors.Is(err, errStale) {
		return nil
	}
	return err
}

// template opens the session's VFS and parses the loaded template.
func (p *Pipeline) template(ctx context.Context, s report.Session) (*vfs.FS, *mdtree.Doc, error) {
	f, err := p.fs(s)
	if err != nil {
		return nil, nil, err
	}
	b, err := f.Read(ctx, s.TemplatePath)
	if err != nil {
		return nil, nil, err
	}
	doc, err := mdtree.Parse(string(b))
	return f, doc, err
}

func paths(es []vfs.Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Path)
	}
	return out
}

// Fill makes the full tasks from the template's leaves (seed 002: title,
// template and objective come from the leaf) and the submitted tasks'
// references. Submitted ids that name no leaf are returned as ignored;
// required inputs that are not in the VFS are dropped.
func Fill(doc *mdtree.Doc, submitted []report.UserTask, available []string, l10n i18n.Lang) (tasks []report.SectionTask, ignored []int) {
	byID := map[int]report.UserTask{}
	for _, u := range submitted {
		if u.ID < 1 || u.ID > len(doc.Leaves) {
			ignored = append(ignored, u.ID)
			continue
		}
		byID[u.ID] = u
	}
	slices.Sort(ignored)
	for _, l := range doc.Leaves {
		t := report.SectionTask{ID: l.ID, Title: l.Title, Template: l.Template, Objective: objective(l, l10n)}
		if u, ok := byID[l.ID]; ok {
			for _, r := range u.RequiredInputs {
				if slices.Contains(available, r) {
					t.RequiredInputs = append(t.RequiredInputs, r)
				}
			}
			t.Hints, t.Notes = u.Hints, u.Notes
		}
		tasks = append(tasks, t)
	}
	return tasks, ignored
}

func objective(l mdtree.Leaf, l10n i18n.Lang) string {
	where := strings.Join(append(slices.Clone(l.Path), l.Title), " › ")
	return l10n.Text(i18n.ReportObjective, l.Title, where)
}

// Confirm is the confirmation task (.waitForTaskToken): it records the task
// token as the pending step_id and asks the user. It returns at once; the
// workflow waits until user.response sends the token back.
func (p *Pipeline) Confirm(ctx context.Context, in ConfirmInput) (struct{}, error) {
	if in.Token == "" {
		return struct{}{}, errors.New("pipeline: confirm: no task token")
	}
	s, err := p.store.UpdateSession(ctx, in.SessionID, func(x *report.Session) error {
		if x.Run != in.Run || x.Status == report.StatusCancelled || x.Status == report.StatusClosed {
			return errStale
		}
		x.StepID, x.Status = in.Token, report.StatusConfirming
		return nil
	})
	if err != nil {
		return struct{}{}, staleOr(err)
	}
	msg := lang(s).Text(i18n.ReportConfirm, len(s.Tasks), s.PlanSummary)
	ev := report.UserConfirm{StepID: in.Token, Message: msg}
	if p.set.BroadcastTasks {
		ev.Tasks = s.Tasks
	}
	return struct{}{}, staleOr(p.emit(ctx, s.ID, in.Run, ev))
}
