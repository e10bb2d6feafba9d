package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/insightedge/insightedge/shared/agent"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// ModelCheck is what one model of a tier's chain can do for the product.
type ModelCheck struct {
	Tier  string `json:"tier"`
	Model string `json:"model"`
	// JSONMode: a streamed call with response_format json_object (the
	// quiz tool, the planner) returned one JSON object.
	JSONMode bool `json:"jsonMode"`
	// RouterAnswer: the router's prompt got an answer the router reads (a
	// route line and its JSON, workflow.ParseRouterAnswer).
	RouterAnswer bool `json:"routerAnswer"`
	// ToolStream: a forced final_result call arrived as a streamed tool call
	// in more than one fragment.
	ToolStream bool `json:"toolStream"`
	// FinalResultPartial: the message of final_result could be read from the
	// arguments while they streamed (what the teacher sees as text), and the
	// complete arguments decode against the FinalResult schema.
	FinalResultPartial bool `json:"finalResultPartial"`
	// Reasoning: the answer carried reasoning content (informational).
	Reasoning bool `json:"reasoning"`
	Usable    bool `json:"usable"`
	// Problems say why a check failed.
	Problems []string `json:"problems,omitempty"`
}

// CheckModels checks every model named in each tier's chain of cfg, one at a
// time, each call bounded by timeout.
func CheckModels(ctx context.Context, cfg llm.Config, timeout time.Duration) []ModelCheck {
	var out []ModelCheck
	for _, tier := range []llm.Tier{llm.TierFast, llm.TierStandard, llm.TierStrong} {
		for _, m := range cfg.Models[tier] {
			out = append(out, checkModel(ctx, cfg, tier, m, timeout))
		}
	}
	return out
}

func checkModel(ctx context.Context, base llm.Config, tier llm.Tier, model string, timeout time.Duration) ModelCheck {
	mc := ModelCheck{Tier: string(tier), Model: model}
	cfg := base
	cfg.Models = map[llm.Tier][]string{llm.TierFast: {model}, llm.TierStandard: {model}, llm.TierStrong: {model}}
	cfg.Timeout = timeout
	cfg.MaxRetries = 1
	c, err := llm.New(cfg)
	if err != nil {
		mc.Problems = append(mc.Problems, err.Error())
		return mc
	}
	mc.checkJSON(ctx, c, timeout)
	mc.checkRouter(ctx, c, timeout)
	mc.checkFinalResult(ctx, c, timeout)
	mc.Usable = mc.JSONMode && mc.RouterAnswer && mc.ToolStream && mc.FinalResultPartial
	return mc
}

func (mc *ModelCheck) checkJSON(ctx context.Context, c *llm.Client, timeout time.Duration) {
	req := llm.Request{Tier: llm.TierFast, JSON: true, Messages: []llm.Message{
		{Role: "system", Content: prompts.Quiz},
		{Role: "user", Content: `{"topic":"牛顿第一定律","count":2,"questionType":"single_choice","difficulty":"medium","language":"zh-CN"}`},
	}}
	mc.JSONMode = mc.checkAnswer(ctx, c, timeout, "JSON mode", req, func(answer string) error {
		var obj map[string]any
		if json.Unmarshal([]byte(answer), &obj) != nil {
			return errors.New("the answer is not one JSON object")
		}
		return nil
	})
}

func (mc *ModelCheck) checkRouter(ctx context.Context, c *llm.Client, timeout time.Duration) {
	req := llm.Request{Tier: llm.TierFast, Messages: []llm.Message{
		{Role: "system", Content: prompts.Router},
		{Role: "user", Content: "出 5 道牛顿第一定律的选择题"},
	}}
	mc.RouterAnswer = mc.checkAnswer(ctx, c, timeout, "router", req, func(answer string) error {
		_, err := workflow.ParseRouterAnswer(answer)
		return err
	})
}

// checkAnswer streams req and reports whether read accepts its answer
// (fence stripped); a problem named by what says why not.
func (mc *ModelCheck) checkAnswer(ctx context.Context, c *llm.Client, timeout time.Duration, what string, req llm.Request, read func(string) error) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*timeout)
	defer cancel()
	resp, err := c.Stream(ctx, req, llm.Handler{})
	if err != nil {
		mc.Problems = append(mc.Problems, what+": "+err.Error())
		return false
	}
	if err := read(llm.StripFence(resp.Message.Content)); err != nil {
		mc.Problems = append(mc.Problems, fmt.Sprintf("%s: %v: %q", what, err, clip(resp.Message.Content, 80)))
		return false
	}
	return true
}

func (mc *ModelCheck) checkFinalResult(ctx context.Context, c *llm.Client, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, 2*timeout)
	defer cancel()
	schema, err := llm.SchemaFor(agent.FinalResult{})
	if err != nil {
		mc.Problems = append(mc.Problems, err.Error())
		return
	}
	fragments, grew := 0, 0
	last := ""
	resp, err := c.Stream(ctx, llm.Request{Tier: llm.TierStandard,
		Messages: []llm.Message{
			{Role: "system", Content: prompts.Agent},
			{Role: "user", Content: "What is photosynthesis? Answer in two sentences."},
		},
		Tools:      []llm.Tool{{Name: prompts.FinalResultTool, Description: "End the turn with the teacher's answer.", Parameters: schema}},
		ToolChoice: llm.ToolChoice{Tool: prompts.FinalResultTool},
	}, llm.Handler{OnToolCall: func(_ int, _, name, args string) error {
		if name != prompts.FinalResultTool {
			return nil
		}
		fragments++
		if msg, done := llm.PartialString(args, "message"); msg != last {
			if !done {
				grew++
			}
			last = msg
		}
		return nil
	}})
	if err != nil {
		mc.Problems = append(mc.Problems, "final_result: "+err.Error())
		return
	}
	mc.Reasoning = resp.Message.ReasoningContent != ""
	var call *llm.ToolCall
	for i, tc := range resp.Message.ToolCalls {
		if tc.Function.Name == prompts.FinalResultTool {
			call = &resp.Message.ToolCalls[i]
		}
	}
	if call == nil {
		mc.Problems = append(mc.Problems, "final_result: the model did not call the forced tool")
		return
	}
	mc.ToolStream = fragments > 1
	if !mc.ToolStream {
		mc.Problems = append(mc.Problems, "final_result: the tool call arrived in one piece (no streaming)")
	}
	var fr agent.FinalResult
	if err := schema.Decode([]byte(call.Function.Arguments), &fr); err != nil {
		mc.Problems = append(mc.Problems, "final_result: arguments do not match the schema: "+err.Error())
		return
	}
	switch {
	case fr.Message == "":
		mc.Problems = append(mc.Problems, "final_result: empty message")
	case grew == 0:
		mc.Problems = append(mc.Problems, "final_result: the message could not be read while the arguments streamed")
	default:
		mc.FinalResultPartial = true
	}
}

// WriteModelTable prints the checks and which tiers each model can serve.
func WriteModelTable(w io.Writer, checks []ModelCheck) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tier\tmodel\tJSON mode\trouter answer\tstreamed tool call\tfinal_result streams\treasoning\tusable\tproblems")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Tier, c.Model, yes(c.JSONMode), yes(c.RouterAnswer), yes(c.ToolStream),
			yes(c.FinalResultPartial), yes(c.Reasoning), yes(c.Usable), strings.Join(c.Problems, "; "))
	}
	tw.Flush()
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
