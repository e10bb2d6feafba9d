package boltstore_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/apps/appstest"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/records/recordstest"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/research"
)

func TestAppStoreContract(t *testing.T) {
	appstest.Run(t, func(t *testing.T) appstest.Store { return open(t, boltstore.Options{NoSync: true}).Apps() })
}

func TestRecordsContract(t *testing.T) {
	recordstest.Run(t, func(t *testing.T) records.Backend { return open(t, boltstore.Options{NoSync: true}) })
}

// The records as the stores before shared/records wrote them (captured from
// that code): one bucket a kind, the value's JSON under its id.
var oldRecords = map[string][2]string{
	"report-sessions":    {"s-old", `{"id":"s-old","teacher_id":"t-001","connection_id":"c-old","status":"confirming","run":2,"message":{"question":"写报告","template_name":"学期教学工作总结"},"task_state":{"1":"running"},"version":2,"created_at":"2026-11-28T16:31:17.617364481Z","updated_at":"2026-11-28T16:31:17.618351101Z","expires_at":"2026-11-27T09:00:00Z"}`},
	"report-connections": {"c-old", `{"id":"c-old","teacher_id":"t-001","sessions":["s-old"],"created_at":"2026-11-27T08:00:00Z"}`},
	"research":           {"r-old", `{"id":"r-old","teacherId":"t-001","topic":"DNA","language":"en","status":"Executing","proposal":{"topic":"DNA","time_range":"","focus_points":null,"expected_milestones":0,"search_plan":null,"language":"en"},"attached":"h","attachedUntil":"2026-11-27T08:01:00Z","version":3,"createdAt":"2026-11-27T08:00:00Z","updatedAt":"2026-11-27T08:00:00Z","startedAt":"2026-11-27T08:00:00Z","expiresAt":"2026-11-27T09:00:00Z"}`},
}

// TestOldRecordsRead: a file written before shared/records opens, and its
// report and research records read, update and list through the typed
// stores.
func TestOldRecordsRead(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = old.Update(func(tx *bbolt.Tx) error {
		for bucket, kv := range oldRecords {
			b, err := tx.CreateBucket([]byte(bucket))
			if err != nil {
				return err
			}
			if err := b.Put([]byte(kv[0]), []byte(kv[1])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || old.Close() != nil {
		t.Fatal(err)
	}
	db, err := boltstore.Open(path, boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	reports := report.NewStore(db)
	sess, err := reports.UpdateSession(ctx, "s-old", func(s *report.Session) error { s.Status = report.StatusSolving; return nil })
	if err != nil || sess.Version != 3 || sess.Message.TemplateName != "学期教学工作总结" || sess.TaskState[1] != report.TaskRunning ||
		!sess.ExpiresAt.Equal(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("report session %+v %v", sess, err)
	}
	if err := reports.AddSession(ctx, "c-old", "s-2"); err != nil {
		t.Fatal(err)
	}
	if c, err := reports.GetConnection(ctx, "c-old"); err != nil || !slices.Equal(c.Sessions, []string{"s-old", "s-2"}) {
		t.Fatalf("connection %+v %v", c, err)
	}

	store := research.NewStore(db)
	got, err := store.(research.Lister).ListResearch(ctx, research.Executing)
	if err != nil || len(got) != 1 || got[0].ID != "r-old" || got[0].Version != 3 || got[0].Attached != "h" || got[0].Proposal.Topic != "DNA" {
		t.Fatalf("executing %+v %v", got, err)
	}
	if err := research.Detach(ctx, store, "r-old", "h", time.Now()); err != nil {
		t.Fatal(err)
	}
	if r, err := store.GetResearch(ctx, "r-old"); err != nil || r.Version != 4 || r.Attached != "" {
		t.Fatalf("after detach %+v %v", r, err)
	}
}
