package boltstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.etcd.io/bbolt"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// EventLog is the eventlog.Log of a DB, and an eventlog.Notifier and
// eventlog.Feeder for tailers in the same process (another process cannot
// open the file: bbolt locks it).
//
// # Group commit
//
// An Append is sequenced in memory: under one lock it checks the stream's
// closed flag, takes the next seqs, publishes the events to the feed (the
// relay of a live stream has them at once), queues them and returns. One
// committer writes everything queued, of every stream, as one frame of the
// journal (one write system call, journal.go), at most Options.GroupDelay
// after the first of them was queued; while it writes, the next appends
// queue for the next group. The journaled events stay in memory until a
// checkpoint writes them into bbolt in one transaction (every
// checkpointEvery, at Flush and at close), so a stream paced at one chunk
// a group still fills its pages with tens of chunks at once. Read returns
// the events in memory too (sequenced, journaled, not yet checkpointed), so
// a cursor the relay gave a client is readable at once.
//
// Every other write to the file (sessions, turns, records, leases) first
// waits until the events sequenced before it are journaled, so the store
// (the file, and the journal replayed into it at Open) never holds a turn's
// end without the events the turn appended before it. A crash loses at
// most the events of the last group (sequenced, relayed, not yet
// journaled); docs/reliability.md has the delivery rule. The queue is
// bounded (maxQueued events): past it an Append waits for a commit.
type EventLog struct{ db *DB }

var (
	_ eventlog.Log      = (*EventLog)(nil)
	_ eventlog.Notifier = (*EventLog)(nil)
	_ eventlog.Feeder   = (*EventLog)(nil)
)

// streamMeta is a stream's counter item: the last seq, and whether the
// closing event has been appended.
type streamMeta struct {
	Last      int64     `json:"last"`
	Closed    bool      `json:"closed,omitempty"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// Flags of an event value's first byte: bit 0 closes the stream; bit 1 says
// a name follows (one length byte, then the name) before the data. The other
// bits are reserved.
const (
	flagClose = 1
	flagNamed = 2
)

// ErrClosedDB is returned by Append after Close.
var ErrClosedDB = errors.New("boltstore: database closed")

const (
	// maxCachedStreams bounds the streams whose seq state stays in memory
	// with nothing pending; past it they are dropped and read from the
	// file again.
	maxCachedStreams = 4096
	// maxQueued bounds the events waiting for a commit: an Append that
	// finds more waits for the commit in progress (back-pressure).
	maxQueued = 8192
	// defaultGroupDelay is Options.GroupDelay's default.
	defaultGroupDelay = 2 * time.Millisecond
)

// writer sequences appends, writes them to the journal in groups and
// checkpoints the journal into bbolt.
type writer struct {
	bolt    *bbolt.DB
	journal *journal
	expiry  func() time.Time
	feed    *eventlog.Feed
	notify  *eventlog.SharedNotifier
	delay   time.Duration

	mu       sync.Mutex
	streams  map[string]*seqState
	queue    map[string][]eventlog.Event // sequenced, for the next commit
	queued   int                         // events in queue
	group    *group                      // the commit that will write queue
	inflight *group                      // the commit being written, if any
	unsaved  map[string]struct{}         // streams journaled past their checkpoint
	err      error                       // a failed commit: every later write fails
	closed   bool
	kick     chan struct{}   // something was queued
	urgent   chan struct{}   // a writer waits: commit without the delay
	save     chan chan error // Flush: checkpoint now
	done     chan struct{}
	commits  int // groups written to the journal, for tests and benchmarks

	// spare and free are the last group's queue and its streams' arrays,
	// cleared, for the next groups: a stream paced at one chunk a group
	// would otherwise cost a new array per chunk, and the map its growth
	// per group (issue 29 item 3). Guarded by mu.
	spare map[string][]eventlog.Event
	free  [][]eventlog.Event
}

// seqState is a stream's sequencing state: seqs up to durable are in the
// file, up to journaled in the journal; pending holds durable+1 ... last.
type seqState struct {
	last, journaled, durable int64
	closed                   bool
	pending                  []eventlog.Event
	// expires is the stream's expiry as of its last append.
	expires time.Time
}

// group is one commit; done closes when it is written (err tells how).
type group struct {
	done chan struct{}
	err  error
}

func newGroup() *group { return &group{done: make(chan struct{})} }

func newWriter(b *bbolt.DB, j *journal, delay time.Duration, expiry func() time.Time, notify *eventlog.SharedNotifier) *writer {
	w := &writer{bolt: b, journal: j, expiry: expiry, feed: eventlog.NewFeed(), notify: notify, delay: delay,
		streams: map[string]*seqState{}, queue: map[string][]eventlog.Event{}, group: newGroup(),
		unsaved: map[string]struct{}{}, kick: make(chan struct{}, 1), urgent: make(chan struct{}, 1),
		save: make(chan chan error), done: make(chan struct{})}
	go w.run()
	return w
}

// Append implements eventlog.Appender: the events get their seqs, reach
// the feed and are queued for the next group commit.
func (l *EventLog) Append(ctx context.Context, stream string, events ...eventlog.Event) (int64, error) {
	if err := check(ctx, "stream", stream); err != nil {
		return 0, fmt.Errorf("boltstore: append: %w", err)
	}
	if err := eventlog.CheckNames(events); err != nil {
		return 0, fmt.Errorf("boltstore: append %s: %w", stream, err)
	}
	last, full, err := l.db.events.sequence(stream, events)
	if err != nil {
		return 0, fmt.Errorf("boltstore: append %s: %w", stream, err)
	}
	if len(events) > 0 {
		l.db.notify.Broadcast(stream)
	}
	if full != nil { // back-pressure: bounded by one commit
		<-full.done
	}
	return last, nil
}

// sequence assigns the seqs of events, queues them and publishes them. It
// returns a group to wait for when the queue is full.
func (w *writer) sequence(stream string, events []eventlog.Event) (int64, *group, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, nil, ErrClosedDB
	}
	if w.err != nil {
		return 0, nil, w.err
	}
	st, err := w.state(stream)
	if err != nil {
		return 0, nil, err
	}
	if st.closed {
		return 0, nil, eventlog.ErrClosed
	}
	if len(events) == 0 {
		return st.last, nil, nil
	}
	st.expires = w.expiry()
	from := len(st.pending)
	for _, ev := range events {
		if st.closed {
			break // a batch stops at its closing event
		}
		st.last++
		ev.Seq = st.last
		st.closed = ev.Close
		st.pending = append(st.pending, ev)
	}
	evs := st.pending[from:]
	q, ok := w.queue[stream]
	if !ok && len(w.free) > 0 {
		q, w.free = w.free[len(w.free)-1], w.free[:len(w.free)-1]
	}
	w.queue[stream] = append(q, evs...)
	w.queued += len(evs)
	w.feed.Publish(stream, evs) // under mu: in seq order
	signal(w.kick)
	if w.queued >= maxQueued {
		signal(w.urgent)
		return st.last, w.group, nil
	}
	return st.last, nil, nil
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// barrier waits until every event sequenced before the call is committed,
// and returns the commit's error. Every other write to the file calls it
// first.
func (w *writer) barrier() error {
	w.mu.Lock()
	g := w.inflight
	if w.queued > 0 {
		g = w.group
		signal(w.urgent)
	}
	err := w.err
	w.mu.Unlock()
	if g == nil {
		return err
	}
	<-g.done
	return g.err
}

// state returns the stream's state, from memory or else from the file;
// w.mu is held.
func (w *writer) state(stream string) (*seqState, error) {
	if st := w.streams[stream]; st != nil {
		return st, nil
	}
	var meta streamMeta
	err := w.bolt.View(func(tx *bbolt.Tx) (err error) {
		meta, err = getMeta(tx, stream)
		return err
	})
	if err != nil {
		return nil, err
	}
	st := &seqState{last: meta.Last, journaled: meta.Last, durable: meta.Last, closed: meta.Closed}
	w.streams[stream] = st
	return st, nil
}

// run is the committer: it writes what is queued to the journal, one
// group at a time, and checkpoints the journal into bbolt, until Close.
func (w *writer) run() {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	ckpt := time.NewTimer(time.Hour)
	ckpt.Stop()
	armed := false // ckpt runs
	for {
		select {
		case <-w.kick:
		case <-ckpt.C:
			armed = false
			w.checkpoint()
			continue
		case reply := <-w.save:
			reply <- w.checkpoint()
			continue
		}
		if w.delay > 0 { // gather more of the producers' events
			timer.Reset(w.delay)
			select {
			case <-timer.C:
			case <-w.urgent:
				timer.Stop()
			}
		}
		w.mu.Lock()
		queue, g, closed := w.queue, w.group, w.closed
		next := w.spare
		if next == nil {
			next = map[string][]eventlog.Event{}
		}
		w.queue, w.spare, w.group, w.queued, w.inflight = next, nil, newGroup(), 0, g
		expires := make(map[string]time.Time, len(queue))
		for stream := range queue {
			expires[stream] = w.streams[stream].expires
		}
		w.mu.Unlock()
		if len(queue) > 0 {
			g.err = w.journal.write(queue, expires)
			w.committed(queue, g.err)
		}
		switch {
		case closed || w.journal.size >= maxJournalBytes:
			w.checkpoint()
		case !armed && w.journal.size > 0:
			ckpt.Reset(checkpointEvery)
			armed = true
		}
		w.mu.Lock()
		w.inflight = nil
		w.recycle(queue)
		w.mu.Unlock()
		close(g.done)
		if closed {
			return
		}
	}
}

// keptQueueCap is the largest array of a stream's queue kept for reuse.
const keptQueueCap = 64

// recycle keeps a written group's queue for the next groups (spare, free);
// w.mu is held.
func (w *writer) recycle(queue map[string][]eventlog.Event) {
	for _, evs := range queue {
		clear(evs) // the events' data is not held here
		if cap(evs) <= keptQueueCap && len(w.free) < maxCachedStreams {
			w.free = append(w.free, evs[:0])
		}
	}
	clear(queue)
	w.spare = queue
}

// writeFile writes events and their streams' counters to bbolt in one
// transaction.
func writeFile(b *bbolt.DB, batch map[string][]eventlog.Event, expires map[string]time.Time) error {
	return b.Update(func(tx *bbolt.Tx) error {
		events, streams := tx.Bucket([]byte(bucketEvents)), tx.Bucket([]byte(bucketStreams))
		for stream, evs := range batch {
			b, err := events.CreateBucketIfNotExists([]byte(stream))
			if err != nil {
				return err
			}
			b.FillPercent = 1 // seqs only grow: full pages, no half-empty splits
			err = splitRuns(evs, func(run []eventlog.Event) error {
				return b.Put(u64key(run[0].Seq), encodeRun(run))
			})
			if err != nil {
				return err
			}
			last := evs[len(evs)-1]
			if err := putJSON(streams, []byte(stream), streamMeta{Last: last.Seq, Closed: last.Close, ExpiresAt: expires[stream]}); err != nil {
				return err
			}
		}
		return nil
	})
}

// committed records a group's events as journaled, or the failure: the
// memory state is then ahead of the store, so nothing more may be
// sequenced on it.
func (w *writer) committed(queue map[string][]eventlog.Event, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.commits++
	if err != nil {
		w.err = fmt.Errorf("a commit of the event log failed, nothing more is written until a restart: %w", err)
		return
	}
	for stream, evs := range queue {
		w.streams[stream].journaled = evs[len(evs)-1].Seq
		w.unsaved[stream] = struct{}{}
	}
}

// checkpoint writes every journaled event not yet in bbolt to it in one
// transaction, then empties the journal. A failure is the log's as a
// failed commit is.
func (w *writer) checkpoint() error {
	w.mu.Lock()
	if w.err != nil {
		defer w.mu.Unlock()
		return w.err
	}
	batch := make(map[string][]eventlog.Event, len(w.unsaved))
	expires := make(map[string]time.Time, len(w.unsaved))
	for stream := range w.unsaved {
		st := w.streams[stream]
		batch[stream] = st.pending[:st.journaled-st.durable] // never modified: see checkpointed
		expires[stream] = st.expires
	}
	w.mu.Unlock()
	var err error
	if len(batch) > 0 {
		err = writeFile(w.bolt, batch, expires)
	}
	if err == nil {
		err = w.journal.reset()
	}
	w.checkpointed(batch, err)
	return err
}

// checkpointed moves the checkpointed events out of memory, or records
// the failure.
func (w *writer) checkpointed(batch map[string][]eventlog.Event, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.err = fmt.Errorf("a checkpoint of the event log failed, nothing more is written until a restart: %w", err)
		return
	}
	for stream, evs := range batch {
		delete(w.unsaved, stream)
		st := w.streams[stream]
		st.durable = evs[len(evs)-1].Seq
		if rest := st.pending[len(evs):]; len(rest) > 0 {
			// A copy: the rest's array would keep every checkpointed
			// event of a stream that never drains (a long turn at full
			// speed) alive. Readers may still hold the old one: it is
			// not touched.
			st.pending = slices.Clone(rest)
			continue
		}
		st.pending = nil // let the checkpointed events go
		if st.closed {
			delete(w.streams, stream) // the file says closed
		}
	}
	if len(w.streams) > maxCachedStreams {
		for stream, st := range w.streams {
			if st.pending == nil {
				delete(w.streams, stream)
			}
		}
	}
}

// close commits what is queued, checkpoints it, stops the committer and
// closes the journal. It returns the log's failure, if any.
func (w *writer) close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	signal(w.kick)
	signal(w.urgent)
	<-w.done
	w.mu.Lock()
	err := w.err
	w.mu.Unlock()
	return errors.Join(err, w.journal.close())
}

// saveNow checkpoints what is journaled, in the committer.
func (w *writer) saveNow() error {
	reply := make(chan error, 1)
	signal(w.urgent) // the committer may be gathering a group (a stale kick)
	select {
	case w.save <- reply:
		return <-reply
	case <-w.done:
		return ErrClosedDB
	}
}

// pendingAfter returns the sequenced events of stream not yet committed
// and the last committed seq, as one consistent snapshot. The events of
// the slice are never modified.
func (w *writer) pendingAfter(stream string) (pending []eventlog.Event, durable int64, known bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.streams[stream]
	if st == nil {
		return nil, 0, false
	}
	return st.pending, st.durable, true
}

// Read implements eventlog.Reader: the committed events from the file and
// the sequenced ones from memory. The memory snapshot is taken first: an
// event committed after it is also in the file's view, an event committed
// before it is in the file.
func (l *EventLog) Read(ctx context.Context, stream string, after int64, limit int) ([]eventlog.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("boltstore: read %s: %w", stream, err)
	}
	after = max(after, 0)
	pending, durable, known := l.db.events.pendingAfter(stream)
	var evs []eventlog.Event
	if !known || after < durable {
		var err error
		if evs, err = l.readFile(stream, after, limit); err != nil {
			return nil, err
		}
	}
	next := after + 1
	if len(evs) > 0 {
		next = evs[len(evs)-1].Seq + 1
	}
	if len(pending) > 0 && next > pending[0].Seq { // pending holds consecutive seqs
		pending = pending[min(next-pending[0].Seq, int64(len(pending))):]
	}
	for _, ev := range pending {
		if limit > 0 && len(evs) >= limit {
			break
		}
		if ev.Seq == next {
			evs = append(evs, ev)
			next++
		}
	}
	return evs, nil
}

// readFile reads committed events: from the run holding after+1 (the one
// keyed at or before it), gap-free, up to limit.
func (l *EventLog) readFile(stream string, after int64, limit int) ([]eventlog.Event, error) {
	var evs []eventlog.Event
	err := l.db.bolt.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketEvents)).Bucket([]byte(stream))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		next := after + 1
		k, v := c.Seek(u64key(next))
		if first, ok := keyU64(k); k == nil || (ok && first > next) {
			if k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
			if k == nil { // next is before the first run
				k, v = c.First()
			}
		}
		full := func() bool { return limit > 0 && len(evs) >= limit }
		for ; k != nil && !full(); k, v = c.Next() {
			first, ok := keyU64(k)
			if !ok || first > next {
				break // stop before a gap
			}
			gap := false
			err := decodeValue(first, v, func(ev eventlog.Event) bool {
				switch {
				case ev.Seq < next:
					return true
				case ev.Seq > next:
					gap = true
					return false
				}
				evs = append(evs, ev)
				next++
				return !full()
			})
			if err != nil {
				return fmt.Errorf("events from %d: %w", first, err)
			}
			if gap {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: read %s: %w", stream, err)
	}
	return evs, nil
}

// Flush waits until every event appended before the call is committed (at
// most one group delay and one journal write) and checkpointed into the
// store file, and returns the first error.
func (l *EventLog) Flush() error {
	err := l.db.events.barrier()
	if err == nil {
		err = l.db.events.saveNow()
	}
	if err != nil {
		return fmt.Errorf("boltstore: flush: %w", err)
	}
	return nil
}

// Changed implements eventlog.Notifier: the channel closes when the next
// events of stream are sequenced (Read has them then).
func (l *EventLog) Changed(stream string) <-chan struct{} { return l.db.notify.Changed(stream) }

// Subscribe implements eventlog.Feeder.
func (l *EventLog) Subscribe(stream string) *eventlog.Subscription {
	return l.db.events.feed.Subscribe(stream)
}

func getMeta(tx *bbolt.Tx, stream string) (streamMeta, error) {
	var meta streamMeta
	v := tx.Bucket([]byte(bucketStreams)).Get([]byte(stream))
	if v == nil {
		return meta, nil
	}
	if err := json.Unmarshal(v, &meta); err != nil {
		return meta, fmt.Errorf("decode stream meta: %w", err)
	}
	return meta, nil
}

// encodedLen is the length of an event's single-value encoding: a flags
// byte, the name (a length byte, then the name) when there is one, the data.
func encodedLen(ev eventlog.Event) int {
	n := 1 + len(ev.Data)
	if ev.Name != "" {
		n += 1 + len(ev.Name)
	}
	return n
}

// appendEvent appends the single-value encoding of ev to v.
func appendEvent(v []byte, ev eventlog.Event) []byte {
	var flags byte
	if ev.Close {
		flags |= flagClose
	}
	if ev.Name != "" {
		flags |= flagNamed
	}
	v = append(v, flags)
	if ev.Name != "" {
		v = append(v, byte(len(ev.Name)))
		v = append(v, ev.Name...)
	}
	return append(v, ev.Data...)
}

// decodeEvent decodes a single-value encoding. The event's data is a copy
// unless owned says v is the caller's to keep.
func decodeEvent(v []byte, owned bool) (eventlog.Event, error) {
	if len(v) == 0 {
		return eventlog.Event{}, fmt.Errorf("empty event")
	}
	ev := eventlog.Event{Close: v[0]&flagClose != 0}
	rest := v[1:]
	if v[0]&flagNamed != 0 {
		if len(rest) == 0 || len(rest) < 1+int(rest[0]) {
			return ev, fmt.Errorf("truncated event name")
		}
		ev.Name, rest = string(rest[1:1+int(rest[0])]), rest[1+int(rest[0]):]
	}
	switch {
	case len(rest) == 0:
	case owned:
		ev.Data = json.RawMessage(rest)
	default:
		ev.Data = json.RawMessage(append([]byte(nil), rest...)) // v is only valid inside the transaction
	}
	return ev, nil
}
