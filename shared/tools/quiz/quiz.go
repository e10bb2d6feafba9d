// Package quiz is the generate_quiz_questions tool: it asks the model for a
// set of questions as JSON and emits each question as a data-quiz-question as
// soon as its JSON is complete, then data-quiz-complete.
package quiz

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

// MaxCount bounds the questions of one call.
const MaxCount = 20

// MaxFirstNumber bounds Args.FirstNumber: the questions of one answer.
const MaxFirstNumber = 200

// Model is the language model as the quiz writer uses it.
type Model interface {
	Stream(ctx context.Context, req llm.Request, h llm.Handler) (llm.Response, error)
}

// Args are the tool's arguments.
type Args struct {
	Topic        string `json:"topic" description:"the knowledge point or theme, e.g. 牛顿第一定律"`
	Count        int    `json:"count" description:"number of questions, 1 to 20"`
	QuestionType string `json:"questionType,omitempty" enum:"single_choice,multiple_choice,true_false,fill_blank,short_answer" description:"default single_choice"`
	Difficulty   string `json:"difficulty,omitempty" enum:"easy,medium,hard" description:"default medium"`
	Subject      string `json:"subject,omitempty"`
	Grade        string `json:"grade,omitempty"`
	Language     string `json:"language,omitempty" description:"zh-CN or en; default: the language of the topic"`
	// Avoid lets "再出 3 道" give new questions: the model copies them from
	// the earlier turns' quiz notes (the tool's Memory).
	Avoid []string `json:"avoid,omitempty" description:"questions already given in this conversation (the history's quiz notes): the new ones must differ from them"`
	// FirstNumber continues one answer's numbering across its calls: a
	// mixed quiz is a call per question type, and the teacher reads it as
	// one quiz (Q1–Q3 then Q4–Q5, not Q1–Q3 then Q1–Q2).
	FirstNumber int `json:"firstNumber,omitempty" description:"when this call continues a quiz of the same answer (a mixed quiz: one call per question type), the number of its first question: the questions already written in this answer plus one; default 1"`
}

// MaxAvoid bounds the earlier questions passed on to the writer.
const MaxAvoid = 100

// spec is what the quiz writer receives.
type spec struct {
	Topic        string `json:"topic"`
	Count        int    `json:"count"`
	QuestionType string `json:"questionType"`
	Difficulty   string `json:"difficulty"`
	Language     string `json:"language"`
	Subject      string `json:"subject,omitempty"`
	Grade        string `json:"grade,omitempty"`
	// Avoid are the questions the new ones must differ from.
	Avoid []string `json:"avoid,omitempty"`
	// first is the number of the first question (Args.FirstNumber); the
	// writer does not see it.
	first int
}

// Name is the quiz tool's name.
const Name = "generate_quiz_questions"

// New returns the generate_quiz_questions tool.
func New(m Model) tools.Tool {
	return tools.Define(Name,
		"Write quiz questions on a topic; the teacher sees each question as it is ready.",
		tools.Generation, i18n.QuizRunning,
		func(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
			return run(ctx, m, c, a)
		}).Emitting(protocol.DataQuizQuestion, protocol.DataQuizComplete).Naming(i18n.QuizThing)
}

func run(ctx context.Context, m Model, c tools.Call, a Args) (tools.Result, error) {
	s, err := specOf(a)
	if err != nil {
		return tools.Result{}, err
	}
	user, _ := json.Marshal(s)
	req := llm.Request{Tier: llm.TierStandard, JSON: true, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: prompts.Quiz},
		{Role: llm.RoleUser, Content: string(user)},
	}}
	var qs []protocol.Question
	emit := func(items []json.RawMessage) error {
		for len(qs) < len(items) && len(qs) < s.Count {
			q, err := decode(items[len(qs)], c.CallID, s.first+len(qs))
			if err != nil {
				return err
			}
			d, err := protocol.NewData(protocol.DataQuizQuestion, q.ID, protocol.QuizQuestion{Question: q})
			if err != nil {
				return err
			}
			if err := c.Emit(ctx, d); err != nil {
				return err
			}
			qs = append(qs, q)
		}
		return nil
	}
	for try := 0; ; try++ {
		var buf strings.Builder
		resp, err := m.Stream(ctx, req, llm.Handler{OnContent: func(d string) error {
			buf.WriteString(d)
			return emit(llm.CompleteItems(buf.String(), "questions"))
		}})
		if err == nil {
			if err := emit(llm.CompleteItems(resp.Message.Content, "questions")); err != nil {
				return tools.Result{}, err
			}
			break
		}
		if !errors.Is(err, llm.ErrInterrupted) || try > 0 {
			return tools.Result{}, fmt.Errorf("quiz writer: %w", err)
		}
	}
	if len(qs) == 0 {
		return tools.Result{}, errors.New("the quiz writer returned no questions")
	}
	done, err := protocol.NewData(protocol.DataQuizComplete, c.CallID,
		protocol.QuizComplete{Total: len(qs), Topic: s.Topic, Subject: s.Subject, Grade: s.Grade})
	if err != nil {
		return tools.Result{}, err
	}
	if err := c.Emit(ctx, done); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{
		Status: protocol.ToolSuccess,
		// In the teacher's language, which a quiz in another one does not change.
		Message: i18n.Of(c.Language, cmp.Or(c.Message, s.Topic)).Text(i18n.QuizReady, len(qs)),
		Output:  summary(s, qs),
		Memory:  memory(s, qs),
	}.Counted(len(qs), tools.Labels(qs, func(q protocol.Question) string { return q.Question })...), nil
}

// MemoryNote starts the quiz's note in the history summary; the JSON after
// it holds the topic and the questions asked, so a later "再出 3 道" stays on
// the topic and asks new ones.
const MemoryNote = "quiz questions generated (generate_quiz_questions; pass these questions as avoid when asked for more)"

func memory(s spec, qs []protocol.Question) string {
	stems := make([]string, 0, len(qs)+len(s.Avoid))
	stems = append(stems, s.Avoid...) // earlier rounds stay remembered
	for _, q := range qs {
		stems = append(stems, i18n.Clip(q.Question, 120))
	}
	if len(stems) > MaxAvoid {
		stems = stems[len(stems)-MaxAvoid:]
	}
	b, _ := json.Marshal(map[string]any{"topic": s.Topic, "questionType": s.QuestionType, "difficulty": s.Difficulty,
		"subject": s.Subject, "grade": s.Grade, "questions": stems}) // strings only: cannot fail
	return MemoryNote + ": " + string(b)
}

// specOf is the writer's spec from the model's arguments. The questions'
// language is the model's choice, else the topic's (Args.Language): the
// turn's language is the teacher's, and an English grammar quiz for a
// Chinese-speaking teacher is written in English.
func specOf(a Args) (spec, error) {
	s := spec{Topic: strings.TrimSpace(a.Topic), Count: a.Count, QuestionType: a.QuestionType,
		Difficulty: a.Difficulty, Language: a.Language, Subject: a.Subject, Grade: a.Grade}
	for _, q := range a.Avoid {
		if q = strings.TrimSpace(q); q != "" {
			s.Avoid = append(s.Avoid, i18n.Clip(q, 120))
		}
	}
	if len(s.Avoid) > MaxAvoid {
		s.Avoid = s.Avoid[len(s.Avoid)-MaxAvoid:]
	}
	if s.Topic == "" {
		return s, errors.New("topic is required")
	}
	if s.Count < 1 || s.Count > MaxCount {
		return s, fmt.Errorf("count must be between 1 and %d, got %d", MaxCount, s.Count)
	}
	if s.first = max(a.FirstNumber, 1); s.first > MaxFirstNumber {
		return s, fmt.Errorf("firstNumber must be between 1 and %d, got %d", MaxFirstNumber, a.FirstNumber)
	}
	if s.QuestionType == "" {
		s.QuestionType = "single_choice"
	}
	if s.Difficulty == "" {
		s.Difficulty = "medium"
	}
	if s.Language == "" {
		// The topic's language, by the one rule (the topic is never empty).
		s.Language = "en"
		if i18n.Of("", s.Topic) == i18n.Chinese {
			s.Language = "zh-CN"
		}
	}
	return s, nil
}

func decode(raw json.RawMessage, callID string, index int) (protocol.Question, error) {
	var q protocol.Question
	if err := json.Unmarshal(raw, &q); err != nil {
		return q, fmt.Errorf("quiz writer: question %d is not valid: %w", index, err)
	}
	if strings.TrimSpace(q.Question) == "" {
		return q, fmt.Errorf("quiz writer: question %d has no text", index)
	}
	q.ID = fmt.Sprintf("%s-q%d", callID, index)
	q.Index = index
	return q, nil
}

// summary is what the agent model sees: enough to write a summary, not the
// whole quiz again.
func summary(s spec, qs []protocol.Question) map[string]any {
	items := make([]map[string]any, len(qs))
	for i, q := range qs {
		items[i] = map[string]any{"index": q.Index, "question": q.Question, "answer": q.Answer}
	}
	return map[string]any{"total": len(qs), "topic": s.Topic, "questionType": s.QuestionType,
		"difficulty": s.Difficulty, "questions": items, "shownToTeacher": true}
}
