package launch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/boltstore/bolttest"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// scriptStarter plays a build's stream when it is started: the workflow
// seam.
type scriptStarter struct {
	log    eventlog.Appender
	events []protocol.PageEvent
	err    error
}

func (s scriptStarter) Start(ctx context.Context, name string, _ workflow.BuildState) error {
	if s.err != nil {
		return s.err
	}
	for i, e := range s.events {
		raw, _ := protocol.MarshalPageEvent(e)
		if _, err := s.log.Append(ctx, workflow.BuildStream(name), eventlog.Event{Data: raw, Close: i == len(s.events)-1}); err != nil {
			return err
		}
	}
	return nil
}

func newLauncher(t *testing.T, events []protocol.PageEvent, startErr error) (*launch.Launcher, *boltstore.DB) {
	t.Helper()
	db := bolttest.Open(t)
	return launch.New(db.Sessions(), db.Events(), scriptStarter{log: db.Events(), events: events, err: startErr},
		launch.Options{MaxWait: 100 * time.Millisecond}), db
}

func request() blueprint.Request {
	return blueprint.Request{Mode: blueprint.ModeBuild, Blueprint: blueprinttest.Analysis("class-hk-f1a"), Inputs: map[string]string{"class": "class-hk-f1a"}}
}

func TestBeginAndAwait(t *testing.T) {
	ctx := context.Background()
	l, db := newLauncher(t, []protocol.PageEvent{protocol.PagePhase{Phase: "data"},
		protocol.PageComplete{Message: "completed", Progress: 100, Result: protocol.PageResult{Page: []byte(`{"layout":"tabs"}`)}}}, nil)
	id, err := l.Begin(ctx, "t-001", "trace-1", request())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Sessions().GetRecord(ctx, id, blueprint.RecordRequest); err != nil {
		t.Errorf("the request is not stored: %v", err)
	}
	if err := l.Owned(ctx, "t-001", id); err != nil {
		t.Errorf("owner: %v", err)
	}
	for _, who := range []struct{ teacher, build string }{{"t-002", id}, {"t-001", "build-404"}} {
		if err := l.Owned(ctx, who.teacher, who.build); apperr.CodeOf(err) != apperr.EntityNotFound {
			t.Errorf("Owned(%s, %s) = %v", who.teacher, who.build, err)
		}
	}
	out, err := l.Await(ctx, id)
	if err != nil || out.Status != launch.Succeeded || string(out.Result.Page) != `{"layout":"tabs"}` || out.Events != 2 {
		t.Errorf("Await = %+v, %v", out, err)
	}
}

func TestAwaitFailedAndSilentBuilds(t *testing.T) {
	ctx := context.Background()
	l, _ := newLauncher(t, []protocol.PageEvent{protocol.PageError{Code: "DATA_ERROR", Message: "down"}}, nil)
	id, _ := l.Begin(ctx, "t-001", "", request())
	if out, err := l.Await(ctx, id); err != nil || out.Status != launch.Failed || out.Code != "DATA_ERROR" || out.Message != "down" {
		t.Errorf("failed build: %+v %v", out, err)
	}
	unknown, _ := newLauncher(t, []protocol.PageEvent{protocol.PageDataError{Entity: "1X", EntityType: "class", Message: "没有找到班级「1X」。"}}, nil)
	id, _ = unknown.Begin(ctx, "t-001", "", request())
	if out, err := unknown.Await(ctx, id); err != nil || out.Status != launch.Failed || out.Code != "ENTITY_NOT_FOUND" || out.Message == "" {
		t.Errorf("a build closed by DATA_ERROR: %+v %v", out, err)
	}
	silent, _ := newLauncher(t, nil, nil)
	id, _ = silent.Begin(ctx, "t-001", "", request())
	if out, err := silent.Await(ctx, id); err != nil || out.Status != launch.Failed || out.Code != "SERVICE_UNAVAILABLE" {
		t.Errorf("a silent build is abandoned: %+v %v", out, err)
	}
	broken, _ := newLauncher(t, nil, errors.New("no capacity"))
	_, err := broken.Begin(ctx, "t-001", "", request())
	if apperr.CodeOf(err) != apperr.ServiceUnavailable {
		t.Errorf("a build that cannot start: %v", err)
	}
}
