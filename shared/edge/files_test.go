package edge_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

const fileKey = "teachers/t-001/sessions/c-1/files/call-1/quiz.pdf"

// TestFileLinksSignedAgain: a reloaded conversation's file link is signed
// again (the stored one died), and GET /api/files/{key} gives the owner a
// fresh link and nobody else anything.
func TestFileLinksSignedAgain(t *testing.T) {
	ctx := context.Background()
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "e.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	files, err := blob.NewFS(blob.FSConfig{Dir: t.TempDir(), BaseURL: hs.URL, Secret: []byte("sixteen-byte-key!")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := files.Put(ctx, fileKey, "application/pdf", []byte("%PDF-1.4 quiz")); err != nil {
		t.Fatal(err)
	}
	srv := edge.New(db.Sessions(), db.Events(), nil, auth.NewDev("t-001", slog.New(slog.DiscardHandler)), edge.Options{Files: files})
	srv.Mount(mux)
	mux.Handle("/files/", files.Handler())

	// A finished turn whose file link was signed long ago.
	dead := hs.URL + "/files/" + fileKey + "?exp=1&sig=00"
	ss := db.Sessions()
	if err := ss.CreateSession(ctx, session.Session{ID: "c-1", TeacherID: "t-001", Kind: "conversation"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.BeginTurn(ctx, session.Turn{SessionID: "c-1", ID: "u-1", Message: "出一份测验 PDF", MessageID: "m-1"}); err != nil {
		t.Fatal(err)
	}
	ready, _ := json.Marshal(map[string]any{"type": "pdf", "url": dead, "filename": "quiz.pdf", "size": 13})
	var evs []eventlog.Event
	for _, c := range []protocol.Chunk{protocol.Start{MessageID: "m-1"},
		protocol.Data{Name: protocol.DataFileReady, ID: "f-1", Data: ready}, protocol.Finish{}} {
		b, err := protocol.MarshalChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, eventlog.Event{Data: b})
	}
	evs[len(evs)-1].Close = true
	if _, err := db.Events().Append(ctx, workflow.TurnStream("u-1"), evs...); err != nil {
		t.Fatal(err)
	}
	if err := ss.EndTurn(ctx, "c-1", "u-1", session.TurnCompleted, session.Outcome{}); err != nil {
		t.Fatal(err)
	}
	if code, _ := do(t, http.MethodGet, dead, ""); code == http.StatusOK {
		t.Fatal("the stale link still downloads: the test proves nothing")
	}

	code, body := do(t, http.MethodGet, hs.URL+"/api/conversation/c-1/messages", "")
	var page struct{ Messages []protocol.UIMessage }
	if err := json.Unmarshal([]byte(body), &page); code != http.StatusOK || err != nil {
		t.Fatalf("messages: %d %v %s", code, err, body)
	}
	var link string
	for _, m := range page.Messages {
		for _, p := range m.Parts {
			if p.Type == "data-file-ready" {
				var d struct{ URL string }
				_ = json.Unmarshal(p.Data, &d)
				link = d.URL
			}
		}
	}
	if link == "" || link == dead {
		t.Fatalf("the reloaded file link is %q, want a fresh one", link)
	}
	if code, got := do(t, http.MethodGet, link, ""); code != http.StatusOK || got != "%PDF-1.4 quiz" {
		t.Errorf("the fresh link: %d %q", code, got)
	}

	code, body = do(t, http.MethodGet, hs.URL+"/api/files/"+fileKey, "")
	var fl edge.FileLink
	if err := json.Unmarshal([]byte(body), &fl); code != http.StatusOK || err != nil || fl.Filename != "quiz.pdf" || fl.ExpiresAt.Before(time.Now()) {
		t.Fatalf("GET /api/files/…: %d %s", code, body)
	}
	if code, got := do(t, http.MethodGet, fl.URL, ""); code != http.StatusOK || got != "%PDF-1.4 quiz" {
		t.Errorf("the route's link: %d %q", code, got)
	}
	for name, tc := range map[string]struct{ path, teacher string }{
		"another teacher": {fileKey, "t-002"},
		"no such file":    {"teachers/t-001/sessions/c-1/files/call-9/none.pdf", ""},
		"not a file key":  {"records/c-1/x", ""},
	} {
		if code, body := do(t, http.MethodGet, hs.URL+"/api/files/"+tc.path, tc.teacher); code != http.StatusNotFound {
			t.Errorf("%s: %d %s, want 404", name, code, body)
		}
	}
}

// TestFileKey reads the key out of the links each store signs.
func TestFileKey(t *testing.T) {
	for link, want := range map[string]string{
		"https://insightedge-prod-filesbucket-1.s3.us-east-1.amazonaws.com/" + fileKey + "?X-Amz-Signature=ab": fileKey,
		"https://s3.us-east-1.amazonaws.com/bucket/" + fileKey + "?X-Amz-Expires=86400":                        fileKey,
		"http://127.0.0.1:8000/files/" + fileKey + "?exp=1&sig=00":                                             fileKey,
		"https://elsewhere/other/quiz.pdf":                                                                     "",
	} {
		got, ok := edge.FileKey(link)
		if got != want || ok != (want != "") {
			t.Errorf("FileKey(%s) = %q %v, want %q", link, got, ok, want)
		}
	}
}
