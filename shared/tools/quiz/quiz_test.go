package quiz_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/quiz"
)

// reply is one scripted model call: content is streamed in fragments of
// fragSize runes; with err set, only the first cut runes are delivered and
// the call fails with err.
type reply struct {
	content string
	cut     int
	err     error
}

// scriptedModel replays its replies in order, one per Stream call, and
// records every fragment it delivers in the shared trace.
type scriptedModel struct {
	replies  []reply
	fragSize int
	trace    *[]string
	requests []llm.Request
}

func (m *scriptedModel) Stream(_ context.Context, req llm.Request, h llm.Handler) (llm.Response, error) {
	m.requests = append(m.requests, req)
	n := len(m.requests)
	if n > len(m.replies) {
		return llm.Response{}, fmt.Errorf("scriptedModel: unexpected call %d", n)
	}
	r := m.replies[n-1]
	runes := []rune(r.content)
	if r.err != nil {
		runes = runes[:r.cut]
	}
	for i := 0; i < len(runes); i += m.fragSize {
		frag := string(runes[i:min(i+m.fragSize, len(runes))])
		*m.trace = append(*m.trace, fmt.Sprintf("call%d-frag", n))
		if h.OnContent != nil {
			if err := h.OnContent(frag); err != nil {
				return llm.Response{}, err
			}
		}
	}
	if r.err != nil {
		return llm.Response{}, r.err
	}
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: r.content}}, nil
}

// recorder is the tool call's Emit: it decodes each chunk and notes it in the trace.
type recorder struct {
	trace     []string
	questions []protocol.Question
	ids       []string
	complete  []protocol.QuizComplete
}

func (r *recorder) emit(_ context.Context, c protocol.Chunk) error {
	d, ok := c.(protocol.Data)
	if !ok {
		return fmt.Errorf("unexpected chunk %T", c)
	}
	switch d.Name {
	case protocol.DataQuizQuestion:
		var p protocol.QuizQuestion
		if err := json.Unmarshal(d.Data, &p); err != nil {
			return err
		}
		r.questions = append(r.questions, p.Question)
		r.ids = append(r.ids, d.ID)
		r.trace = append(r.trace, "question "+p.Question.ID)
	case protocol.DataQuizComplete:
		var p protocol.QuizComplete
		if err := json.Unmarshal(d.Data, &p); err != nil {
			return err
		}
		r.complete = append(r.complete, p)
		r.trace = append(r.trace, "complete")
	default:
		return fmt.Errorf("unexpected data part %q", d.Name)
	}
	return nil
}

func questionsJSON(texts ...string) string {
	var qs []string
	for i, q := range texts {
		qs = append(qs, fmt.Sprintf(`{"type":"single_choice","question":%q,"options":["A. 1","B. 2"],"answer":"%c","explanation":"because"}`, q, 'A'+i%2))
	}
	return `{"questions": [` + strings.Join(qs, ", ") + `]}`
}

// run calls the tool as the agent does, with raw JSON arguments.
func run(t *testing.T, m *scriptedModel, rec *recorder, args string, lang string) (tools.Result, error) {
	t.Helper()
	m.trace = &rec.trace
	if m.fragSize == 0 {
		m.fragSize = 7
	}
	call := tools.Call{TeacherID: "t-1", SessionID: "s-1", TurnID: "u-1", CallID: "call_9", Language: lang, Emit: rec.emit}
	return quiz.New(m).Run(context.Background(), call, json.RawMessage(args))
}

func TestQuestionsStreamAsTheyComplete(t *testing.T) {
	content := questionsJSON("1+1=?", "2+2=?", "3+3=?")
	m := &scriptedModel{replies: []reply{{content: content}}}
	rec := &recorder{}
	res, err := run(t, m, rec, `{"topic":"addition","count":3,"subject":"math","grade":"1"}`, "")
	if err != nil {
		t.Fatal(err)
	}

	wantIDs := []string{"call_9-q1", "call_9-q2", "call_9-q3"}
	if !slices.Equal(rec.ids, wantIDs) {
		t.Fatalf("emitted chunk ids = %v, want %v", rec.ids, wantIDs)
	}
	for i, q := range rec.questions {
		if q.ID != wantIDs[i] || q.Index != i+1 {
			t.Errorf("question %d has id %q index %d, want %q %d", i, q.ID, q.Index, wantIDs[i], i+1)
		}
		if want := []string{"1+1=?", "2+2=?", "3+3=?"}[i]; q.Question != want || len(q.Options) != 2 || q.Answer == "" {
			t.Errorf("question %d = %+v, want text %q with options and answer", i, q, want)
		}
	}

	// Interleaving: the first question is out before the last fragment arrives,
	// and each question comes out once, in order, before quiz-complete.
	first := slices.Index(rec.trace, "question call_9-q1")
	last := lastIndex(rec.trace, "call1-frag")
	if first < 0 || last < 0 || first > last {
		t.Errorf("the first question was emitted at %d, after the last fragment at %d: trace %v", first, last, rec.trace)
	}
	if got := rec.trace[len(rec.trace)-1]; got != "complete" {
		t.Errorf("the last emitted chunk is %q, want quiz-complete", got)
	}
	if len(rec.complete) != 1 {
		t.Fatalf("quiz-complete emitted %d times", len(rec.complete))
	}
	if c := rec.complete[0]; c.Total != 3 || c.Topic != "addition" || c.Subject != "math" || c.Grade != "1" {
		t.Errorf("quiz-complete = %+v", c)
	}

	if res.Status != protocol.ToolSuccess || res.Message == "" {
		t.Errorf("result = %+v", res)
	}
	out, _ := json.Marshal(res.Output)
	var sum struct {
		Total     int  `json:"total"`
		Shown     bool `json:"shownToTeacher"`
		Questions []struct {
			Index    int    `json:"index"`
			Question string `json:"question"`
		} `json:"questions"`
	}
	if err := json.Unmarshal(out, &sum); err != nil || sum.Total != 3 || !sum.Shown || len(sum.Questions) != 3 || sum.Questions[2].Index != 3 {
		t.Errorf("output = %s (%v)", out, err)
	}

	if len(m.requests) != 1 {
		t.Fatalf("model called %d times", len(m.requests))
	}
	if req := m.requests[0]; !req.JSON || len(req.Messages) != 2 || req.Messages[1].Role != llm.RoleUser {
		t.Errorf("request = %+v, want a JSON request with a system and a user message", req)
	}
}

func lastIndex(s []string, v string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == v {
			return i
		}
	}
	return -1
}

func TestCountOutOfRangeFailsBeforeTheModel(t *testing.T) {
	for _, args := range []string{
		`{"topic":"fractions","count":0}`,
		`{"topic":"fractions","count":21}`,
		`{"topic":"fractions","count":-1}`,
		`{"topic":"  ","count":3}`,
		`{"topic":"fractions","count":3,"firstNumber":201}`,
	} {
		t.Run(args, func(t *testing.T) {
			m := &scriptedModel{replies: []reply{{content: questionsJSON("q")}}}
			rec := &recorder{}
			if _, err := run(t, m, rec, args, ""); err == nil {
				t.Fatal("no error")
			}
			if len(m.requests) != 0 {
				t.Errorf("the model was called %d times", len(m.requests))
			}
			if len(rec.trace) != 0 {
				t.Errorf("emitted %v", rec.trace)
			}
		})
	}
}

func TestInterruptedStreamIsCalledAgainWithoutRepeats(t *testing.T) {
	content := questionsJSON("one", "two", "three")
	// The first call delivers the first question and half of the second.
	cut := len([]rune(content[:strings.Index(content, `"two"`)+3]))
	m := &scriptedModel{replies: []reply{
		{content: content, cut: cut, err: fmt.Errorf("stream broke: %w", llm.ErrInterrupted)},
		{content: content},
	}}
	rec := &recorder{}
	if _, err := run(t, m, rec, `{"topic":"numbers","count":3}`, "en"); err != nil {
		t.Fatal(err)
	}
	if len(m.requests) != 2 {
		t.Fatalf("model called %d times, want 2", len(m.requests))
	}
	want := []string{"call_9-q1", "call_9-q2", "call_9-q3"}
	if !slices.Equal(rec.ids, want) {
		t.Fatalf("emitted %v, want %v each once", rec.ids, want)
	}
	// q1 came from the interrupted call, before the second call started.
	if i, j := slices.Index(rec.trace, "question call_9-q1"), slices.Index(rec.trace, "call2-frag"); i < 0 || j < 0 || i > j {
		t.Errorf("q1 was not emitted during the first call: trace %v", rec.trace)
	}
	if len(rec.complete) != 1 || rec.complete[0].Total != 3 {
		t.Errorf("quiz-complete = %+v", rec.complete)
	}
}

func TestModelErrors(t *testing.T) {
	interrupted := fmt.Errorf("broke: %w", llm.ErrInterrupted)
	cases := []struct {
		name      string
		replies   []reply
		wantCalls int
		wantIs    error
	}{
		{"interrupted twice", []reply{{content: questionsJSON("a"), cut: 3, err: interrupted}, {content: questionsJSON("a"), cut: 3, err: interrupted}}, 2, llm.ErrInterrupted},
		{"other error is not retried", []reply{{content: "", err: llm.ErrRateLimited}, {content: questionsJSON("a")}}, 1, llm.ErrRateLimited},
		{"no questions", []reply{{content: `{"questions": []}`}}, 1, nil},
		{"no questions field", []reply{{content: `{"items": [{"question":"x"}]}`}}, 1, nil},
		{"question without text", []reply{{content: `{"questions": [{"type":"fill_blank","question":" ","answer":"x"}]}`}}, 1, nil},
		{"question not an object", []reply{{content: `{"questions": ["what?"]}`}}, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &scriptedModel{replies: c.replies}
			rec := &recorder{}
			_, err := run(t, m, rec, `{"topic":"letters","count":2}`, "")
			if err == nil {
				t.Fatal("no error")
			}
			if c.wantIs != nil && !errors.Is(err, c.wantIs) {
				t.Errorf("err = %v, want %v", err, c.wantIs)
			}
			if len(m.requests) != c.wantCalls {
				t.Errorf("model called %d times, want %d", len(m.requests), c.wantCalls)
			}
			if len(rec.complete) != 0 {
				t.Errorf("quiz-complete emitted after a failure: %+v", rec.complete)
			}
		})
	}
}

func TestMoreQuestionsThanAskedAreCut(t *testing.T) {
	m := &scriptedModel{replies: []reply{{content: questionsJSON("a", "b", "c", "d")}}}
	rec := &recorder{}
	if _, err := run(t, m, rec, `{"topic":"letters","count":2}`, ""); err != nil {
		t.Fatal(err)
	}
	if want := []string{"call_9-q1", "call_9-q2"}; !slices.Equal(rec.ids, want) {
		t.Errorf("emitted %v, want %v", rec.ids, want)
	}
	if len(rec.complete) != 1 || rec.complete[0].Total != 2 {
		t.Errorf("quiz-complete = %+v", rec.complete)
	}
}

// TestFirstNumberContinuesTheNumbering: a mixed quiz's later call numbers
// on from the earlier one's questions.
func TestFirstNumberContinuesTheNumbering(t *testing.T) {
	m := &scriptedModel{replies: []reply{{content: questionsJSON("a", "b")}}}
	rec := &recorder{}
	if _, err := run(t, m, rec, `{"topic":"letters","count":2,"firstNumber":4}`, ""); err != nil {
		t.Fatal(err)
	}
	if want := []string{"call_9-q4", "call_9-q5"}; !slices.Equal(rec.ids, want) {
		t.Errorf("emitted %v, want %v", rec.ids, want)
	}
	if strings.Contains(m.requests[0].Messages[1].Content, "irst") {
		t.Errorf("the writer was told the numbering: %s", m.requests[0].Messages[1].Content)
	}
}

func TestSpecSentToTheModel(t *testing.T) {
	cases := []struct {
		name     string
		args     string
		callLang string
		want     map[string]any
	}{
		{"Han topic defaults to zh-CN", `{"topic":"牛顿第一定律","count":1}`, "",
			map[string]any{"language": "zh-CN", "questionType": "single_choice", "difficulty": "medium", "topic": "牛顿第一定律", "count": float64(1)}},
		{"Latin topic defaults to en", `{"topic":"Newton's first law","count":2}`, "",
			map[string]any{"language": "en"}},
		// The call's language is the teacher's; the questions take the topic's.
		{"an English topic for a Chinese turn is written in English", `{"topic":"present perfect","count":1}`, "zh-CN",
			map[string]any{"language": "en"}},
		{"a Chinese topic for an English turn is written in Chinese", `{"topic":"牛顿第一定律","count":1}`, "en-US",
			map[string]any{"language": "zh-CN"}},
		{"the argument wins over the call's language", `{"topic":"Newton","count":1,"language":"zh-CN"}`, "en",
			map[string]any{"language": "zh-CN"}},
		{"explicit type and difficulty kept", `{"topic":" fractions ","count":1,"questionType":"true_false","difficulty":"hard","subject":"math","grade":"5"}`, "",
			map[string]any{"topic": "fractions", "questionType": "true_false", "difficulty": "hard", "subject": "math", "grade": "5"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &scriptedModel{replies: []reply{{content: questionsJSON("q1", "q2")}}}
			if _, err := run(t, m, &recorder{}, c.args, c.callLang); err != nil {
				t.Fatal(err)
			}
			var spec map[string]any
			if err := json.Unmarshal([]byte(m.requests[0].Messages[1].Content), &spec); err != nil {
				t.Fatalf("user message is not JSON: %v", err)
			}
			for k, v := range c.want {
				if spec[k] != v {
					t.Errorf("%s = %v, want %v (spec %v)", k, spec[k], v, spec)
				}
			}
		})
	}
}

func TestArgumentsOutsideTheSchema(t *testing.T) {
	for _, args := range []string{
		`{"topic":"x","count":"3"}`,
		`{"topic":"x","count":3,"questionType":"essay"}`,
		`{"count":3}`,
	} {
		t.Run(args, func(t *testing.T) {
			m := &scriptedModel{}
			_, err := run(t, m, &recorder{}, args, "")
			var ae *tools.ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want *tools.ArgumentError", err)
			}
			if len(m.requests) != 0 {
				t.Error("the model was called")
			}
		})
	}
}

// TestProgressInTheTeachersLanguage: a quiz written in another language
// ("换成英文") reports its progress in the teacher's, not the quiz's.
func TestProgressInTheTeachersLanguage(t *testing.T) {
	for _, tc := range []struct{ lang, message, args, want string }{
		{"", "换成英文", `{"topic":"photosynthesis","count":2,"language":"en"}`, "已生成 2 道题"},
		{"zh-CN", "", `{"topic":"photosynthesis","count":2,"language":"en"}`, "已生成 2 道题"},
		{"", "Translate them into Chinese", `{"topic":"光合作用","count":2,"language":"zh-CN"}`, "Questions ready: 2"},
		{"en", "make question 2 multiple choice", `{"topic":"water cycle","count":1}`, "Questions ready: 1"},
		{"", "", `{"topic":"光合作用","count":2}`, "已生成 2 道题"},
	} {
		m := &scriptedModel{replies: []reply{{content: questionsJSON("q1", "q2")}}, fragSize: 7}
		rec := &recorder{}
		m.trace = &rec.trace
		call := tools.Call{TeacherID: "t-1", SessionID: "s-1", TurnID: "u-1", CallID: "call_9", Language: tc.lang, Message: tc.message, Emit: rec.emit}
		res, err := quiz.New(m).Run(context.Background(), call, json.RawMessage(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if res.Message != tc.want {
			t.Errorf("%q %s: progress %q, want %q", tc.message, tc.args, res.Message, tc.want)
		}
	}
}
