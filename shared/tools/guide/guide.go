// Package guide is the guide_user tool of seed 003: structured guidance for
// a teacher whose request is a greeting, an open question, off-topic, or
// missing the facts a tool needs. It shows the guidance as a data-guide part
// (what the assistant can do, the missing facts, 2–4 next requests) and
// tells the model it was shown. It proves no artifact.
package guide

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

// Args are guide_user's arguments.
type Args struct {
	Message     string   `json:"message" description:"One or two sentences to the teacher, in their language: what you can do for them here."`
	Missing     []string `json:"missing,omitempty" description:"The facts the request lacks for a tool, e.g. the class or the assignment; empty when nothing is missing."`
	Suggestions []string `json:"suggestions" description:"2 to 4 concrete next requests the teacher could send, in their language, e.g. 'Show the submissions of class 1A'."`
}

// Output is what the model is told.
type Output struct {
	Shown       bool     `json:"shown"`
	Missing     []string `json:"missing"`
	Suggestions []string `json:"suggestions"`
}

// Tool returns guide_user.
func Tool() tools.Tool {
	return tools.Define(prompts.GuideUserTool,
		"Guide the teacher: show what you can do for them, the facts their request lacks, and 2-4 suggested next requests. "+
			"Use it for greetings, open or off-topic questions, and requests a data or generation tool cannot act on yet.",
		tools.Guidance, i18n.GuideRunning, run).
		Emitting(protocol.DataGuide)
}

func run(ctx context.Context, c tools.Call, in Args) (tools.Result, error) {
	g, err := clean(in)
	if err != nil {
		return tools.Result{}, &tools.ArgumentError{Tool: prompts.GuideUserTool, Err: err}
	}
	d, err := protocol.NewData(protocol.DataGuide, c.CallID, g)
	if err != nil {
		return tools.Result{}, err
	}
	if err := c.Emit(ctx, d); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Status: protocol.ToolSuccess, Message: i18n.Of(c.Language, g.Message).Text(i18n.GuideShown),
		Output: Output{Shown: true, Missing: g.Missing, Suggestions: g.Suggestions}}, nil
}

// clean trims the guidance and checks what a teacher would be shown: a
// message, and 2–4 distinct suggestions.
func clean(in Args) (protocol.Guide, error) {
	g := protocol.Guide{Message: strings.TrimSpace(in.Message), Missing: nonEmpty(in.Missing), Suggestions: nonEmpty(in.Suggestions)}
	switch {
	case g.Message == "":
		return g, errors.New("message is empty")
	case len(g.Suggestions) < 2 || len(g.Suggestions) > 4:
		return g, fmt.Errorf("give 2 to 4 distinct suggestions, not %d", len(g.Suggestions))
	}
	return g, nil
}

// nonEmpty trims, drops empty and repeated entries; never nil.
func nonEmpty(ss []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range ss {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
