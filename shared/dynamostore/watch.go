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

// The pace of the shared poll: watchMin while events come, doubling to
// watchMax while none does (the tail's former floor and ceiling).
const (
	watchMin = 20 * time.Millisecond
	watchMax = 500 * time.Millisecond
	// batchGetKeys is BatchGetItem's limit of keys per request.
	batchGetKeys = 100
	// watchTimeout bounds one poll's requests.
	watchTimeout = 10 * time.Second
)

var _ eventlog.Watcher = (*Events)(nil)

// Watch implements eventlog.Watcher: the tailers of this process wait on
// one shared poll, which asks DynamoDB, for every stream waited on, whether
// the block after the tailer's last seq exists (one BatchGetItem of up to
// 100 keys), instead of each tailer querying its stream. The requests per
// second no longer grow with the open streams (up to 100 a request); the
// read units still do, one per key and poll (a strongly consistent read of
// a small item). A tailer waits only after it read everything, so its last
// seq ends a block and the next block is keyed by the seq after it.
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
	// fetched holds the blocks the poll found, for the woken tailer's
	// next Read (a block never changes once written), so that finding an
	// event costs one read, not a poll and a query.
	fetched map[watchKey]map[string]types.AttributeValue
}

// maxFetched bounds the blocks kept for tailers that have not read them.
const maxFetched = 1024

type watchKey struct {
	stream string
	after  int64
}

type watchEntry struct {
	ch   chan struct{}
	refs int
}

func newWatcher(t *Table) *watcher {
	return &watcher{t: t, waits: map[watchKey]*watchEntry{}, kick: make(chan struct{}, 1),
		fetched: map[watchKey]map[string]types.AttributeValue{}}
}

func (w *watcher) watch(k watchKey) (<-chan struct{}, func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.waits[k]
	if e == nil {
		e = &watchEntry{ch: make(chan struct{})}
		w.waits[k] = e
	}
	e.refs++
	if !w.running { // the poll runs while someone waits
		w.running = true
		go w.run()
	}
	select {
	case w.kick <- struct{}{}:
	default:
	}
	return e.ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if e.refs--; e.refs == 0 && w.waits[k] == e {
			delete(w.waits, k)
		}
	}
}

// run polls until nobody waits.
func (w *watcher) run() {
	interval := watchMin
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-w.kick: // a new wait: poll at the quick pace again
			if interval > watchMin { // (at the quick pace already, the poll is due soon: no reset that could put it off)
				interval = watchMin
				timer.Reset(interval)
			}
			continue
		}
		w.mu.Lock()
		if len(w.waits) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		keys := make([]watchKey, 0, len(w.waits))
		for k := range w.waits {
			keys = append(keys, k)
		}
		w.mu.Unlock()
		found, blocks, err := w.poll(keys)
		if err != nil {
			found, blocks = keys, nil // let every tailer read for itself and see the error
		}
		w.wake(found, blocks)
		if len(found) > 0 && err == nil {
			interval = watchMin
		} else {
			interval = min(2*interval, watchMax)
		}
		timer.Reset(interval)
	}
}

// poll returns the keys whose next block exists, with the blocks.
func (w *watcher) poll(keys []watchKey) ([]watchKey, []map[string]types.AttributeValue, error) {
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	var found []watchKey
	var blocks []map[string]types.AttributeValue
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
			w.t.name: {Keys: req, ConsistentRead: aws.Bool(true)},
		}})
		if err != nil {
			return found, blocks, err
		}
		// Keys DynamoDB left unprocessed (throttling) are asked again at
		// the next poll.
		for _, it := range out.Responses[w.t.name] {
			if k, ok := byKey[getStr(it, AttrPK)+"\x00"+getStr(it, AttrSK)]; ok {
				found = append(found, k)
				blocks = append(blocks, it)
			}
		}
	}
	return found, blocks, nil
}

// take returns the block the poll found after seq after of stream, once.
func (w *watcher) take(stream string, after int64) (map[string]types.AttributeValue, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := watchKey{stream, after}
	it, ok := w.fetched[k]
	delete(w.fetched, k)
	return it, ok
}

// wake keeps the blocks found and closes the channels of their keys.
func (w *watcher) wake(found []watchKey, blocks []map[string]types.AttributeValue) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.fetched)+len(blocks) > maxFetched {
		clear(w.fetched) // tailers that went away: a miss costs a query
	}
	for i, k := range found {
		if i < len(blocks) {
			w.fetched[k] = blocks[i]
		}
		if e := w.waits[k]; e != nil {
			close(e.ch)
			delete(w.waits, k)
		}
	}
}
