package boltstore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/research/researchtest"
)

func TestResearchStoreContract(t *testing.T) {
	researchtest.Run(t, func(t *testing.T) research.Store {
		db, err := boltstore.Open(filepath.Join(t.TempDir(), "research.db"), boltstore.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return db.Research()
	})
}

// TestResearchSurvivesReopen: the session is in the file, and the sessions
// a restart interrupted can be listed.
func TestResearchSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	db, err := boltstore.Open(path, boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if err := db.Research().CreateResearch(ctx, research.Session{ID: id, TeacherID: "t-001", Status: research.Created}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Research().UpdateResearch(ctx, "b", func(s *research.Session) error { s.Status = research.Executing; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = boltstore.Open(path, boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Research().ListResearch(ctx, research.Executing)
	if err != nil || len(got) != 1 || got[0].ID != "b" || got[0].Version != 2 {
		t.Fatalf("executing after reopen: %+v %v", got, err)
	}
}
