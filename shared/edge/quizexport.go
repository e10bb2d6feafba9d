package edge

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office/quizexport"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/gentools"
)

// QuizExporter exports a conversation's quiz, or questions given, as files
// (gentools.QuizExporter, the export_quiz tool's own code).
type QuizExporter interface {
	Export(ctx context.Context, c tools.Call, r gentools.QuizExportRequest) (gentools.QuizExport, error)
}

// QuizExportRequest is the body of POST /api/quiz/export (issue 31): a
// frontend's export button. It names a stored quiz (conversationId and
// toolCallId, the quiz call's id; without toolCallId the conversation's
// latest quiz) or carries the questions (as data-quiz-question sent them).
type QuizExportRequest struct {
	ConversationID string              `json:"conversationId,omitempty"`
	ToolCallID     string              `json:"toolCallId,omitempty"`
	Questions      []protocol.Question `json:"questions,omitempty"`
	Title          string              `json:"title,omitempty"`
	Format         string              `json:"format"`
	Language       string              `json:"language,omitempty"`
	TeacherID      string              `json:"teacherId,omitempty"`
}

// handleQuizExport is POST /api/quiz/export: the files of the export, with
// signed links, as gentools.QuizExport ({files, exported, notes, notices}).
// The same request again returns the files stored the first time.
func (s *Server) handleQuizExport(w http.ResponseWriter, r *http.Request) error {
	if s.o.QuizExport == nil {
		return apperr.New(apperr.ServiceUnavailable, "quiz export is not available on this server")
	}
	var req QuizExportRequest
	id, err := decodeCaller(w, r, s.auth, maxPageBody, &req, &req.TeacherID)
	if err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	ctx := r.Context()
	if req.ConversationID != "" {
		if _, err := s.ownedSession(ctx, id, req.ConversationID); err != nil {
			return err
		}
	}
	call := tools.Call{TeacherID: id.TeacherID, SessionID: req.ConversationID, Language: req.Language, TraceID: TraceID(ctx)}
	if len(req.Questions) > 0 {
		call.Message = req.Questions[0].Question // the teacher's language, by the one rule
	}
	out, err := s.o.QuizExport.Export(ctx, call, gentools.QuizExportRequest{Format: quizexport.Format(req.Format),
		QuizID: req.ToolCallID, Questions: req.Questions, Title: req.Title})
	switch {
	case errors.Is(err, gentools.ErrNoQuiz) && req.ToolCallID != "":
		return apperr.New(apperr.EntityNotFound, "conversation %q has no quiz %q", req.ConversationID, req.ToolCallID)
	case errors.Is(err, gentools.ErrNoQuiz):
		return apperr.New(apperr.EntityNotFound, "conversation %q has no quiz yet", req.ConversationID)
	case errors.Is(err, gentools.ErrBadQuiz):
		return apperr.New(apperr.ValidationError, "%s", strings.TrimPrefix(err.Error(), gentools.ErrBadQuiz.Error()+": "))
	case err != nil:
		return apperr.Wrap(err, apperr.ServiceUnavailable, "the files could not be stored")
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (q *QuizExportRequest) validate() error {
	formats := make([]string, len(quizexport.Formats))
	for i, f := range quizexport.Formats {
		formats[i] = string(f)
	}
	switch {
	case !quizexport.Format(q.Format).Valid():
		return apperr.New(apperr.ValidationError, "format must be one of %s", strings.Join(formats, ", "))
	case q.ToolCallID != "" && len(q.Questions) > 0:
		return apperr.New(apperr.ValidationError, "give toolCallId or questions, not both")
	case len(q.Questions) == 0 && q.ConversationID == "":
		return apperr.New(apperr.ValidationError, "conversationId is required to export a stored quiz (or give questions)")
	case q.ConversationID != "" && !validID(q.ConversationID):
		return apperr.New(apperr.ValidationError, "a conversation id is 1–100 letters, digits, '-' or '_'")
	case q.ToolCallID != "" && !validID(q.ToolCallID):
		return apperr.New(apperr.ValidationError, "toolCallId is 1–100 letters, digits, '-' or '_'")
	case len(q.Questions) > gentools.MaxExportQuestions:
		return apperr.New(apperr.ValidationError, "at most %d questions", gentools.MaxExportQuestions)
	case !i18n.ValidTag(q.Language):
		return badLanguage()
	}
	for i, qu := range q.Questions {
		if strings.TrimSpace(qu.Question) == "" {
			return apperr.New(apperr.ValidationError, "questions[%d].question is empty", i)
		}
	}
	return nil
}
