// Package sessiontest is the contract test suite of session.Store. Every
// implementation (the embedded bbolt store now, the DynamoDB store later)
// runs it:
//
//	func TestContract(t *testing.T) {
//		sessiontest.Run(t, func(t *testing.T) session.Store { return newStore(t) })
//	}
//
// Where the interface's comments leave a case open, the suite pins the reading
// that a DynamoDB store built from single-item conditional writes (no
// transactions: the local DynamoDB stand-in has none) can also honour:
//
//   - CreateSession stores a session with no active turn and no turns,
//     whatever the given ActiveTurn and Turns; it stamps CreatedAt when it is
//     zero, and UpdatedAt.
//   - Version grows with every status change (BeginTurn, EndTurn). A lost
//     conditional write (ErrConflict) changes nothing: no turn is written and
//     the session keeps its version.
//   - BeginTurn returns the turn as stored: Index assigned, Status running,
//     StartedAt stamped when zero. Exactly one of concurrent BeginTurns wins.
//   - EndTurn takes a final status (completed, failed, stopped); running or ""
//     is an error other than ErrConflict. It fails with ErrNotFound for an
//     unknown session or turn (after a failed conditional write a consistent
//     read tells "gone" from "no longer running") and with ErrConflict for a
//     turn that has ended. Ending an old turn never clears the active turn of
//     a newer one. Exactly one of concurrent EndTurns of a turn wins.
//   - ListTurns, PageTurns and ListRecords of an unknown session return
//     nothing and no error (they are queries of one partition).
//   - PageTurns pages back from the newest turn: pages of limit turns, oldest
//     first within a page, the next page asked with before = the first
//     index of the last; more is false on the page holding turn 1.
//   - ExpiresAt is kept to the second at least (DynamoDB's TTL attribute is
//     epoch seconds); the suite uses whole seconds. Other times are compared
//     with time.Equal.
//   - Records are opaque bytes, kept byte for byte; the store neither keeps
//     nor returns a slice the caller can change afterwards. Whether PutRecord
//     needs the session to exist is left open (a single-item write cannot
//     check another item).
package sessiontest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/session"
)

// Run runs the contract suite; newStore returns an empty store for one subtest.
func Run(t *testing.T, newStore func(t *testing.T) session.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s session.Store)
	}{
		{"CreateGet", testCreateGet},
		{"CreateStampsTimes", testCreateStampsTimes},
		{"CreateExists", testCreateExists},
		{"GetNotFound", testGetNotFound},
		{"BeginTurnAssignsIndex", testBeginTurnAssignsIndex},
		{"BeginTurnWhileRunning", testBeginTurnWhileRunning},
		{"BeginTurnRace", testBeginTurnRace},
		{"BeginTurnNotFound", testBeginTurnNotFound},
		{"EndTurn", testEndTurn},
		{"EndTurnNotRunning", testEndTurnNotRunning},
		{"EndTurnOldTurn", testEndTurnOldTurn},
		{"EndTurnNotFound", testEndTurnNotFound},
		{"EndTurnBadStatus", testEndTurnBadStatus},
		{"EndTurnRace", testEndTurnRace},
		{"ListTurns", testListTurns},
		{"TurnReplaces", testTurnReplaces},
		{"PageTurns", testPageTurns},
		{"Version", testVersion},
		{"ExpiresAt", testExpiresAt},
		{"Records", testRecords},
		{"RecordsPrefix", testRecordsPrefix},
		{"RecordsIsolated", testRecordsIsolated},
		{"RecordsNotAliased", testRecordsNotAliased},
		{"RecordsLarge", testRecordsLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newStore(t))
		})
	}
}

// expiry is a whole-second time in the future, as a TTL attribute keeps it.
func expiry() time.Time { return time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC) }

func newSession(id string) session.Session {
	return session.Session{
		ID:        id,
		TeacherID: "teacher-1",
		Kind:      "chat",
		Title:     "Fractions, grade 5",
		CreatedAt: time.Date(2026, 11, 25, 9, 30, 0, 0, time.UTC),
		ExpiresAt: expiry(),
	}
}

func newTurn(sessionID, id string) session.Turn {
	return session.Turn{
		SessionID: sessionID,
		ID:        id,
		Message:   "make a quiz about " + id,
		MessageID: "msg-" + id,
	}
}

func create(t *testing.T, s session.Store, id string) session.Session {
	t.Helper()
	sess := newSession(id)
	if err := s.CreateSession(context.Background(), sess); err != nil {
		t.Fatalf("CreateSession(%s): %v", id, err)
	}
	return sess
}

func get(t *testing.T, s session.Store, id string) session.Session {
	t.Helper()
	got, err := s.GetSession(context.Background(), id)
	if err != nil {
		t.Fatalf("GetSession(%s): %v", id, err)
	}
	return got
}

func begin(t *testing.T, s session.Store, sessionID, turnID string) session.Turn {
	t.Helper()
	got, err := s.BeginTurn(context.Background(), newTurn(sessionID, turnID))
	if err != nil {
		t.Fatalf("BeginTurn(%s, %s): %v", sessionID, turnID, err)
	}
	return got
}

func end(t *testing.T, s session.Store, sessionID, turnID string, st session.TurnStatus, out session.Outcome) {
	t.Helper()
	if err := s.EndTurn(context.Background(), sessionID, turnID, st, out); err != nil {
		t.Fatalf("EndTurn(%s, %s, %s): %v", sessionID, turnID, st, err)
	}
}

func getTurn(t *testing.T, s session.Store, sessionID, turnID string) session.Turn {
	t.Helper()
	got, err := s.GetTurn(context.Background(), sessionID, turnID)
	if err != nil {
		t.Fatalf("GetTurn(%s, %s): %v", sessionID, turnID, err)
	}
	return got
}

// checkTurn fails unless got equals want, comparing times with Equal.
func checkTurn(t *testing.T, got, want session.Turn) {
	t.Helper()
	if !got.StartedAt.Equal(want.StartedAt) || !got.EndedAt.Equal(want.EndedAt) {
		t.Fatalf("turn %s times = %v..%v, want %v..%v", got.ID, got.StartedAt, got.EndedAt, want.StartedAt, want.EndedAt)
	}
	got.StartedAt, got.EndedAt = want.StartedAt, want.EndedAt
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("turn = %+v\nwant  %+v", got, want)
	}
}

// checkUnchanged fails unless the session still equals before: a lost
// conditional write must change nothing.
func checkUnchanged(t *testing.T, s session.Store, before session.Session) {
	t.Helper()
	after := get(t, s, before.ID)
	if after.Version != before.Version || after.ActiveTurn != before.ActiveTurn || after.Turns != before.Turns {
		t.Fatalf("a rejected write changed the session: version %d→%d, active %q→%q, turns %d→%d",
			before.Version, after.Version, before.ActiveTurn, after.ActiveTurn, before.Turns, after.Turns)
	}
}

func testCreateGet(t *testing.T, s session.Store) {
	want := newSession("s-create")
	want.ActiveTurn, want.Turns = "stale", 7 // ignored: a new session has no turns
	if err := s.CreateSession(context.Background(), want); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	got := get(t, s, want.ID)
	if got.ID != want.ID || got.TeacherID != want.TeacherID || got.Kind != want.Kind || got.Title != want.Title {
		t.Fatalf("GetSession = %+v, want %+v", got, want)
	}
	if got.ActiveTurn != "" || got.Turns != 0 {
		t.Fatalf("new session has active turn %q and %d turns, want none", got.ActiveTurn, got.Turns)
	}
	if !got.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("CreatedAt = %v, want %v", got.CreatedAt, want.CreatedAt)
	}
	if !got.ExpiresAt.Equal(want.ExpiresAt) {
		t.Fatalf("ExpiresAt = %v, want %v", got.ExpiresAt, want.ExpiresAt)
	}
}

func testCreateStampsTimes(t *testing.T, s session.Store) {
	sess := newSession("s-stamps")
	sess.CreatedAt = time.Time{}
	if err := s.CreateSession(context.Background(), sess); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	got := get(t, s, sess.ID)
	if got.CreatedAt.IsZero() || got.UpdatedAt.IsZero() {
		t.Fatalf("CreatedAt = %v, UpdatedAt = %v, want both stamped", got.CreatedAt, got.UpdatedAt)
	}
}

func testCreateExists(t *testing.T, s session.Store) {
	create(t, s, "s-dup")
	again := newSession("s-dup")
	again.Title = "another"
	if err := s.CreateSession(context.Background(), again); !errors.Is(err, session.ErrExists) {
		t.Fatalf("second CreateSession: %v, want ErrExists", err)
	}
	if got := get(t, s, "s-dup"); got.Title != newSession("s-dup").Title {
		t.Fatalf("the rejected create overwrote the title with %q", got.Title)
	}
}

func testGetNotFound(t *testing.T, s session.Store) {
	if _, err := s.GetSession(context.Background(), "s-missing"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("GetSession of a missing session: %v, want ErrNotFound", err)
	}
	create(t, s, "s-present")
	if _, err := s.GetTurn(context.Background(), "s-present", "t-missing"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("GetTurn of a missing turn: %v, want ErrNotFound", err)
	}
	if _, err := s.GetTurn(context.Background(), "s-missing", "t-missing"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("GetTurn in a missing session: %v, want ErrNotFound", err)
	}
}

func testBeginTurnAssignsIndex(t *testing.T, s session.Store) {
	const sid = "s-index"
	create(t, s, sid)
	for i := 1; i <= 3; i++ {
		id := fmt.Sprint("t", i)
		in := newTurn(sid, id)
		in.Index, in.Status = 99, session.TurnCompleted // assigned by the store
		got, err := s.BeginTurn(context.Background(), in)
		if err != nil {
			t.Fatalf("BeginTurn %d: %v", i, err)
		}
		if got.Index != i || got.Status != session.TurnRunning {
			t.Fatalf("BeginTurn %d returned index %d status %q, want %d running", i, got.Index, got.Status, i)
		}
		if got.StartedAt.IsZero() {
			t.Fatalf("BeginTurn %d did not stamp StartedAt", i)
		}
		want := in
		want.Index, want.Status, want.StartedAt = i, session.TurnRunning, got.StartedAt
		checkTurn(t, got, want)
		checkTurn(t, getTurn(t, s, sid, id), want)

		sess := get(t, s, sid)
		if sess.ActiveTurn != id || sess.Turns != i {
			t.Fatalf("after BeginTurn %d: active %q, turns %d; want %q, %d", i, sess.ActiveTurn, sess.Turns, id, i)
		}
		end(t, s, sid, id, session.TurnCompleted, session.Outcome{Action: "chat"})
	}
	if sess := get(t, s, sid); sess.ActiveTurn != "" || sess.Turns != 3 {
		t.Fatalf("after three turns: active %q, turns %d; want none, 3", sess.ActiveTurn, sess.Turns)
	}
}

func testBeginTurnWhileRunning(t *testing.T, s session.Store) {
	const sid = "s-busy"
	create(t, s, sid)
	begin(t, s, sid, "t1")
	before := get(t, s, sid)
	if _, err := s.BeginTurn(context.Background(), newTurn(sid, "t2")); !errors.Is(err, session.ErrConflict) {
		t.Fatalf("BeginTurn while t1 runs: %v, want ErrConflict", err)
	}
	checkUnchanged(t, s, before)
	if _, err := s.GetTurn(context.Background(), sid, "t2"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("the rejected turn was stored: GetTurn = %v, want ErrNotFound", err)
	}
	if got := getTurn(t, s, sid, "t1"); got.Status != session.TurnRunning {
		t.Fatalf("t1 status = %q, want running", got.Status)
	}
}

// race runs try for racers racers at once and returns the one that won:
// exactly one must succeed, every other fail with session.ErrConflict.
func race(t *testing.T, what string, racers int, try func(i int) error) int {
	t.Helper()
	start := make(chan struct{})
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = try(i)
		}()
	}
	close(start)
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil:
			if won >= 0 {
				t.Fatalf("two %ss won: racers %d and %d", what, won, i)
			}
			won = i
		case !errors.Is(err, session.ErrConflict):
			t.Fatalf("racer %d: %v, want nil or ErrConflict", i, err)
		}
	}
	if won < 0 {
		t.Fatalf("no %s won", what)
	}
	return won
}

func testBeginTurnRace(t *testing.T, s session.Store) {
	const (
		sid     = "s-race"
		racers  = 8
		winners = 1
	)
	create(t, s, sid)
	won := race(t, "BeginTurn", racers, func(i int) error {
		_, err := s.BeginTurn(context.Background(), newTurn(sid, fmt.Sprint("t", i)))
		return err
	})
	sess := get(t, s, sid)
	if want := fmt.Sprint("t", won); sess.ActiveTurn != want || sess.Turns != winners {
		t.Fatalf("session: active %q, turns %d; want %q, %d", sess.ActiveTurn, sess.Turns, want, winners)
	}
	turns, err := s.ListTurns(context.Background(), sid)
	if err != nil {
		t.Fatalf("ListTurns: %v", err)
	}
	if len(turns) != winners || turns[0].Index != 1 {
		t.Fatalf("ListTurns = %+v, want the one winner with index 1", turns)
	}
}

func testBeginTurnNotFound(t *testing.T, s session.Store) {
	if _, err := s.BeginTurn(context.Background(), newTurn("s-missing", "t1")); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("BeginTurn without the session: %v, want ErrNotFound", err)
	}
}

func fullOutcome() session.Outcome {
	return session.Outcome{
		Action:    "build",
		Intent:    "quiz",
		Text:      "Here is your quiz: 5 questions on fractions.",
		Artifacts: []string{"quiz:5", "file-ready:pptx"},
		Clarify:   &session.Clarify{Question: "Which grade?", Options: []string{"4", "5"}, Hint: "pick one"},
		Warnings:  []string{"one source was unavailable"},
	}
}

func testEndTurn(t *testing.T, s session.Store) {
	const sid = "s-end"
	create(t, s, sid)
	started := begin(t, s, sid, "t1")
	out := fullOutcome()
	end(t, s, sid, "t1", session.TurnCompleted, out)

	got := getTurn(t, s, sid, "t1")
	if got.EndedAt.IsZero() {
		t.Fatal("EndTurn did not stamp EndedAt")
	}
	want := started
	want.Status, want.Outcome, want.EndedAt = session.TurnCompleted, out, got.EndedAt
	checkTurn(t, got, want)
	if sess := get(t, s, sid); sess.ActiveTurn != "" {
		t.Fatalf("active turn after EndTurn = %q, want none", sess.ActiveTurn)
	}

	failed := session.Outcome{Error: "The model is unavailable.", ErrorCode: "MODEL_ERROR"}
	begin(t, s, sid, "t2")
	end(t, s, sid, "t2", session.TurnFailed, failed)
	if got := getTurn(t, s, sid, "t2"); got.Status != session.TurnFailed || !reflect.DeepEqual(got.Outcome, failed) {
		t.Fatalf("failed turn = %q %+v, want failed %+v", got.Status, got.Outcome, failed)
	}
}

// testEndTurnNotRunning ends turns that have already ended, with every final
// status: each is a lost conditional write.
func testEndTurnNotRunning(t *testing.T, s session.Store) {
	const sid = "s-end-twice"
	create(t, s, sid)
	begin(t, s, sid, "t1")
	first := session.Outcome{Text: "first"}
	end(t, s, sid, "t1", session.TurnStopped, first)
	ended := getTurn(t, s, sid, "t1")
	before := get(t, s, sid)

	for _, st := range []session.TurnStatus{session.TurnCompleted, session.TurnFailed, session.TurnStopped} {
		t.Run(string(st), func(t *testing.T) {
			err := s.EndTurn(context.Background(), sid, "t1", st, session.Outcome{Text: "second"})
			if !errors.Is(err, session.ErrConflict) {
				t.Fatalf("EndTurn of an ended turn: %v, want ErrConflict", err)
			}
			checkTurn(t, getTurn(t, s, sid, "t1"), ended)
			checkUnchanged(t, s, before)
		})
	}
}

// testEndTurnOldTurn ends an ended turn while a newer one runs: the newer
// turn must stay active (a late Finish of a stopped turn must not free the
// session under the next turn).
func testEndTurnOldTurn(t *testing.T, s session.Store) {
	const sid = "s-old"
	create(t, s, sid)
	begin(t, s, sid, "t1")
	end(t, s, sid, "t1", session.TurnStopped, session.Outcome{})
	begin(t, s, sid, "t2")
	before := get(t, s, sid)
	if err := s.EndTurn(context.Background(), sid, "t1", session.TurnCompleted, session.Outcome{}); !errors.Is(err, session.ErrConflict) {
		t.Fatalf("EndTurn of the old turn: %v, want ErrConflict", err)
	}
	checkUnchanged(t, s, before)
	if _, err := s.BeginTurn(context.Background(), newTurn(sid, "t3")); !errors.Is(err, session.ErrConflict) {
		t.Fatalf("BeginTurn while t2 runs: %v, want ErrConflict", err)
	}
}

func testEndTurnNotFound(t *testing.T, s session.Store) {
	create(t, s, "s-present")
	tests := []struct{ name, session, turn string }{
		{"unknown turn", "s-present", "t-missing"},
		{"unknown session", "s-missing", "t1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.EndTurn(context.Background(), tt.session, tt.turn, session.TurnCompleted, session.Outcome{})
			if !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("EndTurn: %v, want ErrNotFound", err)
			}
		})
	}
}

func testEndTurnBadStatus(t *testing.T, s session.Store) {
	const sid = "s-bad-status"
	create(t, s, sid)
	begin(t, s, sid, "t1")
	before := get(t, s, sid)
	for _, st := range []session.TurnStatus{session.TurnRunning, "", "done"} {
		t.Run(fmt.Sprintf("%q", st), func(t *testing.T) {
			err := s.EndTurn(context.Background(), sid, "t1", st, session.Outcome{})
			if err == nil || errors.Is(err, session.ErrConflict) {
				t.Fatalf("EndTurn with status %q: %v, want an argument error", st, err)
			}
			if got := getTurn(t, s, sid, "t1"); got.Status != session.TurnRunning {
				t.Fatalf("turn status = %q, want running", got.Status)
			}
			checkUnchanged(t, s, before)
		})
	}
}

func testEndTurnRace(t *testing.T, s session.Store) {
	const (
		sid    = "s-end-race"
		racers = 8
	)
	create(t, s, sid)
	begin(t, s, sid, "t1")
	statuses := []session.TurnStatus{session.TurnCompleted, session.TurnFailed, session.TurnStopped}
	won := race(t, "EndTurn", racers, func(i int) error {
		return s.EndTurn(context.Background(), sid, "t1", statuses[i%len(statuses)],
			session.Outcome{Text: fmt.Sprint("racer ", i)})
	})
	got := getTurn(t, s, sid, "t1")
	if got.Status != statuses[won%len(statuses)] || got.Outcome.Text != fmt.Sprint("racer ", won) {
		t.Fatalf("stored %q %q, want the winner's %q %q", got.Status, got.Outcome.Text, statuses[won%len(statuses)], fmt.Sprint("racer ", won))
	}
}

// seedTurns creates session sid with turns turn-1 … turn-n, all completed
// but the last (running), beside session sid+"-other" with a turn of its
// own, which no listing of sid may show.
func seedTurns(t *testing.T, s session.Store, sid string, n int) {
	t.Helper()
	create(t, s, sid)
	create(t, s, sid+"-other")
	begin(t, s, sid+"-other", "other")
	for i := 1; i <= n; i++ {
		id := fmt.Sprint("turn-", i)
		begin(t, s, sid, id)
		if i < n {
			end(t, s, sid, id, session.TurnCompleted, session.Outcome{Text: fmt.Sprint("answer ", i)})
		}
	}
}

func testListTurns(t *testing.T, s session.Store) {
	const (
		sid = "s-list"
		n   = 11 // past 9, so that keys sorting as text would show
	)
	seedTurns(t, s, sid, n)
	turns, err := s.ListTurns(context.Background(), sid)
	if err != nil {
		t.Fatalf("ListTurns: %v", err)
	}
	if len(turns) != n {
		t.Fatalf("ListTurns returned %d turns, want %d", len(turns), n)
	}
	for i, tr := range turns {
		wantStatus := session.TurnCompleted
		if i == n-1 {
			wantStatus = session.TurnRunning
		}
		if tr.Index != i+1 || tr.ID != fmt.Sprint("turn-", i+1) || tr.SessionID != sid || tr.Status != wantStatus {
			t.Fatalf("turn %d = index %d id %q session %q status %q", i, tr.Index, tr.ID, tr.SessionID, tr.Status)
		}
	}

	none, err := s.ListTurns(context.Background(), "s-missing")
	if err != nil || len(none) != 0 {
		t.Fatalf("ListTurns of a missing session = %v, %v; want nothing, nil", none, err)
	}
	create(t, s, "s-list-empty")
	none, err = s.ListTurns(context.Background(), "s-list-empty")
	if err != nil || len(none) != 0 {
		t.Fatalf("ListTurns of a session without turns = %v, %v; want nothing, nil", none, err)
	}
}

func testPageTurns(t *testing.T, s session.Store) {
	const (
		sid = "s-page"
		n   = 23
	)
	ctx := context.Background()
	seedTurns(t, s, sid, n)
	all, err := s.ListTurns(ctx, sid)
	if err != nil || len(all) != n {
		t.Fatalf("ListTurns = %d turns, %v", len(all), err)
	}
	// Walk back as /messages does: before = the first index of the last page.
	var walked []session.Turn
	before, pages := 0, 0
	for more := true; more; pages++ {
		if pages > n {
			t.Fatal("PageTurns never said there was nothing more")
		}
		var page []session.Turn
		page, more, err = s.PageTurns(ctx, sid, before, 10)
		if err != nil {
			t.Fatalf("PageTurns(before %d): %v", before, err)
		}
		wantLen := min(10, n-len(walked))
		if len(page) != wantLen {
			t.Fatalf("PageTurns(before %d) = %d turns, want %d", before, len(page), wantLen)
		}
		if wantMore := len(walked)+len(page) < n; more != wantMore {
			t.Fatalf("PageTurns(before %d) more = %v, want %v", before, more, wantMore)
		}
		walked = append(append([]session.Turn{}, page...), walked...)
		before = page[0].Index
	}
	if pages != 3 {
		t.Errorf("23 turns in pages of 10 took %d pages, want 3", pages)
	}
	if !reflect.DeepEqual(walked, all) {
		t.Errorf("the pages, joined, differ from ListTurns:\n%+v\n%+v", walked, all)
	}
	if last := walked[n-1]; last.Status != session.TurnRunning {
		t.Errorf("the newest turn's status = %q, want running", last.Status)
	}

	for _, tc := range []struct {
		before, limit int
		from, to      int // indices of the page, inclusive; from > to for none
		more          bool
	}{
		{0, 1, n, n, true},
		{0, n, 1, n, false},
		{0, 200, 1, n, false},
		{5, 2, 3, 4, true},
		{3, 5, 1, 2, false},
		{1, 5, 1, 0, false},
		{n + 10, 3, n - 2, n, true},
	} {
		page, more, err := s.PageTurns(ctx, sid, tc.before, tc.limit)
		if err != nil {
			t.Fatalf("PageTurns(before %d, limit %d): %v", tc.before, tc.limit, err)
		}
		var got []int
		for _, tr := range page {
			got = append(got, tr.Index)
		}
		var want []int
		for i := tc.from; i <= tc.to; i++ {
			want = append(want, i)
		}
		if !reflect.DeepEqual(got, want) || more != tc.more {
			t.Errorf("PageTurns(before %d, limit %d) = %v more %v, want %v more %v", tc.before, tc.limit, got, more, want, tc.more)
		}
	}

	for _, id := range []string{"s-missing", "s-page-empty"} {
		if id == "s-page-empty" {
			create(t, s, id)
		}
		page, more, err := s.PageTurns(ctx, id, 0, 10)
		if err != nil || len(page) != 0 || more {
			t.Errorf("PageTurns(%s) = %v, %v, %v; want nothing", id, page, more, err)
		}
	}
	if _, _, err := s.PageTurns(ctx, sid, 0, 0); err == nil {
		t.Error("PageTurns with limit 0 gave no error")
	}
}

func testVersion(t *testing.T, s session.Store) {
	const sid = "s-version"
	create(t, s, sid)
	v := get(t, s, sid).Version
	step := func(what string, f func()) {
		t.Helper()
		f()
		got := get(t, s, sid).Version
		if got <= v {
			t.Fatalf("version after %s = %d, want more than %d", what, got, v)
		}
		v = got
	}
	step("BeginTurn", func() { begin(t, s, sid, "t1") })
	step("EndTurn", func() { end(t, s, sid, "t1", session.TurnCompleted, session.Outcome{}) })
	step("second BeginTurn", func() { begin(t, s, sid, "t2") })
	step("second EndTurn", func() { end(t, s, sid, "t2", session.TurnStopped, session.Outcome{}) })
}

func testExpiresAt(t *testing.T, s session.Store) {
	tests := []struct {
		name    string
		expires time.Time
	}{
		{"UTC", expiry()},
		{"other zone", time.Date(2030, 6, 1, 12, 0, 0, 0, time.FixedZone("UTC+8", 8*3600))},
		{"soon", time.Now().Add(time.Hour).Truncate(time.Second)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sess := newSession(fmt.Sprint("s-expires-", i))
			sess.ExpiresAt = tt.expires
			if err := s.CreateSession(context.Background(), sess); err != nil {
				t.Fatalf("CreateSession: %v", err)
			}
			if got := get(t, s, sess.ID).ExpiresAt; !got.Equal(tt.expires) {
				t.Fatalf("ExpiresAt = %v, want %v", got, tt.expires)
			}
		})
	}
}

func putRecord(t *testing.T, s session.Store, sid, key string, value []byte) {
	t.Helper()
	if err := s.PutRecord(context.Background(), sid, key, value); err != nil {
		t.Fatalf("PutRecord(%s, %s): %v", sid, key, err)
	}
}

func listRecords(t *testing.T, s session.Store, sid, prefix string) []session.Record {
	t.Helper()
	recs, err := s.ListRecords(context.Background(), sid, prefix)
	if err != nil {
		t.Fatalf("ListRecords(%s, %q): %v", sid, prefix, err)
	}
	return recs
}

func testRecords(t *testing.T, s session.Store) {
	const sid = "s-records"
	create(t, s, sid)
	binary := []byte{0, 1, 0xfe, 0xff, '\n'}
	putRecord(t, s, sid, "history/t1", []byte(`[{"role":"user"}]`))
	putRecord(t, s, sid, "tool/t1/c1", binary)

	got, err := s.GetRecord(context.Background(), sid, "tool/t1/c1")
	if err != nil || !bytes.Equal(got, binary) {
		t.Fatalf("GetRecord = %v, %v; want %v", got, err, binary)
	}
	putRecord(t, s, sid, "history/t1", []byte(`[{"role":"user"},{"role":"assistant"}]`))
	got, err = s.GetRecord(context.Background(), sid, "history/t1")
	if err != nil || string(got) != `[{"role":"user"},{"role":"assistant"}]` {
		t.Fatalf("GetRecord after overwrite = %q, %v", got, err)
	}
	if _, err := s.GetRecord(context.Background(), sid, "history/t2"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("GetRecord of a missing key: %v, want ErrNotFound", err)
	}
	if _, err := s.GetRecord(context.Background(), "s-missing", "history/t1"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("GetRecord in a missing session: %v, want ErrNotFound", err)
	}
	if recs := listRecords(t, s, "s-missing", ""); len(recs) != 0 {
		t.Fatalf("ListRecords of a missing session = %v, want nothing", recs)
	}
	putRecord(t, s, sid, "empty", nil)
	if got, err := s.GetRecord(context.Background(), sid, "empty"); err != nil || len(got) != 0 {
		t.Fatalf("GetRecord of an empty value = %q, %v; want empty, nil", got, err)
	}
}

func testRecordsPrefix(t *testing.T, s session.Store) {
	const sid = "s-prefix"
	create(t, s, sid)
	// Put out of order; List returns them by key.
	keys := []string{"tool/t2/c1", "history/t10", "tool/t1/c2", "history/t2", "tool/t1/c1", "history/t1", "tool/t1", "toolbox"}
	for _, k := range keys {
		putRecord(t, s, sid, k, []byte("v:"+k))
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"history/t1", "history/t10", "history/t2", "tool/t1", "tool/t1/c1", "tool/t1/c2", "tool/t2/c1", "toolbox"}},
		{"history/", []string{"history/t1", "history/t10", "history/t2"}},
		{"history/t1", []string{"history/t1", "history/t10"}},
		{"tool/t1/", []string{"tool/t1/c1", "tool/t1/c2"}},
		{"tool", []string{"tool/t1", "tool/t1/c1", "tool/t1/c2", "tool/t2/c1", "toolbox"}},
		{"tool/t1/c2", []string{"tool/t1/c2"}},
		{"tool/t3", nil},
		{"zzz", nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.prefix), func(t *testing.T) {
			recs := listRecords(t, s, sid, tt.prefix)
			var got []string
			for _, r := range recs {
				got = append(got, r.Key)
				if string(r.Value) != "v:"+r.Key {
					t.Fatalf("record %s = %q, want %q", r.Key, r.Value, "v:"+r.Key)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ListRecords(%q) keys = %q, want %q", tt.prefix, got, tt.want)
			}
		})
	}
}

func testRecordsIsolated(t *testing.T, s session.Store) {
	create(t, s, "s-a")
	create(t, s, "s-ab") // a session id that extends another's
	putRecord(t, s, "s-a", "history/t1", []byte("a"))
	putRecord(t, s, "s-ab", "history/t1", []byte("ab"))
	putRecord(t, s, "s-ab", "only-ab", []byte("ab"))

	for _, c := range []struct{ sid, want string }{{"s-a", "a"}, {"s-ab", "ab"}} {
		got, err := s.GetRecord(context.Background(), c.sid, "history/t1")
		if err != nil || string(got) != c.want {
			t.Fatalf("GetRecord(%s) = %q, %v; want %q", c.sid, got, err, c.want)
		}
	}
	if _, err := s.GetRecord(context.Background(), "s-a", "only-ab"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("another session's record is visible: %v", err)
	}
	recs := listRecords(t, s, "s-a", "")
	if len(recs) != 1 || recs[0].Key != "history/t1" || string(recs[0].Value) != "a" {
		t.Fatalf("ListRecords(s-a) = %+v, want only its own record", recs)
	}
}

func testRecordsNotAliased(t *testing.T, s session.Store) {
	const sid = "s-alias"
	create(t, s, sid)
	in := []byte("original")
	putRecord(t, s, sid, "k", in)
	copy(in, "CHANGED!")

	got, err := s.GetRecord(context.Background(), sid, "k")
	if err != nil || string(got) != "original" {
		t.Fatalf("GetRecord after changing the put slice = %q, %v", got, err)
	}
	copy(got, "CHANGED!")
	if again, _ := s.GetRecord(context.Background(), sid, "k"); string(again) != "original" {
		t.Fatalf("changing a returned value changed the store: %q", again)
	}
	recs := listRecords(t, s, sid, "")
	if len(recs) != 1 {
		t.Fatalf("ListRecords returned %d records, want 1", len(recs))
	}
	copy(recs[0].Value, "CHANGED!")
	if again, _ := s.GetRecord(context.Background(), sid, "k"); string(again) != "original" {
		t.Fatalf("changing a listed value changed the store: %q", again)
	}
}

// testRecordsLarge stores the attempt history of a tool-heavy turn: 500 KB,
// more than a DynamoDB item holds (400 KB). The store must keep it whole
// (the DynamoDB store does so through the claim check, shared/claimcheck).
func testRecordsLarge(t *testing.T, s session.Store) {
	const sid = "s-large"
	create(t, s, sid)
	history := func(fill byte) []byte {
		var b bytes.Buffer
		b.WriteString(`[{"role":"user","content":"出 5 道题"}`)
		for b.Len() < 500<<10 {
			fmt.Fprintf(&b, `,{"role":"tool","tool_call_id":"call-%d","content":"%s"}`, b.Len(), bytes.Repeat([]byte{fill}, 2000))
		}
		b.WriteString("]")
		return b.Bytes()
	}
	first, second := history('a'), history('b')
	putRecord(t, s, sid, "history/t1/1", first)
	putRecord(t, s, sid, "history/t1/2", []byte(`[]`))
	got, err := s.GetRecord(context.Background(), sid, "history/t1/1")
	if err != nil || !bytes.Equal(got, first) {
		t.Fatalf("GetRecord of %d bytes = %d bytes, %v", len(first), len(got), err)
	}
	putRecord(t, s, sid, "history/t1/1", second) // overwritten, as every round does
	recs := listRecords(t, s, sid, "history/t1/")
	if len(recs) != 2 || recs[0].Key != "history/t1/1" || !bytes.Equal(recs[0].Value, second) || string(recs[1].Value) != `[]` {
		t.Fatalf("ListRecords = %d records (first %d bytes), want the 500 KB history and the small one", len(recs), len(recs[0].Value))
	}
}

// testTurnReplaces: a regenerated turn's Replaces is kept through its end,
// and Visible hides the turns it replaced.
func testTurnReplaces(t *testing.T, s session.Store) {
	const sid = "s-replaces"
	create(t, s, sid)
	for _, id := range []string{"turn-1", "turn-2"} {
		begin(t, s, sid, id)
		end(t, s, sid, id, session.TurnCompleted, session.Outcome{Text: id})
	}
	regen := newTurn(sid, "turn-3")
	regen.Replaces = 2
	if _, err := s.BeginTurn(context.Background(), regen); err != nil {
		t.Fatalf("BeginTurn: %v", err)
	}
	end(t, s, sid, "turn-3", session.TurnCompleted, session.Outcome{Text: "again"})
	if got := getTurn(t, s, sid, "turn-3"); got.Replaces != 2 {
		t.Fatalf("GetTurn: Replaces = %d, want 2", got.Replaces)
	}
	turns, err := s.ListTurns(context.Background(), sid)
	if err != nil || len(turns) != 3 {
		t.Fatalf("ListTurns = %d turns, %v", len(turns), err)
	}
	var ids []string
	for _, tr := range session.Visible(turns) {
		ids = append(ids, tr.ID)
	}
	if strings.Join(ids, ",") != "turn-1,turn-3" {
		t.Fatalf("Visible = %v, want turn-1, turn-3", ids)
	}
}
