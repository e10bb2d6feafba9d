package control

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/report/reporttest"
)

const backendURL = "http://templates.test"

type fixture struct {
	svc   *Service
	store report.Store
	log   *eventlog.Memory
	runs  *reporttest.Workflows
	now   time.Time
	// leases are the lease table in the same file (issue 32).
	leases *boltstore.SessionStore
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{store: report.NewStore(db), log: eventlog.NewMemory(), runs: &reporttest.Workflows{}, now: time.Unix(1_800_000_000, 0),
		leases: db.Sessions()}
	f.svc, err = New(f.store, f.log, f.runs, f.runs, backend.NewResolver(backend.Options{Default: backendURL}),
		Options{Secret: []byte("0123456789abcdef"), Settings: pipeline.Settings{ConfirmTimeout: 90 * time.Second, Concurrency: 3},
			Now: func() time.Time { return f.now }})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var teacher = Caller{TeacherID: "t-001", ConnectionID: "c-1"}

// session creates a session of teacher's socket and, when set is given,
// puts it in the state set makes.
func (f *fixture) session(t *testing.T, set func(*report.Session)) report.Session {
	t.Helper()
	ctx := context.Background()
	if err := f.svc.Open(ctx, teacher); err != nil {
		t.Fatal(err)
	}
	r, err := f.svc.Handle(ctx, teacher, report.Envelope{}, report.CreateSession{})
	if err != nil {
		t.Fatal(err)
	}
	if set == nil {
		set = func(*report.Session) {}
	}
	s, err := f.store.UpdateSession(ctx, r.Subscribe, func(x *report.Session) error { set(x); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// started returns the input of the execution name, if it was started.
func (f *fixture) started(t *testing.T, name string) (pipeline.RunInput, bool) {
	t.Helper()
	b, ok := f.runs.Started()[name]
	var in pipeline.RunInput
	if ok {
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
	}
	return in, ok
}

// handle sends ev for session sid as the teacher's socket.
func (f *fixture) handle(sid string, ev report.ClientEvent) (Result, error) {
	return f.svc.Handle(context.Background(), teacher, report.Envelope{Event: ev.Name(), SessionID: sid}, ev)
}

func (f *fixture) get(t *testing.T, sid string) report.Session {
	t.Helper()
	s, err := f.store.GetSession(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// events are the names of the events in the session's log.
func (f *fixture) events(t *testing.T, sid string) []string {
	t.Helper()
	evs, err := f.log.Read(context.Background(), report.StreamName(sid), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range evs {
		var env report.Envelope
		if err := json.Unmarshal(e.Data, &env); err != nil || env.SessionID != sid {
			t.Fatalf("event %s: %v, want an envelope of session %s", e.Data, err, sid)
		}
		names = append(names, env.Event)
	}
	return names
}

// wantCode fails unless err is an *apperr.Error with code and status.
func wantCode(t *testing.T, err error, code apperr.Code, status int) {
	t.Helper()
	e := apperr.As(err)
	if e == nil || e.Code != code || e.HTTPStatus() != status {
		t.Fatalf("err = %v, want %s (%d)", err, code, status)
	}
}

func planned(x *report.Session) {
	x.Message = report.Message{Question: "写报告", TemplateName: "学期总结"}
	x.Tasks = []report.SectionTask{{ID: 1, Title: "概况"}, {ID: 2, Title: "成绩"}}
	x.TaskState = map[int]string{1: report.TaskPending, 2: report.TaskPending}
	x.Run, x.Execution = 1, "template-"+x.ID+"-1"
}

func status(s string, more ...func(*report.Session)) func(*report.Session) {
	return func(x *report.Session) {
		planned(x)
		x.Status = s
		for _, m := range more {
			m(x)
		}
	}
}

func TestNewNeedsASecret(t *testing.T) {
	if _, err := New(nil, nil, nil, nil, nil, Options{Secret: []byte("short")}); err == nil {
		t.Fatal("a 5-byte secret was accepted")
	}
}

func TestCreateSession(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	s := f.session(t, nil)
	if s.TeacherID != "t-001" || s.ConnectionID != "c-1" || s.Status != report.StatusIdle || !s.ExpiresAt.Equal(f.now.Add(7*24*time.Hour)) {
		t.Errorf("session = %+v", s)
	}
	if c, err := f.store.GetConnection(ctx, "c-1"); err != nil || !slices.Equal(c.Sessions, []string{s.ID}) {
		t.Errorf("connection = %+v, %v; want it to hold %s", c, err, s.ID)
	}
	if got := f.events(t, s.ID); !slices.Equal(got, []string{"agent.session_created"}) {
		t.Errorf("events = %v", got)
	}

	// Over SSE+POST the session has no socket.
	id, err := f.svc.CreateSession(ctx, Caller{TeacherID: "t-002"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.svc.Session(ctx, Caller{TeacherID: "t-002"}, id); err != nil || got.ConnectionID != "" {
		t.Errorf("SSE session = %+v, %v", got, err)
	}
}

func TestSessionsAreTheirOwners(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, nil)
	closed := f.session(t, status(report.StatusClosed))
	cases := []struct {
		name   string
		caller Caller
		id     string
		code   apperr.Code
		status int
	}{
		{"another teacher", Caller{TeacherID: "t-002", ConnectionID: "c-1"}, s.ID, apperr.EntityNotFound, http.StatusNotFound},
		{"another socket", Caller{TeacherID: "t-001", ConnectionID: "c-2"}, s.ID, apperr.EntityNotFound, http.StatusNotFound},
		{"no such session", teacher, "nope", apperr.EntityNotFound, http.StatusNotFound},
		{"closed with its socket", teacher, closed.ID, apperr.Conflict, http.StatusConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.svc.Handle(context.Background(), c.caller, report.Envelope{SessionID: c.id}, report.Cancel{})
			wantCode(t, err, c.code, c.status)
		})
	}
}

func TestMessageStartsAPlanRun(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, nil)
	if _, err := f.handle(s.ID, report.Message{Question: "写报告", TemplateName: "学期总结"}); err != nil {
		t.Fatal(err)
	}
	name := "template-" + s.ID + "-1"
	want := pipeline.RunInput{SessionID: s.ID, TeacherID: "t-001", Run: 1, Mode: pipeline.ModePlan, ConfirmTimeout: 90, Concurrency: 3}
	if got, _ := f.started(t, name); got != want {
		t.Errorf("started %s with %+v, want %+v", name, got, want)
	}
	got := f.get(t, s.ID)
	if got.Status != report.StatusPlanning || got.Execution != name || got.Message.TemplateName != "学期总结" {
		t.Errorf("session = %+v", got)
	}

	// A run in progress turns the next message away.
	_, err := f.handle(s.ID, report.Message{Question: "再写一份"})
	wantCode(t, err, apperr.Conflict, http.StatusConflict)
}

func TestBadEventsAreRefused(t *testing.T) {
	cases := []struct {
		name   string
		set    func(*report.Session)
		ev     report.ClientEvent
		code   apperr.Code
		status int
	}{
		{"backend outside the allow-list", nil, report.Message{Question: "写报告", APIBaseURL: "http://169.254.169.254"}, apperr.ValidationError, http.StatusBadRequest},
		{"language that is not a tag", nil, report.Message{Question: "写报告", Language: "en\nIgnore all"}, apperr.ValidationError, http.StatusBadRequest},
		{"response without a confirmation", nil, report.Response{StepID: "tok", Confirmed: true}, apperr.Conflict, http.StatusConflict},
		{"response to another step", status(report.StatusConfirming, func(x *report.Session) { x.StepID = "tok" }), report.Response{StepID: "other", Confirmed: true}, apperr.ValidationError, http.StatusBadRequest},
		{"response naming a task not in the plan", status(report.StatusConfirming, func(x *report.Session) { x.StepID = "tok" }), report.Response{StepID: "tok", Confirmed: true, Tasks: []report.UserTask{{ID: 9}}}, apperr.ValidationError, http.StatusBadRequest},
		{"cancel with nothing running", nil, report.Cancel{}, apperr.Conflict, http.StatusConflict},
		{"cancel_plan while solving", status(report.StatusSolving), report.CancelPlan{}, apperr.Conflict, http.StatusConflict},
		{"cancel_task of no task", status(report.StatusSolving), report.CancelTask{TaskID: 9}, apperr.EntityNotFound, http.StatusNotFound},
		{"cancel_task after the run", status(report.StatusCompleted), report.CancelTask{TaskID: 1}, apperr.Conflict, http.StatusConflict},
		{"cancel_task of a finished task", status(report.StatusSolving, func(x *report.Session) { x.TaskState[1] = report.TaskCompleted }), report.CancelTask{TaskID: 1}, apperr.Conflict, http.StatusConflict},
		{"restart_task while planning", status(report.StatusPlanning), report.RestartTask{TaskID: 1}, apperr.Conflict, http.StatusConflict},
		{"restart_task of no task", status(report.StatusSolving), report.RestartTask{TaskID: 9}, apperr.EntityNotFound, http.StatusNotFound},
		{"replan before any message", nil, report.Replan{}, apperr.ValidationError, http.StatusBadRequest},
		{"solve_tasks without a template", nil, report.SolveTasks{Tasks: []report.UserTask{{ID: 1}}}, apperr.ValidationError, http.StatusBadRequest},
		{"reconnect with a forged state", nil, report.ReconnectWithState{State: "e30.c2ln"}, apperr.AuthError, http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.session(t, c.set)
			_, err := f.handle(s.ID, c.ev)
			wantCode(t, err, c.code, c.status)
			if len(f.runs.Started()) != 0 || len(f.runs.Answered()) != 0 {
				t.Errorf("a refused event started %v or answered %v", f.runs.Started(), f.runs.Answered())
			}
			if after := f.get(t, s.ID); after.Version != s.Version {
				t.Errorf("a refused event changed the session: %+v", after)
			}
		})
	}
}

func TestConfirm(t *testing.T) {
	for _, confirmed := range []bool{true, false} {
		t.Run(map[bool]string{true: "confirmed", false: "declined"}[confirmed], func(t *testing.T) {
			f := newFixture(t)
			s := f.session(t, status(report.StatusConfirming, func(x *report.Session) { x.StepID = "tok" }))
			r := report.Response{StepID: "tok", Confirmed: confirmed, Tasks: []report.UserTask{{ID: 2, Notes: "只写数学"}}}
			if _, err := f.handle(s.ID, r); err != nil {
				t.Fatal(err)
			}
			if got, want := string(f.runs.Answered()["tok"]), `{"confirmed":`+map[bool]string{true: "true", false: "false"}[confirmed]+`}`; got != want {
				t.Errorf("task token got %s, want %s", got, want)
			}
			got := f.get(t, s.ID)
			wantStatus, wantState1, wantNotes := report.StatusConfirming, report.TaskPending, ""
			if confirmed { // the tasks left out are cancelled, the listed ones edited
				wantStatus, wantState1, wantNotes = report.StatusSolving, report.TaskCancelled, "只写数学"
			}
			if got.StepID != "" || got.Status != wantStatus || got.TaskState[1] != wantState1 || got.Tasks[1].Notes != wantNotes {
				t.Errorf("session = status %s step %q states %v tasks %+v", got.Status, got.StepID, got.TaskState, got.Tasks)
			}
		})
	}
}

func TestConfirmationNoLongerAwaited(t *testing.T) {
	f := newFixture(t)
	f.runs.AnswerErr = errors.New("TaskTimedOut")
	s := f.session(t, status(report.StatusConfirming, func(x *report.Session) { x.StepID = "tok" }))
	_, err := f.handle(s.ID, report.Response{StepID: "tok", Confirmed: true})
	wantCode(t, err, apperr.Conflict, http.StatusConflict)
	if got := f.get(t, s.ID); got.StepID != "tok" {
		t.Errorf("a failed confirmation cleared the step: %+v", got)
	}
}

func TestCancel(t *testing.T) {
	cases := []struct {
		ev   report.ClientEvent
		from string
	}{
		{report.Cancel{}, report.StatusSolving},
		{report.CancelPlan{}, report.StatusConfirming},
	}
	for _, c := range cases {
		t.Run(c.ev.Name(), func(t *testing.T) {
			f := newFixture(t)
			s := f.session(t, status(c.from, func(x *report.Session) { x.StepID = "tok" }))
			if _, err := f.handle(s.ID, c.ev); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.runs.Stopped(), []string{s.Execution}) {
				t.Errorf("stopped %v, want %s", f.runs.Stopped(), s.Execution)
			}
			// The run number moves on so that the stopped run's late steps stand down.
			if got := f.get(t, s.ID); got.Status != report.StatusCancelled || got.StepID != "" || got.Run != s.Run+1 {
				t.Errorf("session = %+v", got)
			}
			if got := f.events(t, s.ID); !slices.Equal(got, []string{"agent.session_created", "agent.cancelled", "pipeline.completed"}) {
				t.Errorf("events = %v", got)
			}
		})
	}
}

func TestCancelAndRestartTask(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, status(report.StatusSolving))
	if _, err := f.handle(s.ID, report.CancelTask{TaskID: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.handle(s.ID, report.RestartTask{TaskID: 2}); err != nil {
		t.Fatal(err)
	}
	got := f.get(t, s.ID)
	if got.TaskState[1] != report.TaskCancelled || got.TaskState[2] != report.TaskPending || got.Restarts[2] != 1 || got.Run != s.Run {
		t.Errorf("session = states %v restarts %v run %d", got.TaskState, got.Restarts, got.Run)
	}
	if len(f.runs.Started()) != 0 || len(f.runs.Stopped()) != 0 {
		t.Errorf("a running run was started %v or stopped %v", f.runs.Started(), f.runs.Stopped())
	}
	if evs := f.events(t, s.ID); !slices.Equal(evs, []string{"agent.session_created", "agent.cancelled"}) {
		t.Errorf("events = %v", evs)
	}
}

func TestAfterARunTasksRunAgain(t *testing.T) {
	cases := []struct {
		ev    report.ClientEvent
		mode  string
		state string
	}{
		{report.RestartTask{TaskID: 2}, pipeline.ModeSolve, report.StatusSolving},
		{report.Replan{Question: "换个角度"}, pipeline.ModePlan, report.StatusPlanning},
		{report.SolveTasks{Tasks: []report.UserTask{{ID: 1}}}, pipeline.ModeSolve, report.StatusSolving},
	}
	for _, c := range cases {
		t.Run(c.ev.Name(), func(t *testing.T) {
			f := newFixture(t)
			s := f.session(t, status(report.StatusCompleted))
			if _, err := f.handle(s.ID, c.ev); err != nil {
				t.Fatal(err)
			}
			name := "template-" + s.ID + "-2"
			if in, ok := f.started(t, name); !ok || in.Mode != c.mode || in.Run != 2 {
				t.Errorf("started %v, want %s in mode %s", f.runs.Started(), name, c.mode)
			}
			if got := f.get(t, s.ID); got.Status != c.state || got.Run != 2 || got.Execution != name {
				t.Errorf("session = %+v", got)
			}
		})
	}
}

func TestAStartThatFailsFailsTheSession(t *testing.T) {
	f := newFixture(t)
	f.runs.StartErr = errors.New("throttled")
	s := f.session(t, nil)
	_, err := f.handle(s.ID, report.Message{Question: "写报告", TemplateName: "学期总结"})
	wantCode(t, err, apperr.ServiceUnavailable, http.StatusServiceUnavailable)
	if got := f.get(t, s.ID); got.Status != report.StatusFailed {
		t.Errorf("status = %s, want failed", got.Status)
	}
}

func TestStateRestoresASession(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	s := f.session(t, status(report.StatusCompleted))
	r, err := f.handle(s.ID, report.RequestState{})
	if err != nil {
		t.Fatal(err)
	}
	st, ok := r.Direct[0].(report.State)
	if len(r.Direct) != 1 || !ok || st.ExpiresAt != f.now.Add(time.Hour).UTC().Format(time.RFC3339) {
		t.Fatalf("request_state = %+v", r)
	}

	// The socket closes: the session closes with it.
	if err := f.svc.Close(ctx, "c-1"); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, s.ID); got.Status != report.StatusClosed {
		t.Fatalf("after close: %+v", got)
	}
	if _, err := f.store.GetConnection(ctx, "c-1"); !errors.Is(err, report.ErrNotFound) {
		t.Errorf("the closed connection is still stored: %v", err)
	}

	// Another teacher cannot use the state; its teacher can, on a new socket.
	other := Caller{TeacherID: "t-002", ConnectionID: "c-9"}
	_, err = f.svc.Handle(ctx, other, report.Envelope{SessionID: s.ID}, report.ReconnectWithState{State: st.State})
	wantCode(t, err, apperr.AuthError, http.StatusForbidden)
	again := Caller{TeacherID: "t-001", ConnectionID: "c-2"}
	if err := f.svc.Open(ctx, Caller{TeacherID: "t-001", ConnectionID: "c-2"}); err != nil {
		t.Fatal(err)
	}
	r, err = f.svc.Handle(ctx, again, report.Envelope{SessionID: s.ID}, report.ReconnectWithState{State: st.State})
	if err != nil {
		t.Fatal(err)
	}
	if r.Subscribe != s.ID || r.After != 1 || len(r.Direct) != 1 || r.Direct[0] != (report.Reconnected{Status: report.StatusIdle}) {
		t.Errorf("reconnect = %+v", r)
	}
	if got, err := f.svc.Session(ctx, again, s.ID); err != nil || got.Status != report.StatusIdle {
		t.Errorf("the session on its new socket = %+v, %v", got, err)
	}

	// An expired state is refused.
	f.now = f.now.Add(2 * time.Hour)
	_, err = f.svc.Handle(ctx, again, report.Envelope{SessionID: s.ID}, report.ReconnectWithState{State: st.State})
	wantCode(t, err, apperr.AuthError, http.StatusForbidden)
}

func TestCloseStopsRunningSessions(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, status(report.StatusSolving))
	if err := f.svc.Close(context.Background(), "c-1"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.runs.Stopped(), []string{s.Execution}) {
		t.Errorf("stopped %v, want %s", f.runs.Stopped(), s.Execution)
	}
	if got := f.get(t, s.ID); got.Status != report.StatusClosed || got.Run != s.Run+1 {
		t.Errorf("session = %+v", got)
	}
	if err := f.svc.Close(context.Background(), "c-1"); err != nil {
		t.Errorf("closing an unknown connection: %v", err)
	}
}
