package edge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
)

// issue 32: the messages pages' bytes.

var updatePages = flag.Bool("update-pages", false, "rewrite testdata/messages-pages.golden")

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
	srv := edge.New(db.Sessions(), db.Events(), nil, auth.Dev{Default: "t-001"}, edge.Options{})
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
	golden := filepath.Join("testdata", "messages-pages.golden")
	if *updatePages {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the pages differ from %s (%d bytes, want %d)", golden, got.Len(), len(want))
	}
}
