package dynamostore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/eventlog"
)

// counting is the DynamoDB client with a count of the requests by
// operation and of the capacity units DynamoDB reports for them.
type counting struct {
	dynamostore.API
	mu       sync.Mutex
	requests map[string]int
	wcu, rcu float64
}

func newCounting(api dynamostore.API) *counting {
	return &counting{API: api, requests: map[string]int{}}
}

func (c *counting) count(op string, cc ...types.ConsumedCapacity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests[op]++
	for _, u := range cc {
		if u.CapacityUnits == nil {
			continue
		}
		switch op {
		case "PutItem", "UpdateItem", "BatchWriteItem":
			c.wcu += *u.CapacityUnits
		default:
			c.rcu += *u.CapacityUnits
		}
	}
}

func (c *counting) snapshot() (map[string]int, float64, float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.requests {
		out[k] = v
	}
	return out, c.wcu, c.rcu
}

func (c *counting) writes() int {
	r, _, _ := c.snapshot()
	return r["PutItem"] + r["UpdateItem"] + r["BatchWriteItem"]
}

func (c *counting) total() int {
	r, _, _ := c.snapshot()
	n := 0
	for _, v := range r {
		n += v
	}
	return n
}

func (c *counting) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.GetItem(ctx, in, o...)
	c.count("GetItem", capOf(out, err, func() *types.ConsumedCapacity { return out.ConsumedCapacity })...)
	return out, err
}

func (c *counting) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.PutItem(ctx, in, o...)
	c.count("PutItem", capOf(out, err, func() *types.ConsumedCapacity { return out.ConsumedCapacity })...)
	return out, err
}

func (c *counting) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.UpdateItem(ctx, in, o...)
	c.count("UpdateItem", capOf(out, err, func() *types.ConsumedCapacity { return out.ConsumedCapacity })...)
	return out, err
}

func (c *counting) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.Query(ctx, in, o...)
	c.count("Query", capOf(out, err, func() *types.ConsumedCapacity { return out.ConsumedCapacity })...)
	return out, err
}

func (c *counting) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.BatchWriteItem(ctx, in, o...)
	var cc []types.ConsumedCapacity
	if err == nil {
		cc = out.ConsumedCapacity
	}
	c.count("BatchWriteItem", cc...)
	return out, err
}

func (c *counting) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.BatchGetItem(ctx, in, o...)
	var cc []types.ConsumedCapacity
	if err == nil {
		cc = out.ConsumedCapacity
	}
	c.count("BatchGetItem", cc...)
	return out, err
}

func capOf[T any](out *T, err error, get func() *types.ConsumedCapacity) []types.ConsumedCapacity {
	if err != nil || out == nil {
		return nil
	}
	if cc := get(); cc != nil {
		return []types.ConsumedCapacity{*cc}
	}
	return nil
}

// chunk is a streamed text delta as the agent appends it.
var chunk = eventlog.Event{Data: json.RawMessage(`{"type":"text-delta","id":"t1","delta":"Fractions are parts of a whole."}`)}

// TestAppendWriteCounts measures what one streamed answer costs in writes:
// 200 one-chunk appends and the closing event, as a turn streaming text
// appends them (one per flush), and the same 200 chunks appended by 50
// producers at once to their own streams. The counts go to docs/cost.md.
func TestAppendWriteCounts(t *testing.T) {
	srv := dynamotest.Start(t)
	api := newCounting(srv.Client)
	log := dynamostore.New(api, srv.NewTable(t), dynamostore.Options{}).Events()
	ctx := context.Background()
	const chunks = 200
	for range chunks {
		if _, err := log.Append(ctx, "turn/one", chunk); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := log.Append(ctx, "turn/one", eventlog.Event{Data: json.RawMessage(`{"type":"finish"}`), Close: true}); err != nil {
		t.Fatal(err)
	}
	req, wcu, _ := api.snapshot()
	t.Logf("one turn, %d chunk appends + close: %d write requests %v, %.0f write units (%.2f requests and %.2f units per append)",
		chunks, api.writes(), req, wcu, float64(api.writes())/(chunks+1), wcu/(chunks+1))
	if evs, err := log.Read(ctx, "turn/one", 0, 0); err != nil || len(evs) != chunks+1 || !evs[chunks].Close {
		t.Fatalf("the stream reads back %d events, %v", len(evs), err)
	}
}

// BenchmarkIdleTailPolls measures what open streams cost while their
// producers are silent (a turn waiting on the model): n tailers, each
// relaying its own stream as the stream function does, for one second per
// op. It reports DynamoDB requests per second, in all and per stream.
func BenchmarkIdleTailPolls(b *testing.B) {
	srv := dynamotest.Start(b)
	for _, n := range []int{1, 10, 50} {
		b.Run(fmt.Sprint("streams=", n), func(b *testing.B) {
			api := newCounting(srv.Client)
			log := dynamostore.New(api, srv.NewTable(b), dynamostore.Options{}).Events()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var delivered atomic.Int64
			for i := range n {
				stream := fmt.Sprintf("turn/idle-%d", i)
				if _, err := log.Append(ctx, stream, chunk); err != nil {
					b.Fatal(err)
				}
				wg.Go(func() {
					_ = eventlog.Tail(ctx, log, stream, 0, eventlog.TailOptions{}, func(eventlog.Event) error {
						delivered.Add(1)
						return nil
					})
				})
			}
			time.Sleep(2 * time.Second) // past the first events: the tails back off to their idle pace
			_, _, rcu0 := api.snapshot()
			start, from := time.Now(), api.total()
			for b.Loop() {
				time.Sleep(time.Second)
			}
			secs := time.Since(start).Seconds()
			reqs := float64(api.total()-from) / secs
			_, _, rcu1 := api.snapshot()
			cancel()
			wg.Wait()
			if delivered.Load() != int64(n) {
				b.Fatalf("%d of %d first events delivered", delivered.Load(), n)
			}
			b.ReportMetric(reqs, "requests/s")
			b.ReportMetric(reqs/float64(n), "requests/s/stream")
			b.ReportMetric((rcu1-rcu0)/secs, "read-units/s")
		})
	}
}

// TestTailAcrossProcesses relays a stream from one store (the stream
// function) while another (a step function) appends to it with pauses: the
// shared poll wakes the tailer, and every event arrives once, in order.
func TestTailAcrossProcesses(t *testing.T) {
	srv := dynamotest.Start(t)
	table := srv.NewTable(t)
	relay := dynamostore.New(srv.Client, table, dynamostore.Options{}).Events()
	step := dynamostore.New(srv.Client, table, dynamostore.Options{}).Events()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 12
	got := make(chan int64, n+1)
	done := make(chan error, 1)
	go func() {
		done <- eventlog.Tail(ctx, relay, "turn/x", 0, eventlog.TailOptions{}, func(ev eventlog.Event) error {
			got <- ev.Seq
			return nil
		})
	}()
	var seqs []int64
	for i := int64(1); i <= n; i++ {
		if _, err := step.Append(ctx, "turn/x", chunk); err != nil {
			t.Fatal(err)
		}
		for i%4 == 0 && (len(seqs) == 0 || seqs[len(seqs)-1] < i) { // the relay catches up, then waits again
			select {
			case s := <-got:
				seqs = append(seqs, s)
			case <-ctx.Done():
				t.Fatalf("the relay stalled after %v", seqs)
			}
		}
	}
	if _, err := step.Append(ctx, "turn/x", eventlog.Event{Data: json.RawMessage(`{"type":"finish"}`), Close: true}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Tail: %v", err)
	}
	close(got)
	for s := range got {
		seqs = append(seqs, s)
	}
	for i, s := range seqs {
		if s != int64(i+1) || len(seqs) != n+1 {
			t.Fatalf("relayed %v, want 1..%d in order", seqs, n+1)
		}
	}
}

// bigJSON is a claim-check record or a closing page event as the product
// writes them: JSON of n bytes, repetitive as JSON is.
func bigJSON(n int) []byte {
	var b []byte
	b = append(b, '[')
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, `{"role":"assistant","content":"Question %d: which of these shows Newton's first law? A body at rest stays at rest %d","toolCallId":"call_%06d"},`, i, i*7%13, i)
	}
	b[len(b)-1] = ']'
	return b
}

// TestLargeValuesDeflated checks that a large record and a large event
// are stored in fewer write units than their size (deflated), read back
// byte for byte (GetRecord, ListRecords, Read), and that items written
// before, with the plain attribute, still read.
func TestLargeValuesDeflated(t *testing.T) {
	srv := dynamotest.Start(t)
	api := newCounting(srv.Client)
	table := srv.NewTable(t)
	tbl := dynamostore.New(api, table, dynamostore.Options{})
	ctx := context.Background()
	value := bigJSON(20 << 10)

	_, wcu0, _ := api.snapshot()
	if err := tbl.Sessions().PutRecord(ctx, "s1", "turn/t1/history/1", value); err != nil {
		t.Fatal(err)
	}
	_, wcu1, _ := api.snapshot()
	if got, err := tbl.Sessions().GetRecord(ctx, "s1", "turn/t1/history/1"); err != nil || string(got) != string(value) {
		t.Fatalf("GetRecord: %d bytes, %v; want the %d put", len(got), err, len(value))
	}
	if recs, err := tbl.Sessions().ListRecords(ctx, "s1", "turn/t1/"); err != nil || len(recs) != 1 || string(recs[0].Value) != string(value) {
		t.Fatalf("ListRecords: %d records, %v", len(recs), err)
	}
	ev := eventlog.Event{Data: value, Close: true}
	if _, err := tbl.Events().Append(ctx, "build/b1", eventlog.Event{Data: json.RawMessage(`{"type":"START"}`)}, ev); err != nil {
		t.Fatal(err)
	}
	_, wcu2, _ := api.snapshot()
	evs, err := tbl.Events().Read(ctx, "build/b1", 0, 0)
	if err != nil || len(evs) != 2 || string(evs[1].Data) != string(value) || !evs[1].Close {
		t.Fatalf("Read: %d events, %v", len(evs), err)
	}
	kb := float64(len(value)) / 1024
	t.Logf("a %.0f KB JSON value: record %.0f write units, event block %.0f", kb, wcu1-wcu0, wcu2-wcu1)
	if wcu1-wcu0 > kb/3 || wcu2-wcu1 > kb/3 {
		t.Errorf("a %.0f KB value took %.0f (record) and %.0f (event) write units, want at most a third", kb, wcu1-wcu0, wcu2-wcu1)
	}

	// An item of the earlier format: the value in the plain attribute.
	old := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "SESSION#s1"}, "SK": &types.AttributeValueMemberS{Value: "REC#turn/t0/history/1"},
		"value": &types.AttributeValueMemberB{Value: value},
	}
	if _, err := srv.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: old}); err != nil {
		t.Fatal(err)
	}
	if got, err := tbl.Sessions().GetRecord(ctx, "s1", "turn/t0/history/1"); err != nil || string(got) != string(value) {
		t.Fatalf("GetRecord of a plain item: %d bytes, %v", len(got), err)
	}
}
