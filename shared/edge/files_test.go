package edge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
)

const fileKey = "teachers/t-001/sessions/c-1/files/call-1/quiz.pdf"

// fileServer is an edge that signs the links of its file store on clock's
// time, with a quiz PDF stored at fileKey, both served by hs.
func fileServer(t *testing.T, clock *clocktest.Fake) (*httptest.Server, *boltstore.DB) {
	t.Helper()
	db := openDB(t)
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	files, err := blob.NewFS(blob.FSConfig{Dir: t.TempDir(), BaseURL: hs.URL, Secret: []byte("sixteen-byte-key!"), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := files.Put(context.Background(), fileKey, "application/pdf", []byte("%PDF-1.4 quiz")); err != nil {
		t.Fatal(err)
	}
	srv := edge.New(db.Sessions(), db.Events(), nil, auth.Dev{Default: "t-001"}, edge.Options{Files: files, Now: clock.Now})
	srv.Mount(mux)
	mux.Handle("/files/", files.Handler())
	return hs, db
}

// TestFileLinksSignedAgain: a reloaded conversation's file link is signed
// again (the stored one died), and GET /api/files/{key} gives the owner a
// fresh link and nobody else anything.
func TestFileLinksSignedAgain(t *testing.T) {
	ctx := context.Background()
	clock := &clocktest.Fake{}
	clock.Set(time.Now().UTC())
	hs, db := fileServer(t, clock)

	// A finished turn whose file link was signed long ago.
	dead := hs.URL + "/files/" + fileKey + "?exp=1&sig=00"
	if err := db.Sessions().CreateSession(ctx, session.Session{ID: "c-1", TeacherID: "t-001", Kind: "conversation"}); err != nil {
		t.Fatal(err)
	}
	ready, _ := json.Marshal(map[string]any{"type": "pdf", "url": dead, "filename": "quiz.pdf", "size": 13})
	endedTurn(t, db, session.Turn{SessionID: "c-1", ID: "u-1", Message: "出一份测验 PDF", MessageID: "m-1"},
		protocol.Start{MessageID: "m-1"}, protocol.Data{Name: protocol.DataFileReady, ID: "f-1", Data: ready}, protocol.Finish{})
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
	if err := json.Unmarshal([]byte(body), &fl); code != http.StatusOK || err != nil || fl.Filename != "quiz.pdf" || fl.ExpiresAt.Before(clock.Now()) {
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

// TestFileLinksShortLivedAndRevocable: a download link is a capability
// that lives DefaultFileLinkTTL (15 min); past it the link is refused and
// the route signs a fresh one that works; the owner revokes every link by
// DELETE /api/files/{key}, which another teacher cannot do.
func TestFileLinksShortLivedAndRevocable(t *testing.T) {
	clock := &clocktest.Fake{}
	clock.Set(time.Now().Truncate(time.Second).UTC())
	hs, _ := fileServer(t, clock)
	route := hs.URL + "/api/files/" + fileKey

	sign := func(what string) edge.FileLink {
		t.Helper()
		code, body := do(t, http.MethodGet, route, "")
		var fl edge.FileLink
		if err := json.Unmarshal([]byte(body), &fl); code != http.StatusOK || err != nil {
			t.Fatalf("%s: GET /api/files/…: %d %s", what, code, body)
		}
		if got := fl.ExpiresAt.Sub(clock.Now()); got != 15*time.Minute {
			t.Errorf("%s: the link lives %v, want 15m", what, got)
		}
		return fl
	}
	first := sign("first")
	if code, got := do(t, http.MethodGet, first.URL, ""); code != http.StatusOK || got != "%PDF-1.4 quiz" {
		t.Fatalf("a fresh link: %d %q", code, got)
	}

	clock.Advance(edge.DefaultFileLinkTTL + time.Second)
	if code, body := do(t, http.MethodGet, first.URL, ""); code != http.StatusForbidden {
		t.Errorf("an expired link: %d %s, want 403", code, body)
	}
	again := sign("after expiry")
	if code, got := do(t, http.MethodGet, again.URL, ""); code != http.StatusOK || got != "%PDF-1.4 quiz" {
		t.Errorf("the link signed again: %d %q", code, got)
	}

	// Another teacher can neither revoke nor learn that the file exists.
	if code, body := do(t, http.MethodDelete, route, "t-002"); code != http.StatusNotFound {
		t.Errorf("another teacher's DELETE: %d %s, want 404", code, body)
	}
	if code, _ := do(t, http.MethodGet, again.URL, ""); code != http.StatusOK {
		t.Fatalf("after another teacher's DELETE the owner's link answers %d", code)
	}

	if code, body := do(t, http.MethodDelete, route, ""); code != http.StatusNoContent {
		t.Fatalf("the owner's DELETE: %d %s, want 204", code, body)
	}
	if code, body := do(t, http.MethodGet, again.URL, ""); code != http.StatusNotFound {
		t.Errorf("a revoked link: %d %s, want 404", code, body)
	}
	if code, body := do(t, http.MethodGet, route, ""); code != http.StatusNotFound {
		t.Errorf("signing a revoked file again: %d %s, want 404", code, body)
	}
	if code, body := do(t, http.MethodDelete, route, ""); code != http.StatusNotFound {
		t.Errorf("a second DELETE: %d %s, want 404", code, body)
	}
}
