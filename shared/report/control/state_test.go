package control

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/report"
)

func TestSignVerify(t *testing.T) {
	secret := []byte("0123456789abcdef")
	now := time.Unix(1_800_000_000, 0)
	st := SignedState{SessionID: "s-1", TeacherID: "t-001", Status: report.StatusCompleted, After: 42, ExpiresAt: now.Add(time.Hour).Unix(),
		Tasks: []report.SectionTask{{ID: 1, Title: "概况"}}}
	tok, err := sign(secret, st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := verify(secret, tok, now)
	if err != nil || got.SessionID != "s-1" || got.After != 42 || got.Tasks[0].Title != "概况" {
		t.Fatalf("verify %+v %v", got, err)
	}
	body, sig, _ := strings.Cut(tok, ".")
	forged, _ := sign([]byte("another-secret-16b"), st)
	_, forgedSig, _ := strings.Cut(forged, ".")
	for name, bad := range map[string]string{
		"no dot":          body,
		"other signature": body + "." + forgedSig,
		"body changed":    strings.Replace(body, body[:4], "eyJh", 1) + "x." + sig,
		"not base64":      body + ".!!!",
		"empty":           "",
	} {
		if _, err := verify(secret, bad, now); !errors.Is(err, ErrStateInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := verify(secret, tok, now.Add(time.Hour)); !errors.Is(err, ErrStateExpired) {
		t.Errorf("expired: %v", err)
	}
}

func TestLastSeq(t *testing.T) {
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "x.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 100} {
		stream := "s" + string(rune('a'+n%26)) + time.Now().String()
		for range n {
			if _, err := db.Events().Append(ctx, stream, eventlog.Event{Data: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := LastSeq(ctx, db.Events(), stream); err != nil || got != int64(n) {
			t.Errorf("%d events: LastSeq %d %v", n, got, err)
		}
	}
}
