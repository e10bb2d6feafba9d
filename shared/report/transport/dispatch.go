package transport

import (
	"context"
	"log/slog"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/control"
)

// Controller carries out a client event (control.Service).
type Controller interface {
	Handle(ctx context.Context, c control.Caller, env report.Envelope, ev report.ClientEvent) (control.Result, error)
}

// Conn is one socket as the Dispatcher sees it: the in-process WebSocket
// (ServeWS) or an API Gateway connection (package apigw). Each does the
// socket's I/O only.
type Conn interface {
	// Caller is the socket's teacher and connection.
	Caller() control.Caller
	// Admit refuses an event the socket cannot take on (nil: go on).
	Admit(ev report.ClientEvent) error
	// Send writes one frame to this socket alone.
	Send(ctx context.Context, frame []byte) error
	// Relay has the session's events after seq after reach this socket.
	Relay(ctx context.Context, sessionID string, after int64) error
}

// Dispatcher carries out the client frames of every socket: it decodes the
// envelope, hands the event to the control service, answers the caller
// itself (its errors and the events meant for it alone, as agent.error and
// the like) and has the session's events relayed to the socket. The
// session's events themselves come from its event log only.
type Dispatcher struct {
	svc Controller
	log *slog.Logger
}

// NewDispatcher returns the dispatcher of svc's events.
func NewDispatcher(svc Controller, log *slog.Logger) *Dispatcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Dispatcher{svc: svc, log: log}
}

// Dispatch carries out one client frame from c.
func (d *Dispatcher) Dispatch(ctx context.Context, c Conn, frame []byte) {
	env, ev, err := report.DecodeClient(frame)
	if err != nil {
		d.Answer(ctx, c, env.SessionID, report.Error{Message: err.Error(), Code: string(apperr.ValidationError)})
		return
	}
	if err := c.Admit(ev); err != nil {
		d.Answer(ctx, c, env.SessionID, errorEvent(err))
		return
	}
	res, err := d.svc.Handle(ctx, c.Caller(), env, ev)
	if err != nil {
		d.Answer(ctx, c, env.SessionID, errorEvent(err))
		return
	}
	for _, direct := range res.Direct {
		d.Answer(ctx, c, env.SessionID, direct)
	}
	if res.Subscribe != "" {
		if err := c.Relay(ctx, res.Subscribe, res.After); err != nil {
			d.log.WarnContext(ctx, "could not relay the session's events", "sessionId", res.Subscribe, "err", err)
		}
	}
}

// Answer sends ev to c's caller alone.
func (d *Dispatcher) Answer(ctx context.Context, c Conn, sessionID string, ev report.ServerEvent) {
	b, err := report.Encode(sessionID, ev)
	if err == nil {
		err = c.Send(ctx, b)
	}
	if err != nil && ctx.Err() == nil { // a socket that closed is no failure
		d.log.WarnContext(ctx, "could not answer the caller", "connectionId", c.Caller().ConnectionID, "err", err)
	}
}

// errorEvent is an error as agent.error, with its seed 004 code (and a
// fair-use refusal's limit and wait, issue 26).
func errorEvent(err error) report.Error {
	e := apperr.As(err)
	ev := report.Error{Message: e.Message, Code: string(e.Code)}
	if d, ok := e.Details.(edge.RateLimitDetails); ok {
		ev.Limit, ev.RetryAfter = string(d.Limit), d.RetryAfter
	}
	return ev
}
