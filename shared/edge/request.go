package edge

import (
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
func (r *ConversationRequest) followup() bool {
	return len(r.Blueprint) > 0 && string(r.Blueprint) != "null" || len(r.PageContext) > 0 && string(r.PageContext) != "null"
}

// decodeRequest reads and validates the body.
func decodeRequest(w http.ResponseWriter, r *http.Request, maxBody int64, id auth.Identity) (ConversationRequest, error) {
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
	return req, req.validate(id)
}

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
