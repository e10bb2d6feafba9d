package edge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/golden"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
)

// wholeReadRefused is the real store, except that reading a conversation's
// every turn fails the test: a page must be read as a page (F7).
type wholeReadRefused struct {
	session.Store
	t *testing.T
}

func (s wholeReadRefused) ListTurns(ctx context.Context, id string) ([]session.Turn, error) {
	s.t.Errorf("ListTurns(%s): /messages read the whole conversation", id)
	return s.Store.ListTurns(ctx, id)
}

// TestMessagesReadOnlyTheirPage: each page of a 30-turn conversation is
// answered from that page's turns, and the pages join up to all of them.
func TestMessagesReadOnlyTheirPage(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	ss := db.Sessions()
	if err := ss.CreateSession(ctx, session.Session{ID: "c-1", TeacherID: "t-001", Kind: "conversation"}); err != nil {
		t.Fatal(err)
	}
	const n = 30
	for i := 1; i <= n; i++ {
		id := fmt.Sprint("u-", i)
		endedTurn(t, db, session.Turn{SessionID: "c-1", ID: id, Message: fmt.Sprint("question ", i), MessageID: "m-" + id},
			protocol.Start{MessageID: "m-" + id}, protocol.TextStart{ID: "x"},
			protocol.TextDelta{ID: "x", Delta: fmt.Sprint("answer ", i)}, protocol.TextEnd{ID: "x"}, protocol.Finish{})
	}
	srv := edge.New(wholeReadRefused{Store: ss, t: t}, db.Events(), nil, auth.Dev{Default: "t-001"}, edge.Options{})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)

	var questions []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > n {
			t.Fatal("the cursor never ended")
		}
		url := hs.URL + "/api/conversation/c-1/messages?limit=7"
		if cursor != "" {
			url += "&before=" + cursor
		}
		code, body := do(t, http.MethodGet, url, "")
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", url, code, body)
		}
		var p struct {
			Messages   []protocol.UIMessage `json:"messages"`
			NextCursor string               `json:"nextCursor"`
		}
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			t.Fatal(err)
		}
		var these []string
		for _, m := range p.Messages {
			if m.Role == "user" {
				these = append(these, *m.Parts[0].Text)
			}
		}
		questions = append(these, questions...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(questions) != n || questions[0] != "question 1" || questions[n-1] != fmt.Sprint("question ", n) {
		t.Errorf("the pages joined hold %d questions: %q", len(questions), questions)
	}
}

// TestReplayWindow: a resume without a cursor replays the turn that ended
// within the replay window, and is 204 once the window has passed.
func TestReplayWindow(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	store := db.Sessions()
	if err := store.CreateSession(ctx, session.Session{ID: "conv-1", TeacherID: "t-001", Kind: "conversation"}); err != nil {
		t.Fatal(err)
	}
	endedTurn(t, db, session.Turn{SessionID: "conv-1", ID: "turn-1", Message: "hi", MessageID: "msg-1"},
		protocol.Start{MessageID: "msg-1"}, protocol.Finish{})
	ended, err := store.GetTurn(ctx, "conv-1", "turn-1")
	if err != nil {
		t.Fatal(err)
	}
	clock := &clocktest.Fake{}
	srv := edge.New(store, db.Events(), idleStarter{}, auth.Dev{Default: "t-001"},
		edge.Options{ReplayWindow: time.Minute, Now: clock.Now})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	for _, c := range []struct {
		after time.Duration
		want  int
	}{
		{0, 200}, {time.Minute, 200}, {time.Minute + time.Millisecond, 204}, {time.Hour, 204},
	} {
		clock.Set(ended.EndedAt.Add(c.after))
		if code, body := do(t, http.MethodGet, hs.URL+"/api/conversation/conv-1/stream", ""); code != c.want {
			t.Errorf("resume %v after the turn ended: %d %s, want %d", c.after, code, body, c.want)
		}
	}
}

// issue 32: the messages pages' bytes.

var update = flag.Bool("update", false, "rewrite testdata/messages-pages.golden")

// smallReads is the real store, except that a read of more than 32 turns
// at once fails the test: a page is read a few turns at a time, never
// held whole.
type smallReads struct {
	session.Store
	t *testing.T
}

func (s smallReads) PageTurns(ctx context.Context, id string, before, limit int) ([]session.Turn, bool, error) {
	if limit > 32 {
		s.t.Errorf("PageTurns(%s, limit %d): /messages read its page at once", id, limit)
	}
	return s.Store.PageTurns(ctx, id, before, limit)
}

// TestMessagesPagesGolden: the pages of a 24-turn conversation (long and
// short messages, a data part, a regenerated answer), walked with their
// cursors at limit 7 and read at the default limit, are byte for byte what
// the golden file holds (written by the route before it streamed its pages
// turn by turn).
func TestMessagesPagesGolden(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if err := db.Sessions().CreateSession(ctx, session.Session{ID: "c-1", TeacherID: "t-001", Kind: "conversation"}); err != nil {
		t.Fatal(err)
	}
	quiz, err := protocol.NewData(protocol.DataQuizQuestion, "q-1", map[string]any{"question": "牛顿第一定律说的是什么？", "options": []string{"惯性", "加速度"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 24; i++ {
		id := fmt.Sprint("u-", i)
		long := i*3 + 8
		if i%6 == 0 {
			long = 400 // a message over the response's write buffer
		}
		turn := session.Turn{SessionID: "c-1", ID: id, Message: fmt.Sprint("question ", i, " ", strings.Repeat("光合作用", long)), MessageID: "m-" + id}
		if i == 17 {
			turn.Replaces = 16 // a regenerated answer hides turn 16
		}
		chunks := []protocol.Chunk{protocol.Start{MessageID: "m-" + id}, protocol.StartStep{}, protocol.TextStart{ID: "x"},
			protocol.TextDelta{ID: "x", Delta: fmt.Sprint("answer ", i, " ", strings.Repeat("**bold** \"quoted\" <tag> ", long/2))}, protocol.TextEnd{ID: "x"}}
		if i%5 == 0 {
			chunks = append(chunks, quiz)
		}
		endedTurn(t, db, turn, append(chunks, protocol.FinishStep{}, protocol.Finish{FinishReason: protocol.FinishStop})...)
	}
	srv := edge.New(smallReads{Store: db.Sessions(), t: t}, db.Events(), nil, auth.Dev{Default: "t-001"}, edge.Options{})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)

	var got bytes.Buffer
	get := func(query string) string {
		code, body := do(t, http.MethodGet, hs.URL+"/api/conversation/c-1/messages"+query, "")
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", query, code, body)
		}
		fmt.Fprintf(&got, "GET messages%s\n%s", query, body)
		return body
	}
	get("")
	for query, pages := "?limit=7", 0; query != "" && pages < 10; pages++ {
		var p struct {
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal([]byte(get(query)), &p); err != nil {
			t.Fatal(err)
		}
		query = ""
		if p.NextCursor != "" {
			query = "?limit=7&before=" + p.NextCursor
		}
	}
	golden.Check(t, filepath.Join("testdata", "messages-pages.golden"), got.Bytes(), *update)
}
