package plan

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// pendingKey is the conversation's record of a build request that waits
// on the teacher's answer to a question back (which class?).
const pendingKey = "plan/pending-clarify"

// pending is a build request asked back about: its message and language,
// the context key the answer fills and the choices offered.
type pending struct {
	Message    string            `json:"message"`
	Language   string            `json:"language,omitempty"`
	ContextKey string            `json:"contextKey"`
	Choices    []protocol.Choice `json:"choices"`
}

// keepPending remembers t's request while the teacher picks among choices
// of an entity of kind ("class": the answer fills the context's classId).
// A failure to write costs only the continuation: it is logged.
func (p *Planner) keepPending(ctx context.Context, t workflow.Turn, kind string, choices []protocol.Choice) {
	b, err := json.Marshal(pending{Message: t.Message, Language: t.Language, ContextKey: kind + "Id", Choices: choices})
	if err == nil {
		err = p.records.PutRecord(ctx, t.SessionID, pendingKey, b)
	}
	if err != nil {
		p.o.Logger.WarnContext(ctx, "could not keep the request asked back about", "turnId", t.TurnID, "err", err)
	}
}

// answered is the request t plans: when t answers the question back of
// the conversation's last build request (its message is a choice's value,
// as a client sends a picked choice, or its label), that request, in its
// language, with the choice in its context; else t's own.
func (p *Planner) answered(ctx context.Context, t workflow.Turn) Request {
	req := requestOf(t)
	raw, err := p.records.GetRecord(ctx, t.SessionID, pendingKey)
	var w pending
	if err != nil || json.Unmarshal(raw, &w) != nil {
		return req
	}
	reply := strings.TrimSpace(t.Message)
	for _, c := range w.Choices {
		if reply == c.Value || reply == c.Label {
			// Answered once: a later message with the same words is its own.
			if err := p.records.PutRecord(ctx, t.SessionID, pendingKey, []byte("{}")); err != nil {
				p.o.Logger.WarnContext(ctx, "could not clear the answered question", "turnId", t.TurnID, "err", err)
			}
			ctxt := map[string]any{w.ContextKey: c.Value}
			for k, v := range t.Context {
				ctxt[k] = v
			}
			req.Message, req.Language, req.Context = w.Message, w.Language, ctxt
			req.Picked = map[string]string{w.ContextKey: c.Label}
			return req
		}
	}
	return req
}
