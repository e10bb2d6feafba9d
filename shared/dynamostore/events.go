package dynamostore

import (
	"context"
	"errors"
	"fmt"
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
	skHead       = "HEAD"
	prefixEvent  = "EV#"
	attrLast     = "last"
	attrClosed   = "closed"
	attrData     = "data"
	attrClose    = "close"
	attrName     = "name"
	// seqDigits pads seqs so that sort keys order like the numbers.
	seqDigits = 12
	maxSeq    = 999_999_999_999
)

// ErrGap is returned by Read when an event is still missing after
// Options.GapTimeout while a later event exists: an appender allocated its
// seqs and did not write them. The tailer must not skip it silently.
var ErrGap = errors.New("dynamostore: an event is missing from the stream")

// Events is the eventlog.Log of a Table; see the package comment for the
// counter item and the gap rule.
type Events struct{ t *Table }

var _ eventlog.Log = (*Events)(nil)

func headKey(stream string) map[string]types.AttributeValue { return key(prefixStream+stream, skHead) }

func eventSK(seq int64) string { return fmt.Sprintf("%s%0*d", prefixEvent, seqDigits, seq) }

// Append implements eventlog.Appender: one conditional update of the
// stream's counter allocates the block of seqs (and closes the stream when
// the batch holds its closing event), then the events are written.
func (l *Events) Append(ctx context.Context, stream string, events ...eventlog.Event) (int64, error) {
	if err := nonEmpty("stream", stream); err != nil {
		return 0, fmt.Errorf("dynamostore: append: %w", err)
	}
	if err := eventlog.CheckNames(events); err != nil {
		return 0, fmt.Errorf("dynamostore: append %s: %w", stream, err)
	}
	n, closes := 0, false
	for _, ev := range events {
		n++
		if ev.Close {
			closes = true
			break // a batch stops at its closing event
		}
	}
	if n == 0 {
		last, err := l.last(ctx, stream)
		if err != nil {
			return 0, fmt.Errorf("dynamostore: append %s: %w", stream, err)
		}
		return last, nil
	}
	now := l.t.o.Now()
	ttl := l.t.expiry(now)
	update := "SET #ttl = :ttl ADD #last :n"
	values := map[string]types.AttributeValue{":ttl": num(ttl), ":n": num(int64(n))}
	if closes {
		update = "SET #ttl = :ttl, #closed = :true ADD #last :n"
		values[":true"] = &types.AttributeValueMemberBOOL{Value: true}
	}
	out, err := l.t.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(l.t.name),
		Key:                       headKey(stream),
		ConditionExpression:       aws.String("attribute_not_exists(#closed)"),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  map[string]string{"#ttl": AttrTTL, "#last": attrLast, "#closed": attrClosed},
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if conditionFailed(err) {
		err = eventlog.ErrClosed
	}
	if err != nil {
		return 0, fmt.Errorf("dynamostore: append %s: %w", stream, err)
	}
	last, err := getNum(out.Attributes, attrLast)
	if err != nil || last < int64(n) || last > maxSeq {
		return 0, fmt.Errorf("dynamostore: append %s: counter returned last=%d for %d events (%v)", stream, last, n, err)
	}
	items := make([]map[string]types.AttributeValue, n)
	for i, ev := range events[:n] {
		item := key(prefixStream+stream, eventSK(last-int64(n)+1+int64(i)))
		if len(ev.Data) > 0 {
			item[attrData] = &types.AttributeValueMemberB{Value: ev.Data}
		}
		if ev.Close {
			item[attrClose] = &types.AttributeValueMemberBOOL{Value: true}
		}
		if ev.Name != "" {
			item[attrName] = str(ev.Name)
		}
		item[AttrTTL] = num(ttl)
		items[i] = item
	}
	if err := l.t.putAll(ctx, items); err != nil {
		return 0, fmt.Errorf("dynamostore: append %s: write seqs %d..%d: %w", stream, last-int64(n)+1, last, err)
	}
	return last, nil
}

// last returns the stream's last allocated seq, or ErrClosed.
func (l *Events) last(ctx context.Context, stream string) (int64, error) {
	item, err := l.t.get(ctx, headKey(stream))
	if err != nil {
		return 0, err
	}
	if getBool(item, attrClosed) {
		return 0, eventlog.ErrClosed
	}
	return getNum(item, attrLast)
}

// Read implements eventlog.Reader with one strongly consistent query (more
// when the events pass 1 MB) of the seqs after `after`, stopping before the
// first missing one.
func (l *Events) Read(ctx context.Context, stream string, after int64, limit int) ([]eventlog.Event, error) {
	after = max(after, 0)
	if stream == "" || after >= maxSeq {
		return nil, nil
	}
	hi := int64(maxSeq)
	if limit > 0 {
		hi = min(after+int64(limit), maxSeq)
	}
	items, err := l.t.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(prefixStream + stream), ":lo": str(eventSK(after + 1)), ":hi": str(eventSK(hi)),
		},
	}, limit)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: read %s: %w", stream, err)
	}
	evs := make([]eventlog.Event, 0, len(items))
	next := after + 1
	for _, it := range items {
		seq, err := strconv.ParseInt(strings.TrimPrefix(getStr(it, AttrSK), prefixEvent), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("dynamostore: read %s: bad sort key %q", stream, getStr(it, AttrSK))
		}
		if seq != next {
			// seq > next: next is allocated but not written (yet).
			if err := l.t.gaps.seen(stream, next, l.t.o.Now(), l.t.o.GapTimeout); err != nil {
				return nil, fmt.Errorf("dynamostore: read %s: %w", stream, err)
			}
			return evs, nil
		}
		evs = append(evs, eventlog.Event{Seq: seq, Name: getStr(it, attrName), Data: getBytes(it, attrData), Close: getBool(it, attrClose)})
		next++
	}
	l.t.gaps.passed(stream, next)
	return evs, nil
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
