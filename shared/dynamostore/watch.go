package dynamostore

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// The pace of the shared poll. A wait that has nothing to follow polls
// watchMin after it began, then at doubling intervals up to watchMax: 40,
// 120, 280, 600, 1100 ms... (it was 20, 60, 140, 300, 620, 1120: the same
// wait for an event that comes after a pause, such as an answer's first
// words after the model's first token, and one poll fewer per pause). A
// stream whose producer appends at a pace (text flushed every 100 ms) is
// polled when its next block is due by that pace (watchEntry, pace); a
// block that is late there is polled for once more paceRetry later, then
// by the schedule.
const (
	watchMin  = 40 * time.Millisecond
	watchMax  = 500 * time.Millisecond
	paceRetry = 10 * time.Millisecond
	// paceMargin: a paced poll comes 1/paceMargin of the gap after the
	// block is expected, so that a producer's jitter is seldom a miss.
	paceMargin = 8
	// maxPace is the longest gap between two finds taken for a pace: a
	// longer one is a pause (the model's first token, a tool), after
	// which the next blocks may come at any time.
	maxPace = watchMax / 2
	// batchGetKeys is BatchGetItem's limit of keys per request.
	batchGetKeys = 100
	// watchTimeout bounds one poll's requests.
	watchTimeout = 10 * time.Second
	// runBlocks bounds the blocks one poll of a single stream reads.
	runBlocks = 100
	// pollTogether is how early a wait is polled with others that are
	// due: one request for waits due close together.
	pollTogether = 5 * time.Millisecond
	// maxPaces bounds the streams whose pace is kept.
	maxPaces = 4096
)

var _ eventlog.Watcher = (*Events)(nil)

// Watch implements eventlog.Watcher: the tailers of this process wait on
// one shared poll, which asks DynamoDB whether the blocks after each
// tailer's last seq exist, instead of each tailer querying its stream.
// The polls that are due together are one request: a Query of the run of
// blocks after the seq when one stream is due (a producer that appended
// several blocks costs one read, as the embedded store hands its tailers
// a commit's run), a BatchGetItem of each stream's next block key (up to
// 100) when several are. A tailer waits only after it read everything, so
// its last seq ends a block and the next block is keyed by the seq after
// it.
//
// The polls are eventually consistent reads (half the read units of a
// strongly consistent one): they only say that a block is there and hand
// it over. A block never changes once written, so a block read is the
// block; a stale answer only misses a block, which the next poll finds;
// and the woken tailer passes events from the seq after its last one, in
// order, stopping before any seq it has not got (the delivery rule of
// docs/reliability.md). The reads that decide something (an append's end,
// a resume's cursor, a tail's first read) stay strongly consistent.
func (l *Events) Watch(stream string, after int64) (<-chan struct{}, func()) {
	return l.t.watch.watch(watchKey{stream, after})
}

// watcher is a Table's shared poll.
type watcher struct {
	t       *Table
	mu      sync.Mutex
	waits   map[watchKey]*watchEntry
	running bool
	kick    chan struct{}
	// fetched holds the runs of blocks the poll found, for the woken
	// tailer's next Read (a block never changes once written), so that
	// finding events costs one read, not a poll and a query.
	fetched map[watchKey][]map[string]types.AttributeValue
	// paces is what the poll learnt of each stream's producer.
	paces map[string]*pace
}

// maxFetched bounds the runs kept for tailers that have not read them.
const maxFetched = 1024

type watchKey struct {
	stream string
	after  int64
}

// watchEntry is one wait and its schedule: due is its next poll. Without a
// pace to follow, due steps through the backoff schedule (next, then step
// after it, doubling up to watchMax); with one, due is the pace's
// expected block, and a miss there goes on with the backoff schedule.
type watchEntry struct {
	ch         chan struct{}
	refs       int
	due        time.Time
	next       time.Time
	step       time.Duration
	atPace     bool // due is the pace's expected block (or its retry)
	retried    bool // the pace's retry is due
	firstFound bool // no poll of this wait has missed yet
}

// pace is a stream's producer as the poll saw it: when it last found
// blocks, and the time between two of them (0: none known).
type pace struct {
	found time.Time
	gap   time.Duration
}

func newWatcher(t *Table) *watcher {
	return &watcher{t: t, waits: map[watchKey]*watchEntry{}, kick: make(chan struct{}, 1),
		fetched: map[watchKey][]map[string]types.AttributeValue{}, paces: map[string]*pace{}}
}

// schedule sets a new wait's polls, from now: the backoff schedule, and
// the stream's pace when its producer is appending at one.
func (w *watcher) schedule(e *watchEntry, stream string, now time.Time) {
	e.next, e.step, e.firstFound = now.Add(watchMin), 2*watchMin, true
	e.due, e.atPace = e.next, false
	p := w.paces[stream]
	if p == nil || p.gap == 0 || now.Sub(p.found) > maxPace {
		return
	}
	at := p.found.Add(p.gap + p.gap/paceMargin)
	for !e.next.After(at) { // the backoff polls before the expected block are not needed
		e.advance()
	}
	e.due, e.atPace = at, true
}

// advance moves the backoff schedule one poll on.
func (e *watchEntry) advance() {
	e.next = e.next.Add(e.step)
	e.step = min(2*e.step, watchMax)
}

// missed moves a wait whose poll found nothing to its next poll: a pace
// that missed its block retries once, soon, so that the gap it learns from
// the find is close to the producer's, then goes on with the backoff poll
// it skipped to; a backoff poll waits step from now, and doubles it.
func (e *watchEntry) missed(now time.Time) {
	e.firstFound = false
	if e.atPace && !e.retried {
		e.due, e.retried = now.Add(paceRetry), true
		return
	}
	if !e.atPace || !e.next.After(now) {
		e.next = now.Add(e.step)
		e.step = min(2*e.step, watchMax)
	}
	e.due, e.atPace = e.next, false
}

// found learns the producer's pace from blocks found at now: the time
// since the last find, per block, when the stream was streaming. A first
// poll that found blocks could have come earlier: the gap shrinks a
// little, so that the poll keeps close behind the producer; a wait that
// missed first learns the gap it measured.
func (w *watcher) found(stream string, blocks int, firstFound bool, now time.Time) {
	p := w.paces[stream]
	if p == nil {
		if len(w.paces) >= maxPaces {
			clear(w.paces) // a stream without a pace polls as a new one
		}
		p = &pace{}
		w.paces[stream] = p
	}
	since := now.Sub(p.found)
	switch {
	case p.found.IsZero() || since > maxPace:
		p.gap = 0 // a pause, not a pace
	case blocks > 1 || !firstFound || p.gap == 0:
		p.gap = since / time.Duration(blocks)
	default:
		p.gap -= p.gap / 64
	}
	p.found = now
}

func (w *watcher) watch(k watchKey) (<-chan struct{}, func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.waits[k]
	if e == nil {
		e = &watchEntry{ch: make(chan struct{})}
		w.schedule(e, k.stream, time.Now())
		w.waits[k] = e
	}
	e.refs++
	if !w.running { // the poll runs while someone waits
		w.running = true
		go w.run()
	}
	signal(w.kick)
	return e.ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if e.refs--; e.refs == 0 && w.waits[k] == e {
			delete(w.waits, k)
		}
	}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// run polls the waits as they fall due, until nobody waits.
func (w *watcher) run() {
	timer := time.NewTimer(watchMin)
	defer timer.Stop()
	for {
		w.mu.Lock()
		if len(w.waits) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		now := time.Now()
		due, first := w.due(now)
		w.mu.Unlock()
		if len(due) > 0 {
			found, runs, err := w.poll(due)
			if err != nil {
				found, runs = due, nil // let every tailer read for itself and see the error
			}
			w.wake(due, found, runs, time.Now())
			continue
		}
		timer.Reset(first.Sub(now))
		select {
		case <-timer.C:
		case <-w.kick: // a new wait: its schedule may come first
			timer.Stop()
		}
	}
}

// due returns the waits to poll at now, or else when the first falls due;
// w.mu is held. A poll also takes the waits that back off and would fall
// due within about their interval (a poll that comes early only restarts
// the interval): the waits of many idle streams, begun at different
// times, fall into step and share one request, as the poll of one pace for
// all did.
func (w *watcher) due(now time.Time) ([]watchKey, time.Time) {
	var due []watchKey
	first := now.Add(watchMax)
	for k, e := range w.waits {
		if !e.due.After(now.Add(pollTogether)) {
			due = append(due, k)
		} else if e.due.Before(first) {
			first = e.due
		}
	}
	if len(due) == 0 {
		return nil, first
	}
	for k, e := range w.waits {
		if e.due.After(now.Add(pollTogether)) && !e.atPace && !e.due.After(now.Add(e.step/2)) {
			due = append(due, k)
		}
	}
	return due, first
}

// poll returns the keys whose next block exists, with the runs of blocks
// found.
func (w *watcher) poll(keys []watchKey) ([]watchKey, [][]map[string]types.AttributeValue, error) {
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	if len(keys) == 1 {
		run, err := w.pollRun(ctx, keys[0])
		if err != nil || len(run) == 0 {
			return nil, nil, err
		}
		return keys, [][]map[string]types.AttributeValue{run}, nil
	}
	var found []watchKey
	var runs [][]map[string]types.AttributeValue
	for len(keys) > 0 {
		n := min(len(keys), batchGetKeys)
		batch := keys[:n]
		keys = keys[n:]
		byKey := make(map[string]watchKey, n)
		req := make([]map[string]types.AttributeValue, 0, n)
		for _, k := range batch {
			pk, sk := prefixStream+k.stream, eventSK(k.after+1)
			if _, dup := byKey[pk+"\x00"+sk]; dup {
				continue
			}
			byKey[pk+"\x00"+sk] = k
			req = append(req, key(pk, sk))
		}
		out, err := w.t.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			w.t.name: {Keys: req, ConsistentRead: aws.Bool(false)},
		}})
		if err != nil {
			return found, runs, err
		}
		// Keys DynamoDB left unprocessed (throttling) are asked again at
		// the next poll.
		for _, it := range out.Responses[w.t.name] {
			if k, ok := byKey[getStr(it, AttrPK)+"\x00"+getStr(it, AttrSK)]; ok {
				found = append(found, k)
				runs = append(runs, []map[string]types.AttributeValue{it})
			}
		}
	}
	return found, runs, nil
}

// pollRun reads the blocks of k's stream from the seq after k's, in one
// eventually consistent query: a run when the producer appended several.
// A run that does not start at that seq is no find.
func (w *watcher) pollRun(ctx context.Context, k watchKey) ([]map[string]types.AttributeValue, error) {
	out, err := w.t.db.Query(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(w.t.name),
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(prefixStream + k.stream), ":lo": str(eventSK(k.after + 1)), ":hi": str(eventSK(maxSeq)),
		},
		ConsistentRead: aws.Bool(false),
		Limit:          aws.Int32(runBlocks),
	})
	if err != nil {
		return nil, err
	}
	if len(out.Items) == 0 || getStr(out.Items[0], AttrSK) != eventSK(k.after+1) {
		return nil, nil
	}
	return out.Items, nil
}

// take returns the run of blocks the poll found after seq after of
// stream, once.
func (w *watcher) take(stream string, after int64) ([]map[string]types.AttributeValue, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := watchKey{stream, after}
	run, ok := w.fetched[k]
	delete(w.fetched, k)
	return run, ok
}

// wake keeps the runs found, closes the channels of their keys and moves
// the polled waits that found nothing to their next poll.
func (w *watcher) wake(polled, found []watchKey, runs [][]map[string]types.AttributeValue, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.fetched)+len(runs) > maxFetched {
		clear(w.fetched) // tailers that went away: a miss costs a query
	}
	woken := make(map[watchKey]bool, len(found))
	for i, k := range found {
		woken[k] = true
		e := w.waits[k]
		if i < len(runs) {
			w.fetched[k] = runs[i]
			if e != nil {
				w.found(k.stream, len(runs[i]), e.firstFound, now)
			}
		}
		if e != nil {
			close(e.ch)
			delete(w.waits, k)
		}
	}
	for _, k := range polled {
		if e := w.waits[k]; e != nil && !woken[k] {
			e.missed(now)
		}
	}
}
