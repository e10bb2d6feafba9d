package edge

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
)

// RelayOptions configure a Relay. As with httputil.ReverseProxy's fields, a
// zero field means its default; NewRelay sets the defaults, in this one place.
type RelayOptions struct {
	// Logger is every route group's logger (nil: discarded).
	Logger *slog.Logger
	// Heartbeat is the idle time after which a stream writes ": ping"
	// (DefaultHeartbeat).
	Heartbeat time.Duration
	// PollMin and PollMax pace the tail when the log cannot notify
	// (eventlog's defaults).
	PollMin, PollMax time.Duration
}

// DefaultHeartbeat is RelayOptions.Heartbeat's default.
const DefaultHeartbeat = 15 * time.Second

// Relay writes event-log streams as SSE: the one relay of every route group
// (a conversation turn, a page build, the flows that come after them, a
// template session), built once (NewRelay) and handed to each group with the
// settings they share. A stream says only what differs from the others
// (stream).
type Relay struct {
	RelayOptions
	log eventlog.Reader
}

// NewRelay returns the relay of log's streams.
func NewRelay(log eventlog.Reader, o RelayOptions) *Relay {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	return &Relay{RelayOptions: o, log: log}
}

// Tail passes the events of the stream key after seq after to send, paced as
// the relay's SSE streams are, until the closing event, a failed send, the
// end of ctx or maxWait without an event: the relay of a transport that frames
// the events itself (the template socket) or waits for a stream's end.
func (r *Relay) Tail(ctx context.Context, key string, after int64, maxWait time.Duration, send func(eventlog.Event) error) error {
	return eventlog.Tail(ctx, r.log, key, after, r.tailOptions(maxWait), send)
}

func (r *Relay) tailOptions(maxWait time.Duration) eventlog.TailOptions {
	return eventlog.TailOptions{PollMin: r.PollMin, PollMax: r.PollMax, IdleEvery: r.Heartbeat, MaxWait: maxWait}
}

// streamWriteBound is how long one write of a stream may block on a client
// that does not read.
const streamWriteBound = 30 * time.Second

// stream is what differs between the relayed streams.
type stream struct {
	// key is the stream's name in the event log.
	key string
	// kind and id name the stream in logs ("turn", "build"...).
	kind, id string
	// maxWait bounds the wait for the stream's next event.
	maxWait time.Duration
	// abandon closes a stream whose producers stayed silent for maxWait, so
	// that the relay still delivers a closing event.
	abandon func(ctx context.Context)
	// before returns frames written (without id) ahead of ev: the UI stream
	// closes the text parts that a stopped turn left open.
	before func(ev eventlog.Event) [][]byte
	// done is written after the closing event ([DONE] of the UI stream).
	done []byte
	// header sets the stream's response headers (the SSE ones are set by
	// the relay).
	header func(http.Header)
}

// resumeFrom applies the resume rule every stream shares: a cursor beyond
// the stream's last event is refused (400) before anything is written, and
// a cursor on the closing event returns that event, to be written again at
// once, so that a client resuming a stream that ended gets its end and never
// waits. The event at seq after exists iff the stream reached it (the log is
// gap-free), so one read answers both.
func (r *Relay) resumeFrom(ctx context.Context, key string, after int64) (*eventlog.Event, error) {
	if after <= 0 {
		return nil, nil
	}
	evs, err := r.log.Read(ctx, key, after-1, 1)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.ServiceUnavailable, "event log unavailable")
	}
	if len(evs) == 0 || evs[0].Seq != after {
		return nil, apperr.New(apperr.ValidationError, "Last-Event-ID / after %d is beyond the stream's last event", after)
	}
	if evs[0].Close {
		return &evs[0], nil
	}
	return nil, nil
}

// relay writes the events of s after seq after as SSE, with their seq as
// id and their name as event, until the closing event. eventlog.Tail reads
// the log for the past and takes the live tail from the log's in-process
// feed when it has one (the local store: no wait for a commit), else from
// its shared poll (DynamoDB). A client that goes
// away only ends the relay: the producers go on. The error is a bad cursor
// (see resumeFrom), returned before the response starts.
func (r *Relay) relay(ctx context.Context, w http.ResponseWriter, s stream, after int64) error {
	closing, err := r.resumeFrom(ctx, s.key, after)
	if err != nil {
		return err
	}
	defer r.streamOpened(ctx)() // issue 28: the ActiveStreams gauge
	protocol.SetHeaders(w.Header())
	if s.header != nil {
		s.header(w.Header())
	}
	w.WriteHeader(http.StatusOK)
	// A stream outlives the server's read and write timeouts (which bound
	// the other routes): it lifts the read deadline (whose expiry would
	// cancel the request) and gives each write its own deadline, so that a
	// client that stops reading is let go. Under lambdaurl these are not
	// supported and the Function URL's own limits apply.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	sse := protocol.NewSSEWriter(w)
	// bound gives the socket's next write its deadline. Moving a deadline
	// updates a runtime timer, which a paced stream would pay for every
	// chunk (issue 29 item 3), so it moves once a second: a write may block
	// between streamWriteBound less a second and streamWriteBound.
	var deadline time.Time
	bound := func() {
		if now := time.Now(); deadline.Sub(now) < streamWriteBound-time.Second {
			deadline = now.Add(streamWriteBound)
			_ = rc.SetWriteDeadline(deadline)
		}
	}
	// flush sends what is framed, in one write: each socket write gets its
	// deadline, not each event.
	flush := func() error {
		bound()
		return sse.Flush()
	}
	_ = flush() // headers out now: the client sees the stream open at once
	// send frames an event; eventlog.Tail calls flush once it has passed
	// the events that are ready (TailOptions.Flush), so that a batch the
	// feed or a read hands over goes out together and no event waits for
	// a later one.
	send := func(ev eventlog.Event) error {
		after = ev.Seq
		if s.before != nil {
			for _, f := range s.before(ev) {
				sse.Add(0, "", f)
			}
		}
		sse.Add(ev.Seq, ev.Name, ev.Data)
		if sse.Buffered() >= relayFlushBytes {
			return flush()
		}
		return nil
	}
	// end writes the stream's terminator after its closing event, and
	// sends what is still framed in any case.
	end := func(closed bool) {
		if closed && s.done != nil {
			sse.Add(0, "", s.done)
		}
		_ = flush()
	}
	if closing != nil { // the stream ended at the cursor: its end again, now
		end(send(*closing) == nil)
		return nil
	}
	opts := r.tailOptions(s.maxWait)
	opts.Flush = flush
	opts.Idle = func() error {
		bound()
		return sse.Comment("ping")
	}
	err = eventlog.Tail(ctx, r.log, s.key, after, opts, send)
	if errors.Is(err, eventlog.ErrTailTimeout) && s.abandon != nil {
		s.abandon(ctx)
		// The abandon appended the closing event, unless a producer closed the
		// stream first: either way it is there to read now.
		opts.MaxWait = r.Heartbeat
		err = eventlog.Tail(ctx, r.log, s.key, after, opts, send)
	}
	end(err == nil)
	if err != nil && ctx.Err() == nil {
		r.Logger.WarnContext(ctx, "relay ended early", s.kind+"Id", s.id, "err", err)
	}
	return nil
}

// ownedStream authenticates a stream's request, checks with owns that the
// stream named by the path's {id} is the caller's, and reads the request's
// resume point.
func ownedStream(r *http.Request, au Authenticator, owns func(ctx context.Context, teacherID, id string) error) (id string, after int64, err error) {
	caller, err := au.Authenticate(r)
	if err != nil {
		return "", 0, err
	}
	id = r.PathValue("id")
	if err := owns(r.Context(), caller.TeacherID, id); err != nil {
		return "", 0, err
	}
	after, err = resumePoint(r)
	return id, after, err
}

// relayFlushBytes bounds what the relay frames before it sends: a batch of
// large events goes out in parts of about this size.
const relayFlushBytes = 32 << 10

// longWait readies a JSON route that waits on work for up to d (a whole
// turn, an app run) for the server's timeouts: its answer may be written
// after d, and the read deadline, whose expiry would cancel the request, is
// lifted.
func longWait(w http.ResponseWriter, d time.Duration) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(d + streamWriteBound))
}
