package transport_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/control"
	"github.com/insightedge/insightedge/shared/report/transport"
)

// scripted answers every event with res and err, and records what it got.
type scripted struct {
	res  control.Result
	err  error
	got  []report.ClientEvent
	from []control.Caller
}

func (s *scripted) Handle(_ context.Context, c control.Caller, _ report.Envelope, ev report.ClientEvent) (control.Result, error) {
	s.got = append(s.got, ev)
	s.from = append(s.from, c)
	return s.res, s.err
}

// socket is a Conn that records its frames and relays.
type socket struct {
	refuse error
	sent   []string
	relays []string
}

func (s *socket) Caller() control.Caller {
	return control.Caller{TeacherID: "t-001", ConnectionID: "conn-1"}
}
func (s *socket) Admit(report.ClientEvent) error { return s.refuse }
func (s *socket) Send(_ context.Context, frame []byte) error {
	s.sent = append(s.sent, string(frame))
	return nil
}
func (s *socket) Relay(_ context.Context, sessionID string, after int64) error {
	s.relays = append(s.relays, fmt.Sprintf("%s@%d", sessionID, after))
	return nil
}

func frame(t *testing.T, sessionID string, ev report.ServerEvent) string {
	t.Helper()
	b, err := report.Encode(sessionID, ev)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDispatch: a frame is decoded, admitted, carried out by the control
// service as the socket's caller; errors and the caller's own events are
// sent to the socket alone, and a session to relay is handed to it.
func TestDispatch(t *testing.T) {
	const message = `{"event":"user.message","session_id":"s-1","content":"写一份报告"}`
	const noSession = `{"event":"user.message","content":"写一份报告"}`
	_, _, decodeErr := report.DecodeClient([]byte(noSession))
	tests := []struct {
		name     string
		frame    string
		svc      scripted
		refuse   error
		handled  bool
		sid      string // the session the answers name
		want     []report.ServerEvent
		wantRely []string
	}{
		{name: "not an envelope", frame: noSession,
			want: []report.ServerEvent{report.Error{Code: "VALIDATION_ERROR", Message: decodeErr.Error()}}},
		{name: "refused by the socket", frame: `{"event":"user.create_session"}`,
			refuse: apperr.New(apperr.ValidationError, "too many sessions on this connection"),
			want:   []report.ServerEvent{report.Error{Code: "VALIDATION_ERROR", Message: "too many sessions on this connection"}}},
		{name: "refused by the service", frame: message, handled: true, sid: "s-1",
			svc:  scripted{err: apperr.New(apperr.EntityNotFound, "session %q not found", "s-1")},
			want: []report.ServerEvent{report.Error{Code: "ENTITY_NOT_FOUND", Message: `session "s-1" not found`}}},
		{name: "a plain error is internal", frame: message, handled: true, sid: "s-1",
			svc:  scripted{err: errors.New("disk on fire")},
			want: []report.ServerEvent{report.Error{Code: "INTERNAL_ERROR", Message: "internal error"}}},
		{name: "accepted", frame: message, handled: true},
		{name: "answered and relayed", frame: message, handled: true, sid: "s-1",
			svc: scripted{res: control.Result{Direct: []report.ServerEvent{report.Reconnected{}, report.Cancelled{What: "plan"}},
				Subscribe: "s-1", After: 7}},
			want: []report.ServerEvent{report.Reconnected{}, report.Cancelled{What: "plan"}}, wantRely: []string{"s-1@7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, sock := tt.svc, &socket{refuse: tt.refuse}
			transport.NewDispatcher(&svc, nil).Dispatch(context.Background(), sock, []byte(tt.frame))
			if handled := len(svc.got) == 1; handled != tt.handled || (handled && svc.from[0] != sock.Caller()) {
				t.Errorf("the service got %v from %v, want it handled: %v", svc.got, svc.from, tt.handled)
			}
			var want []string
			for _, ev := range tt.want {
				want = append(want, frame(t, tt.sid, ev))
			}
			if !slices.Equal(sock.sent, want) {
				t.Errorf("sent %q, want %q", sock.sent, want)
			}
			if !slices.Equal(sock.relays, tt.wantRely) {
				t.Errorf("relayed %q, want %q", sock.relays, tt.wantRely)
			}
		})
	}
}
