package scale_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/asl"
	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The workload: every conversation's first turn, then a follow-up in
// the first half of them; quizzes and chats in turn; workers at once,
// each with its own edge.
const (
	conversations = 200
	followUps     = 100
	turnCount     = conversations + followUps
	workers       = 8
	savedApps     = 40
	// chunkDelay paces the stand-in model's chunks, so that a turn streams
	// for a while and the relay polls while it does, as with a real model.
	chunkDelay = 2 * time.Millisecond
)

// The budget per turn: the counts measured on 2026-11-28 (reads 36-39,
// writes 25-28, relay reads 20-24 a turn, docs/scale.md) and room for how
// the polls and the text flushes fall on a loaded machine: items written
// and read by the edge and the steps together, and the relay's reads of
// the event log (the edge's reads of STREAM# keys).
const (
	maxWritesPerTurn     = 35
	maxReadsPerTurn      = 55
	maxRelayReadsPerTurn = 35
	// maxKeyShare is the most of all writes one partition key may take.
	maxKeyShare = 0.02
)

var messages = []string{"出 3 道牛顿第一定律的选择题", "What is photosynthesis?"}

// TestScaleModel: see the package comment. It prints the summary line
// docs/scale.md quotes ("scale: per turn …").
func TestScaleModel(t *testing.T) {
	shared, _, err := dynamotest.SharedKeys()
	if err != nil {
		t.Fatal(err)
	}
	srv := dynamotest.Start(t)
	table := srv.NewTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := offlineConfig(t, ctx)

	edgeMeter, stepsMeter := dynamotest.NewMeter(), dynamotest.NewMeter()
	steps := newApp(t, cfg, dynamostore.New(dynamotest.NewClient(srv.Endpoint, stepsMeter.Option), table, dynamostore.Options{}))
	runner := newRunner(t, steps.ConversationTasks())
	edgeDB := dynamotest.NewClient(srv.Endpoint, edgeMeter.Option)
	edges := make([]*httptest.Server, workers)
	for i := range edges {
		a := newApp(t, cfg, dynamostore.New(edgeDB, table, dynamostore.Options{}))
		mux := http.NewServeMux()
		a.Edge(runner, nil).Mount(mux)
		edges[i] = httptest.NewServer(mux)
		t.Cleanup(edges[i].Close)
	}

	convs := make([]string, conversations)
	var streamed time.Duration // the turns' streams, request to finish, added up
	var jobs []job
	for i := range conversations {
		jobs = append(jobs, job{conv: i, message: messages[i%len(messages)]})
	}
	streamed += run(t, ctx, edges, jobs, convs)
	jobs = jobs[:0]
	for i := range followUps {
		jobs = append(jobs, job{conv: i, message: messages[(i+1)%len(messages)]})
	}
	streamed += run(t, ctx, edges, jobs, convs)
	runner.wait()
	turns := tally(edgeMeter, stepsMeter)

	// Saved apps and their scheduled runs as the replay function moves
	// them, and the recovery sweep, on the steps' store.
	appStore := dynamostore.NewAppStore(dynamotest.NewClient(srv.Endpoint, stepsMeter.Option), table, dynamostore.Options{})
	driveApps(t, ctx, appStore)
	if rec := steps.Recoverer(nil, nil); rec == nil {
		t.Fatal("the DynamoDB store keeps no leases")
	} else if _, err := rec.Sweep(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	report(t, turns, tally(edgeMeter, stepsMeter), edgeMeter, streamed)
	for _, m := range []*dynamotest.Meter{edgeMeter, stepsMeter} {
		for _, q := range m.Unbounded(shared) {
			t.Errorf("%s of the shared key %q without a Limit", q.Op, q.PK)
		}
	}
}

type job struct {
	conv    int
	message string
}

// run sends the jobs' turns from the workers, each through its own edge,
// and records each new conversation's id; it returns how long the
// streams were open, added up (a measure of the relay's poll rate, not an
// assertion).
func run(t *testing.T, ctx context.Context, edges []*httptest.Server, jobs []job, convs []string) time.Duration {
	t.Helper()
	ch := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open time.Duration
	for _, e := range edges {
		wg.Go(func() {
			for j := range ch {
				mu.Lock()
				id := convs[j.conv]
				mu.Unlock()
				start := time.Now()
				got, err := turn(ctx, e.URL, fmt.Sprintf("t-%03d", j.conv), id, j.message)
				took := time.Since(start)
				if err != nil {
					t.Errorf("conversation %d: %v", j.conv, err)
					continue
				}
				mu.Lock()
				convs[j.conv], open = got, open+took
				mu.Unlock()
			}
		})
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return open
}

// turn streams one turn to its finish and returns the conversation's id.
func turn(ctx context.Context, base, teacher, conv, message string) (string, error) {
	body := map[string]any{"message": message}
	if conv != "" {
		body["conversationId"] = conv
	}
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/conversation/stream", strings.NewReader(string(raw)))
	if err != nil {
		return "", err
	}
	req.Header.Set("X-Teacher-Id", teacher)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %s", resp.Status)
	}
	finished := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var part struct{ Type string }
			if json.Unmarshal([]byte(data), &part) == nil && part.Type == "finish" {
				finished = true
			}
			if part.Type == "error" {
				return "", fmt.Errorf("the turn failed: %s", data)
			}
		}
	}
	if err := sc.Err(); err != nil || !finished {
		return "", fmt.Errorf("the stream ended without a finish (%v)", err)
	}
	return resp.Header.Get("X-Conversation-Id"), nil
}

// driveApps saves scheduled apps of different teachers and runs each
// twice as the replay function does (awswire.App.advance: read the app,
// move its next run; apps.Replayer: a running snapshot, then the ended one).
func driveApps(t *testing.T, ctx context.Context, s *dynamostore.AppStore) {
	t.Helper()
	t0 := time.Now().UTC().Truncate(time.Hour)
	for i := range savedApps {
		a := apps.App{ID: fmt.Sprintf("app-%03d", i), TeacherID: fmt.Sprintf("t-%03d", i), Name: "weekly check",
			Blueprint: json.RawMessage(`{"name":"x"}`), Schedule: &apps.Schedule{Every: "1h"}, NextRunAt: t0, CreatedAt: t0, UpdatedAt: t0}
		must(t, s.PutApp(ctx, a))
		for run := range 2 {
			got, err := s.GetApp(ctx, a.ID)
			must(t, err)
			got.NextRunAt = got.NextRunAt.Add(time.Hour)
			must(t, s.PutApp(ctx, got))
			snap := apps.Snapshot{AppID: a.ID, RunID: fmt.Sprintf("run-%d", run), Status: apps.StatusRunning, StartedAt: t0}
			must(t, s.PutSnapshot(ctx, snap))
			snap.Status = apps.StatusSucceeded
			must(t, s.PutSnapshot(ctx, snap))
		}
	}
	due, err := s.DueApps(ctx, t0.Add(3*time.Hour), 10)
	if err != nil || len(due) != 10 {
		t.Fatalf("DueApps = %d apps, %v; want 10", len(due), err)
	}
}

// counts are the uses of the partition keys, added up over meters.
type counts struct {
	keys                  map[string]dynamotest.KeyUse
	reads, writes         int
	readUnits, writeUnits float64
}

func tally(meters ...*dynamotest.Meter) counts {
	c := counts{keys: map[string]dynamotest.KeyUse{}}
	for _, m := range meters {
		for pk, u := range m.Keys() {
			c.keys[pk] = add(c.keys[pk], u)
			c.reads, c.writes = c.reads+u.Reads, c.writes+u.Writes
			c.readUnits, c.writeUnits = c.readUnits+u.ReadUnits, c.writeUnits+u.WriteUnits
		}
	}
	return c
}

func add(a, b dynamotest.KeyUse) dynamotest.KeyUse {
	return dynamotest.KeyUse{Reads: a.Reads + b.Reads, Writes: a.Writes + b.Writes,
		ReadUnits: a.ReadUnits + b.ReadUnits, WriteUnits: a.WriteUnits + b.WriteUnits}
}

// report prints the per-turn counts (of the turns alone: turns), the use
// by kind of key and the hottest key (of the whole run: all), and holds
// them to the budget.
func report(t *testing.T, turns, all counts, edge *dynamotest.Meter, streamed time.Duration) {
	t.Helper()
	n := float64(turnCount)
	relayReads := 0
	for pk, u := range edge.Keys() {
		if strings.HasPrefix(pk, "STREAM#") {
			relayReads += u.Reads
		}
	}
	byKind := map[string]dynamotest.KeyUse{}
	for pk, u := range all.keys {
		kind, _, _ := strings.Cut(pk, "#")
		byKind[kind] = add(byKind[kind], u)
	}
	for _, kind := range slices.Sorted(maps.Keys(byKind)) {
		t.Logf("%-9s %s", kind, byKind[kind])
	}
	hottest := slices.MaxFunc(slices.Collect(maps.Keys(all.keys)), func(a, b string) int { return all.keys[a].Writes - all.keys[b].Writes })
	share := float64(all.keys[hottest].Writes) / float64(all.writes)
	t.Logf("%d turns over %d conversations, then %d saved apps run twice and a sweep: %d reads, %d writes more; %d partition keys",
		turnCount, conversations, savedApps, all.reads-turns.reads, all.writes-turns.writes, len(all.keys))
	t.Logf("the relay: %.1f reads a second of an open stream (%d reads over %.1f stream-seconds, %.2f s a turn)",
		float64(relayReads)/streamed.Seconds(), relayReads, streamed.Seconds(), streamed.Seconds()/n)
	t.Logf("scale: per turn reads=%.1f writes=%.1f relayReads=%.1f readUnits=%.1f writeUnits=%.1f hottest=%.2f%% (%s)",
		float64(turns.reads)/n, float64(turns.writes)/n, float64(relayReads)/n, turns.readUnits/n, turns.writeUnits/n, 100*share, hottest)

	if float64(turns.writes)/n > maxWritesPerTurn {
		t.Errorf("%.1f items written a turn, budget %d", float64(turns.writes)/n, maxWritesPerTurn)
	}
	if float64(turns.reads)/n > maxReadsPerTurn {
		t.Errorf("%.1f reads a turn, budget %d", float64(turns.reads)/n, maxReadsPerTurn)
	}
	if float64(relayReads)/n > maxRelayReadsPerTurn {
		t.Errorf("the relay read the event log %.1f times a turn, budget %d", float64(relayReads)/n, maxRelayReadsPerTurn)
	}
	if share > maxKeyShare {
		t.Errorf("%s took %.2f%% of all %d writes, more than %.0f%%: a hot key", hottest, 100*share, all.writes, 100*maxKeyShare)
	}
}

// offlineConfig starts the stand-in model and returns the product's
// configuration pointed at it, with the AWS text flush.
func offlineConfig(t *testing.T, ctx context.Context) wire.Config {
	t.Helper()
	url, stop, err := offlinemodel.New(offlinemodel.Options{Delay: chunkDelay}).Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	env := map[string]string{"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "offline", "LLM_MODEL_FAST": "offline-fast",
		"LLM_MODEL_STANDARD": "offline-standard", "LLM_MODEL_STRONG": "offline-strong", "TEXT_FLUSH_INTERVAL": "100ms"}
	cfg, err := wire.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func newApp(t *testing.T, cfg wire.Config, tbl *dynamostore.Table) *wire.App {
	t.Helper()
	a, err := wire.New(cfg, wire.Backends{Store: tbl.Sessions(), Log: tbl.Events()})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runner runs the conversation workflow from its ASL definition in
// process, as Step Functions runs it (edge.Starter).
type runner struct {
	machine  *asl.Machine
	handlers map[string]asl.Handler
	mu       sync.Mutex
	cancels  map[string]context.CancelFunc
	wg       sync.WaitGroup
}

func newRunner(t *testing.T, tasks map[string]wire.Task) *runner {
	t.Helper()
	r := &runner{handlers: map[string]asl.Handler{}, cancels: map[string]context.CancelFunc{}}
	arns := map[string]string{}
	for name, task := range tasks {
		arns[name] = "arn:scale:" + name
		r.handlers[arns[name]] = asl.Handler(task)
	}
	m, err := asl.Parse(infra.ConversationASL, arns)
	if err != nil {
		t.Fatal(err)
	}
	r.machine = m
	t.Cleanup(r.wait)
	return r
}

// Start implements edge.Starter.
func (r *runner) Start(_ context.Context, name string, in workflow.ConversationState) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	r.mu.Lock()
	r.cancels[name] = cancel
	r.mu.Unlock()
	r.wg.Go(func() {
		defer cancel()
		_, _ = r.machine.Run(ctx, raw, asl.Options{Handlers: r.handlers, ExecutionID: name})
	})
	return nil
}

// Stop implements edge.Starter.
func (r *runner) Stop(_ context.Context, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.cancels[name]; c != nil {
		c()
	}
	return nil
}

func (r *runner) wait() { r.wg.Wait() }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
