package edge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
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
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "e.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ss := db.Sessions()
	if err := ss.CreateSession(ctx, session.Session{ID: "c-1", TeacherID: "t-001", Kind: "conversation"}); err != nil {
		t.Fatal(err)
	}
	const n = 30
	for i := 1; i <= n; i++ {
		id := fmt.Sprint("u-", i)
		if _, err := ss.BeginTurn(ctx, session.Turn{SessionID: "c-1", ID: id, Message: fmt.Sprint("question ", i), MessageID: "m-" + id}); err != nil {
			t.Fatal(err)
		}
		var evs []eventlog.Event
		for _, c := range []protocol.Chunk{protocol.Start{MessageID: "m-" + id},
			protocol.TextStart{ID: "x"}, protocol.TextDelta{ID: "x", Delta: fmt.Sprint("answer ", i)}, protocol.TextEnd{ID: "x"},
			protocol.Finish{}} {
			b, err := protocol.MarshalChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, eventlog.Event{Data: b})
		}
		evs[len(evs)-1].Close = true
		if _, err := db.Events().Append(ctx, workflow.TurnStream(id), evs...); err != nil {
			t.Fatal(err)
		}
		if err := ss.EndTurn(ctx, "c-1", id, session.TurnCompleted, session.Outcome{}); err != nil {
			t.Fatal(err)
		}
	}
	srv := edge.New(wholeReadRefused{Store: ss, t: t}, db.Events(), nil, auth.NewDev("t-001", slog.New(slog.DiscardHandler)), edge.Options{})
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
