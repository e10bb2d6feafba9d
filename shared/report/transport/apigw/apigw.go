// Package apigw is seed 002's socket in AWS: the API Gateway WebSocket
// API's routes and the relay of the event log to its connections (the ws
// function). It is apart from package transport, the in-process socket and
// SSE of the local run, so that the local binary does not link the AWS SDK.
package apigw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/control"
	"github.com/insightedge/insightedge/shared/report/transport"
)

// In AWS the socket is an API Gateway WebSocket API whose $connect,
// $disconnect and $default routes invoke the ws function (APIGateway.Route),
// and whose messages to a client are POSTs to its connection
// (PostToConnection). Session events still come from the event log only:
// the same ws function consumes the table's DynamoDB stream
// (APIGateway.Relay). The stream's records are only a signal that a
// session has new events: they arrive in no particular seq order (the
// events of concurrent solvers are written by different steps, and an
// appender may write seq 5 before another writes seq 4). So the relay reads
// the session's log after its cursor (Session.Relayed), which returns the
// contiguous run of events (it stops before the first missing seq), posts
// them in seq order and moves the cursor: the socket gets every event once,
// in order, without gaps; an event written late is posted when its own
// record (or any later one) arrives. What the caller alone must hear (its
// errors, the signed state) the route posts itself; on reconnect it sets
// the cursor to the state's position and delivers the rest the same way.

// Poster sends one frame to a connection.
type Poster interface {
	Post(ctx context.Context, connectionID string, data []byte) error
}

// ErrGone is returned by a Poster for a connection that no longer exists.
var ErrGone = errors.New("apigw: the connection is gone")

// Handler serves the WebSocket API's routes and relays the log. A
// message is carried out by the Dispatcher the in-process socket uses too;
// the handler does the connection's I/O only (connection, below).
type Handler struct {
	svc    *control.Service
	store  report.Store
	log    eventlog.Reader
	auth   edge.Authenticator
	post   Poster
	logger *slog.Logger
	disp   *transport.Dispatcher
}

// New returns the handler. $connect takes the token as ?access_token= too
// (edge.QueryToken): a browser's WebSocket cannot set headers.
func New(svc *control.Service, store report.Store, log eventlog.Reader, a edge.Authenticator, post Poster, logger *slog.Logger) *Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Handler{svc: svc, store: store, log: log, auth: edge.QueryToken{Authenticator: a}, post: post, logger: logger,
		disp: transport.NewDispatcher(svc, logger)}
}

// MaxPostBytes is the largest post to a connection: API Gateway's
// WebSocket message limit (128 KB, which it sends in 32 KB frames).
const MaxPostBytes = 128 << 10

// postable is what is posted for ev (issue 24): the event, or for one
// larger than a WebSocket message, which API Gateway would refuse on every
// retry of its stream batch, a system.error naming its seq; the client
// reads the event from the session's SSE stream (it stays in the log).
func postable(s report.Session, ev eventlog.Event) []byte {
	if len(ev.Data) <= MaxPostBytes {
		return ev.Data
	}
	msg := i18n.Of(s.Language).Text(i18n.SocketEventTooLarge, ev.Seq)
	data, err := report.Encode(s.ID, report.SystemError{Message: msg})
	if err != nil {
		return []byte(`{"event":"system.error"}`)
	}
	return data
}

// Delivery bounds: events read a page at a time, at most maxReplay events
// posted per session per call (a reconnect, or a stream batch); a longer
// backlog continues with the session's next record.
const (
	deliverPage = 100
	maxReplay   = 1000
)

// Route handles $connect, $disconnect and $default.
func (a *Handler) Route(ctx context.Context, req events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
	conn := req.RequestContext.ConnectionID
	log := a.logger.With("connectionId", conn, "route", req.RequestContext.RouteKey)
	switch req.RequestContext.RouteKey {
	case "$connect":
		r := connectRequest(req)
		id, err := a.auth.Authenticate(r)
		if err != nil {
			e := apperr.As(err)
			return events.APIGatewayProxyResponse{StatusCode: e.HTTPStatus(), Body: e.Message}, nil
		}
		if err := a.svc.Open(ctx, control.Caller{TeacherID: id.TeacherID, ConnectionID: conn, School: id.School,
			Language: r.Header.Get("Accept-Language")}); err != nil {
			return events.APIGatewayProxyResponse{}, fmt.Errorf("ws: open %s: %w", conn, err)
		}
		return events.APIGatewayProxyResponse{StatusCode: http.StatusOK}, nil
	case "$disconnect":
		if err := a.svc.Close(ctx, conn); err != nil {
			log.Warn("closing the connection's sessions failed", "err", err)
		}
		return events.APIGatewayProxyResponse{StatusCode: http.StatusOK}, nil
	}
	c, err := a.store.GetConnection(ctx, conn)
	if err != nil {
		return events.APIGatewayProxyResponse{StatusCode: http.StatusGone}, nil
	}
	a.disp.Dispatch(ctx, connection{h: a, caller: control.Caller{TeacherID: c.TeacherID, ConnectionID: conn,
		School: c.School, Language: c.Language}}, []byte(req.Body))
	return events.APIGatewayProxyResponse{StatusCode: http.StatusOK}, nil
}

// connection is an API Gateway connection: the Dispatcher's Conn.
type connection struct {
	h      *Handler
	caller control.Caller
}

func (c connection) Caller() control.Caller { return c.caller }

// Admit implements transport.Conn: a connection here has no session bound
// of its own (the in-process socket's MaxSessions).
func (c connection) Admit(report.ClientEvent) error { return nil }

// Send implements transport.Conn.
func (c connection) Send(ctx context.Context, frame []byte) error {
	return c.h.post.Post(ctx, c.caller.ConnectionID, frame)
}

// Relay implements transport.Conn. The session, now bound to this
// connection, reaches it through the table's stream (Handler.Relay); on a
// reconnect (after > 0) what the caller missed is posted now, and the rest
// follows the same way.
func (c connection) Relay(ctx context.Context, sessionID string, after int64) error {
	if after <= 0 {
		return nil
	}
	_, err := c.h.store.UpdateSession(ctx, sessionID, func(x *report.Session) error {
		if x.ConnectionID != c.caller.ConnectionID {
			return errNotBound
		}
		x.Relayed = after
		return nil
	})
	if err != nil {
		return err
	}
	return c.h.deliver(ctx, sessionID)
}

// errNotBound: the session is no longer bound to the connection that read it.
var errNotBound = errors.New("apigw: the session moved to another connection")

// deliver posts the session's events after its cursor to its connection,
// in seq order and without gaps (the log's Read stops before a missing
// seq), and moves the cursor past what was posted. The events are posted
// before the cursor moves: a failed post is retried with the stream batch
// (at least once), never skipped. A gone connection closes its sessions.
func (a *Handler) deliver(ctx context.Context, sid string) error {
	stream := report.StreamName(sid)
	for posted := 0; posted < maxReplay; {
		s, err := a.store.GetSession(ctx, sid)
		if errors.Is(err, report.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if s.ConnectionID == "" {
			return nil // an SSE session, or closed: its stream is read from the log
		}
		evs, err := a.log.Read(ctx, stream, s.Relayed, min(deliverPage, maxReplay-posted))
		if err != nil || len(evs) == 0 {
			return err
		}
		last := s.Relayed
		for _, ev := range evs {
			if err := a.post.Post(ctx, s.ConnectionID, postable(s, ev)); err != nil {
				if errors.Is(err, ErrGone) {
					return a.svc.Close(ctx, s.ConnectionID)
				}
				return errors.Join(err, a.advance(ctx, s, last))
			}
			last = ev.Seq
		}
		if err := a.advance(ctx, s, last); err != nil {
			return err
		}
		posted += len(evs)
		if len(evs) < deliverPage {
			return nil
		}
	}
	return nil
}

// advance moves the session's cursor from where s read it to last, unless
// the session moved to another connection meanwhile (a reconnect set its
// own cursor).
func (a *Handler) advance(ctx context.Context, s report.Session, last int64) error {
	if last == s.Relayed {
		return nil
	}
	_, err := a.store.UpdateSession(ctx, s.ID, func(x *report.Session) error {
		if x.ConnectionID != s.ConnectionID {
			return errNotBound
		}
		x.Relayed = max(x.Relayed, last)
		return nil
	})
	if errors.Is(err, errNotBound) {
		return nil
	}
	return err
}

// connectRequest is the $connect event as an HTTP request, for the same
// authenticator as every endpoint.
func connectRequest(req events.APIGatewayWebsocketProxyRequest) *http.Request {
	q := url.Values{}
	for k, v := range req.QueryStringParameters {
		q.Set(k, v)
	}
	r, _ := http.NewRequest(http.MethodGet, "https://ws.invalid/?"+q.Encode(), nil)
	for k, v := range req.Headers {
		r.Header.Set(k, v)
	}
	return r
}

// Relay delivers, for every template session a DynamoDB stream batch
// shows new events of, the session's log after its cursor to its
// connection (deliver), once per session and batch, in the order the
// sessions first appear. The records' own order and data do not matter.
func (a *Handler) Relay(ctx context.Context, batch events.DynamoDBEvent) error {
	var sessions []string
	seen := map[string]bool{}
	for _, rec := range batch.Records {
		if rec.EventName != "INSERT" {
			continue
		}
		img := rec.Change.NewImage
		pk, sk := img["PK"], img["SK"]
		if pk.DataType() != events.DataTypeString || sk.DataType() != events.DataTypeString {
			continue
		}
		sid, ok := strings.CutPrefix(pk.String(), "STREAM#"+report.StreamName(""))
		if !ok || !strings.HasPrefix(sk.String(), "EV#") {
			continue
		}
		if !seen[sid] {
			seen[sid] = true
			sessions = append(sessions, sid)
		}
	}
	var errs []error
	for _, sid := range sessions {
		if err := a.deliver(ctx, sid); err != nil {
			errs = append(errs, fmt.Errorf("session %s: %w", sid, err))
		}
	}
	return errors.Join(errs...)
}

// ConnectionPoster posts to API Gateway's connection management endpoint
// (https://{api}.execute-api.{region}.amazonaws.com/{stage}), a SigV4-signed
// POST @connections/{id}: the management client is one HTTP call.
type ConnectionPoster struct {
	Endpoint    string
	Region      string
	Credentials aws.CredentialsProvider
	HTTP        *http.Client
	Now         func() time.Time
}

// Post implements Poster.
func (p ConnectionPoster) Post(ctx context.Context, connectionID string, data []byte) error {
	u := strings.TrimRight(p.Endpoint, "/") + "/@connections/" + url.PathEscape(connectionID)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256(data)
	creds, err := p.Credentials.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("apigw: credentials: %w", err)
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "execute-api", p.Region, now()); err != nil {
		return fmt.Errorf("apigw: sign: %w", err)
	}
	client := p.HTTP
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("apigw: post to %s: %w", connectionID, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	switch {
	case resp.StatusCode == http.StatusGone:
		return fmt.Errorf("%w: %s", ErrGone, connectionID)
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("apigw: post to %s: status %d: %s", connectionID, resp.StatusCode, msg)
	}
	return nil
}
