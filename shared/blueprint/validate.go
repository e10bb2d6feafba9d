package blueprint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
)

// Limits of a blueprint, so that a planner's answer cannot make a build
// unbounded.
const (
	MaxInputs      = 10
	MaxBindings    = 20
	MaxNodes       = 30
	MaxTabs        = 8
	MaxBlocks      = 40
	MaxSlots       = 3
	MaxPromptRunes = 2000
	MaxTextRunes   = 500
	// MaxIDRunes bounds the blueprint's id and createdAt; MaxSourcePromptRunes
	// its sourcePrompt (a teacher's message: the conversation's limit).
	MaxIDRunes           = 128
	MaxSourcePromptRunes = 8000
	MaxBins              = 21
	MaxLimit             = 50
	// MaxForEach bounds the calls of one forEach binding (checked when the
	// list is known, during the data phase).
	MaxForEach = 40
)

// idPattern is compiled on first use, not at start-up (its {0,63} makes a
// large program).
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`) })

// componentRules says what each component type shows and lets the model write.
var componentRules = map[string]struct {
	ops      []string // compute ops the DataBinding may name; nil: no binding
	slots    []string // slot keys allowed
	required string   // a slot key the block must have
	variants []string
}{
	KPIGrid:        {ops: []string{OpStats}, slots: []string{SlotCaption}},
	Chart:          {ops: []string{OpDistribution, OpBreakdown}, slots: []string{SlotCaption}, variants: []string{"bar", "line", "pie", "radar"}},
	Table:          {ops: []string{OpBreakdown, OpRanking}, slots: []string{SlotCaption}},
	Markdown:       {slots: []string{SlotContent}, required: SlotContent, variants: []string{"default", "insight", "warning", "success"}},
	InsightList:    {slots: []string{SlotContent}, required: SlotContent},
	SuggestionList: {slots: []string{SlotContent}, required: SlotContent},
}

// Validate checks a blueprint: identifiers, references, operations and
// component types, and the limits. tools are the data tools a binding may
// call; nil skips that check. The error is a BLUEPRINT_ERROR whose Details
// list every problem found.
func Validate(bp Blueprint, tools []string) error {
	v := &validator{tools: tools, ids: map[string]string{}}
	v.check(bp)
	if len(v.problems) == 0 {
		return nil
	}
	msgs := make([]string, 0, 3)
	for _, p := range v.problems[:min(3, len(v.problems))] {
		msgs = append(msgs, p.Path+": "+p.Message)
	}
	more := ""
	if n := len(v.problems) - len(msgs); n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	return apperr.New(apperr.BlueprintError, "the blueprint is invalid: %s%s", strings.Join(msgs, "; "), more).
		WithDetails(Details{Problems: v.problems})
}

type validator struct {
	tools    []string
	problems []Problem
	ids      map[string]string // every id of the blueprint → the path that declared it
}

func (v *validator) bad(path, format string, args ...any) {
	if len(v.problems) < 50 {
		v.problems = append(v.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}
}

// id checks an identifier and that it is unique in the blueprint (inputs,
// bindings, nodes, tabs and blocks share one namespace, so that a reference
// never has two meanings).
func (v *validator) id(path, id string) {
	if !idPattern().MatchString(id) {
		v.bad(path, "id %q must start with a letter and have at most 64 letters, digits, '-' or '_'", id)
		return
	}
	if prev, dup := v.ids[id]; dup {
		v.bad(path, "id %q is already used at %s", id, prev)
		return
	}
	v.ids[id] = path
}

func (v *validator) text(path, s string, max int, required bool) {
	switch {
	case required && strings.TrimSpace(s) == "":
		v.bad(path, "is required")
	case !utf8.ValidString(s):
		v.bad(path, "must be valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		v.bad(path, "is longer than %d characters", max)
	}
}

func (v *validator) check(bp Blueprint) {
	v.text("id", bp.ID, MaxIDRunes, false)
	v.text("name", bp.Name, MaxTextRunes, true)
	v.text("description", bp.Description, MaxPromptRunes, false)
	v.text("sourcePrompt", bp.SourcePrompt, MaxSourcePromptRunes, false)
	v.text("createdAt", bp.CreatedAt, MaxIDRunes, false)
	if !i18n.ValidTag(bp.Language) {
		v.bad("language", "must be a language tag such as en or zh-CN, at most %d characters", i18n.MaxTagLen)
	}
	v.text("pageSystemPrompt", bp.PageSystemPrompt, MaxPromptRunes, false)
	if bp.Version < 0 {
		v.bad("version", "must not be negative")
	}
	inputs := v.inputs(bp.DataContract.Inputs)
	bindings := v.bindings(bp.DataContract.Bindings, inputs)
	nodes := v.nodes(bp.ComputeGraph.Nodes, bindings)
	v.composition(bp.UIComposition, nodes)
}

func (v *validator) inputs(ins []Input) map[string]Input {
	if len(ins) > MaxInputs {
		v.bad("dataContract.inputs", "has %d inputs, more than %d", len(ins), MaxInputs)
	}
	out := map[string]Input{}
	for i, in := range ins {
		p := fmt.Sprintf("dataContract.inputs[%d]", i)
		v.id(p+".id", in.ID)
		if !slices.Contains([]string{InputClass, InputAssignment, InputStudent, InputText}, in.Type) {
			v.bad(p+".type", "unknown input type %q (use class, assignment, student or text)", in.Type)
		}
		v.text(p+".label", in.Label, MaxTextRunes, false)
		v.text(p+".value", in.Value, MaxTextRunes, false)
		v.text(p+".subject", in.Subject, MaxTextRunes, false)
		if in.Subject != "" && in.Type != InputClass {
			v.bad(p+".subject", "only a class input names a subject")
		}
		if in.DependsOn != "" {
			if _, ok := out[in.DependsOn]; !ok {
				v.bad(p+".dependsOn", "%q is not an earlier input", in.DependsOn)
			}
		}
		out[in.ID] = in
	}
	return out
}

func (v *validator) bindings(bs []Binding, inputs map[string]Input) map[string]Binding {
	switch {
	case len(bs) == 0:
		v.bad("dataContract.bindings", "at least one binding is required")
	case len(bs) > MaxBindings:
		v.bad("dataContract.bindings", "has %d bindings, more than %d", len(bs), MaxBindings)
	}
	out := map[string]Binding{}
	for i, b := range bs {
		p := fmt.Sprintf("dataContract.bindings[%d]", i)
		v.id(p+".id", b.ID)
		switch {
		case b.ToolName == "":
			v.bad(p+".toolName", "is required")
		case v.tools != nil && !slices.Contains(v.tools, b.ToolName):
			v.bad(p+".toolName", "unknown data tool %q (use one of %s)", b.ToolName, strings.Join(v.tools, ", "))
		}
		v.text(p+".description", b.Description, MaxPromptRunes, false)
		if b.ForEach != "" {
			r, err := ParseRef(b.ForEach)
			switch {
			case err != nil:
				v.bad(p+".forEach", "%v", err)
			case r.Kind != RefData:
				v.bad(p+".forEach", "must be a $data reference to a list")
			default:
				if _, ok := out[r.Name]; !ok {
					v.bad(p+".forEach", "$data.%s is not an earlier binding", r.Name)
				}
			}
		}
		if len(b.Args) > 10 {
			v.bad(p+".args", "has more than 10 arguments")
		}
		for _, k := range sortedKeys(b.Args) {
			ap := p + ".args." + k
			r, err := ParseRef(b.Args[k])
			if err != nil {
				v.bad(ap, "%v", err)
				continue
			}
			switch r.Kind {
			case RefLiteral:
				v.text(ap, r.Literal, MaxTextRunes, false)
			case RefInput:
				if _, ok := inputs[r.Name]; !ok {
					v.bad(ap, "$input.%s is not an input of the data contract", r.Name)
				}
			case RefData:
				if _, ok := out[r.Name]; !ok {
					v.bad(ap, "$data.%s is not an earlier binding", r.Name)
				}
			case RefItem:
				if b.ForEach == "" {
					v.bad(ap, "$item is only defined in a binding with forEach")
				}
			}
		}
		out[b.ID] = b
	}
	return out
}

func (v *validator) nodes(ns []ComputeNode, bindings map[string]Binding) map[string]ComputeNode {
	if len(ns) > MaxNodes {
		v.bad("computeGraph.nodes", "has %d nodes, more than %d", len(ns), MaxNodes)
	}
	metrics := []string{MetricPercent, MetricScore, MetricGrammar, MetricVocabulary, MetricReading, MetricWriting}
	out := map[string]ComputeNode{}
	for i, n := range ns {
		p := fmt.Sprintf("computeGraph.nodes[%d]", i)
		v.id(p+".id", n.ID)
		if !slices.Contains([]string{OpStats, OpDistribution, OpRanking, OpBreakdown}, n.Op) {
			v.bad(p+".op", "unknown operation %q (use stats, distribution, ranking or breakdown)", n.Op)
		}
		if _, ok := bindings[n.Source]; !ok {
			v.bad(p+".source", "%q is not a binding", n.Source)
		}
		if n.Metric != "" && !slices.Contains(metrics, n.Metric) {
			v.bad(p+".metric", "unknown metric %q (use %s)", n.Metric, strings.Join(metrics, ", "))
		}
		if n.Per != "" && n.Per != PerStudent && n.Per != PerSubmission {
			v.bad(p+".per", "unknown unit %q (use student or submission)", n.Per)
		}
		switch {
		case n.Op == OpBreakdown && !slices.Contains([]string{GroupStudent, GroupAssignment, GroupSkill}, n.GroupBy):
			v.bad(p+".groupBy", "a breakdown needs groupBy student, assignment or skill")
		case n.Op != OpBreakdown && n.GroupBy != "":
			v.bad(p+".groupBy", "only a breakdown groups")
		}
		if n.PassMark != nil && (*n.PassMark < 0 || *n.PassMark > 1000) {
			v.bad(p+".passMark", "must be between 0 and 1000")
		}
		if len(n.Bins) > 0 {
			if n.Op != OpDistribution {
				v.bad(p+".bins", "only a distribution has bins")
			}
			if len(n.Bins) < 2 || len(n.Bins) > MaxBins {
				v.bad(p+".bins", "needs 2 to %d edges", MaxBins)
			}
			for j := 1; j < len(n.Bins); j++ {
				if n.Bins[j] <= n.Bins[j-1] {
					v.bad(p+".bins", "edges must be strictly ascending")
					break
				}
			}
		}
		if n.Limit < 0 || n.Limit > MaxLimit {
			v.bad(p+".limit", "must be between 1 and %d", MaxLimit)
		}
		v.text(p+".description", n.Description, MaxPromptRunes, false)
		out[n.ID] = n
	}
	return out
}

func (v *validator) composition(ui UIComposition, nodes map[string]ComputeNode) {
	if ui.Layout != LayoutTabs && ui.Layout != LayoutSinglePage {
		v.bad("uiComposition.layout", "unknown layout %q (use tabs or single_page)", ui.Layout)
	}
	switch {
	case len(ui.Tabs) == 0:
		v.bad("uiComposition.tabs", "at least one tab is required")
	case len(ui.Tabs) > MaxTabs:
		v.bad("uiComposition.tabs", "has %d tabs, more than %d", len(ui.Tabs), MaxTabs)
	}
	blocks := 0
	for i, t := range ui.Tabs {
		p := fmt.Sprintf("uiComposition.tabs[%d]", i)
		v.id(p+".id", t.ID)
		v.text(p+".label", t.Label, MaxTextRunes, true)
		if len(t.Blocks) == 0 {
			v.bad(p+".blocks", "a tab needs at least one block")
		}
		for j, b := range t.Blocks {
			blocks++
			v.block(fmt.Sprintf("%s.blocks[%d]", p, j), b, nodes)
		}
	}
	if blocks > MaxBlocks {
		v.bad("uiComposition.tabs", "has %d blocks, more than %d", blocks, MaxBlocks)
	}
}

func (v *validator) block(p string, b Block, nodes map[string]ComputeNode) {
	v.id(p+".id", b.ID)
	rule, known := componentRules[b.ComponentType]
	if !known {
		v.bad(p+".componentType", "unknown component type %q (use %s)", b.ComponentType, strings.Join(ComponentTypes(), ", "))
		return
	}
	v.text(p+".title", b.Title, MaxTextRunes, false)
	if b.Variant != "" && !slices.Contains(rule.variants, b.Variant) {
		if len(rule.variants) == 0 {
			v.bad(p+".variant", "a %s has no variants", b.ComponentType)
		} else {
			v.bad(p+".variant", "unknown variant %q of %s (use %s)", b.Variant, b.ComponentType, strings.Join(rule.variants, ", "))
		}
	}
	switch n, ok := nodes[b.DataBinding]; {
	case rule.ops == nil && b.DataBinding != "":
		v.bad(p+".dataBinding", "a %s shows no compute result (use context to give its writer data)", b.ComponentType)
	case rule.ops != nil && !ok:
		v.bad(p+".dataBinding", "a %s needs the id of a compute node (%s), not %q", b.ComponentType, strings.Join(rule.ops, " or "), b.DataBinding)
	case rule.ops != nil && !slices.Contains(rule.ops, n.Op):
		v.bad(p+".dataBinding", "a %s cannot show a %s result (use %s)", b.ComponentType, n.Op, strings.Join(rule.ops, " or "))
	}
	for i, c := range b.Context {
		if _, ok := nodes[c]; !ok {
			v.bad(fmt.Sprintf("%s.context[%d]", p, i), "%q is not a compute node", c)
		}
	}
	if len(b.Slots) > MaxSlots {
		v.bad(p+".slots", "has more than %d slots", MaxSlots)
	}
	seen := map[string]bool{}
	for i, s := range b.Slots {
		sp := fmt.Sprintf("%s.slots[%d]", p, i)
		switch {
		case !slices.Contains(rule.slots, s.Key):
			v.bad(sp+".key", "a %s has no slot %q (it has %s)", b.ComponentType, s.Key, strings.Join(rule.slots, ", "))
		case seen[s.Key]:
			v.bad(sp+".key", "slot %q appears twice", s.Key)
		}
		seen[s.Key] = true
		v.text(sp+".prompt", s.Prompt, MaxPromptRunes, true)
	}
	if rule.required != "" && !seen[rule.required] {
		v.bad(p+".slots", "a %s needs a %q slot", b.ComponentType, rule.required)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
