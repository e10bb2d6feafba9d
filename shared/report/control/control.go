// Package control answers the client events of seed 002 for both transports
// (WebSocket and SSE+POST): it creates sessions, starts, stops and steers the
// template workflow's executions, routes user.response to the waiting task
// token, and exports and restores signed session state. It never writes to
// a client: session events go to the session's event log (the transport
// relays them); what concerns only the caller (errors, the signed state) is
// returned.
package control

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/flags"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/session"
)

// Starter starts and stops template workflow executions.
type Starter interface {
	Start(ctx context.Context, name string, input json.RawMessage) error
	Stop(ctx context.Context, name string) error
}

// TaskTokens answers a waiting .waitForTaskToken task.
type TaskTokens interface {
	SendTaskSuccess(ctx context.Context, token string, output json.RawMessage) error
}

// Caller is who sends an event.
type Caller struct {
	TeacherID string
	// ConnectionID is the socket ("" over SSE+POST).
	ConnectionID string
	// School is the teacher's school claim ("" when none) and Language
	// the language tag their client asked in ("" when unknown): the
	// fair-use admission's (issue 26).
	School, Language string
}

// Admitter admits a teacher's new template report, or refuses it with a
// RATE_LIMITED *apperr.Error (issue 26: LIMIT_REPORTS_PER_DAY; shared/wire
// adapts the edge's limiter).
type Admitter interface {
	AdmitReport(ctx context.Context, c Caller) error
}

// Result is what the transport does besides relaying the log.
type Result struct {
	// Direct events go to the caller only.
	Direct []report.ServerEvent
	// Subscribe is a session whose log the caller's connection now relays,
	// from the event after After.
	Subscribe string
	After     int64
}

// Options configure a Service.
type Options struct {
	Settings pipeline.Settings
	// Secret signs exported state (at least 16 bytes).
	Secret []byte
	// StateTTL is how long an exported state is accepted (default 1h).
	StateTTL time.Duration
	// SessionTTL is how long the store keeps a session (default 7 days).
	SessionTTL time.Duration
	Logger     *slog.Logger
	Now        func() time.Time
	// issue 32: crash recovery of template runs.
	// Runs, when its Leases is set, has every run hold a lease from its
	// start (report.RunLeases; its steps keep it).
	Runs report.RunLeases
	// Recover, when set, closes a run whose lease ran out (its process
	// died) when an event meets it, so that the session takes new work.
	Recover Recoverer
	// Switches are the operator's switches (issue 28; nil: all on): with
	// template reports paused, a new session or run is refused (paused).
	Switches flags.Source
	// Admit, when set, admits every new session, whichever transport
	// asks (issue 26).
	Admit Admitter
}

// Recoverer closes the work of an expired lease (recovery.Recoverer).
type Recoverer interface {
	IfDead(ctx context.Context, kind session.LeaseKind, id string) (bool, error)
}

// Service handles client events.
type Service struct {
	store    report.Store
	log      eventlog.Log
	start    Starter
	tokens   TaskTokens
	backends *backend.Resolver
	o        Options
}

// New returns a service.
func New(store report.Store, log eventlog.Log, st Starter, tokens TaskTokens, backends *backend.Resolver, o Options) (*Service, error) {
	if len(o.Secret) < 16 {
		return nil, errors.New("control: the state secret must have at least 16 bytes")
	}
	if o.StateTTL <= 0 {
		o.StateTTL = time.Hour
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = 7 * 24 * time.Hour
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{store: store, log: log, start: st, tokens: tokens, backends: backends, o: o}, nil
}

// Handle answers one client event. An *apperr.Error is the caller's
// agent.error (or 4xx); anything else is a failure of the service.
func (s *Service) Handle(ctx context.Context, c Caller, env report.Envelope, ev report.ClientEvent) (Result, error) {
	if e, ok := ev.(report.CreateSession); ok {
		return s.create(ctx, c, e)
	}
	if e, ok := ev.(report.ReconnectWithState); ok {
		return s.reconnect(ctx, c, env.SessionID, e)
	}
	sess, err := s.owned(ctx, c, env.SessionID)
	if err != nil {
		return Result{}, err
	}
	sess = s.ifDead(ctx, sess)
	switch e := ev.(type) {
	case report.Message:
		return Result{}, s.message(ctx, sess, e)
	case report.Response:
		return Result{}, s.respond(ctx, sess, e)
	case report.Cancel:
		return Result{}, s.cancel(ctx, sess, "run")
	case report.CancelPlan:
		if sess.Status != report.StatusPlanning && sess.Status != report.StatusConfirming {
			return Result{}, apperr.New(apperr.Conflict, "no plan is being made (status %s)", sess.Status)
		}
		return Result{}, s.cancel(ctx, sess, "plan")
	case report.CancelTask:
		return Result{}, s.cancelTask(ctx, sess, e.TaskID)
	case report.RestartTask:
		return Result{}, s.restartTask(ctx, sess, e.TaskID)
	case report.Replan:
		return Result{}, s.replan(ctx, sess, e)
	case report.SolveTasks:
		return Result{}, s.solveTasks(ctx, sess, e)
	case report.RequestState:
		return s.requestState(ctx, sess)
	}
	return Result{}, apperr.New(apperr.ValidationError, "unsupported event %s", env.Event)
}

// owned returns the session when it is the caller's: the same teacher and,
// for a socket's session, the same socket (seed: sessions are bound to their
// connection). Anything else is "Session not found", so ids cannot be probed.
func (s *Service) owned(ctx context.Context, c Caller, id string) (report.Session, error) {
	sess, err := s.store.GetSession(ctx, id)
	if errors.Is(err, report.ErrNotFound) || (err == nil && (sess.TeacherID != c.TeacherID || sess.ConnectionID != c.ConnectionID)) {
		return report.Session{}, apperr.New(apperr.EntityNotFound, "Session not found")
	}
	if err != nil {
		return report.Session{}, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	if sess.Status == report.StatusClosed {
		return report.Session{}, apperr.New(apperr.Conflict, "the session ended with its connection; send user.reconnect_with_state")
	}
	return sess, nil
}

// ifDead closes the session's run when its lease ran out (the process
// running it died; Options.Recover) and returns the session as it is then.
func (s *Service) ifDead(ctx context.Context, sess report.Session) report.Session {
	if !sess.Running() || s.o.Recover == nil {
		return sess
	}
	dead, err := s.o.Recover.IfDead(ctx, report.LeaseKind, report.LeaseID(sess.ID, sess.Run))
	if err != nil {
		s.o.Logger.WarnContext(ctx, "could not check the run's lease", "sessionId", sess.ID, "run", sess.Run, "err", err)
	}
	if !dead {
		return sess
	}
	if now, err := s.store.GetSession(ctx, sess.ID); err == nil {
		return now
	}
	return sess
}

// leased reports whether runs hold leases.
func (s *Service) leased() bool { return s.o.Runs.Leases != nil }

// release drops the lease of a run that was stopped or replaced.
func (s *Service) release(ctx context.Context, sess report.Session) {
	if s.leased() {
		s.o.Runs.Drop(ctx, sess.ID, sess.Run)
	}
}

func (s *Service) create(ctx context.Context, c Caller, _ report.CreateSession) (Result, error) {
	if err := s.paused(ctx, c.TeacherID, ""); err != nil {
		return Result{}, err
	}
	if s.o.Admit != nil {
		if err := s.o.Admit.AdmitReport(ctx, c); err != nil {
			return Result{}, err
		}
	}
	now := s.o.Now().UTC()
	sess := report.Session{ID: uuid.NewString(), TeacherID: c.TeacherID, ConnectionID: c.ConnectionID,
		Status: report.StatusIdle, ExpiresAt: now.Add(s.o.SessionTTL)}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		return Result{}, apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
	}
	if c.ConnectionID != "" {
		if err := s.store.AddSession(ctx, c.ConnectionID, sess.ID); err != nil {
			return Result{}, apperr.Wrap(err, apperr.ServiceUnavailable, "connection store unavailable")
		}
	}
	if err := report.Emitter(s.log, sess.ID).Emit(ctx, report.SessionCreated{}); err != nil {
		return Result{}, err
	}
	return Result{Subscribe: sess.ID}, nil
}

// CreateSession creates a session for the SSE+POST variant (c has no
// connection).
func (s *Service) CreateSession(ctx context.Context, c Caller) (string, error) {
	r, err := s.create(ctx, c, report.CreateSession{})
	return r.Subscribe, err
}

// Session returns a session the caller owns.
func (s *Service) Session(ctx context.Context, c Caller, id string) (report.Session, error) {
	return s.owned(ctx, c, id)
}

// begin starts a new run of the session in mode, after update prepared it.
func (s *Service) begin(ctx context.Context, sess report.Session, mode string, update func(*report.Session) error) error {
	if err := s.paused(ctx, sess.TeacherID, sess.Language); err != nil {
		return err
	}
	if sess.Running() {
		if err := s.stop(ctx, sess); err != nil {
			return err
		}
		s.release(ctx, sess)
	}
	next, err := s.store.UpdateSession(ctx, sess.ID, func(x *report.Session) error {
		if x.Run != sess.Run {
			return apperr.New(apperr.Conflict, "the session changed meanwhile; send the event again")
		}
		if err := update(x); err != nil {
			return err
		}
		x.Run++
		x.StepID = ""
		x.Execution = executionName(x.ID, x.Run)
		return nil
	})
	if err != nil {
		return storeErr(err)
	}
	in, _ := json.Marshal(pipeline.RunInput{SessionID: next.ID, TeacherID: next.TeacherID, Run: next.Run, Mode: mode,
		ConfirmTimeout: max(1, int(s.o.Settings.ConfirmTimeout/time.Second)), Concurrency: s.o.Settings.Concurrency})
	if s.leased() { // the run's lease, before anything runs (issue 32)
		err = s.o.Runs.Take(ctx, next.ID, next.Run)
	}
	if err == nil {
		err = s.start.Start(ctx, next.Execution, in)
	}
	if err != nil {
		s.release(ctx, next)
		_, _ = s.store.UpdateSession(context.WithoutCancel(ctx), next.ID, func(x *report.Session) error {
			if x.Run == next.Run {
				x.Status = report.StatusFailed
			}
			return nil
		})
		return apperr.Wrap(err, apperr.ServiceUnavailable, "the workflow could not be started")
	}
	s.o.Logger.Info("template run started", "sessionId", next.ID, "run", next.Run, "mode", mode)
	return nil
}

// paused refuses new work while the operators have paused template
// reports (issue 28): the seed's refusal, agent.error, with the paused
// notice's words and SERVICE_UNAVAILABLE (a pause, not a failure of the
// request); the session's other events (cancel, state) still work.
func (s *Service) paused(ctx context.Context, teacher, lang string) error {
	if flags.Read(ctx, s.o.Switches).On(flags.TemplateReports) {
		return nil
	}
	s.o.Logger.InfoContext(ctx, "capability paused", "capability", flags.TemplateReports, "teacher", teacher)
	return apperr.New(apperr.ServiceUnavailable, "%s", flags.Notice(flags.TemplateReports, i18n.Of(lang)).Message)
}

func executionName(sessionID string, run int) string {
	return "template-" + sessionID + "-" + strconv.Itoa(run)
}

func storeErr(err error) error {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae
	}
	return apperr.Wrap(err, apperr.ServiceUnavailable, "session store unavailable")
}

func (s *Service) message(ctx context.Context, sess report.Session, m report.Message) error {
	if sess.Running() {
		return apperr.New(apperr.Conflict, "a run is in progress (status %s); send user.cancel or user.replan", sess.Status)
	}
	if !i18n.ValidTag(m.Language) {
		return apperr.New(apperr.ValidationError, "language must be a tag such as en or zh-CN, at most %d characters", i18n.MaxTagLen)
	}
	if err := s.paused(ctx, sess.TeacherID, cmp.Or(m.Language, sess.Language)); err != nil {
		return err // in the message's language (begin checks every run too)
	}
	if _, err := s.backends.For(m.APIBaseURL); err != nil {
		return apperr.Wrap(err, apperr.ValidationError, "api_base_url %q is not an allowed template backend", m.APIBaseURL)
	}
	return s.begin(ctx, sess, pipeline.ModePlan, func(x *report.Session) error {
		if sameSources(x.Message, m) && x.TemplatePath != "" {
			m.Language = x.Language
		} else {
			x.TemplatePath = "" // other sources: load them
		}
		if m.TemplateName == "" && m.TemplateID == "" && m.KnowledgeBaseName == "" && m.DatabaseID == "" {
			q := m.Question // a follow-up question keeps the session's template and knowledge base
			m = x.Message
			m.Question = q
		}
		x.Message, x.Status = m, report.StatusPlanning
		x.Tasks, x.TaskState, x.Restarts, x.Submitted, x.PlanSummary = nil, nil, nil, nil, ""
		return nil
	})
}

func sameSources(a, b report.Message) bool {
	return a.TemplateName == b.TemplateName && a.TemplateID == b.TemplateID && a.KnowledgeBaseName == b.KnowledgeBaseName &&
		a.DatabaseID == b.DatabaseID && a.APIBaseURL == b.APIBaseURL
}

func (s *Service) respond(ctx context.Context, sess report.Session, r report.Response) error {
	if sess.Status != report.StatusConfirming || sess.StepID == "" {
		return apperr.New(apperr.Conflict, "no confirmation is pending (status %s)", sess.Status)
	}
	if r.StepID != sess.StepID {
		return apperr.New(apperr.ValidationError, "step_id does not match the pending confirmation")
	}
	if r.Confirmed && len(r.Tasks) > 0 {
		if _, err := s.store.UpdateSession(ctx, sess.ID, func(x *report.Session) error {
			return editTasks(x, r.Tasks)
		}); err != nil {
			return storeErr(err)
		}
	}
	out, _ := json.Marshal(pipeline.ConfirmResult{Confirmed: r.Confirmed})
	if err := s.tokens.SendTaskSuccess(ctx, r.StepID, out); err != nil {
		return apperr.Wrap(err, apperr.Conflict, "the confirmation is no longer awaited (it timed out or the run ended)")
	}
	_, err := s.store.UpdateSession(ctx, sess.ID, func(x *report.Session) error {
		if x.StepID == r.StepID {
			x.StepID = ""
			if r.Confirmed {
				x.Status = report.StatusSolving
			}
		}
		return nil
	})
	return storeErr0(err)
}

func storeErr0(err error) error {
	if err == nil {
		return nil
	}
	return storeErr(err)
}

// editTasks applies the tasks of a confirming user.response: listed tasks
// take the given references; tasks not listed are not written.
func editTasks(x *report.Session, given []report.UserTask) error {
	byID := map[int]report.UserTask{}
	for _, u := range given {
		if _, ok := x.Task(u.ID); !ok {
			return apperr.New(apperr.ValidationError, "task %d is not in the plan (1..%d)", u.ID, len(x.Tasks))
		}
		byID[u.ID] = u
	}
	for i, t := range x.Tasks {
		u, ok := byID[t.ID]
		if !ok {
			x.TaskState[t.ID] = report.TaskCancelled
			continue
		}
		if u.RequiredInputs != nil {
			x.Tasks[i].RequiredInputs = u.RequiredInputs
		}
		if u.Hints != nil {
			x.Tasks[i].Hints = u.Hints
		}
		if u.Notes != "" {
			x.Tasks[i].Notes = u.Notes
		}
	}
	return nil
}

// stop ends the session's running execution.
func (s *Service) stop(ctx context.Context, sess report.Session) error {
	if sess.Execution == "" {
		return nil
	}
	if err := s.start.Stop(ctx, sess.Execution); err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "the run could not be stopped")
	}
	return nil
}

func (s *Service) cancel(ctx context.Context, sess report.Session, what string) error {
	if !sess.Running() {
		return apperr.New(apperr.Conflict, "nothing is running (status %s)", sess.Status)
	}
	if err := s.stop(ctx, sess); err != nil {
		return err
	}
	if _, err := s.store.UpdateSession(ctx, sess.ID, func(x *report.Session) error {
		x.Status, x.StepID = report.StatusCancelled, ""
		x.Run++ // the stopped run's late producers find a newer run and stop
		return nil
	}); err != nil {
		return storeErr(err)
	}
	s.release(ctx, sess)
	return report.Emitter(s.log, sess.ID).Emit(ctx, report.Cancelled{What: what}, report.PipelineCompleted{})
}

func (s *Service) cancelTask(ctx context.Context, sess report.Session, id int) error {
	if _, ok := sess.Task(id); !ok {
		return apperr.New(apperr.EntityNotFound, "task %d is not in the plan", id)
	}
	if !sess.Running() {
		return apperr.New(apperr.Conflict, "nothing is running (status %s)", sess.Status)
	}
	_, err := s.store.UpdateSession(ctx, sess.ID, func(x *report.Session) error {
		switch x.TaskState[id] {
		case report.TaskPending, report.TaskRunning:
			x.TaskState[id] = report.TaskCancelled
			return nil
		}
		return apperr.New(apperr.Conflict, "task %d is already %s", id, x.TaskState[id])
	})
	if err != nil {
		return storeErr(err)
	}
	return report.Emitter(s.log, sess.ID).Emit(ctx, report.Cancelled{What: "task", TaskID: id})
}

func (s *Service) restartTask(ctx context.Context, sess report.Session, id int) error {
	if _, ok := sess.Task(id); !ok {
		return apperr.New(apperr.EntityNotFound, "task %d is not in the plan", id)
	}
	restart := func(x *report.Session) error {
		if x.Restarts == nil {
			x.Restarts = map[int]int{}
		}
		x.TaskState[id] = report.TaskPending
		x.Restarts[id]++
		return nil
	}
	switch sess.Status {
	case report.StatusSolving, report.StatusConfirming:
		// A running solver sees the count change and starts over; a finished
		// iteration's task is pending again for the next round.
		_, err := s.store.UpdateSession(ctx, sess.ID, restart)
		return storeErr0(err)
	case report.StatusPlanning, report.StatusAggregating:
		return apperr.New(apperr.Conflict, "task %d cannot be restarted while the run is %s", id, sess.Status)
	}
	// After a run: solve this task again and re-aggregate with the others.
	return s.begin(ctx, sess, pipeline.ModeSolve, func(x *report.Session) error {
		x.Status = report.StatusSolving
		return restart(x)
	})
}

func (s *Service) replan(ctx context.Context, sess report.Session, r report.Replan) error {
	if sess.Message.Question == "" && r.Question == "" {
		return apperr.New(apperr.ValidationError, "nothing to plan yet: send user.message first")
	}
	return s.begin(ctx, sess, pipeline.ModePlan, func(x *report.Session) error {
		if r.Question != "" {
			x.Message.Question = r.Question
		}
		x.Status = report.StatusPlanning
		x.Tasks, x.TaskState, x.Restarts, x.Submitted, x.PlanSummary = nil, nil, nil, nil, ""
		return nil
	})
}

func (s *Service) solveTasks(ctx context.Context, sess report.Session, st report.SolveTasks) error {
	m := st.Message
	named := m.TemplateName != "" || m.TemplateID != ""
	if !named && sess.TemplatePath == "" && sess.Message.TemplateName == "" && sess.Message.TemplateID == "" {
		return apperr.New(apperr.ValidationError, "name a template (template_name) or send user.message first")
	}
	if _, err := s.backends.For(m.APIBaseURL); named && err != nil {
		return apperr.Wrap(err, apperr.ValidationError, "api_base_url %q is not an allowed template backend", m.APIBaseURL)
	}
	return s.begin(ctx, sess, pipeline.ModeSolve, func(x *report.Session) error {
		if named {
			if !sameSources(x.Message, m) {
				x.TemplatePath = ""
			}
			x.Message = m
		}
		if st.Question != "" {
			x.Message.Question = st.Question
		}
		x.Status = report.StatusSolving
		x.Tasks, x.TaskState, x.Restarts = nil, nil, nil
		x.Submitted, x.PlanSummary = st.Tasks, st.PlanSummary
		return nil
	})
}

func (s *Service) requestState(ctx context.Context, sess report.Session) (Result, error) {
	after, err := LastSeq(ctx, s.log, report.StreamName(sess.ID))
	if err != nil {
		return Result{}, apperr.Wrap(err, apperr.ServiceUnavailable, "event log unavailable")
	}
	exp := s.o.Now().Add(s.o.StateTTL)
	tok, err := sign(s.o.Secret, SignedState{SessionID: sess.ID, TeacherID: sess.TeacherID, Status: sess.Status,
		Message: sess.Message, Language: sess.Language, PlanSummary: sess.PlanSummary, Tasks: sess.Tasks,
		TaskState: sess.TaskState, After: after, ExpiresAt: exp.Unix()})
	if err != nil {
		return Result{}, err
	}
	return Result{Direct: []report.ServerEvent{report.State{State: tok, ExpiresAt: exp.UTC().Format(time.RFC3339)}}}, nil
}

func (s *Service) reconnect(ctx context.Context, c Caller, sessionID string, r report.ReconnectWithState) (Result, error) {
	st, err := verify(s.o.Secret, r.State, s.o.Now())
	switch {
	case errors.Is(err, ErrStateExpired):
		return Result{}, apperr.New(apperr.AuthError, "the state has expired; start a new session").WithStatus(403)
	case err != nil:
		return Result{}, apperr.New(apperr.AuthError, "the state is invalid or was altered").WithStatus(403)
	case st.SessionID != sessionID || st.TeacherID != c.TeacherID:
		return Result{}, apperr.New(apperr.AuthError, "the state belongs to another session or teacher").WithStatus(403)
	}
	sess, err := s.store.GetSession(ctx, st.SessionID)
	if errors.Is(err, report.ErrNotFound) {
		// The store forgot it: the signed state brings it back.
		sess = report.Session{ID: st.SessionID, TeacherID: st.TeacherID, Status: report.StatusIdle, Message: st.Message,
			Language: st.Language, PlanSummary: st.PlanSummary, Tasks: st.Tasks, TaskState: st.TaskState,
			ExpiresAt: s.o.Now().Add(s.o.SessionTTL)}
		if err = s.store.CreateSession(ctx, sess); err != nil && !errors.Is(err, report.ErrExists) {
			return Result{}, storeErr(err)
		}
	} else if err != nil {
		return Result{}, storeErr(err)
	}
	if sess.TeacherID != c.TeacherID {
		return Result{}, apperr.New(apperr.AuthError, "the state belongs to another teacher").WithStatus(403)
	}
	sess, err = s.store.UpdateSession(ctx, sess.ID, func(x *report.Session) error {
		x.ConnectionID = c.ConnectionID
		if x.Status == report.StatusClosed {
			x.Status = report.StatusIdle
		}
		return nil
	})
	if err != nil {
		return Result{}, storeErr(err)
	}
	if c.ConnectionID != "" {
		if err := s.store.AddSession(ctx, c.ConnectionID, sess.ID); err != nil {
			return Result{}, storeErr(err)
		}
	}
	return Result{Direct: []report.ServerEvent{report.Reconnected{Status: sess.Status}}, Subscribe: sess.ID, After: st.After}, nil
}

// Open records a new connection, c's.
func (s *Service) Open(ctx context.Context, c Caller) error {
	now := s.o.Now().UTC()
	return s.store.PutConnection(ctx, report.Connection{ID: c.ConnectionID, TeacherID: c.TeacherID, School: c.School,
		Language: c.Language, CreatedAt: now, ExpiresAt: now.Add(s.o.SessionTTL)})
}

// Close ends a connection: seed 002 binds sessions to their socket, so its
// sessions' runs stop and the sessions close (user.reconnect_with_state on
// another socket resumes one).
func (s *Service) Close(ctx context.Context, connID string) error {
	c, err := s.store.GetConnection(ctx, connID)
	if errors.Is(err, report.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range c.Sessions {
		sess, err := s.store.GetSession(ctx, id)
		if err != nil || sess.ConnectionID != connID {
			continue // moved to another connection by a reconnect
		}
		if sess.Running() {
			errs = append(errs, s.stop(ctx, sess))
			s.release(ctx, sess)
		}
		_, err = s.store.UpdateSession(ctx, id, func(x *report.Session) error {
			if x.ConnectionID == connID {
				x.Status, x.StepID = report.StatusClosed, ""
				x.Run++
			}
			return nil
		})
		errs = append(errs, err)
	}
	errs = append(errs, s.store.DeleteConnection(ctx, connID))
	return errors.Join(errs...)
}

// LastSeq finds the last seq of a stream with O(log n) reads.
func LastSeq(ctx context.Context, r eventlog.Reader, stream string) (int64, error) {
	has := func(seq int64) (bool, error) {
		evs, err := r.Read(ctx, stream, seq-1, 1)
		return len(evs) == 1, err
	}
	hi := int64(1)
	for {
		ok, err := has(hi)
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		if hi > 1<<40 {
			return 0, fmt.Errorf("control: stream %s is implausibly long", stream)
		}
		hi *= 2
	}
	lo := hi / 2 // lo exists (or is 0), hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, err := has(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
