package gentools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// ErrNoQuiz is returned when a conversation holds no quiz (or not the one
// named).
var ErrNoQuiz = errors.New("no quiz found")

// StoredQuiz is a quiz as the conversation's stream sent it.
type StoredQuiz struct {
	// ID is the quiz tool call's id (the data-quiz-complete part's id).
	ID        string
	Topic     string
	Questions []protocol.Question
}

// QuizSource finds a conversation's quiz: the one with the quiz call's id
// quizID, or the latest when quizID is "": every quiz call of the latest
// turn that wrote one, in order (a mixed quiz is a call per question type,
// and the teacher saw it as one quiz).
type QuizSource interface {
	Quiz(ctx context.Context, sessionID, quizID string) (StoredQuiz, error)
}

// QuizLog is the QuizSource of the stored conversation: it reads the
// turns' event logs, newest turn first, for the data-quiz-question and
// data-quiz-complete parts the quiz tool streamed, so that an export has
// the questions exactly as the teacher saw them.
type QuizLog struct {
	Turns session.Pager
	Log   eventlog.Reader
}

// Bounds of a search: the turns looked at and the events read per turn.
const (
	maxQuizTurns      = 200
	quizTurnPage      = 20
	maxQuizTurnEvents = 20_000
)

// Quiz implements QuizSource.
func (l QuizLog) Quiz(ctx context.Context, sessionID, quizID string) (StoredQuiz, error) {
	before := 0
	for seen := 0; seen < maxQuizTurns; {
		turns, more, err := session.PageVisible(ctx, l.Turns, sessionID, before, quizTurnPage)
		if err != nil {
			return StoredQuiz{}, fmt.Errorf("read the conversation's turns: %w", err)
		}
		for i := len(turns) - 1; i >= 0; i-- {
			quizzes, err := l.turnQuizzes(ctx, turns[i])
			if err != nil {
				return StoredQuiz{}, err
			}
			if q := latestOrNamed(quizzes, quizID); len(q.Questions) > 0 {
				return q, nil
			}
		}
		seen += len(turns)
		if !more || len(turns) == 0 {
			break
		}
		before = turns[0].Index
	}
	return StoredQuiz{}, ErrNoQuiz
}

// latestOrNamed is, of one turn's quizzes, the one named quizID, or all of
// them as one quiz when quizID is "" (the first call's id and topic).
func latestOrNamed(quizzes []StoredQuiz, quizID string) StoredQuiz {
	var out StoredQuiz
	for _, q := range quizzes {
		switch {
		case quizID != "" && q.ID == quizID:
			return q
		case quizID == "" && len(q.Questions) > 0:
			if out.ID == "" {
				out.ID = q.ID
			}
			out.Topic = cmp.Or(out.Topic, q.Topic)
			out.Questions = append(out.Questions, q.Questions...)
		}
	}
	return out
}

// turnQuizzes are the quizzes of one turn, in the order they were sent.
func (l QuizLog) turnQuizzes(ctx context.Context, t session.Turn) ([]StoredQuiz, error) {
	var quizzes []StoredQuiz
	index := map[string]int{}
	get := func(id string) *StoredQuiz {
		i, ok := index[id]
		if !ok {
			i = len(quizzes)
			index[id] = i
			quizzes = append(quizzes, StoredQuiz{ID: id})
		}
		return &quizzes[i]
	}
	var after int64
	for after < maxQuizTurnEvents {
		evs, err := l.Log.Read(ctx, workflow.TurnStream(t.ID), after, 500)
		if err != nil {
			return nil, fmt.Errorf("read turn %s: %w", t.ID, err)
		}
		for _, ev := range evs {
			after = ev.Seq
			var c struct {
				Type string          `json:"type"`
				ID   string          `json:"id"`
				Data json.RawMessage `json:"data"`
			}
			if json.Unmarshal(ev.Data, &c) != nil {
				continue // not a chunk the quiz tool wrote
			}
			switch c.Type {
			case "data-" + protocol.DataQuizQuestion:
				var p protocol.QuizQuestion
				if json.Unmarshal(c.Data, &p) != nil || p.Question.Question == "" {
					continue
				}
				call := p.Question.ID
				if i := strings.LastIndex(call, "-q"); i > 0 {
					call = call[:i]
				}
				q := get(call)
				q.Questions = append(q.Questions, p.Question)
			case "data-" + protocol.DataQuizComplete:
				var p protocol.QuizComplete
				if json.Unmarshal(c.Data, &p) == nil {
					get(c.ID).Topic = p.Topic
				}
			}
		}
		if len(evs) < 500 {
			break
		}
	}
	return quizzes, nil
}
