package blueprint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
)

// Scopes of a PatchPlan.
const (
	// ScopePatch re-composes or restyles named blocks, reusing the data and
	// compute results the client holds.
	ScopePatch = "patch"
	// ScopeRebuild runs the whole build again: the structure changed.
	ScopeRebuild = "rebuild"
)

// Patch operations.
const (
	// OpRecompose writes a block's slots again, optionally with an extra
	// instruction.
	OpRecompose = "recompose"
	// OpRestyle changes a block's title or variant; no model call.
	OpRestyle = "restyle"
)

// PatchPlan is a change to a built page (seed 004 §1.3.1 patchPlan). A plan
// that adds, removes or rebinds blocks is a rebuild: the client sends the
// new blueprint and the scope "rebuild" (or a patch whose blueprint no
// longer matches the page, which is treated the same way).
type PatchPlan struct {
	Scope        string             `json:"scope"`
	Instructions []PatchInstruction `json:"instructions"`
}

// PatchInstruction changes one block.
type PatchInstruction struct {
	Op      string `json:"op"`
	BlockID string `json:"blockId"`
	// Prompt is what the teacher wants different (recompose).
	Prompt string `json:"prompt,omitempty"`
	// Title and Variant replace the block's (restyle); empty keeps them.
	Title   string `json:"title,omitempty"`
	Variant string `json:"variant,omitempty"`
}

// MaxInstructions bounds a patch plan.
const MaxInstructions = 40

// ValidatePatch checks plan against the blueprint. A rebuild needs no
// instructions; a patch needs at least one, each naming a block of bp with
// an operation it allows.
func ValidatePatch(plan PatchPlan, bp Blueprint) error {
	var problems []Problem
	bad := func(path, format string, args ...any) {
		problems = append(problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	switch plan.Scope {
	case ScopeRebuild:
	case ScopePatch:
		if len(plan.Instructions) == 0 {
			bad("instructions", "a patch needs at least one instruction")
		}
	default:
		bad("scope", "unknown scope %q (use patch or rebuild)", plan.Scope)
	}
	if len(plan.Instructions) > MaxInstructions {
		bad("instructions", "more than %d instructions", MaxInstructions)
	}
	for i, in := range plan.Instructions {
		p := fmt.Sprintf("instructions[%d]", i)
		b, ok := bp.Block(in.BlockID)
		if !ok {
			bad(p+".blockId", "the blueprint has no block %q", in.BlockID)
			continue
		}
		switch in.Op {
		case OpRecompose:
			if len(b.Slots) == 0 {
				bad(p+".op", "block %q has no slot to recompose; restyle it, or rebuild", in.BlockID)
			}
		case OpRestyle:
			rule := componentRules[b.ComponentType]
			if in.Variant != "" && !slices.Contains(rule.variants, in.Variant) {
				bad(p+".variant", "a %s has no variant %q", b.ComponentType, in.Variant)
			}
			if in.Title == "" && in.Variant == "" {
				bad(p, "a restyle needs a title or a variant")
			}
		default:
			bad(p+".op", "unknown operation %q (use recompose or restyle; anything structural is a rebuild)", in.Op)
		}
		if len([]rune(in.Prompt)) > MaxPromptRunes || len([]rune(in.Title)) > MaxTextRunes {
			bad(p, "prompt or title too long")
		}
	}
	if len(problems) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(problems))
	for _, p := range problems {
		msgs = append(msgs, p.Path+": "+p.Message)
	}
	return apperr.New(apperr.BlueprintError, "the patch plan is invalid: %s", strings.Join(msgs, "; ")).
		WithDetails(Details{Problems: problems})
}

// Unchanged returns the instructions of plan that would leave bp's page as
// it is: restyles to the block's own title and variant. A plan announced to
// the teacher must change what it names.
func Unchanged(plan PatchPlan, bp Blueprint) []PatchInstruction {
	var out []PatchInstruction
	for _, in := range plan.Instructions {
		b, ok := bp.Block(in.BlockID)
		if ok && in.Op == OpRestyle && (in.Title == "" || in.Title == b.Title) && (in.Variant == "" || in.Variant == b.Variant) {
			out = append(out, in)
		}
	}
	return out
}

// ApplyStyle returns b with a restyle instruction applied to its title and
// variant.
func ApplyStyle(b PageBlock, in PatchInstruction) PageBlock {
	if in.Title != "" {
		b.Title = in.Title
	}
	if in.Variant != "" {
		b.Variant = in.Variant
	}
	return b
}
