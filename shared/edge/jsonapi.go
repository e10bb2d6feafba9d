package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// ConversationResponse is the answer of POST /api/conversation (seed 004 §1.3.1).
type ConversationResponse struct {
	Mode             string          `json:"mode"`
	Action           session.Action  `json:"action"`
	ChatKind         *string         `json:"chatKind"`
	LegacyAction     string          `json:"legacyAction"`
	ChatResponse     *string         `json:"chatResponse"`
	Blueprint        json.RawMessage `json:"blueprint"`
	PatchPlan        json.RawMessage `json:"patchPlan"`
	ClarifyOptions   *ClarifyOptions `json:"clarifyOptions"`
	ConversationID   *string         `json:"conversationId"`
	ResolvedEntities json.RawMessage `json:"resolvedEntities"`
	// Notices are the turn's data-notice payloads (PROTOCOL.md §1), one per
	// code: what the teacher must know about the answer's data (MOCK_DATA
	// ...). Absent when there are none.
	Notices []protocol.Notice `json:"notices,omitempty"`
	// ChatMode is the turn's effective chat mode (seed 003: natural, free,
	// strict); Mode is seed 004's entry/followup.
	ChatMode workflow.ChatMode `json:"chatMode"`
	// Artifacts are the turn's artifacts as the stream's data parts
	// ({type, id, data}, in stream order): what a streaming client gets,
	// for a client that does not stream.
	Artifacts []protocol.Part `json:"artifacts"`
}

// ClarifyOptions is the interactive choice shown for a clarify action.
type ClarifyOptions struct {
	Type             string          `json:"type"`
	Question         string          `json:"question"`
	Choices          []ClarifyChoice `json:"choices"`
	AllowCustomInput bool            `json:"allowCustomInput"`
	Hint             string          `json:"hint,omitempty"`
}

// ClarifyChoice is one option of ClarifyOptions.
type ClarifyChoice struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

var jsonNull = json.RawMessage("null")

// handleJSON is POST /api/conversation: the same turn as the stream, answered
// as one JSON ConversationResponse once it has finished.
func (s *Server) handleJSON(w http.ResponseWriter, r *http.Request) error {
	t, req, err := s.beginFromRequest(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	longWait(w, s.o.TurnTimeout)
	release := s.holdReader(ctx, t, true) // waiting for the answer is reading the turn
	notices, err := s.await(ctx, t)
	release()
	if err != nil {
		return err
	}
	done, err := s.store.GetTurn(ctx, t.SessionID, t.ID)
	if err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	if done.Status == session.TurnFailed {
		code := apperr.Code(done.Outcome.ErrorCode)
		if code == "" {
			code = apperr.AIError
		}
		return apperr.New(code, "%s", done.Outcome.Error).WithDetails(map[string]string{"conversationId": t.SessionID, "turnId": t.ID})
	}
	resp := responseOf(done, req.followup())
	msg, err := s.assemble(ctx, done)
	if err != nil {
		return err
	}
	resp.Artifacts = artifactParts(msg)
	resp.Notices = notices
	resp.ChatMode = s.chatMode(req)
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// await waits for the turn's closing event, and returns the turn's
// data-notice payloads, one per code.
func (s *Server) await(ctx context.Context, t session.Turn) ([]protocol.Notice, error) {
	var notices []protocol.Notice
	seen := map[string]bool{}
	err := s.rl.Tail(ctx, workflow.TurnStream(t.ID), 0, s.o.TurnTimeout, func(ev eventlog.Event) error {
		var c struct {
			Type string          `json:"type"`
			Data protocol.Notice `json:"data"`
		}
		if bytes.Contains(ev.Data, []byte(`"data-notice"`)) && json.Unmarshal(ev.Data, &c) == nil &&
			c.Type == "data-"+protocol.DataNotice && !seen[c.Data.Code] {
			seen[c.Data.Code] = true
			notices = append(notices, c.Data)
		}
		return nil
	})
	if errors.Is(err, eventlog.ErrTailTimeout) {
		s.abandon(ctx, t, "no event within the turn timeout")
		return nil, apperr.New(apperr.AIError, "the turn did not finish in time")
	}
	return notices, err
}

// responseOf is the ConversationResponse of an ended turn. chatKind and
// legacyAction follow one table (seed 004 §1.3.1, docs/build-runtime.md):
//
//	action   chatKind   legacyAction     the turn
//	chat     smalltalk  chat_smalltalk   greetings, thanks
//	chat     qa         chat_qa          a question answered in text
//	chat     page       chat             a question about the page on screen (follow-up)
//	chat     null       chat             an artifact turn: quiz, deck, document, interactive page
//	build    null       build_workflow   a blueprint for a new page
//	refine   null       refine           a patch plan for the page on screen
//	rebuild  null       rebuild          a new blueprint for the page on screen
//	clarify  null       clarify          a question asked back
func responseOf(t session.Turn, followup bool) ConversationResponse {
	o := t.Outcome
	resp := ConversationResponse{Mode: "entry", Action: o.Action, Blueprint: jsonNull, PatchPlan: jsonNull,
		ResolvedEntities: jsonNull, ConversationID: &t.SessionID, Artifacts: []protocol.Part{}}
	if followup {
		resp.Mode = "followup"
	}
	if resp.Action == "" {
		resp.Action = session.ActionChat
	}
	text := o.Text
	resp.ChatResponse = &text
	if len(o.Blueprint) > 0 {
		resp.Blueprint = o.Blueprint
	}
	if len(o.ResolvedEntities) > 0 {
		resp.ResolvedEntities = o.ResolvedEntities
	}
	if len(o.PatchPlan) > 0 {
		resp.PatchPlan = o.PatchPlan
	}
	switch resp.Action {
	case session.ActionBuild:
		resp.LegacyAction = "build_workflow"
	case session.ActionRefine, session.ActionRebuild:
		resp.LegacyAction = string(resp.Action)
	case session.ActionClarify:
		resp.LegacyAction = "clarify"
		if o.Clarify != nil {
			co := &ClarifyOptions{Type: "single_select", Question: o.Clarify.Question, Hint: o.Clarify.Hint,
				AllowCustomInput: true, Choices: []ClarifyChoice{}}
			// issue 30: value is the entity's id (seed 004 S4-12); a turn
			// stored before choices existed sends its options back as said.
			for _, ch := range o.Clarify.Choices {
				co.Choices = append(co.Choices, ClarifyChoice{Label: ch.Label, Value: ch.Value})
			}
			if len(co.Choices) == 0 {
				for _, opt := range o.Clarify.Options {
					co.Choices = append(co.Choices, ClarifyChoice{Label: opt, Value: opt})
				}
			}
			resp.ClarifyOptions = co
		}
	default:
		resp.ChatKind, resp.LegacyAction = chatKindOf(o, followup)
	}
	return resp
}

// chatKindOf is the chat rows of responseOf's table.
func chatKindOf(o session.Outcome, followup bool) (*string, string) {
	kind := func(s string) *string { return &s }
	switch {
	case len(o.Artifacts) > 0 || o.Intent == workflow.IntentQuiz || o.Intent == workflow.IntentContent:
		return nil, "chat"
	case followup:
		return kind("page"), "chat"
	case o.Intent == workflow.IntentSmalltalk:
		return kind("smalltalk"), "chat_smalltalk"
	default:
		return kind("qa"), "chat_qa"
	}
}

// artifactParts are the data parts of a turn's message that carry what it
// produced, as the stream sent them: quiz questions and their summary,
// outlines, file links, interactive pages, blueprints, patch plans and
// guidance. Progress, notices and clarify have fields of their own.
func artifactParts(m protocol.UIMessage) []protocol.Part {
	out := []protocol.Part{}
	for _, p := range m.Parts {
		switch strings.TrimPrefix(p.Type, "data-") {
		case protocol.DataQuizQuestion, protocol.DataQuizComplete, protocol.DataPptxOutline, protocol.DataFileReady,
			protocol.DataInteractiveContent, protocol.DataBlueprint, protocol.DataPatchPlan, protocol.DataGuide:
			out = append(out, p)
		}
	}
	return out
}
