package gentools_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/office/officetest"
	"github.com/insightedge/insightedge/shared/office/quizexport"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/gentools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// conversation is a stored conversation (bbolt sessions and event log, the
// stores of the local run) whose turns streamed quizzes as the quiz tool
// streams them.
type conversation struct {
	t     *testing.T
	store *boltstore.SessionStore
	log   eventlog.Log
	turns int
}

func newConversation(t *testing.T) *conversation {
	t.Helper()
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "insight.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := &conversation{t: t, store: db.Sessions(), log: db.Events()}
	ctx := context.Background()
	if err := c.store.CreateSession(ctx, session.Session{ID: "session-1", TeacherID: "teacher-1", Kind: "conversation",
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return c
}

// quizPart is one quiz call of a turn.
type quizPart struct {
	callID, topic string
	qs            []protocol.Question
}

// quizTurn stores a finished turn that streamed the questions as the quiz
// call callID, between other chunks.
func (c *conversation) quizTurn(callID, topic string, qs []protocol.Question) {
	c.t.Helper()
	c.quizParts(quizPart{callID, topic, qs})
}

// quizParts stores a finished turn of one or more quiz calls, each its
// questions then its completion.
func (c *conversation) quizParts(parts ...quizPart) {
	c.t.Helper()
	ctx := context.Background()
	c.turns++
	id := "turn-" + string(rune('0'+c.turns))
	turn, err := c.store.BeginTurn(ctx, session.Turn{SessionID: "session-1", ID: id, MessageID: "msg-" + id, Message: "出题",
		Status: session.TurnRunning, StartedAt: now})
	if err != nil {
		c.t.Fatal(err)
	}
	chunks := []protocol.Chunk{protocol.Start{MessageID: turn.MessageID}}
	for _, p := range parts {
		for i, q := range p.qs {
			q.ID, q.Index = p.callID+"-q"+string(rune('1'+i)), i+1
			chunks = append(chunks, must(protocol.NewData(protocol.DataQuizQuestion, q.ID, protocol.QuizQuestion{Question: q})))
		}
		chunks = append(chunks, must(protocol.NewData(protocol.DataQuizComplete, p.callID, protocol.QuizComplete{Total: len(p.qs), Topic: p.topic})))
	}
	for _, ch := range chunks {
		b, err := protocol.MarshalChunk(ch)
		if err != nil {
			c.t.Fatal(err)
		}
		if _, err := c.log.Append(ctx, workflow.TurnStream(id), eventlog.Event{Data: b}); err != nil {
			c.t.Fatal(err)
		}
	}
	if err := c.store.EndTurn(ctx, "session-1", id, session.TurnCompleted, session.Outcome{}); err != nil {
		c.t.Fatal(err)
	}
}

func must(d protocol.Data, err error) protocol.Data {
	if err != nil {
		panic(err)
	}
	return d
}

var exportQuestions = []protocol.Question{
	{Type: "single_choice", Question: "下列关于惯性的说法正确的是？", Options: []string{"A. 速度越大惯性越大", "B. 质量越大惯性越大"}, Answer: "B", Explanation: "惯性只与质量有关。"},
	{Type: "short_answer", Question: "简述惯性的概念。", Answer: "物体保持原有运动状态的性质。"},
	{Type: "true_false", Question: "静止的物体没有惯性。", Answer: "错误"},
}

func (e *env) withQuizzes(c *conversation, withPDF bool) {
	deps := gentools.Deps{Blob: e.store, Now: func() time.Time { return now }, Quizzes: gentools.QuizLog{Turns: c.store, Log: c.log}}
	if withPDF {
		deps.PDF = pdfWriter(e.t)
	}
	e.reg = tools.NewRegistry(gentools.New(deps)...)
}

func TestExportQuizKahootSaysWhatWasLeftOut(t *testing.T) {
	e := newEnv(t, false)
	c := newConversation(t)
	c.quizTurn("call_quiz1", "牛顿第一定律", exportQuestions)
	e.withQuizzes(c, false)
	res, err := e.run(gentools.ExportQuiz, "call_export1", `{"format":"kahoot-xlsx"}`)
	if err != nil {
		t.Fatal(err)
	}
	var files []gentools.FileReady
	for _, ch := range e.chunks {
		if d, ok := ch.(protocol.Data); ok && d.Name == protocol.DataFileReady {
			var f gentools.FileReady
			if err := json.Unmarshal(d.Data, &f); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	if len(files) != 1 || files[0].Type != "xlsx" || files[0].Filename != "牛顿第一定律 Kahoot.xlsx" {
		t.Fatalf("files = %+v", files)
	}
	_, body := e.download(t, files[0].URL)
	quiz, _ := quizexport.FromProtocol("牛顿第一定律", "", exportQuestions)
	want, _, err := quizexport.WriteKahoot(quiz, now)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != string(want) {
		t.Errorf("the stored file is not the Kahoot sheet of the conversation's quiz")
	}
	if len(res.Notices) != 1 || res.Notices[0].Code != protocol.NoticeQuizExport ||
		res.Notices[0].Message != "部分题目无法按原样导出：第 2 题未导出：该格式只支持选择题。" {
		t.Errorf("notices = %+v", res.Notices)
	}
	out := res.Output.(map[string]any)
	if out["exported"] != 2 || out["teacherMessage"] != res.Notices[0].Message {
		t.Errorf("output = %+v", out)
	}

	// The same call again (a retried step) builds nothing new.
	puts := e.store.puts
	if _, err := e.run(gentools.ExportQuiz, "call_export1", `{"format":"kahoot-xlsx"}`); err != nil {
		t.Fatal(err)
	}
	if e.store.puts != puts {
		t.Errorf("a repeated call stored %d more files", e.store.puts-puts)
	}
}

func TestExportQuizFindsTheQuiz(t *testing.T) {
	c := newConversation(t)
	c.quizTurn("call_old", "Old quiz", []protocol.Question{{Type: "single_choice", Question: "Old?", Options: []string{"A. yes", "B. no"}, Answer: "A"}})
	c.quizTurn("call_new", "New quiz", []protocol.Question{{Type: "single_choice", Question: "New?", Options: []string{"A. yes", "B. no"}, Answer: "B"}})
	src := gentools.QuizLog{Turns: c.store, Log: c.log}
	cases := []struct {
		id, want string
		err      error
	}{{"", "call_new", nil}, {"call_old", "call_old", nil}, {"call_none", "", gentools.ErrNoQuiz}}
	for _, tc := range cases {
		q, err := src.Quiz(context.Background(), "session-1", tc.id)
		if !errors.Is(err, tc.err) || q.ID != tc.want {
			t.Errorf("Quiz(%q) = %s %v, want %s %v", tc.id, q.ID, err, tc.want, tc.err)
		}
	}
	// A conversation without a quiz: the tool says so; nothing is made.
	empty := newEnv(t, false)
	empty.withQuizzes(newConversation(t), false)
	res, err := empty.run(gentools.ExportQuiz, "call_x", `{"format":"gift"}`)
	if err != nil || res.Status != protocol.ToolEmpty || res.Message != "本对话中还没有可导出的测验。" {
		t.Errorf("no quiz: %+v %v", res, err)
	}
}

// TestExportQuizTakesAMixedQuizWhole: a mixed quiz is a quiz call per
// question type in one turn; exporting "the quiz" exports all of it, not
// its last call's questions.
func TestExportQuizTakesAMixedQuizWhole(t *testing.T) {
	c := newConversation(t)
	c.quizTurn("call_old", "Old quiz", exportQuestions[:1])
	c.quizParts(quizPart{"call_mc", "牛顿第一定律", exportQuestions[:1]}, quizPart{"call_short", "牛顿第一定律", exportQuestions[1:]})
	src := gentools.QuizLog{Turns: c.store, Log: c.log}
	q, err := src.Quiz(context.Background(), "session-1", "")
	if err != nil || q.ID != "call_mc" || q.Topic != "牛顿第一定律" || len(q.Questions) != len(exportQuestions) {
		t.Fatalf("Quiz() = %s %q %d questions, %v; want call_mc with all %d", q.ID, q.Topic, len(q.Questions), err, len(exportQuestions))
	}
	for i, want := range exportQuestions {
		if q.Questions[i].Question != want.Question {
			t.Errorf("question %d = %q, want %q", i+1, q.Questions[i].Question, want.Question)
		}
	}
	if one, err := src.Quiz(context.Background(), "session-1", "call_short"); err != nil || len(one.Questions) != 2 {
		t.Errorf("Quiz(call_short) = %d questions, %v; want its own 2", len(one.Questions), err)
	}
}

func TestExportQuizPaper(t *testing.T) {
	for _, withPDF := range []bool{true, false} {
		e := newEnv(t, false)
		c := newConversation(t)
		c.quizTurn("call_quiz1", "牛顿第一定律", exportQuestions)
		e.withQuizzes(c, withPDF)
		res, err := e.run(gentools.ExportQuiz, "call_paper", `{"format":"paper"}`)
		if err != nil {
			t.Fatal(err)
		}
		var types, ids []string
		for _, ch := range e.chunks {
			if d, ok := ch.(protocol.Data); ok && d.Name == protocol.DataFileReady {
				var f gentools.FileReady
				_ = json.Unmarshal(d.Data, &f)
				types, ids = append(types, f.Type), append(ids, d.ID)
			}
		}
		if sorted := slices.Sorted(slices.Values(ids)); len(slices.Compact(sorted)) != len(ids) {
			t.Errorf("the files share a part id: %v", ids)
		}
		want, notices := []string{"docx", "pdf"}, 0
		if !withPDF {
			want, notices = []string{"docx"}, 1
		}
		if !slices.Equal(types, want) || len(res.Notices) != notices {
			t.Errorf("withPDF %v: files %v, notices %+v", withPDF, types, res.Notices)
		}
	}
}

func TestExportQuizBadFormat(t *testing.T) {
	e := newEnv(t, false)
	e.withQuizzes(newConversation(t), false)
	_, err := e.run(gentools.ExportQuiz, "call_x", `{"format":"pdf"}`)
	var ae *tools.ArgumentError
	if !errors.As(err, &ae) {
		t.Errorf("format pdf: %v, want an argument error", err)
	}
}

func pdfWriter(t *testing.T) gentools.PDFRenderer {
	t.Helper()
	return officetest.PDFWriter(t)
}

// TestExportQuizNothingFits: a quiz of open questions makes no empty
// Kahoot sheet; the teacher is told why.
func TestExportQuizNothingFits(t *testing.T) {
	e := newEnv(t, false)
	c := newConversation(t)
	c.quizTurn("call_open", "Inertia", []protocol.Question{
		{Type: "short_answer", Question: "Explain inertia.", Answer: "Resistance to a change of motion."},
		{Type: "fill_blank", Question: "Newton's first law is the law of ____.", Answer: "inertia"},
	})
	e.withQuizzes(c, false)
	puts := e.store.puts
	res, err := e.run(gentools.ExportQuiz, "call_k", `{"format":"kahoot-xlsx"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "部分题目无法按原样导出：第 1 题未导出：该格式只支持选择题、第 2 题未导出：该格式只支持选择题。"
	if res.Status != protocol.ToolEmpty || len(res.Notices) != 1 || res.Notices[0].Message != want || e.store.puts != puts {
		t.Errorf("result %+v, %d files stored", res, e.store.puts-puts)
	}
	for _, ch := range e.chunks {
		if ch.ChunkType() == "data-file-ready" {
			t.Errorf("a file was announced")
		}
	}
}
