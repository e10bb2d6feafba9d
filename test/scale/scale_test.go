package scale_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/wire"
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
	// issue 25: what the turns leave stored (storage is billed by the
	// GB-month), before the saved apps add theirs.
	stored, err := dynamotest.StoredIn(ctx, dynamotest.NewClient(srv.Endpoint), table)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stored after the turns: %d items, %.1f KB a turn (%s)", stored.Items, float64(stored.Bytes)/1000/turnCount, storedByKind(stored))

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
	raw, _ := json.Marshal(struct {
		Message        string `json:"message"`
		ConversationID string `json:"conversationId,omitempty"`
	}{message, conv})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/conversation/stream", bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	req.Header = http.Header{"X-Teacher-Id": {teacher}}
	resp, err := http.DefaultClient.Do(req)
	if err == nil && resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		err = fmt.Errorf("status %s", resp.Status)
	}
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	finished := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
			var part struct{ Type string }
			if json.Unmarshal(data, &part) == nil && part.Type == "finish" {
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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
