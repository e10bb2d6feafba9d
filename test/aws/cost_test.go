package awstest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

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
}

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
	xrayPerTrace    = 5.00 / 1e6
)

// Assumptions for production, where the model, not our code, sets the
// durations: per invocation of each task, its duration with a real model
// and its memory (template.yaml), and the memory before November 2026
// (wasMB), for the before/after ratio of docs/cost.md.
var production = map[string]struct {
	dur          time.Duration
	memMB, wasMB float64
}{
	"RouterFunctionArn":    {1200 * time.Millisecond, 192, 512}, // one fast-tier JSON call
	"AgentTurnFunctionArn": {4 * time.Second, 192, 512},         // one streamed round
	"ToolFunctionArn":      {8 * time.Second, 512, 1024},        // the quiz tool calls the model
	"ValidateFunctionArn":  {60 * time.Millisecond, 128, 256},
	"FinishFunctionArn":    {80 * time.Millisecond, 128, 256},
}

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
	// A page build's slot text is still flushed every 50 ms (the builder's
	// FlushEvery): the build meets its write target without it.
	buildAppendsPerSec = 20.0
	buildPollPerSec    = 20.0

	streamMemMB   = 128 // 256 before November 2026
	streamWasMB   = 256
	expressMemMB  = 64                     // Express bills memory in 64 MB steps
	edgeOverhead  = 300 * time.Millisecond // begin the turn, start the execution, [DONE]
	pollsPerSec   = 2.0                    // the shared poll at its 500 ms ceiling
	logBytesPerFn = 1500.0                 // JSON lines + START/END/REPORT per invocation
	tracedShare   = 0.05                   // X-Ray default sampling: 1/s then 5 %
	turnsPerMonth = 100_000 * 20 * 30      // 100,000 teachers × 20 turns a day
)

type cost struct {
	turn                                                 time.Duration
	rru, wru                                             float64
	gbs, wasGBs                                          float64 // Lambda GB-seconds, now and with the memory before
	lambda, express, standard, dynamo, logs, xray, total float64
}

// costOf prices one turn of report r under the production assumptions.
func costOf(r turnReport) cost {
	var c cost
	for name, n := range r.Invocations {
		p := production[name]
		c.turn += time.Duration(n) * p.dur
		c.gbs += float64(n) * p.dur.Seconds() * p.memMB / 1024
		c.wasGBs += float64(n) * p.dur.Seconds() * p.wasMB / 1024
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
	writes := unitsPerAppend * appendsPerSec * live.Seconds()
	c.addTables(r, reads, writes, sum(r.Invocations)+1)
	return c
}

// addTables prices what every priced run pays beside its functions and
// workflow: DynamoDB (the units measured in r, plus the modelled reads and
// writes), the logs of its invocations, its X-Ray trace; then the total.
func (c *cost) addTables(r turnReport, reads, writes float64, invocations int) {
	// A read request costs at least one unit, even when it finds nothing.
	measured := max(r.EdgeRead+r.StepRead, float64(r.EdgeCalls["Query"]+r.EdgeCalls["GetItem"]+r.StepCalls["Query"]+r.StepCalls["GetItem"]))
	c.rru, c.wru = measured+reads, r.EdgeWrite+r.StepWrite+writes
	c.dynamo = c.rru*dynamoRRU + c.wru*dynamoWRU
	c.logs = float64(invocations) * logBytesPerFn / 1e9 * logsPerGB
	c.xray = tracedShare * xrayPerTrace
	c.total = c.lambda + c.express + c.dynamo + c.logs + c.xray
}

// costTable prints dollars per 1,000 turns per scenario and a month of
// 100,000 teachers at 20 turns a day, half quizzes and half chats.
func costTable(rs []turnReport) string {
	var b strings.Builder
	costs := costRows(&b, "turn", rs, costOf)
	var mean float64
	for _, c := range costs {
		mean += c.total / float64(len(costs))
	}
	fmt.Fprintf(&b, "\n100,000 teachers × 20 turns/day = %d turns/month (half of each scenario): $%.0f/month before the model's own price.\n",
		turnsPerMonth, mean*turnsPerMonth)
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
func buildCostOf(r turnReport) cost {
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
	writes := unitsPerAppend * buildAppendsPerSec * buildStreaming.Seconds()
	c.addTables(r, reads, writes, n+1)
	return c
}

// buildCostTable prints dollars per 1,000 builds for each scenario, and a
// month of 100,000 teachers building two pages a day.
func buildCostTable(rs []turnReport) string {
	var b strings.Builder
	costs := costRows(&b, "build", rs, buildCostOf)
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
	row("CloudWatch Logs", func(c cost) string { return k(c.logs) })
	row("X-Ray", func(c cost) string { return k(c.xray) })
	row("**total**", func(c cost) string { return "**" + k(c.total) + "**" })
	row("(Standard workflow instead: transitions)", func(c cost) string { return k(c.standard) })
	return costs
}
