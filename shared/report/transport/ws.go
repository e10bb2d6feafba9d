package transport

import (
	"context"
	"errors"
	"sync"
	"time"

	"net/http"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/control"
)

// ServeWS serves one socket: client envelopes in, the socket's sessions'
// logs and its own answers out, system.heartbeat meanwhile. Closing the
// socket ends its sessions (seed 002).
func (s *Server) ServeWS(w http.ResponseWriter, r *http.Request) {
	id, err := s.identity(r)
	if err != nil {
		writeError(w, errorAsApp(err))
		return
	}
	// Identity is a bearer token, never a cookie, so a page of another
	// origin gains nothing by opening a socket: origins are not checked,
	// which lets the frontend's dev server (another port) connect.
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return // Accept wrote the HTTP error
	}
	conn.SetReadLimit(report.MaxFrameBytes + 1024)
	c := &wsConn{s: s, conn: conn, id: uuid.NewString(), caller: control.Caller{TeacherID: id.TeacherID},
		out: make(chan []byte, s.o.SendBuffer), relays: map[string]bool{}}
	c.caller.ConnectionID = c.id
	c.run(r.Context())
}

type wsConn struct {
	s      *Server
	conn   *websocket.Conn
	id     string
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
	log := c.s.o.Logger.With("connectionId", c.id, "teacherId", c.caller.TeacherID)
	if err := c.s.svc.Open(ctx, c.id, c.caller.TeacherID); err != nil {
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
	if err := c.s.svc.Close(cctx, c.id); err != nil {
		log.Warn("closing the connection's sessions failed", "err", err)
	}
	c.mu.Lock()
	c.s.active.Add(-int64(len(c.relays)))
	c.mu.Unlock()
	c.conn.CloseNow()
}

// read handles client frames until the socket closes.
func (c *wsConn) read(ctx context.Context) {
	for {
		typ, frame, err := c.conn.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			c.direct(ctx, "", report.Error{Message: "frames must be JSON text", Code: "VALIDATION_ERROR"})
			continue
		}
		env, ev, err := report.DecodeClient(frame)
		if err != nil {
			c.direct(ctx, env.SessionID, report.Error{Message: err.Error(), Code: "VALIDATION_ERROR"})
			continue
		}
		c.handle(ctx, env, ev)
	}
}

func (c *wsConn) handle(ctx context.Context, env report.Envelope, ev report.ClientEvent) {
	if _, isCreate := ev.(report.CreateSession); isCreate || isReconnect(ev) {
		c.mu.Lock()
		full := len(c.relays) >= c.s.o.MaxSessions
		c.mu.Unlock()
		if full {
			c.direct(ctx, env.SessionID, report.Error{Message: "too many sessions on this connection", Code: "VALIDATION_ERROR"})
			return
		}
	}
	res, err := c.s.svc.Handle(ctx, c.caller, env, ev)
	if err != nil {
		c.direct(ctx, env.SessionID, ErrorEvent(err))
		return
	}
	for _, d := range res.Direct {
		c.direct(ctx, env.SessionID, d)
	}
	if res.Subscribe != "" {
		c.relay(ctx, res.Subscribe, res.After)
	}
}

func isReconnect(ev report.ClientEvent) bool {
	_, ok := ev.(report.ReconnectWithState)
	return ok
}

// direct sends an event to this socket only.
func (c *wsConn) direct(ctx context.Context, sessionID string, ev report.ServerEvent) {
	b, err := report.Encode(sessionID, ev)
	if err != nil {
		c.s.o.Logger.Error("encode", "err", err)
		return
	}
	c.send(ctx, b)
}

// send queues a frame; a socket that falls SendBuffer frames behind is
// closed rather than buffered without bound.
func (c *wsConn) send(ctx context.Context, b []byte) bool {
	select {
	case c.out <- b:
		return true
	case <-ctx.Done():
		return false
	default:
		c.conn.Close(websocket.StatusPolicyViolation, "client too slow")
		return false
	}
}

// relay tails a session's log onto the socket, once per session.
func (c *wsConn) relay(ctx context.Context, sessionID string, after int64) {
	c.mu.Lock()
	if c.relays[sessionID] {
		c.mu.Unlock()
		return
	}
	c.relays[sessionID] = true
	c.mu.Unlock()
	c.s.active.Add(1)
	c.wg.Go(func() {
		err := eventlog.Tail(ctx, c.s.log, report.StreamName(sessionID), after,
			eventlog.TailOptions{MaxWait: c.s.o.MaxIdle, IdleEvery: time.Hour},
			func(ev eventlog.Event) error {
				if !c.send(ctx, ev.Data) {
					return context.Canceled
				}
				return nil
			})
		if err != nil && !errors.Is(err, context.Canceled) {
			c.s.o.Logger.Warn("template relay ended", "sessionId", sessionID, "err", err)
		}
	})
}

// write sends queued frames and the heartbeat; it ends the connection when
// a write fails.
func (c *wsConn) write(ctx context.Context, cancel context.CancelFunc) {
	t := time.NewTicker(c.s.o.Heartbeat)
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
