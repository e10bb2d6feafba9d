package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// historySummary is format_history_for_prompt of seed 000 §7.3.2.1: earlier
// turns of the session as text, never their raw tool calls, so that one
// scene's tools do not leak into the next. Within Start it is read once
// for the router and the first round (withHistoryOnce).
func (a *Agent) historySummary(ctx context.Context, t workflow.Turn) string {
	if h, ok := ctx.Value(historyKeyCtx{}).(*historyOnce); ok && h.turn == t.SessionID+"/"+t.TurnID {
		return h.get()
	}
	return a.readHistory(ctx, t)
}

// historyOnce is a turn's history summary, read at most once: the router
// and the first round Start runs at the same time both prompt with it, and
// it cannot change meanwhile (the session's earlier turns have ended, and
// no other turn can begin while this one runs). Reading it is a scan and a
// decode of every turn of the session (issue 29 item 3).
type historyOnce struct {
	turn string // session id / turn id
	get  func() string
}

type historyKeyCtx struct{}

// withHistoryOnce returns ctx carrying t's history summary, read by the
// first call that needs it, with ctx's values and cancellation: not a
// speculative round's, whose cancellation must not cost the router its
// history.
func (a *Agent) withHistoryOnce(ctx context.Context, t workflow.Turn) context.Context {
	h := &historyOnce{turn: t.SessionID + "/" + t.TurnID, get: sync.OnceValue(func() string { return a.readHistory(ctx, t) })}
	return context.WithValue(ctx, historyKeyCtx{}, h)
}

func (a *Agent) readHistory(ctx context.Context, t workflow.Turn) string {
	turns, err := a.Store.ListTurns(ctx, t.SessionID)
	if err != nil {
		a.Logger.WarnContext(ctx, "history unavailable; continuing without it", "err", err)
		return ""
	}
	var done []session.Turn
	for _, x := range session.Visible(turns) { // a regenerated answer's predecessors are gone
		if x.ID != t.TurnID && x.Status != session.TurnRunning {
			done = append(done, x)
		}
	}
	if len(done) > a.HistoryTurns {
		done = done[len(done)-a.HistoryTurns:]
	}
	if len(done) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(prompts.HistoryHeader + "\n")
	for _, x := range done {
		fmt.Fprintf(&b, "Teacher: %s\n", i18n.Clip(x.Message, 500))
		reply := x.Outcome.Text
		switch {
		case x.Outcome.Clarify != nil:
			reply = "(asked) " + x.Outcome.Clarify.Question + askedChoices(x.Outcome.Clarify.Choices)
		case x.Status == session.TurnStopped:
			reply = "(stopped by the teacher)"
		case x.Outcome.Error != "":
			reply = "(failed) " + x.Outcome.Error
		}
		fmt.Fprintf(&b, "Assistant: %s\n", i18n.Clip(reply, 500))
		if len(x.Outcome.Artifacts) > 0 {
			fmt.Fprintf(&b, "Artifacts: %s\n", strings.Join(x.Outcome.Artifacts, ", "))
		}
		for _, m := range x.Outcome.Memory {
			fmt.Fprintf(&b, "Produced: %s\n", m)
		}
	}
	return b.String()
}

// initialHistory starts an attempt's message history.
func (a *Agent) initialHistory(ctx context.Context, in workflow.AgentInput, system string) []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}}
	if h := a.historySummary(ctx, in.Turn); h != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: h})
	}
	if p, _ := a.pageNote(ctx, in.Turn); p != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: p})
	}
	user := in.Turn.Message
	if len(in.Turn.Context) > 0 {
		user += fmt.Sprintf("\n\n(selection: %v)", in.Turn.Context)
	}
	return append(msgs, llm.Message{Role: llm.RoleUser, Content: user})
}

// maxMemory bounds one tool's memory in the history summary.
const maxMemory = 9000

// askedChoices lists a clarify's choices whose value is not their label
// (" [choices: Form 1A = class-hk-f1a]"): the teacher's next message may be
// a value a client sent when a choice was picked, and the model must know
// what it names.
func askedChoices(cs []protocol.Choice) string {
	var named []string
	for _, c := range cs {
		if c.Value != c.Label {
			named = append(named, c.Label+" = "+c.Value)
		}
	}
	if len(named) == 0 {
		return ""
	}
	return " [choices: " + strings.Join(named, "; ") + "]"
}
