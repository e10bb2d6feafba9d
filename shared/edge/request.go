package edge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/workflow"
)

// MaxMessageRunes bounds one user message.
const MaxMessageRunes = 8000

// ConversationRequest is the body of POST /api/conversation(/stream): the
// seeds' ConversationRequest (seed 004 §1.3.1) plus mode, or the AI SDK's
// stock useChat body (id, messages, trigger, messageId).
type ConversationRequest struct {
	Message        string          `json:"message"`
	Language       string          `json:"language"`
	TeacherID      string          `json:"teacherId"`
	Context        map[string]any  `json:"context"`
	Blueprint      json.RawMessage `json:"blueprint"`
	PageContext    json.RawMessage `json:"pageContext"`
	ConversationID *string         `json:"conversationId"`
	Mode           string          `json:"mode"`

	ID        string      `json:"id"`
	Messages  []chatUIMsg `json:"messages"`
	Trigger   string      `json:"trigger"`
	MessageID string      `json:"messageId"`

	// chatBody records that the body was useChat's.
	chatBody bool
	// page is the follow-up's page, checked (nil on an entry turn).
	page *workflow.PageRecord
}

type chatUIMsg struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"parts"`
}

// useChat reports whether the body is the AI SDK's useChat body.
func (r *ConversationRequest) useChat() bool { return r.chatBody }

// followup reports whether the request continues a built page (seed 004).
func (r *ConversationRequest) followup() bool { return r.page != nil }

// Bounds of a follow-up's pageContext.
const (
	MaxPageTitleRunes   = 500
	MaxDataSummaryRunes = 8000
)

// decodeRequest reads and validates the body. The conversation is named by
// the body (conversationId, or useChat's id) or by the X-Conversation-Id
// header, the one the server sends back; naming two is a 400. tools are the
// data tools a follow-up's blueprint may call (nil: not checked).
func decodeRequest(w http.ResponseWriter, r *http.Request, maxBody int64, id auth.Identity, tools []string) (ConversationRequest, error) {
	var req ConversationRequest
	if err := decodeBody(w, r, maxBody, &req); err != nil {
		return req, err
	}
	if req.Message == "" && len(req.Messages) > 0 {
		req.chatBody = true
		req.Message = lastUserText(req.Messages)
		if req.ID != "" && req.ConversationID == nil {
			req.ConversationID = &req.ID
		}
	}
	if h := strings.TrimSpace(r.Header.Get("X-Conversation-Id")); h != "" {
		switch {
		case req.ConversationID == nil || *req.ConversationID == "":
			req.ConversationID = &h
		case *req.ConversationID != h:
			return req, apperr.New(apperr.ValidationError, "the X-Conversation-Id header and the body name different conversations").
				WithDetails(map[string]any{"fields": []map[string]string{{"field": "conversationId",
					"message": "the X-Conversation-Id header and the body name different conversations"}}})
		}
	}
	if err := req.validate(id); err != nil {
		return req, err
	}
	return req, req.checkPage(tools)
}

// checkPage validates a follow-up's blueprint as /api/page/generate does
// (422 BLUEPRINT_ERROR) and its pageContext (400), and keeps them.
func (r *ConversationRequest) checkPage(tools []string) error {
	hasBP, hasCtx := present(r.Blueprint), present(r.PageContext)
	if !hasBP && !hasCtx {
		return nil
	}
	rec := &workflow.PageRecord{}
	if hasBP {
		bp, err := parseBlueprint(r.Blueprint, tools)
		if err != nil {
			return err
		}
		if rec.Blueprint, err = json.Marshal(bp); err != nil {
			return fmt.Errorf("edge: encode blueprint: %w", err)
		}
	}
	if hasCtx {
		var pc workflow.PageContext
		if err := json.Unmarshal(r.PageContext, &pc); err != nil {
			return apperr.New(apperr.ValidationError, "pageContext must be {meta: {pageTitle}, dataSummary}")
		}
		for _, f := range []struct {
			name, v string
			max     int
		}{{"pageContext.meta.pageTitle", pc.Meta.PageTitle, MaxPageTitleRunes}, {"pageContext.dataSummary", pc.DataSummary, MaxDataSummaryRunes}} {
			if !utf8.ValidString(f.v) || utf8.RuneCountInString(f.v) > f.max {
				return apperr.New(apperr.ValidationError, "%s must be valid UTF-8, at most %d characters", f.name, f.max).
					WithDetails(map[string]any{"fields": []map[string]string{{"field": f.name, "message": fmt.Sprintf("at most %d characters", f.max)}}})
			}
		}
		rec.PageContext = &pc
	}
	r.page = rec
	return nil
}

// present reports whether a JSON field was sent with a value.
func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && string(t) != "null"
}

// The bounds of the request bodies: a route's body is what it must carry.
const (
	maxBody         = 1 << 20  // a conversation message, a saved app
	maxPageBody     = 4 << 20  // a patch carries the page and its data
	maxResearchBody = 64 << 10 // a topic
)

func bodyError(err error, maxBody int64) error {
	var tooBig *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return apperr.New(apperr.ValidationError, "the request body exceeds %d bytes", maxBody).WithStatus(http.StatusRequestEntityTooLarge)
	case errors.As(err, &syntax):
		return apperr.New(apperr.ValidationError, "malformed JSON at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		return apperr.New(apperr.ValidationError, "field %q must be %s", typ.Field, typ.Type.String())
	case errors.Is(err, io.EOF):
		return apperr.New(apperr.ValidationError, "the request body is empty")
	default:
		return apperr.New(apperr.ValidationError, "malformed JSON")
	}
}

func lastUserText(msgs []chatUIMsg) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		var b strings.Builder
		for _, p := range msgs[i].Parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}

func (r *ConversationRequest) validate(id auth.Identity) error {
	r.Message = strings.TrimSpace(r.Message)
	var fields []map[string]string
	bad := func(field, msg string) { fields = append(fields, map[string]string{"field": field, "message": msg}) }
	switch {
	case r.Message == "":
		bad("message", "message is required (or a user message in messages)")
	case !utf8.ValidString(r.Message):
		bad("message", "message must be valid UTF-8")
	case utf8.RuneCountInString(r.Message) > MaxMessageRunes:
		bad("message", fmt.Sprintf("message exceeds %d characters", MaxMessageRunes))
	}
	switch r.Mode {
	case "", "natural", "free", "strict":
	default:
		bad("mode", fmt.Sprintf("unknown mode %q: use natural, free or strict", r.Mode))
	}
	if !i18n.ValidTag(r.Language) {
		bad("language", "language must be a tag such as en or zh-CN")
	}
	if r.ConversationID != nil && *r.ConversationID != "" && !validID(*r.ConversationID) {
		bad("conversationId", "conversationId must be 1–100 letters, digits, '-' or '_'")
	}
	if len(fields) > 0 {
		return apperr.New(apperr.ValidationError, "%s", fields[0]["message"]).WithDetails(map[string]any{"fields": fields})
	}
	if r.TeacherID != "" && !id.Dev && r.TeacherID != id.TeacherID {
		return apperr.New(apperr.AuthError, "teacherId does not match the signed-in teacher")
	}
	return nil
}

func validID(s string) bool {
	if len(s) == 0 || len(s) > 100 {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// decodeCaller reads one JSON object of at most maxBody bytes into v and
// authenticates the caller; in development mode the body's teacherId (read
// into *teacherID) chooses the teacher, as for the conversation.
func decodeCaller(w http.ResponseWriter, r *http.Request, au Authenticator, maxBody int64, v any, teacherID *string) (auth.Identity, error) {
	if err := decodeBody(w, r, maxBody, v); err != nil {
		return auth.Identity{}, err
	}
	bodyTeacher := *teacherID
	id, err := au.Authenticate(r)
	if err != nil {
		return id, err
	}
	switch {
	case bodyTeacher == "" || bodyTeacher == id.TeacherID:
	case id.Dev && r.Header.Get("X-Teacher-Id") == "":
		if !auth.ValidTeacherID(bodyTeacher) {
			return id, apperr.New(apperr.ValidationError, "invalid teacherId")
		}
		id.TeacherID = bodyTeacher
	case !id.Dev:
		return id, apperr.New(apperr.AuthError, "teacherId does not match the signed-in teacher")
	}
	return id, nil
}
