package control

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/recovery"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/session"
)

// issue 32: TestDeadRunIsClosedOnDemand is the AWS path (no start-up
// sweep): a run holds a lease from its start; while it is live a new
// message is a 409; once it ran out (the process died) the next event
// closes the run (agent.error SERVICE_UNAVAILABLE, pipeline.completed) and
// the message starts a new run; a cancel lets the new run's lease go.
func TestDeadRunIsClosedOnDemand(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t) // its stores, with runs holding leases and recovery on demand below
	store, log, runs, leases := f.store, f.log, f.runs, f.leases
	svc, err := New(store, log, runs, runs, backend.NewResolver(backend.Options{Default: backendURL}),
		Options{Secret: []byte("0123456789abcdef"), Settings: pipeline.Settings{ConfirmTimeout: 90 * time.Second, Concurrency: 3},
			Runs:    report.RunLeases{Leases: leases, Store: store, ConfirmWait: 90 * time.Second},
			Recover: recovery.New(leases, log, nil, nil, nil).WithReports(store)})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Open(ctx, teacher); err != nil {
		t.Fatal(err)
	}
	r, err := svc.Handle(ctx, teacher, report.Envelope{}, report.CreateSession{})
	if err != nil {
		t.Fatal(err)
	}
	sid := r.Subscribe
	send := func(ev report.ClientEvent) error {
		_, err := svc.Handle(ctx, teacher, report.Envelope{Event: ev.Name(), SessionID: sid}, ev)
		return err
	}
	msg := report.Message{Question: "写报告", TemplateName: "学期教学工作总结"}
	if err := send(msg); err != nil {
		t.Fatal(err)
	}
	l, err := leases.GetLease(ctx, report.LeaseKind, report.LeaseID(sid, 1))
	if err != nil || l.Owner != sid || l.Expired(time.Now()) {
		t.Fatalf("the run's lease: %+v %v", l, err)
	}
	if err := send(msg); err == nil || apperr.As(err).Code != apperr.Conflict {
		t.Fatalf("a message during a live run: %v", err)
	}

	l.Until = time.Now().Add(-time.Second) // the process running it died
	if err := leases.HoldLease(ctx, l); err != nil {
		t.Fatal(err)
	}
	if err := send(msg); err != nil {
		t.Fatalf("a message after the run died: %v", err)
	}
	evs, _ := log.Read(ctx, report.StreamName(sid), 0, 10)
	var got []string
	for _, ev := range evs {
		var env report.Envelope
		_ = json.Unmarshal(ev.Data, &env)
		got = append(got, env.Event)
	}
	if len(got) != 3 || got[1] != "agent.error" || got[2] != "pipeline.completed" {
		t.Fatalf("the dead run's stream: %v", got)
	}
	s, _ := store.GetSession(ctx, sid)
	if s.Run != 3 || s.Status != report.StatusPlanning {
		t.Fatalf("after the recovery the new run is %d (%s), want run 3 planning", s.Run, s.Status)
	}
	if _, ok := runs.Started()[executionName(sid, 3)]; !ok {
		t.Fatal("the new run did not start")
	}
	if _, err := leases.GetLease(ctx, report.LeaseKind, report.LeaseID(sid, 1)); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("the dead run's lease is left: %v", err)
	}
	if err := send(report.Cancel{}); err != nil {
		t.Fatal(err)
	}
	if _, err := leases.GetLease(ctx, report.LeaseKind, report.LeaseID(sid, 3)); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("a cancelled run's lease is left: %v", err)
	}
}
