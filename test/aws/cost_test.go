package awstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/workflow"
)

// turnReport is what one turn used, as counted in testStreamTurn.
type turnReport struct {
	Scenario    string
	Wall        time.Duration // the stream function's invocation
	Transitions map[string]int
	Invocations map[string]int
	Durations   map[string]time.Duration
	EdgeCalls   map[string]int
	EdgeRead    float64
	EdgeWrite   float64
	StepCalls   map[string]int
	StepRead    float64
	StepWrite   float64
	// Writes are the write units of edge and steps by kind of item.
	Writes map[string]float64
	// Stored is what the table holds more than at the last report, in
	// bytes as DynamoDB bills storage (issue 25).
	Stored int64
	// LogBytes and LogLines are the JSON log and EMF lines written.
	LogBytes, LogLines int64
}

// logMeter counts the bytes and lines written to it (the functions'
// stdout, which Lambda sends to CloudWatch Logs).
type logMeter struct{ bytes, lines atomic.Int64 }

func (m *logMeter) Write(p []byte) (int, error) {
	m.bytes.Add(int64(len(p)))
	m.lines.Add(int64(bytes.Count(p, []byte("\n"))))
	return len(p), nil
}

func (m *logMeter) reset() { m.bytes.Store(0); m.lines.Store(0) }

// report waits for the turn's execution to end and collects its counts.
func (rig *streamRig) report(t *testing.T, scenario string, wall time.Duration) turnReport {
	t.Helper()
	rig.sfn.wg.Wait()
	r := turnReport{Scenario: scenario, Wall: wall}
	rig.sfn.mu.Lock()
	r.Transitions = maps.Clone(rig.sfn.transitions)
	rig.sfn.mu.Unlock()
	rig.lambdas.mu.Lock()
	r.Invocations, r.Durations = maps.Clone(rig.lambdas.count), maps.Clone(rig.lambdas.dur)
	rig.lambdas.mu.Unlock()
	r.EdgeCalls, r.EdgeRead, r.EdgeWrite = rig.edgeDB.snapshot()
	r.StepCalls, r.StepRead, r.StepWrite = rig.stepsDB.snapshot()
	r.Writes = rig.edgeDB.writesByKind()
	for k, v := range rig.stepsDB.writesByKind() {
		r.Writes[k] += v
	}
	stored, err := dynamotest.StoredIn(t.Context(), rig.store, rig.table)
	if err != nil {
		t.Fatal(err)
	}
	r.Stored, rig.stored = stored.Bytes-rig.stored, stored.Bytes
	r.LogBytes, r.LogLines = rig.logs.bytes.Load(), rig.logs.lines.Load()
	return r
}

func sum[M ~map[K]V, K comparable, V int | float64 | time.Duration](m M) V {
	var s V
	for _, v := range m {
		s += v
	}
	return s
}

func calls(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// tableHead is the head of a table with a column per scenario of rs.
func tableHead(first string, rs []turnReport) string {
	return "| " + first + " | " + strings.Join(scenarios(rs), " | ") + " |\n|---|" + strings.Repeat("---|", len(rs)) + "\n"
}

// measuredTable prints the counts of each scenario, per unit (a turn, a
// build).
func measuredTable(unit string, rs []turnReport) string {
	var b strings.Builder
	b.WriteString(tableHead("per "+unit, rs))
	row := func(name string, f func(turnReport) string) {
		b.WriteString("| " + name + " |")
		for _, r := range rs {
			b.WriteString(" " + f(r) + " |")
		}
		b.WriteString("\n")
	}
	row("state transitions", func(r turnReport) string { return fmt.Sprint(sum(r.Transitions)) })
	row("task invocations", func(r turnReport) string { return fmt.Sprintf("%d (%s)", sum(r.Invocations), calls(r.Invocations)) })
	row("task time, offline model", func(r turnReport) string { return sum(r.Durations).Round(time.Millisecond).String() })
	row("edge invocation, offline model", func(r turnReport) string { return r.Wall.Round(time.Millisecond).String() })
	row("DynamoDB requests, edge", func(r turnReport) string { return calls(r.EdgeCalls) })
	row("DynamoDB requests, steps", func(r turnReport) string { return calls(r.StepCalls) })
	row("read request units (edge + steps)", func(r turnReport) string { return fmt.Sprintf("%.0f + %.0f", r.EdgeRead, r.StepRead) })
	row("write request units (edge + steps)", func(r turnReport) string { return fmt.Sprintf("%.0f + %.0f", r.EdgeWrite, r.StepWrite) })
	row("write units by item", func(r turnReport) string { return byKind(r.Writes) })
	row("log and EMF lines (bytes)", func(r turnReport) string { return fmt.Sprintf("%d (%d)", r.LogLines, r.LogBytes) })
	return b.String()
}

// byKind lists write units by kind of item, largest first.
func byKind(m map[string]float64) string {
	kinds := slices.Collect(maps.Keys(m))
	slices.SortFunc(kinds, func(a, b string) int {
		if d := m[b] - m[a]; d != 0 {
			return int(d * 1000)
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %.3g", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func scenarios(rs []turnReport) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Scenario)
	}
	return out
}

// List prices, us-east-1, as of 2026-11 (see docs/cost.md).
const (
	lambdaGBSecond  = 0.0000133334 // arm64
	lambdaRequest   = 0.20 / 1e6
	expressRequest  = 1.00 / 1e6
	expressGBSecond = 0.00001667 // first 1,000 GB-hours a month
	standardPerStep = 0.025 / 1000
	dynamoRRU       = 0.125 / 1e6 // on-demand read request unit
	dynamoWRU       = 0.625 / 1e6 // on-demand write request unit
	logsPerGB       = 0.50        // CloudWatch Logs ingestion
	dynamoGBMonth   = 0.25        // table storage, standard table class
	pitrGBMonth     = 0.20        // point-in-time recovery (template.yaml enables it)
	xrayPerTrace    = 5.00 / 1e6
)

// Assumptions for production, where the model, not our code, sets the
// durations: per invocation of each task, its duration with a real model
// and its memory (template.yaml), and the memory before November 2026
// (wasMB), for the before/after ratio of docs/cost.md.
//
// The Route step runs the router (one fast-tier JSON call, 1.2 s) alongside
// the agent's first round (issue 29), so it lasts the round's 4 s when the
// guessed route holds; AgentTurn's first invocation then only hands that
// round on (handOn), and each later one is a streamed round.
var production = map[string]struct {
	dur          time.Duration
	memMB, wasMB float64
}{
	"RouterFunctionArn":    {4 * time.Second, 128, 512}, // 192 MB before issue 25
	"AgentTurnFunctionArn": {4 * time.Second, 128, 512},
	// The quiz tool waits on the model; since issue 25 the tools that
	// deliver a file run on FileToolFunctionArn (512 MB), which neither
	// scenario calls, and this function is 128 MB.
	"ToolFunctionArn":     {8 * time.Second, 128, 1024},
	"ValidateFunctionArn": {60 * time.Millisecond, 128, 256},
	"FinishFunctionArn":   {80 * time.Millisecond, 128, 256},
}

// handOn is AgentTurn's first invocation of a turn: it returns the round
// the Route step ran (RouteOutput.First), a step like Validate's.
const handOn = 60 * time.Millisecond

// streaming is how long each scenario's answer streams with a real model:
// the agent appends its text every TEXT_FLUSH_INTERVAL while it streams
// (100 ms in AWS, template.yaml; 50 ms before November 2026 and locally),
// one write unit an append (the conditional put of its block; two before
// November 2026, the counter and the event), and the edge's shared poll
// finds an event at each append (it reads the block itself), one unit a
// poll.
var streaming = map[string]time.Duration{"quiz": 2 * time.Second, "chat": 4 * time.Second}

const (
	appendsPerSec       = 10.0 // text flushes while the answer streams (every 100 ms)
	unitsPerAppend      = 1.0  // one block put of ≤ 1 KB (dynamostore.Events.Append)
	streamingPollPerSec = 10.0
	// pollUnits is what one of the relay's polls costs: an eventually
	// consistent read (dynamostore's watcher) of at most 4 KB is half a
	// read unit, found or not.
	pollUnits = 0.5
	// A page build's slot text is still flushed every 50 ms (the builder's
	// FlushEvery): the build meets its write target without it.
	buildAppendsPerSec = 20.0
	buildPollPerSec    = 20.0

	streamMemMB  = 128 // 256 before November 2026
	streamWasMB  = 256
	expressMemMB = 64                     // Express bills memory in 64 MB steps
	edgeOverhead = 300 * time.Millisecond // begin the turn, start the execution, [DONE]
	pollsPerSec  = 2.0                    // the shared poll at its 500 ms ceiling
	// CloudWatch Logs bills each line's bytes plus 26 bytes of metadata; the
	// JSON and EMF lines are measured (turnReport.LogBytes), and Lambda adds
	// three of its own an invocation (START, END, and REPORT with its X-Ray
	// ids: about 360 bytes in the text log format template.yaml keeps).
	logLineOverhead   = 26.0
	platformLogPerInv = 360.0 + 3*logLineOverhead
	tracedShare       = 0.05              // X-Ray default sampling: 1/s then 5 %
	turnsPerMonth     = 100_000 * 20 * 30 // 100,000 teachers × 20 turns a day
	// storedFor is how long, in months, what a turn stores is kept: the
	// table's TTL (dynamostore.Options.TTL, 30 days); storage and its
	// point-in-time recovery are billed by the GB-month.
	storedFor = 1.0
)

type cost struct {
	turn                                                 time.Duration
	rru, wru                                             float64
	gbs, wasGBs                                          float64 // Lambda GB-seconds, now and with the memory before
	lambda, express, standard, dynamo, logs, xray, total float64
	storage                                              float64 // issue 25: what the turn leaves stored, for storedFor
	stored                                               int64   // bytes, with a real model's text
}

// streamedText is a real model's text in one append (100 ms of a model
// writing about 100 characters a second): what each modelled text append
// stores, in a block of its own (issue 25).
const streamedText = "牛顿第一定律指出：一切物体"

// textBlockBytes is what one text append stores, measured: the block the
// event log writes for one text-delta chunk of streamedText, on a turn's
// stream (its key as long as a real turn's), by DynamoDB's storage rules.
func (rig *streamRig) textBlockBytes(t *testing.T) int64 {
	t.Helper()
	before, err := dynamotest.StoredIn(t.Context(), rig.store, rig.table)
	if err != nil {
		t.Fatal(err)
	}
	chunk, _ := json.Marshal(map[string]string{"type": "text-delta", "id": "text-1-2", "delta": streamedText})
	stream := workflow.TurnStream("turn-" + uuid.Must(uuid.NewV7()).String())
	if _, err := dynamostore.New(rig.store, rig.table, dynamostore.Options{}).Events().Append(t.Context(), stream, eventlog.Event{Data: chunk}); err != nil {
		t.Fatal(err)
	}
	after, err := dynamotest.StoredIn(t.Context(), rig.store, rig.table)
	if err != nil {
		t.Fatal(err)
	}
	return after.Bytes - before.Bytes
}

// costOf prices one turn of report r under the production assumptions;
// each modelled text append stores textBlock bytes.
func costOf(r turnReport, textBlock int64) cost {
	var c cost
	for name, n := range r.Invocations {
		p, ok := production[name]
		if !ok {
			panic("cost model: no production assumption for " + name) // a scenario calls a new function
		}
		busy := time.Duration(n) * p.dur
		if name == "AgentTurnFunctionArn" {
			busy += handOn - p.dur
		}
		c.turn += busy
		c.gbs += busy.Seconds() * p.memMB / 1024
		c.wasGBs += busy.Seconds() * p.wasMB / 1024
		c.lambda += float64(n) * lambdaRequest
	}
	c.turn += edgeOverhead
	// The stream function runs as long as the turn it relays.
	c.gbs += c.turn.Seconds() * streamMemMB / 1024
	c.wasGBs += c.turn.Seconds() * streamWasMB / 1024
	c.lambda += lambdaRequest + c.gbs*lambdaGBSecond
	c.express = expressRequest + c.turn.Seconds()*expressMemMB/1024*expressGBSecond
	c.standard = float64(sum(r.Transitions)) * standardPerStep
	// Beyond what was measured with the offline model (which streams at
	// once): the tail's polls while the turn waits for the model, and the
	// answer's appends and reads while it streams.
	live := streaming[r.Scenario]
	reads := pollsPerSec*(c.turn-live).Seconds() + streamingPollPerSec*live.Seconds()
	appends := appendsPerSec * live.Seconds()
	r.Stored += int64(appends) * textBlock
	c.addTables(r, reads, unitsPerAppend*appends, sum(r.Invocations)+1)
	return c
}

// addTables prices what every priced run pays beside its functions and
// workflow: DynamoDB (the units measured in r, plus the modelled reads and
// writes), the logs of its invocations, its X-Ray trace; then the total.
func (c *cost) addTables(r turnReport, reads, writes float64, invocations int) {
	// A read request costs at least one unit (strongly consistent, the
	// store's reads) or half of one (eventually consistent, the relay's
	// polls of the edge's event log), even when it finds nothing.
	floor := pollUnits*float64(r.EdgeCalls["Query"]+r.EdgeCalls["BatchGetItem"]) +
		float64(r.EdgeCalls["GetItem"]+r.StepCalls["Query"]+r.StepCalls["GetItem"])
	measured := max(r.EdgeRead+r.StepRead, floor)
	c.rru, c.wru = measured+pollUnits*reads, r.EdgeWrite+r.StepWrite+writes
	c.dynamo = c.rru*dynamoRRU + c.wru*dynamoWRU
	logged := float64(r.LogBytes) + float64(r.LogLines)*logLineOverhead + float64(invocations)*platformLogPerInv
	c.logs = logged / 1e9 * logsPerGB
	c.xray = tracedShare * xrayPerTrace
	c.stored = r.Stored
	c.storage = float64(r.Stored) / (1 << 30) * (dynamoGBMonth + pitrGBMonth) * storedFor
	c.total = c.lambda + c.express + c.dynamo + c.storage + c.logs + c.xray
}

// costTable prints dollars per 1,000 turns per scenario and a month of
// 100,000 teachers at 20 turns a day, half quizzes and half chats; each
// modelled text append stores textBlock bytes.
func costTable(rs []turnReport, textBlock int64) string {
	var b strings.Builder
	costs := costRows(&b, "turn", rs, func(r turnReport) cost { return costOf(r, textBlock) })
	fmt.Fprintf(&b, "\na text append stores %d bytes (measured: one block of %q)\n\n", textBlock, streamedText)
	b.WriteString(mixTable(costs))
	fmt.Fprintf(&b, "\n100,000 teachers × 20 turns/day = %d turns/month (half of each scenario): $%.0f/month before the model's own price.\n",
		turnsPerMonth, meanOf(costs, func(c cost) float64 { return c.total })*turnsPerMonth)
	return b.String()
}

func meanOf(costs []cost, f func(cost) float64) float64 {
	var m float64
	for _, c := range costs {
		m += f(c) / float64(len(costs))
	}
	return m
}

// mixTable is docs/cost.md's derivation of the cost per 1,000 turns, the
// scenarios of rs in equal shares (half quizzes, half chats): each line's
// quantity per turn and its price (issue 25).
func mixTable(costs []cost) string {
	var b strings.Builder
	b.WriteString("| per 1,000 turns, the scenarios in equal shares | per turn | $ |\n|---|---:|---:|\n")
	line := func(name, qty string, f func(cost) float64) {
		fmt.Fprintf(&b, "| %s | %s | %.4f |\n", name, qty, meanOf(costs, f)*1000)
	}
	stored := meanOf(costs, func(c cost) float64 { return float64(c.stored) })
	line("DynamoDB reads", fmt.Sprintf("%.1f units", meanOf(costs, func(c cost) float64 { return c.rru })), func(c cost) float64 { return c.rru * dynamoRRU })
	line("DynamoDB writes", fmt.Sprintf("%.1f units", meanOf(costs, func(c cost) float64 { return c.wru })), func(c cost) float64 { return c.wru * dynamoWRU })
	line("DynamoDB storage and point-in-time recovery", fmt.Sprintf("%.1f KB for %.0f month", stored/1000, storedFor), func(c cost) float64 { return c.storage })
	line("Lambda (requests + GB-s)", fmt.Sprintf("%.2f GB-s", meanOf(costs, func(c cost) float64 { return c.gbs })), func(c cost) float64 { return c.lambda })
	line("Step Functions Express", fmt.Sprintf("%.1f s × %d MB", meanOf(costs, func(c cost) float64 { return c.turn.Seconds() }), expressMemMB), func(c cost) float64 { return c.express })
	line("CloudWatch Logs, X-Ray", "", func(c cost) float64 { return c.logs + c.xray })
	line("**total**", "", func(c cost) float64 { return c.total })
	return b.String()
}

// Assumptions for a page build in production (docs/cost.md): the phases'
// durations with the real data service and model, the buildstep function
// at 1,024 MB; how long the model streams slot text during Compose; and
// the function that waits for the build (the stream function for a page
// a teacher watches, the replay function for a scheduled run), at 256 MB.
var buildPhases = map[string]time.Duration{
	workflow.PhaseData:    2 * time.Second, // the class and its assignments from the data service
	workflow.PhaseCompute: 300 * time.Millisecond,
	workflow.PhaseCompose: 20 * time.Second, // the slots written by the model (4 in the sample, ~5 s each)
	workflow.PhaseFinish:  200 * time.Millisecond,
}

const (
	buildStepMemMB  = 256 // 1,024 before November 2026
	buildStepWasMB  = 1024
	buildWaiterMemB = 128 // the stream or replay function; 256 before
	buildWaiterWasB = 256
	buildStreaming  = 15 * time.Second // of Compose, the model streaming slot text
	buildsPerMonth  = 100_000 * 2 * 30 // 100,000 teachers × 2 builds a day
)

// buildCostOf prices one build of report r (the "build" or "replay"
// scenario): what was measured, plus the polls and appends of a build that
// streams for seconds.
func buildCostOf(r turnReport, textBlock int64) cost {
	var c cost
	var phases time.Duration
	for _, d := range buildPhases {
		phases += d
	}
	n := r.Invocations["BuildStepFunctionArn"]
	c.turn = phases + edgeOverhead
	c.gbs = phases.Seconds()*buildStepMemMB/1024 + c.turn.Seconds()*buildWaiterMemB/1024
	c.wasGBs = phases.Seconds()*buildStepWasMB/1024 + c.turn.Seconds()*buildWaiterWasB/1024
	c.lambda = float64(n+1)*lambdaRequest + c.gbs*lambdaGBSecond
	c.express = expressRequest + c.turn.Seconds()*expressMemMB/1024*expressGBSecond
	c.standard = float64(sum(r.Transitions)) * standardPerStep
	reads := pollsPerSec*(c.turn-buildStreaming).Seconds() + buildPollPerSec*buildStreaming.Seconds()
	appends := buildAppendsPerSec * buildStreaming.Seconds()
	r.Stored += int64(appends) * textBlock
	c.addTables(r, reads, unitsPerAppend*appends, n+1)
	return c
}

// buildCostTable prints dollars per 1,000 builds for each scenario, and a
// month of 100,000 teachers building two pages a day.
func buildCostTable(rs []turnReport, textBlock int64) string {
	var b strings.Builder
	costs := costRows(&b, "build", rs, func(r turnReport) cost { return buildCostOf(r, textBlock) })
	fmt.Fprintf(&b, "\n100,000 teachers × 2 builds/day = %d builds/month: $%.0f/month before the model's own price (EventBridge Scheduler: $1.00 per million scheduled invocations, 14 million free a month).\n",
		buildsPerMonth, costs[0].total*buildsPerMonth)
	return b.String()
}

// costRows writes the table shared by the turn and build costs: each
// scenario of rs priced by price, in dollars per 1,000 of unit (a turn, a
// build). It returns the costs.
func costRows(b *strings.Builder, unit string, rs []turnReport, price func(turnReport) cost) []cost {
	costs := make([]cost, len(rs))
	for i, r := range rs {
		costs[i] = price(r)
	}
	b.WriteString(tableHead("$ per 1,000 "+unit+"s", rs))
	row := func(name string, f func(cost) string) {
		b.WriteString("| " + name + " |")
		for _, c := range costs {
			b.WriteString(" " + f(c) + " |")
		}
		b.WriteString("\n")
	}
	k := func(v float64) string { return fmt.Sprintf("%.4f", v*1000) }
	row("assumed "+unit+" duration", func(c cost) string { return c.turn.String() })
	row("DynamoDB units with a streaming model (read + write)", func(c cost) string { return fmt.Sprintf("%.0f + %.0f", c.rru, c.wru) })
	row("Lambda GB-s (with the memory before)", func(c cost) string {
		return fmt.Sprintf("%.2f (%.2f, %.2f×)", c.gbs, c.wasGBs, c.gbs/c.wasGBs)
	})
	row("Lambda (requests + GB-s, arm64)", func(c cost) string { return k(c.lambda) })
	row("Step Functions Express", func(c cost) string { return k(c.express) })
	row("DynamoDB on-demand", func(c cost) string { return k(c.dynamo) })
	row("DynamoDB storage and point-in-time recovery", func(c cost) string { return k(c.storage) })
	row("CloudWatch Logs", func(c cost) string { return k(c.logs) })
	row("X-Ray", func(c cost) string { return k(c.xray) })
	row("**total**", func(c cost) string { return "**" + k(c.total) + "**" })
	row("(Standard workflow instead: transitions)", func(c cost) string { return k(c.standard) })
	return costs
}
