package report_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/report"
)

// TestStore holds the Store's own rules (versions, times, connections) on
// records in memory; the backends pass recordstest.
func TestStore(t *testing.T) {
	t.Run("SessionLifecycle", func(t *testing.T) {
		ctx := context.Background()
		s := report.NewStore(records.NewMemory())
		in := report.Session{ID: "s-1", TeacherID: "t-001", ConnectionID: "c-1", Status: report.StatusIdle,
			Message: report.Message{Question: "写报告", TemplateName: "学期教学工作总结"}}
		if err := s.CreateSession(ctx, in); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateSession(ctx, in); !errors.Is(err, report.ErrExists) {
			t.Fatalf("second create: %v", err)
		}
		got, err := s.GetSession(ctx, "s-1")
		if err != nil || got.TeacherID != "t-001" || got.Message.TemplateName != "学期教学工作总结" || got.Version != 1 || got.CreatedAt.IsZero() {
			t.Fatalf("get %+v %v", got, err)
		}
		up, err := s.UpdateSession(ctx, "s-1", func(x *report.Session) error {
			x.Status = report.StatusSolving
			x.Tasks = []report.SectionTask{{ID: 1, Title: "概况"}}
			x.TaskState = map[int]string{1: report.TaskRunning}
			return nil
		})
		if err != nil || up.Version != 2 || up.Status != report.StatusSolving {
			t.Fatalf("update %+v %v", up, err)
		}
		got, _ = s.GetSession(ctx, "s-1")
		if got.TaskState[1] != report.TaskRunning || len(got.Tasks) != 1 {
			t.Fatalf("after update %+v", got)
		}
		boom := errors.New("boom")
		if _, err := s.UpdateSession(ctx, "s-1", func(*report.Session) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("fn error: %v", err)
		}
		if got, _ := s.GetSession(ctx, "s-1"); got.Version != 2 {
			t.Fatalf("aborted update changed the session: %+v", got)
		}
		if _, err := s.GetSession(ctx, "nope"); !errors.Is(err, report.ErrNotFound) {
			t.Fatalf("missing: %v", err)
		}
		if _, err := s.UpdateSession(ctx, "nope", func(*report.Session) error { return nil }); !errors.Is(err, report.ErrNotFound) {
			t.Fatalf("update missing: %v", err)
		}
	})
	t.Run("ConcurrentUpdatesAreNotLost", func(t *testing.T) {
		ctx := context.Background()
		s := report.NewStore(records.NewMemory())
		if err := s.CreateSession(ctx, report.Session{ID: "s-2", TeacherID: "t"}); err != nil {
			t.Fatal(err)
		}
		const n = 8
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 1; i <= n; i++ {
			wg.Go(func() {
				_, err := s.UpdateSession(ctx, "s-2", func(x *report.Session) error {
					if x.TaskState == nil {
						x.TaskState = map[int]string{}
					}
					x.TaskState[i] = report.TaskCompleted
					return nil
				})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got, _ := s.GetSession(ctx, "s-2")
		if len(got.TaskState) != n || got.Version != n+1 {
			t.Fatalf("lost updates: %d states, version %d", len(got.TaskState), got.Version)
		}
	})
	t.Run("Connections", func(t *testing.T) {
		ctx := context.Background()
		s := report.NewStore(records.NewMemory())
		if err := s.PutConnection(ctx, report.Connection{ID: "c-1", TeacherID: "t-001"}); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"s-0", "s-1", "s-0"} { // a second add of s-0 keeps one
			if err := s.AddSession(ctx, "c-1", id); err != nil {
				t.Fatal(err)
			}
		}
		c, err := s.GetConnection(ctx, "c-1")
		if err != nil || c.TeacherID != "t-001" || !slices.Equal(c.Sessions, []string{"s-0", "s-1"}) {
			t.Fatalf("connection %+v %v", c, err)
		}
		if err := s.AddSession(ctx, "c-9", "s-0"); !errors.Is(err, report.ErrNotFound) {
			t.Fatalf("add to missing: %v", err)
		}
		if err := s.DeleteConnection(ctx, "c-1"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteConnection(ctx, "c-1"); err != nil {
			t.Fatalf("second delete: %v", err)
		}
		if _, err := s.GetConnection(ctx, "c-1"); !errors.Is(err, report.ErrNotFound) {
			t.Fatalf("deleted: %v", err)
		}
	})
}
