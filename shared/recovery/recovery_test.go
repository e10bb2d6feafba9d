package recovery_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/recovery"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// stores are the session store, event log and app store of one backend.
type stores struct {
	sessions interface {
		session.Store
		session.Leases
	}
	log  eventlog.Log
	apps apps.Store
}

// noStarter stands in for the workflow service: nothing runs, as after a
// crash.
type noStarter struct{}

func (noStarter) Start(context.Context, string, workflow.BuildState) error { return nil }

func backends(t *testing.T) map[string]func(t *testing.T) stores {
	return map[string]func(t *testing.T) stores{
		"bbolt": func(t *testing.T) stores {
			db, err := boltstore.Open(filepath.Join(t.TempDir(), "r.db"), boltstore.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			return stores{db.Sessions(), db.Events(), db.Apps()}
		},
		"dynamodb": func(t *testing.T) stores {
			srv := dynamotest.Start(t)
			table := dynamostore.New(srv.Client, srv.NewTable(t), dynamostore.Options{})
			return stores{table.Sessions(), table.Events(), dynamostore.NewAppStore(srv.Client, srv.NewTable(t), dynamostore.Options{})}
		},
	}
}

// TestDeadWorkIsClosed: a turn, a build and an app run whose leases ran out
// are closed by one sweep, on both stores; live work is left alone.
func TestDeadWorkIsClosed(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			past := time.Now().Add(-time.Minute)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			// A turn that streamed a text part and then lost its process.
			must(s.sessions.CreateSession(ctx, session.Session{ID: "conv-1", TeacherID: "t-001", Kind: "conversation"}))
			_, err := s.sessions.BeginTurn(ctx, session.Turn{SessionID: "conv-1", ID: "turn-1", Message: "hello", MessageID: "msg-1"})
			must(err)
			for _, c := range []protocol.Chunk{protocol.Start{MessageID: "msg-1"}, protocol.TextStart{ID: "t1"}, protocol.TextDelta{ID: "t1", Delta: "Hel"}} {
				raw, _ := protocol.MarshalChunk(c)
				_, err := s.log.Append(ctx, workflow.TurnStream("turn-1"), eventlog.Event{Data: raw})
				must(err)
			}
			must(s.sessions.HoldLease(ctx, session.Lease{Kind: session.LeaseTurn, ID: "turn-1", Owner: "conv-1", Until: past}))
			// A live turn of another conversation.
			must(s.sessions.CreateSession(ctx, session.Session{ID: "conv-2", TeacherID: "t-001", Kind: "conversation"}))
			_, err = s.sessions.BeginTurn(ctx, session.Turn{SessionID: "conv-2", ID: "turn-2", Message: "hi", MessageID: "msg-2"})
			must(err)
			must(s.sessions.HoldLease(ctx, session.Lease{Kind: session.LeaseTurn, ID: "turn-2", Owner: "conv-2", Until: time.Now().Add(time.Minute)}))

			// An app run whose build died with it.
			l := launch.New(s.sessions, s.log, noStarter{}, launch.Options{Leases: s.sessions, MaxWait: time.Second})
			buildID, err := l.Begin(ctx, "t-001", "", request())
			must(err)
			must(s.sessions.HoldLease(ctx, session.Lease{Kind: session.LeaseBuild, ID: buildID, Owner: buildID, Until: past}))
			must(s.apps.PutApp(ctx, apps.App{ID: "app-1", TeacherID: "t-001", Name: "1A", Blueprint: json.RawMessage(`{}`)}))
			must(s.apps.PutSnapshot(ctx, apps.Snapshot{AppID: "app-1", RunID: "run-1", Status: apps.StatusRunning, BuildID: buildID, StartedAt: past}))
			must(s.sessions.HoldLease(ctx, session.Lease{Kind: session.LeaseRun, ID: "run-1", Owner: "app-1", Until: past}))

			rec := recovery.New(s.sessions, s.log, l, s.apps, nil)
			n, err := rec.Sweep(ctx, time.Now())
			if err != nil || n != 3 {
				t.Fatalf("Sweep = %d, %v; want 3 closed", n, err)
			}

			turn, _ := s.sessions.GetTurn(ctx, "conv-1", "turn-1")
			if turn.Status != session.TurnFailed || turn.Outcome.ErrorCode != "SERVICE_UNAVAILABLE" || turn.Outcome.Error == "" {
				t.Errorf("the dead turn: %+v", turn)
			}
			if sess, _ := s.sessions.GetSession(ctx, "conv-1"); sess.ActiveTurn != "" {
				t.Error("the dead turn still blocks its conversation")
			}
			evs, _ := s.log.Read(ctx, workflow.TurnStream("turn-1"), 0, 10)
			a := protocol.NewAssembler("msg-1")
			for _, ev := range evs {
				_ = a.Add(ev.Data)
			}
			if len(evs) != 5 || !evs[4].Close || chunkType(evs[3].Data) != "error" || chunkType(evs[4].Data) != "finish" {
				t.Errorf("the dead turn's stream: %d events", len(evs))
			}
			if m := a.Message(); len(m.Parts) == 0 {
				t.Error("the dead turn's text was lost")
			}
			if live, _ := s.sessions.GetTurn(ctx, "conv-2", "turn-2"); live.Status != session.TurnRunning {
				t.Errorf("a live turn was closed: %+v", live)
			}
			bevs, _ := s.log.Read(ctx, workflow.BuildStream(buildID), 0, 10)
			if len(bevs) != 1 || !bevs[0].Close || chunkType(bevs[0].Data) != "ERROR" {
				t.Errorf("the dead build's stream: %+v", bevs)
			}
			snap, _ := s.apps.GetSnapshot(ctx, "app-1", "run-1")
			if snap.Status != apps.StatusFailed || snap.ErrorCode != "SERVICE_UNAVAILABLE" || snap.EndedAt.IsZero() {
				t.Errorf("the dead run: %+v", snap)
			}
			if left, _ := s.sessions.ExpiredLeases(ctx, time.Now(), 10); len(left) != 0 {
				t.Errorf("leases left: %+v", left)
			}
			// A lease of live work is not recovered on demand.
			if dead, err := rec.IfDead(ctx, session.LeaseTurn, "turn-2"); dead || err != nil {
				t.Errorf("IfDead(live) = %v, %v", dead, err)
			}
		})
	}
}

func chunkType(raw []byte) string {
	var h struct{ Type string }
	_ = json.Unmarshal(raw, &h)
	return h.Type
}

func request() blueprint.Request {
	return blueprint.Request{Mode: blueprint.ModeBuild, Blueprint: blueprinttest.Analysis("class-hk-f1a"), Inputs: map[string]string{"class": "class-hk-f1a"}}
}
