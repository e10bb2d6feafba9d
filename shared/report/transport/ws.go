package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/control"
)

// ServeWS serves one socket: client envelopes in (through the Dispatcher),
// the socket's sessions' logs and its own answers out, system.heartbeat
// meanwhile. Closing the socket ends its sessions (seed 002).
func (s *Server) ServeWS(w http.ResponseWriter, r *http.Request) {
	edge.Handle(s.rl.Logger, s.serveWS).ServeHTTP(w, r)
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) error {
	id, err := s.auth.Authenticate(r)
	if err != nil {
		return err
	}
	// Identity is a bearer token, never a cookie, so a page of another
	// origin gains nothing by opening a socket: origins are not checked,
	// which lets the frontend's dev server (another port) connect.
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return nil // Accept wrote the HTTP error
	}
	// The library closes the socket (1009) at its read limit: the limit is
	// set to what the socket may skip, and a frame over MaxFrameBytes is
	// refused here, with agent.error (read).
	conn.SetReadLimit(maxSkipBytes)
	c := &wsConn{s: s, conn: conn, caller: control.Caller{TeacherID: id.TeacherID, ConnectionID: uuid.NewString(),
		School: id.School, Language: r.Header.Get("Accept-Language")},
		out: make(chan []byte, s.o.SendBuffer), relays: map[string]bool{}}
	c.run(r.Context())
	return nil
}

// wsConn is one socket: the Dispatcher's Conn.
type wsConn struct {
	s      *Server
	conn   *websocket.Conn
	caller control.Caller
	out    chan []byte

	mu     sync.Mutex
	relays map[string]bool
	wg     sync.WaitGroup
}

func (c *wsConn) run(parent context.Context) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	defer cancel()
	if !c.s.track(c, cancel) {
		c.conn.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	defer c.s.untrack(c)
	log := c.s.rl.Logger.With("connectionId", c.caller.ConnectionID, "teacherId", c.caller.TeacherID)
	if err := c.s.svc.Open(ctx, c.caller); err != nil {
		log.Error("could not record the connection", "err", err)
		c.conn.Close(websocket.StatusInternalError, "connection store unavailable")
		return
	}
	c.wg.Go(func() { c.write(ctx, cancel) })
	c.read(ctx)
	cancel()
	c.wg.Wait()
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	if err := c.s.svc.Close(cctx, c.caller.ConnectionID); err != nil {
		log.Warn("closing the connection's sessions failed", "err", err)
	}
	c.conn.CloseNow()
}

// maxSkipBytes bounds what the socket reads of a frame over MaxFrameBytes
// to skip it (never held: it is discarded as it arrives); a frame over it
// closes the socket with 1009.
const maxSkipBytes = 8 << 20

// read hands client frames to the dispatcher until the socket closes. A
// frame over MaxFrameBytes is skipped and answered with agent.error
// (VALIDATION_ERROR); the socket and its sessions' runs go on.
func (c *wsConn) read(ctx context.Context) {
	for {
		typ, r, err := c.conn.Reader(ctx)
		if err != nil {
			return
		}
		frame, err := io.ReadAll(io.LimitReader(r, report.MaxFrameBytes+1))
		if err != nil {
			return
		}
		if len(frame) > report.MaxFrameBytes {
			rest, err := io.Copy(io.Discard, r)
			if err != nil {
				return // over maxSkipBytes: the library closed the socket
			}
			c.s.disp.Answer(ctx, c, "", report.Error{Message: report.FrameTooLarge(int64(len(frame)) + rest).Error(),
				Code: string(apperr.ValidationError)})
			continue
		}
		if typ != websocket.MessageText {
			c.s.disp.Answer(ctx, c, "", report.Error{Message: "frames must be JSON text", Code: string(apperr.ValidationError)})
			continue
		}
		c.s.disp.Dispatch(ctx, c, frame)
	}
}

// Caller implements Conn.
func (c *wsConn) Caller() control.Caller { return c.caller }

// Admit implements Conn: a socket holds at most MaxSessions sessions.
func (c *wsConn) Admit(ev report.ClientEvent) error {
	switch ev.(type) {
	case report.CreateSession, report.ReconnectWithState:
	default:
		return nil
	}
	c.mu.Lock()
	full := len(c.relays) >= c.s.o.MaxSessions
	c.mu.Unlock()
	if full {
		return apperr.New(apperr.ValidationError, "too many sessions on this connection")
	}
	return nil
}

// errTooSlow: the socket fell SendBuffer frames behind and was closed.
var errTooSlow = errors.New("transport: the client reads too slowly")

// Send implements Conn: it queues the frame. A socket that falls SendBuffer
// frames behind is closed rather than buffered without bound.
func (c *wsConn) Send(ctx context.Context, b []byte) error {
	select {
	case c.out <- b:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	default:
		c.conn.Close(websocket.StatusPolicyViolation, "client too slow")
		return errTooSlow
	}
}

// Relay implements Conn: it tails the session's log onto the socket through
// the edge's relay, once per session.
func (c *wsConn) Relay(ctx context.Context, sessionID string, after int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.relays[sessionID] {
		return nil
	}
	c.relays[sessionID] = true
	c.wg.Go(func() {
		err := c.s.rl.Tail(ctx, report.StreamName(sessionID), after, c.s.o.MaxIdle, func(ev eventlog.Event) error {
			return c.Send(ctx, ev.Data)
		})
		if err != nil && ctx.Err() == nil {
			c.s.rl.Logger.Warn("template relay ended", "sessionId", sessionID, "err", err)
		}
	})
	return nil
}

// write sends queued frames and the heartbeat; it ends the connection when
// a write fails.
func (c *wsConn) write(ctx context.Context, cancel context.CancelFunc) {
	t := time.NewTicker(c.s.rl.Heartbeat)
	defer t.Stop()
	for {
		var b []byte
		select {
		case <-ctx.Done():
			return
		case b = <-c.out:
		case <-t.C:
			c.mu.Lock()
			n := len(c.relays)
			c.mu.Unlock()
			b, _ = report.Encode("", report.Heartbeat{ActiveSessions: n})
		}
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		err := c.conn.Write(wctx, websocket.MessageText, b)
		wcancel()
		if err != nil {
			cancel()
			c.conn.CloseNow()
			return
		}
	}
}
