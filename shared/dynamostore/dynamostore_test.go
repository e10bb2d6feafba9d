package dynamostore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/apps/appstest"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/claimcheck"
	"github.com/insightedge/insightedge/shared/clock/clocktest"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/eventlog/eventlogtest"
	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/records/recordstest"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/session/sessiontest"
)

// TestContracts runs the contract suite of each interface the table
// implements, each case on a fresh table of one server. The session store
// runs as the functions use it: with large records in the blob store (the
// claim check; S3 in AWS, a directory here).
func TestContracts(t *testing.T) {
	srv := dynamotest.Start(t)
	newTable := func(t *testing.T) *dynamostore.Table {
		return dynamostore.New(srv.Client, srv.NewTable(t), dynamostore.Options{})
	}
	t.Run("Sessions", func(t *testing.T) {
		sessiontest.Run(t, func(t *testing.T) session.Store {
			blobs, err := blob.NewFS(blob.FSConfig{Dir: t.TempDir(), BaseURL: "http://127.0.0.1:1", Secret: []byte("sixteen-byte-key!")})
			if err != nil {
				t.Fatal(err)
			}
			return claimcheck.Wrap(newTable(t).Sessions(), blobs, 0)
		})
	})
	t.Run("Leases", func(t *testing.T) {
		sessiontest.RunLeases(t, func(t *testing.T) session.Leases { return newTable(t).Sessions() })
	})
	t.Run("Events", func(t *testing.T) {
		eventlogtest.Run(t, func(t *testing.T) eventlog.Log { return newTable(t).Events() })
	})
	t.Run("Apps", func(t *testing.T) {
		appstest.Run(t, func(t *testing.T) appstest.Store {
			return dynamostore.NewAppStore(srv.Client, srv.NewTable(t), dynamostore.Options{})
		})
	})
	t.Run("Records", func(t *testing.T) {
		recordstest.Run(t, func(t *testing.T) records.Backend {
			return dynamostore.NewRecords(srv.Client, srv.NewTable(t), dynamostore.Options{})
		})
	})
}

// fixture is a fresh table with a settable clock.
type fixture struct {
	srv   *dynamotest.Server
	table string
	clock *clocktest.Fake
	store *dynamostore.Table
}

func newFixture(t *testing.T, srv *dynamotest.Server) *fixture {
	f := &fixture{srv: srv, table: srv.NewTable(t), clock: clocktest.New(time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC))}
	f.store = dynamostore.New(srv.Client, f.table, dynamostore.Options{
		TTL: 48 * time.Hour, OrphanAfter: time.Minute, GapTimeout: 30 * time.Second, Now: f.clock.Now,
	})
	return f
}

func (f *fixture) update(t *testing.T, in *dynamodb.UpdateItemInput) {
	t.Helper()
	in.TableName = aws.String(f.table)
	if _, err := f.srv.Client.UpdateItem(context.Background(), in); err != nil {
		t.Fatalf("UpdateItem: %v", err)
	}
}

func (f *fixture) scan(t *testing.T) []map[string]types.AttributeValue {
	t.Helper()
	out, err := f.srv.Client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(f.table)})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return out.Items
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestStore runs the store's own cases (beyond the contracts) on one server.
func TestStore(t *testing.T) {
	srv := dynamotest.Start(t)
	tests := []struct {
		name string
		fn   func(t *testing.T, f *fixture)
	}{
		{"TTLOnEveryItem", testTTLOnEveryItem},
		{"KeySchema", testKeySchema},
		{"RepairCrashInBeginTurn", testRepairCrashInBeginTurn},
		{"RepairCrashInEndTurn", testRepairCrashInEndTurn},
		{"GapWaitsThenFails", testGapWaitsThenFails},
		{"WritersInOtherProcesses", testWritersInOtherProcesses},
		{"ReadPagesPastLimit", testReadPagesPastLimit},
		{"PageReadsOnlyItsPage", testPageReadsOnlyItsPage},
		{"PageOfTurnsWithoutIndexItems", testPageOfTurnsWithoutIndexItems},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newFixture(t, srv)) })
	}
}

// testTTLOnEveryItem writes one of each item and checks that each carries
// the TTL attribute as epoch seconds: the session's own expiry, or now+TTL.
func testTTLOnEveryItem(t *testing.T, f *fixture) {
	ctx := context.Background()
	ss, log := f.store.Sessions(), f.store.Events()
	expires := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	must(t, ss.CreateSession(ctx, session.Session{ID: "s1", TeacherID: "teacher-1", ExpiresAt: expires}))
	must(t, ss.CreateSession(ctx, session.Session{ID: "s2", TeacherID: "teacher-1"}))
	_, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t1", Message: "hi"})
	must(t, err)
	must(t, ss.PutRecord(ctx, "s1", "history/t1", []byte("[]")))
	must(t, ss.PutRecord(ctx, "s1", "empty", nil))
	_, err = log.Append(ctx, "turn/t1", eventlog.Event{Data: json.RawMessage(`1`)}, eventlog.Event{Data: json.RawMessage(`2`), Close: true})
	must(t, err)

	later := f.clock.Now().Add(48 * time.Hour).Unix()
	want := map[string]int64{
		"SESSION#s1/META":                expires.Unix(),
		"SESSION#s2/META":                later,
		"SESSION#s1/TURN#t1":             expires.Unix(), // a turn lives as long as its session
		"SESSION#s1/TURNAT#000000000001": expires.Unix(), // and its index item
		"SESSION#s1/REC#history/t1":      later,
		"SESSION#s1/REC#empty":           later,
		"STREAM#turn/t1/EV#000000000001": later, // one block: both events
	}
	items := f.scan(t)
	if len(items) != len(want) {
		t.Errorf("the table holds %d items, want %d", len(items), len(want))
	}
	for _, it := range items {
		k := it["PK"].(*types.AttributeValueMemberS).Value + "/" + it["SK"].(*types.AttributeValueMemberS).Value
		ttl, ok := it[dynamostore.AttrTTL].(*types.AttributeValueMemberN)
		if !ok {
			t.Errorf("item %s has no numeric %s attribute", k, dynamostore.AttrTTL)
			continue
		}
		if got := ttl.Value; got != fmt.Sprint(want[k]) {
			t.Errorf("item %s: ttl = %s, want %d", k, got, want[k])
		}
	}
	if got, _ := ss.GetSession(ctx, "s2"); !got.ExpiresAt.Equal(time.Unix(later, 0)) {
		t.Errorf("session without ExpiresAt expires at %v, want now+TTL %v", got.ExpiresAt, time.Unix(later, 0))
	}
}

// testKeySchema pins the definition template.yaml must match (test/aws
// checks the template against CreateTableInput).
func testKeySchema(t *testing.T, f *fixture) {
	out, err := f.srv.Client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(f.table)})
	must(t, err)
	var got []string
	for _, k := range out.Table.KeySchema {
		got = append(got, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	if want := []string{"PK:HASH", "SK:RANGE"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("key schema = %v, want %v", got, want)
	}
}

// testRepairCrashInBeginTurn leaves a session naming an active turn with no
// item, as a BeginTurn that died between its two writes would: the session
// stays busy while that turn's item may still come, and is freed after
// OrphanAfter, with the turn indexes kept contiguous.
func testRepairCrashInBeginTurn(t *testing.T, f *fixture) {
	ctx := context.Background()
	ss := f.store.Sessions()
	must(t, ss.CreateSession(ctx, session.Session{ID: "s1", TeacherID: "teacher-1"}))
	f.update(t, &dynamodb.UpdateItemInput{
		Key:              key("SESSION#s1", "META"),
		UpdateExpression: aws.String("SET activeTurn = :t, updatedAt = :now ADD turns :one, version :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberS{Value: "t-lost"}, ":one": &types.AttributeValueMemberN{Value: "1"},
			":now": &types.AttributeValueMemberS{Value: f.clock.Now().Format(time.RFC3339Nano)},
		},
	})
	if _, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t2"}); !errors.Is(err, session.ErrConflict) {
		t.Fatalf("BeginTurn right after the lost one: %v, want ErrConflict", err)
	}
	f.clock.Advance(2 * time.Minute)
	got, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t2"})
	if err != nil {
		t.Fatalf("BeginTurn after OrphanAfter: %v", err)
	}
	if got.Index != 1 {
		t.Fatalf("the repaired session gave index %d, want 1", got.Index)
	}
	if sess, _ := ss.GetSession(ctx, "s1"); sess.ActiveTurn != "t2" || sess.Turns != 1 {
		t.Fatalf("session: active %q, turns %d; want t2, 1", sess.ActiveTurn, sess.Turns)
	}
}

// testRepairCrashInEndTurn leaves a session naming a turn that has ended,
// as an EndTurn that died between its two writes would: the next BeginTurn
// frees the session at once.
func testRepairCrashInEndTurn(t *testing.T, f *fixture) {
	ctx := context.Background()
	ss := f.store.Sessions()
	must(t, ss.CreateSession(ctx, session.Session{ID: "s1", TeacherID: "teacher-1"}))
	_, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t1"})
	must(t, err)
	f.update(t, &dynamodb.UpdateItemInput{
		Key:                      key("SESSION#s1", "TURN#t1"),
		UpdateExpression:         aws.String("SET #s = :done"),
		ExpressionAttributeNames: map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":done": &types.AttributeValueMemberS{Value: string(session.TurnCompleted)},
		},
	})
	before, err := ss.GetSession(ctx, "s1")
	must(t, err)
	got, err := ss.BeginTurn(ctx, session.Turn{SessionID: "s1", ID: "t2"})
	if err != nil {
		t.Fatalf("BeginTurn after the half-ended turn: %v", err)
	}
	after, err := ss.GetSession(ctx, "s1")
	must(t, err)
	if got.Index != 2 || after.ActiveTurn != "t2" || after.Version <= before.Version {
		t.Fatalf("after repair: index %d, active %q, version %d→%d", got.Index, after.ActiveTurn, before.Version, after.Version)
	}
}

// putEvent writes an event item as another writer would, bypassing the
// store.
func (f *fixture) putEvent(t *testing.T, stream string, seq int64, data string) {
	t.Helper()
	_, err := f.srv.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "STREAM#" + stream}, "SK": &types.AttributeValueMemberS{Value: fmt.Sprintf("EV#%012d", seq)},
		"data": &types.AttributeValueMemberB{Value: []byte(data)}, "ttl": &types.AttributeValueMemberN{Value: "1"},
	}})
	must(t, err)
}

func seqs(evs []eventlog.Event) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

// testGapWaitsThenFails makes seq 3 missing while 4 exists: Read stops
// before the gap, keeps stopping within GapTimeout, then fails with ErrGap;
// once the event arrives the stream reads on.
func testGapWaitsThenFails(t *testing.T, f *fixture) {
	ctx := context.Background()
	log := f.store.Events()
	const s = "turn/gap"
	_, err := log.Append(ctx, s, eventlog.Event{Data: json.RawMessage(`1`)}, eventlog.Event{Data: json.RawMessage(`2`)})
	must(t, err)
	f.putEvent(t, s, 4, `4`) // an item that skips seq 3 (the log's own appends cannot)

	evs, err := log.Read(ctx, s, 0, 0)
	if err != nil || fmt.Sprint(seqs(evs)) != "[1 2]" {
		t.Fatalf("Read = %v, %v; want [1 2] (stop before the gap)", seqs(evs), err)
	}
	for _, step := range []time.Duration{0, 10 * time.Second, 20 * time.Second} {
		f.clock.Advance(step)
		if evs, err := log.Read(ctx, s, 2, 0); err != nil || len(evs) != 0 {
			t.Fatalf("Read at the gap within GapTimeout = %v, %v; want nothing, nil", seqs(evs), err)
		}
	}
	f.clock.Advance(time.Second)
	if _, err := log.Read(ctx, s, 2, 0); !errors.Is(err, dynamostore.ErrGap) {
		t.Fatalf("Read at a gap older than GapTimeout: %v, want ErrGap", err)
	}

	// The late writer arrives: the stream reads on, and the gap is forgotten.
	f.putEvent(t, s, 3, `3`)
	evs, err = log.Read(ctx, s, 2, 0)
	if err != nil || fmt.Sprint(seqs(evs)) != "[3 4]" {
		t.Fatalf("Read after the gap filled = %v, %v; want [3 4]", seqs(evs), err)
	}
}

// testWritersInOtherProcesses appends to one stream from several stores
// on the table, as the Lambda functions of one turn do (each its own
// process, with its own idea of the stream's end), while another closes
// it: the conditional puts keep seqs unique and gap-free, a batch whole,
// and nothing after the close.
func testWritersInOtherProcesses(t *testing.T, f *fixture) {
	ctx := context.Background()
	const s, writers, pairs = "turn/procs", 4, 10
	logs := make([]eventlog.Log, writers+1)
	for i := range logs {
		logs[i] = dynamostore.New(f.srv.Client, f.table, dynamostore.Options{Now: f.clock.Now}).Events()
	}
	if _, err := logs[0].Append(ctx, s, eventlog.Event{Data: json.RawMessage(`"start"`)}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	accepted := make([][]int64, writers)
	going := make(chan struct{}, writers) // each writer has appended thrice
	for w := range writers {
		wg.Go(func() {
			for i := range pairs {
				if i == 3 {
					going <- struct{}{}
				}
				last, err := logs[w].Append(ctx, s,
					eventlog.Event{Data: json.RawMessage(fmt.Sprintf(`"%d/%d/a"`, w, i))},
					eventlog.Event{Data: json.RawMessage(fmt.Sprintf(`"%d/%d/b"`, w, i))})
				if errors.Is(err, eventlog.ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				accepted[w] = append(accepted[w], last)
			}
		})
	}
	for range writers {
		<-going
	}
	closeSeq, err := logs[writers].Append(ctx, s, eventlog.Event{Data: json.RawMessage(`"stop"`), Close: true})
	must(t, err)
	wg.Wait()
	evs, err := logs[0].Read(ctx, s, 0, 0)
	must(t, err)
	if int64(len(evs)) != closeSeq || !evs[len(evs)-1].Close {
		t.Fatalf("the stream holds %d events, the close has seq %d", len(evs), closeSeq)
	}
	n := 1
	for w := range accepted {
		n += 2 * len(accepted[w])
		for _, last := range accepted[w] {
			a, b := evs[last-2], evs[last-1]
			if string(b.Data) != strings.Replace(string(a.Data), "/a", "/b", 1) || !strings.HasPrefix(string(a.Data), fmt.Sprintf(`"%d/`, w)) {
				t.Fatalf("the pair ending at %d is %s %s", last, a.Data, b.Data)
			}
		}
	}
	if n+1 != len(evs) || n < 1+2*3*writers {
		t.Fatalf("%d events accepted before the close, the stream holds %d", n, len(evs)-1)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
	if _, err := logs[1].Append(ctx, s, eventlog.Event{Data: json.RawMessage(`"late"`)}); !errors.Is(err, eventlog.ErrClosed) {
		t.Fatalf("a late append from another process: %v, want ErrClosed", err)
	}
}

// testReadPagesPastLimit reads a stream larger than one DynamoDB page
// (1 MB) in one Read, with and without a limit.
func testReadPagesPastLimit(t *testing.T, f *fixture) {
	ctx := context.Background()
	log := f.store.Events()
	const s = "turn/big"
	big := json.RawMessage(`"` + strings.Repeat("x", 100_000) + `"`)
	const n = 25 // 2.5 MB: three pages
	evs := make([]eventlog.Event, n)
	for i := range evs {
		evs[i] = eventlog.Event{Data: big}
	}
	_, err := log.Append(ctx, s, evs...)
	must(t, err)
	for _, tt := range []struct {
		after int64
		limit int
		want  int
	}{{0, 0, n}, {0, 20, 20}, {3, 15, 15}, {20, 100, 5}} {
		got, err := log.Read(ctx, s, tt.after, tt.limit)
		if err != nil || len(got) != tt.want || (len(got) > 0 && got[0].Seq != tt.after+1) {
			t.Fatalf("Read(%d, %d) = %d events from %v, %v; want %d from %d", tt.after, tt.limit, len(got), seqs(got[:min(1, len(got))]), err, tt.want, tt.after+1)
		}
	}
}

// countingAPI counts the items the store reads through the real client.
type countingAPI struct {
	*dynamodb.Client
	mu              sync.Mutex
	queried, gotten int
	fullTurnQueries int
}

func (c *countingAPI) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := c.Client.Query(ctx, in, opts...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.queried += len(out.Items)
	}
	if p, ok := in.ExpressionAttributeValues[":prefix"].(*types.AttributeValueMemberS); ok && p.Value == "TURN#" {
		c.fullTurnQueries++
	}
	return out, err
}

func (c *countingAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := c.Client.GetItem(ctx, in, opts...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil && out.Item != nil {
		c.gotten++
	}
	return out, err
}

func (c *countingAPI) reset() {
	c.mu.Lock()
	c.queried, c.gotten, c.fullTurnQueries = 0, 0, 0
	c.mu.Unlock()
}

// beginTurns writes n ended turns t1..tn.
func beginTurns(t *testing.T, ss *dynamostore.Sessions, sid string, from, to int) {
	t.Helper()
	ctx := context.Background()
	for i := from; i <= to; i++ {
		id := fmt.Sprint("t", i)
		_, err := ss.BeginTurn(ctx, session.Turn{SessionID: sid, ID: id, Message: fmt.Sprint("question ", i)})
		must(t, err)
		must(t, ss.EndTurn(ctx, sid, id, session.TurnCompleted, session.Outcome{Text: "ok"}))
	}
}

func indices(turns []session.Turn) []int {
	var out []int
	for _, tr := range turns {
		out = append(out, tr.Index)
	}
	return out
}

// testPageReadsOnlyItsPage: a page of 5 turns of a 40-turn conversation
// reads 6 index items and 5 turns, never the whole session.
func testPageReadsOnlyItsPage(t *testing.T, f *fixture) {
	ctx := context.Background()
	api := &countingAPI{Client: f.srv.Client}
	ss := dynamostore.New(api, f.table, dynamostore.Options{Now: f.clock.Now}).Sessions()
	must(t, ss.CreateSession(ctx, session.Session{ID: "s1", TeacherID: "teacher-1"}))
	beginTurns(t, ss, "s1", 1, 40)
	for _, tc := range []struct {
		before int
		want   []int
	}{{0, []int{36, 37, 38, 39, 40}}, {36, []int{31, 32, 33, 34, 35}}, {6, []int{1, 2, 3, 4, 5}}} {
		api.reset()
		page, more, err := ss.PageTurns(ctx, "s1", tc.before, 5)
		must(t, err)
		if fmt.Sprint(indices(page)) != fmt.Sprint(tc.want) || more != (tc.before != 6) {
			t.Fatalf("PageTurns(before %d) = %v more %v, want %v", tc.before, indices(page), more, tc.want)
		}
		if api.queried > 6 || api.gotten != 5 || api.fullTurnQueries != 0 {
			t.Errorf("PageTurns(before %d) read %d index items, %d turns, %d whole-session queries; want <= 6, 5, 0",
				tc.before, api.queried, api.gotten, api.fullTurnQueries)
		}
	}
}

// testPageOfTurnsWithoutIndexItems: turns written before the index items
// existed are still paged (the whole session is read for them).
func testPageOfTurnsWithoutIndexItems(t *testing.T, f *fixture) {
	ctx := context.Background()
	ss := f.store.Sessions()
	must(t, ss.CreateSession(ctx, session.Session{ID: "s1", TeacherID: "teacher-1"}))
	beginTurns(t, ss, "s1", 1, 12)
	for i := 1; i <= 12; i++ { // as an older version wrote them
		_, err := f.srv.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.table),
			Key: key("SESSION#s1", fmt.Sprintf("TURNAT#%012d", i))})
		must(t, err)
	}
	beginTurns(t, ss, "s1", 13, 15)
	var walked []int
	before := 0
	for range 5 {
		page, more, err := ss.PageTurns(ctx, "s1", before, 5)
		must(t, err)
		walked = append(indices(page), walked...)
		if !more {
			break
		}
		before = page[0].Index
	}
	if want := "[1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]"; fmt.Sprint(walked) != want {
		t.Fatalf("pages joined = %v, want %s", walked, want)
	}
}
