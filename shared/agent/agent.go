// Package agent implements the conversation workflow's steps: Route (the
// router model), Turn (one streamed model round of the agent loop), RunTool
// (one tool call), Validate (validate_terminal_state and the retry contract of
// seed 000 §7.3) and Finish (the closing events). Each step is plain Go,
// func(ctx, In) (Out, error): the Lambda functions and the local interpreter
// call the same methods.
package agent

import (
	"context"
	"log/slog"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/flags"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Model is the language model as the agent uses it.
type Model = llm.Streamer

// Metrics receives the acceptance figures of seed 000 §7.8.
type Metrics interface {
	Count(name string, value float64, dims map[string]string)
}

// Agent holds the dependencies of the conversation steps.
type Agent struct {
	Model Model
	Tools *tools.Registry
	Store session.Store
	Log   eventlog.Appender
	// Options are New's, with the defaults filled in.
	Options
	// held, on the copy that runs a speculative first round (Start), holds
	// its rounds' events until the route is decided.
	held *gate
}

// Options configure New.
type Options struct {
	Logger  *slog.Logger
	Metrics Metrics
	// MaxRounds bounds the model rounds of one attempt; the last round is
	// forced to call final_result (seed 000 §7.4.8).
	MaxRounds int
	// HistoryTurns bounds the earlier turns summarised for the model.
	HistoryTurns int
	// TextFlush is how often streamed text is appended to the log: larger
	// means fewer event-log writes (DynamoDB cost), smaller a smoother stream.
	TextFlush time.Duration
	Now       func() time.Time
	// Limits is told when a turn ends, to free its slot (issue 26: fair
	// use; nil: no limits). The model calls' tokens are metered by the
	// model client itself (llm.Metered, wired in shared/wire).
	Limits Limits
	// Switches are the operator's switches, read at the start of each
	// turn (issue 28; nil: every switch on, every teacher in the rollout).
	Switches flags.Source
}

// Limits is the fair-use limiter as the steps use it (*limits.Limiter).
type Limits interface {
	End(ctx context.Context, teacher, holder string) error
}

// endSlot frees the turn's fair-use slot.
func (a *Agent) endSlot(ctx context.Context, t workflow.Turn) {
	if a.Limits == nil {
		return
	}
	if err := a.Limits.End(context.WithoutCancel(ctx), t.TeacherID, t.TurnID); err != nil {
		a.Logger.WarnContext(ctx, "could not free the turn's slot", "turn", t.TurnID, "err", err)
	}
}

// New returns an Agent.
func New(m Model, reg *tools.Registry, store session.Store, log eventlog.Appender, o Options) *Agent {
	a := &Agent{Model: m, Tools: reg, Store: store, Log: log, Options: o}
	if a.TextFlush <= 0 {
		a.TextFlush = 50 * time.Millisecond
	}
	if a.Logger == nil {
		a.Logger = slog.New(slog.DiscardHandler)
	}
	if a.Metrics == nil {
		a.Metrics = nopMetrics{}
	}
	if a.MaxRounds <= 0 {
		a.MaxRounds = 6
	}
	if a.HistoryTurns <= 0 {
		a.HistoryTurns = 10
	}
	if a.Now == nil {
		a.Now = time.Now
	}
	return a
}

type nopMetrics struct{}

func (nopMetrics) Count(string, float64, map[string]string) {}

func (a *Agent) stream(turnID string) emitter {
	return emitter{Log: a.Log, Stream: workflow.TurnStream(turnID), Encode: protocol.MarshalChunk}
}
