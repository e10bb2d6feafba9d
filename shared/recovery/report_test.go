package recovery_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/recovery"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/session"
)

// issue 32: template-report runs.

// TestDeadTemplateRunsAreClosed: a run whose lease ran out while its
// session was solving ends failed, its stream closed with agent.error
// (SERVICE_UNAVAILABLE) and pipeline.completed after what it logged; a
// live run, a run that ended and a run another replaced are left as they
// are; no expired lease is left. A Recoverer without the report store
// leaves template leases alone. On bbolt and on DynamoDB (dynalite).
func TestDeadTemplateRunsAreClosed(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			reports := reportStore(t, name)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			past, future := time.Now().Add(-time.Minute), time.Now().Add(time.Minute)
			for _, c := range []struct {
				id     string
				status string
				run    int // the session's run; the lease is of run 1
				until  time.Time
			}{
				{"s-dead", report.StatusSolving, 1, past},
				{"s-live", report.StatusSolving, 1, future},
				{"s-ended", report.StatusCompleted, 1, past},
				{"s-replaced", report.StatusPlanning, 2, past},
			} {
				must(reports.CreateSession(ctx, report.Session{ID: c.id, TeacherID: "t-001", Status: c.status, Run: c.run,
					Message: report.Message{Question: "write the report", Language: "en"}}))
				must(report.Emitter(s.log, c.id).Emit(ctx, report.SessionCreated{}, report.SolverStart{ID: 1, Title: "Intro"}))
				must(s.sessions.HoldLease(ctx, session.Lease{Kind: report.LeaseKind, ID: report.LeaseID(c.id, 1), Owner: c.id, Until: c.until}))
			}

			if n, err := recovery.New(s.sessions, s.log, nil, nil, nil).Sweep(ctx, time.Now()); err != nil || n != 0 {
				t.Fatalf("Sweep without reports = %d, %v", n, err)
			}
			if left, _ := s.sessions.ExpiredLeases(ctx, time.Now(), 10); len(left) != 3 {
				t.Fatalf("a Recoverer without reports dropped template leases: %+v", left)
			}

			rec := recovery.New(s.sessions, s.log, nil, nil, nil).WithReports(reports)
			if _, err := rec.Sweep(ctx, time.Now()); err != nil {
				t.Fatal(err)
			}
			dead, _ := reports.GetSession(ctx, "s-dead")
			if dead.Running() || dead.Status != report.StatusFailed || dead.Run != 2 {
				t.Errorf("the dead run's session: %s, run %d", dead.Status, dead.Run)
			}
			evs, _ := s.log.Read(ctx, report.StreamName("s-dead"), 0, 10)
			var names []string
			var last report.Envelope
			for _, ev := range evs {
				must(json.Unmarshal(ev.Data, &last))
				names = append(names, last.Event)
			}
			var errEnv report.Envelope
			if len(evs) == 4 {
				must(json.Unmarshal(evs[2].Data, &errEnv))
			}
			if len(names) != 4 || names[2] != "agent.error" || names[3] != "pipeline.completed" ||
				string(errEnv.Metadata) != `{"code":"SERVICE_UNAVAILABLE"}` || string(errEnv.Content) == `""` {
				t.Errorf("the dead run's stream: %v %s %s", names, errEnv.Content, errEnv.Metadata)
			}
			for id, want := range map[string]string{"s-live": report.StatusSolving, "s-ended": report.StatusCompleted, "s-replaced": report.StatusPlanning} {
				got, _ := reports.GetSession(ctx, id)
				evs, _ := s.log.Read(ctx, report.StreamName(id), 0, 10)
				if got.Status != want || len(evs) != 2 {
					t.Errorf("%s: %s with %d events, want %s untouched", id, got.Status, len(evs), want)
				}
			}
			if left, _ := s.sessions.ExpiredLeases(ctx, time.Now(), 10); len(left) != 0 {
				t.Errorf("leases left: %+v", left)
			}
			if dead, err := rec.IfDead(ctx, report.LeaseKind, report.LeaseID("s-live", 1)); dead || err != nil {
				t.Errorf("IfDead(live) = %v, %v", dead, err)
			}
		})
	}
}

// reportStore is a report store on the backend named.
func reportStore(t *testing.T, backend string) report.Store {
	if backend == "dynamodb" {
		srv := dynamotest.Start(t)
		return report.NewStore(dynamostore.NewRecords(srv.Client, srv.NewTable(t), dynamostore.Options{}))
	}
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "reports.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return report.NewStore(db)
}
