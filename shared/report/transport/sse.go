package transport

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/control"
)

// createSession is POST /api/template/sessions → 201 {session_id}.
func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	id, err := s.auth.Authenticate(r)
	if err != nil {
		return err
	}
	sid, err := s.svc.CreateSession(r.Context(), control.Caller{TeacherID: id.TeacherID, School: id.School,
		Language: r.Header.Get("Accept-Language")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"session_id": sid})
	return nil
}

// postEvent is POST /api/template/sessions/{id}/events: one client envelope.
// 202 when accepted (its effects arrive on the stream); 200 with the events
// that concern only the caller (the signed state); 4xx for a bad event.
func (s *Server) postEvent(w http.ResponseWriter, r *http.Request) error {
	id, err := s.auth.Authenticate(r)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, report.MaxFrameBytes+1))
	if err != nil {
		return apperr.Wrap(err, apperr.ValidationError, "could not read the body")
	}
	sid := r.PathValue("id")
	env, ev, err := report.DecodeClient(withSession(body, sid))
	if err != nil {
		return apperr.Wrap(err, apperr.ValidationError, "%s", err.Error())
	}
	if env.SessionID != sid {
		return apperr.New(apperr.ValidationError, "session_id %q does not match the path's %q", env.SessionID, sid)
	}
	if _, ok := ev.(report.CreateSession); ok {
		return apperr.New(apperr.ValidationError, "create sessions with POST /api/template/sessions")
	}
	res, err := s.svc.Handle(r.Context(), control.Caller{TeacherID: id.TeacherID}, env, ev)
	if err != nil {
		return err
	}
	if len(res.Direct) == 0 {
		writeJSON(w, http.StatusAccepted, map[string]any{"accepted": true, "after": res.After})
		return nil
	}
	var evs []json.RawMessage
	for _, d := range res.Direct {
		b, err := report.Encode(sid, d)
		if err != nil {
			return err
		}
		evs = append(evs, b)
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": evs, "after": res.After})
	return nil
}

// withSession fills an envelope's missing session_id from the path, so a
// client may post {"event":"user.cancel"}.
func withSession(body []byte, sid string) []byte {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return body
	}
	if v, ok := m["session_id"]; ok && v != "" {
		return body
	}
	m["session_id"] = sid
	b, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return b
}
