package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/eventlog"
)

// Key prefixes and attribute names of the stream items.
const (
	prefixStream = "STREAM#"
	prefixEvent  = "EV#"
	attrData     = "data"
	attrClose    = "close"
	attrName     = "name"
	// attrCount and attrEvents hold a block of more than one event: how
	// many, and the list of them (each a map of attrData, attrName,
	// attrClose). A block of one event has its attributes on the item.
	attrCount  = "n"
	attrEvents = "evs"
	// seqDigits pads seqs so that sort keys order like the numbers.
	seqDigits = 12
	maxSeq    = 999_999_999_999
	// maxBlockEvents and maxBlockBytes bound a block (an item is at most
	// 400 KB); a batch beyond them is written as several blocks.
	maxBlockEvents = 100
	maxBlockBytes  = 300 << 10
	// maxAppendTries bounds the conditional puts of one block: each lost
	// one means another writer appended to the stream meanwhile.
	maxAppendTries = 50
	// maxCachedTips bounds the streams whose last seq this process keeps.
	maxCachedTips = 4096
)

// ErrGap is returned by Read when an event is still missing after
// Options.GapTimeout while a later event exists. Appends write a block and
// take its seqs in one conditional put, so they leave no gap; a gap is the
// trace of an item written by other means (or of the counter-and-items
// writes of the log's earlier version). The tailer must not skip it.
var ErrGap = errors.New("dynamostore: an event is missing from the stream")

// Events is the eventlog.Log of a Table; see the package comment for the
// blocks and how they keep seqs gap-free.
type Events struct{ t *Table }

var _ eventlog.Log = (*Events)(nil)

func eventSK(seq int64) string { return fmt.Sprintf("%s%0*d", prefixEvent, seqDigits, seq) }

// tip is what this process knows of a stream's end: the last seq and
// whether it is the closing event. It may be stale (another process
// appended); the conditional put finds out.
type tip struct {
	last   int64
	closed bool
}

// tips caches the streams' tips, and serializes the appends of this process
// to one stream, so that they do not race each other's conditions.
type tips struct {
	mu    sync.Mutex
	tips  map[string]tip
	locks [64]sync.Mutex
}

func newTips() *tips { return &tips{tips: map[string]tip{}} }

func (c *tips) lock(stream string) *sync.Mutex {
	h := fnv.New32a()
	_, _ = h.Write([]byte(stream))
	return &c.locks[h.Sum32()%uint32(len(c.locks))]
}

func (c *tips) get(stream string) (tip, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tips[stream]
	return t, ok
}

// set records t unless a later tip is known (a reader of an old part of
// the stream does not move it back).
func (c *tips) set(stream string, t tip) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.tips[stream]
	if ok && old.last > t.last {
		return
	}
	if !ok && len(c.tips) >= maxCachedTips {
		clear(c.tips) // cheap and rare: a miss costs one query
	}
	c.tips[stream] = t
}

// Append implements eventlog.Appender. The events are written as blocks:
// one item keyed by the block's first seq, put on condition that no item has
// that key. The put both takes the seqs and writes the events, in one write
// (one request, one write unit per KB); a writer whose put loses reads on to
// the stream's new end and tries after it, and stops with ErrClosed when
// that end is the closing event.
func (l *Events) Append(ctx context.Context, stream string, events ...eventlog.Event) (int64, error) {
	if err := nonEmpty("stream", stream); err != nil {
		return 0, fmt.Errorf("dynamostore: append: %w", err)
	}
	if err := eventlog.CheckNames(events); err != nil {
		return 0, fmt.Errorf("dynamostore: append %s: %w", stream, err)
	}
	for i, ev := range events {
		if ev.Close {
			events = events[:i+1] // a batch stops at its closing event
			break
		}
	}
	mu := l.t.tips.lock(stream)
	mu.Lock()
	defer mu.Unlock()
	if len(events) == 0 {
		end, err := l.end(ctx, stream, 0) // fresh: another process may have appended
		if err == nil && end.closed {
			err = eventlog.ErrClosed
		}
		if err != nil {
			return 0, fmt.Errorf("dynamostore: append %s: %w", stream, err)
		}
		return end.last, nil
	}
	at, ok := l.t.tips.get(stream)
	if !ok {
		var err error
		if at, err = l.end(ctx, stream, 0); err != nil {
			return 0, fmt.Errorf("dynamostore: append %s: %w", stream, err)
		}
	}
	ttl := l.t.expiry(l.t.o.Now())
	for len(events) > 0 {
		n := blockLen(events)
		next, err := l.putBlock(ctx, stream, at, events[:n], ttl)
		if err != nil {
			if next.closed {
				l.t.tips.set(stream, next)
			}
			return 0, fmt.Errorf("dynamostore: append %s: %w", stream, err)
		}
		at, events = next, events[n:]
	}
	l.t.tips.set(stream, at)
	return at.last, nil
}

// blockLen is how many of events the next block takes.
func blockLen(events []eventlog.Event) int {
	size := 0
	for i, ev := range events {
		size += len(ev.Data) + len(ev.Name) + 16
		if i > 0 && (i == maxBlockEvents || size > maxBlockBytes) {
			return i
		}
	}
	return len(events)
}

// putBlock writes events as the block after at, reading on past blocks
// other writers put first, and returns the stream's new tip.
func (l *Events) putBlock(ctx context.Context, stream string, at tip, events []eventlog.Event, ttl int64) (tip, error) {
	for range maxAppendTries {
		if at.closed {
			return at, eventlog.ErrClosed
		}
		first := at.last + 1
		if first+int64(len(events))-1 > maxSeq {
			return at, fmt.Errorf("seq %d is past the largest seq", first)
		}
		item := blockItem(stream, first, events, ttl)
		_, err := l.t.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:                aws.String(l.t.name),
			Item:                     item,
			ConditionExpression:      aws.String("attribute_not_exists(#sk)"),
			ExpressionAttributeNames: map[string]string{"#sk": AttrSK},
		})
		if err == nil {
			return tip{last: first + int64(len(events)) - 1, closed: events[len(events)-1].Close}, nil
		}
		if !conditionFailed(err) {
			return at, fmt.Errorf("write seqs %d..%d: %w", first, first+int64(len(events))-1, err)
		}
		// Another writer took first: read on to the stream's end.
		if at, err = l.end(ctx, stream, at.last); err != nil {
			return at, err
		}
	}
	return at, fmt.Errorf("no seq won in %d tries: too many writers on one stream", maxAppendTries)
}

func blockItem(stream string, first int64, events []eventlog.Event, ttl int64) map[string]types.AttributeValue {
	item := key(prefixStream+stream, eventSK(first))
	item[AttrTTL] = num(ttl)
	if len(events) == 1 {
		putEvent(item, events[0])
		return item
	}
	list := make([]types.AttributeValue, len(events))
	for i, ev := range events {
		m := map[string]types.AttributeValue{}
		putEvent(m, ev)
		list[i] = &types.AttributeValueMemberM{Value: m}
	}
	item[attrCount] = num(int64(len(events)))
	item[attrEvents] = &types.AttributeValueMemberL{Value: list}
	return item
}

func putEvent(m map[string]types.AttributeValue, ev eventlog.Event) {
	putBinary(m, attrData, ev.Data)
	if ev.Close {
		m[attrClose] = &types.AttributeValueMemberBOOL{Value: true}
	}
	if ev.Name != "" {
		m[attrName] = str(ev.Name)
	}
}

// blockEvents returns the events of a block item with their seqs.
func blockEvents(item map[string]types.AttributeValue) ([]eventlog.Event, error) {
	first, err := strconv.ParseInt(strings.TrimPrefix(getStr(item, AttrSK), prefixEvent), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("bad sort key %q", getStr(item, AttrSK))
	}
	list, ok := item[attrEvents].(*types.AttributeValueMemberL)
	if !ok {
		ev, err := eventOf(item, first)
		if err != nil {
			return nil, err
		}
		return []eventlog.Event{ev}, nil
	}
	evs := make([]eventlog.Event, 0, len(list.Value))
	for i, v := range list.Value {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			return nil, fmt.Errorf("block %d: event %d is not a map", first, i)
		}
		ev, err := eventOf(m.Value, first+int64(i))
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	if n, _ := getNum(item, attrCount); n != int64(len(evs)) || n == 0 {
		return nil, fmt.Errorf("block %d holds %d events, says %d", first, len(evs), n)
	}
	return evs, nil
}

func eventOf(m map[string]types.AttributeValue, seq int64) (eventlog.Event, error) {
	data, err := getBinary(m, attrData)
	if err != nil {
		return eventlog.Event{}, fmt.Errorf("event %d: %w", seq, err)
	}
	return eventlog.Event{Seq: seq, Name: getStr(m, attrName), Data: data, Close: getBool(m, attrClose)}, nil
}

// end reads the stream's blocks after seq after (all of them when after is
// 0 and the stream is new to this process: the last one) and returns its
// tip.
func (l *Events) end(ctx context.Context, stream string, after int64) (tip, error) {
	in := &dynamodb.QueryInput{
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(prefixStream + stream), ":lo": str(eventSK(after + 1)), ":hi": str(eventSK(maxSeq)),
		},
	}
	enough := 0
	if after == 0 { // the last block only
		in.ScanIndexForward = aws.Bool(false)
		in.Limit = aws.Int32(1)
		enough = 1
	}
	items, err := l.t.query(ctx, in, enough)
	if err != nil {
		return tip{}, err
	}
	at := tip{last: after}
	for _, it := range items {
		evs, err := blockEvents(it)
		if err != nil {
			return tip{}, err
		}
		if last := evs[len(evs)-1]; last.Seq > at.last {
			at = tip{last: last.Seq, closed: last.Close}
		}
	}
	return at, nil
}

// Read implements eventlog.Reader with one strongly consistent query (more
// when the events pass 1 MB) of the blocks that hold the seqs after
// `after`, stopping before the first missing one. A block is keyed by its
// first seq, so a cursor inside a block (a resume) reads from up to
// maxBlockEvents-1 seqs before it; a cursor at a block's end (a tail) reads
// from the next seq.
func (l *Events) Read(ctx context.Context, stream string, after int64, limit int) ([]eventlog.Event, error) {
	after = max(after, 0)
	if stream == "" || after >= maxSeq {
		return nil, nil
	}
	if run, ok := l.t.watch.take(stream, after); ok && limit > 0 {
		// The shared poll read the next blocks already (blocks never change).
		if evs := l.fetchedRun(stream, after, limit, run); len(evs) > 0 {
			return evs, nil
		}
	}
	lo := after + 1
	if at, ok := l.t.tips.get(stream); !ok || at.last != after {
		lo = max(after+2-maxBlockEvents, 1)
	}
	hi := int64(maxSeq)
	if limit > 0 {
		hi = min(after+int64(limit), maxSeq)
	}
	items, err := l.t.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(prefixStream + stream), ":lo": str(eventSK(lo)), ":hi": str(eventSK(hi)),
		},
	}, 0)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: read %s: %w", stream, err)
	}
	evs := make([]eventlog.Event, 0, len(items))
	next := after + 1
	for _, it := range items {
		block, err := blockEvents(it)
		if err != nil {
			return nil, fmt.Errorf("dynamostore: read %s: %w", stream, err)
		}
		if block[len(block)-1].Seq < next {
			continue // before the cursor
		}
		if block[0].Seq > next {
			// next is missing while a later event exists.
			if err := l.t.gaps.seen(stream, next, l.t.o.Now(), l.t.o.GapTimeout); err != nil {
				return nil, fmt.Errorf("dynamostore: read %s: %w", stream, err)
			}
			return evs, nil
		}
		for _, ev := range block[next-block[0].Seq:] {
			if limit > 0 && len(evs) == limit {
				return evs, nil
			}
			evs = append(evs, ev)
			next++
		}
		end := block[len(block)-1]
		l.t.tips.set(stream, tip{last: end.Seq, closed: end.Close})
	}
	l.t.gaps.passed(stream, next)
	return evs, nil
}

// fetchedRun returns the events of a run of blocks the shared poll read,
// from seq after+1 on and gap-free (an eventually consistent read may lack
// a block in the middle: the events stop before it), up to limit.
func (l *Events) fetchedRun(stream string, after int64, limit int, run []map[string]types.AttributeValue) []eventlog.Event {
	var evs []eventlog.Event
	for _, it := range run {
		block, err := blockEvents(it)
		if err != nil || block[0].Seq != after+int64(len(evs))+1 {
			break
		}
		evs = append(evs, block...)
		end := block[len(block)-1]
		l.t.tips.set(stream, tip{last: end.Seq, closed: end.Close})
		if len(evs) >= limit {
			return evs[:limit]
		}
	}
	return evs
}

// gapTracker remembers when a reader first saw each gap, per stream.
type gapTracker struct {
	mu   sync.Mutex
	gaps map[string]gap
}

type gap struct {
	seq   int64
	since time.Time
}

// maxTrackedGaps bounds the tracker's memory; past it the oldest entries
// are dropped (their gaps are timed again from the next sighting).
const maxTrackedGaps = 1024

func newGapTracker() *gapTracker { return &gapTracker{gaps: map[string]gap{}} }

// seen records a gap at seq of stream and returns ErrGap once it has been
// there for longer than bound.
func (g *gapTracker) seen(stream string, seq int64, now time.Time, bound time.Duration) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	prev, ok := g.gaps[stream]
	if ok && prev.seq == seq {
		if wait := now.Sub(prev.since); wait > bound {
			return fmt.Errorf("seq %d missing for %s while later events exist: %w", seq, wait.Round(time.Millisecond), ErrGap)
		}
		return nil
	}
	if !ok && len(g.gaps) >= maxTrackedGaps {
		g.dropOldest()
	}
	g.gaps[stream] = gap{seq: seq, since: now}
	return nil
}

// passed forgets a stream's gap once a read went past it.
func (g *gapTracker) passed(stream string, next int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if prev, ok := g.gaps[stream]; ok && prev.seq < next {
		delete(g.gaps, stream)
	}
}

func (g *gapTracker) dropOldest() {
	var oldest string
	var at time.Time
	for s, v := range g.gaps {
		if oldest == "" || v.since.Before(at) {
			oldest, at = s, v.since
		}
	}
	delete(g.gaps, oldest)
}
