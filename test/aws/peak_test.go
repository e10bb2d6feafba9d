package awstest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The school-hour peak docs/deploy.md ("Sized from the peak") sizes the
// Lambda quotas from (issue 25): 20 turns a teacher a school day, three
// times the average over 8 school hours.
const (
	turnsPerTeacherDay = 20
	schoolHours        = 8
	peakOverAverage    = 3
	// reserveHeadroom is what a reservation adds to the peak it covers.
	reserveHeadroom = 1.25
)

// turnMix is the turns the guide sizes from: half quizzes (a tool call and
// a second round), half chats, each with the seconds it keeps each task
// function busy, from the cost model's durations. The Route step runs the
// router alongside the agent's first round (issue 29), so it is busy for
// the longer of the two; AgentTurn runs the rounds after the first (its
// invocation for the first only hands the round on).
func turnMix() []struct {
	share float64
	busy  map[string]time.Duration
} {
	d := func(fn string) time.Duration { return production[fn].dur }
	route := max(d("RouterFunctionArn"), d("AgentTurnFunctionArn"))
	return []struct {
		share float64
		busy  map[string]time.Duration
	}{
		{0.5, map[string]time.Duration{"RouterFunctionArn": route, "AgentTurnFunctionArn": d("AgentTurnFunctionArn"),
			"ToolFunctionArn": d("ToolFunctionArn"), "ValidateFunctionArn": d("ValidateFunctionArn"), "FinishFunctionArn": d("FinishFunctionArn")}},
		{0.5, map[string]time.Duration{"RouterFunctionArn": route, "FinishFunctionArn": d("FinishFunctionArn")}},
	}
}

func peakTurnsPerSecond(teachers int) float64 {
	return float64(teachers) * turnsPerTeacherDay / (schoolHours * 3600) * peakOverAverage
}

// peakConcurrency is each function's concurrent executions at the peak
// (Little's law: turns a second × the seconds a turn keeps it busy), with
// the task durations of the cost model (production); the stream function
// is busy for the whole turn.
func peakConcurrency(teachers int) map[string]float64 {
	rate := peakTurnsPerSecond(teachers)
	out := map[string]float64{}
	for _, m := range turnMix() {
		turn := edgeOverhead.Seconds()
		for fn, busy := range m.busy {
			out[strings.TrimSuffix(fn, "Arn")] += m.share * rate * busy.Seconds()
			turn += busy.Seconds()
		}
		out["StreamFunction"] += m.share * rate * turn
	}
	return out
}

// peakRow is a row of the guide's sizing table: | `Fn` | n | n | ….
var peakRow = regexp.MustCompile("(?m)^\\| `([A-Za-z]+Function|all functions)` \\| ([0-9,]+) \\| ([0-9,]+) \\|")

// TestDeployDocsPeak holds docs/deploy.md's sizing table to the peak
// computed from the cost model: each function's concurrency at 100,000 and
// 1,000,000 teachers (rounded up to tens), and the account quota (their sum
// with the headroom, rounded up to thousands).
func TestDeployDocsPeak(t *testing.T) {
	doc := readDeployDoc(t, repoRoot(t))
	_, section, ok := strings.Cut(doc, "### Sized from the peak")
	if !ok {
		t.Fatal(`docs/deploy.md has no "### Sized from the peak" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	want := map[string][2]int{}
	for i, teachers := range []int{100_000, 1_000_000} {
		var all float64
		for fn, c := range peakConcurrency(teachers) {
			w := want[fn]
			w[i] = int(math.Ceil(c/10) * 10)
			want[fn] = w
			all += c
		}
		w := want["all functions"]
		w[i] = int(math.Ceil(all*reserveHeadroom/1000) * 1000)
		want["all functions"] = w
	}
	got := map[string][2]int{}
	for _, m := range peakRow.FindAllStringSubmatch(section, -1) {
		a, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
		b, _ := strconv.Atoi(strings.ReplaceAll(m[3], ",", ""))
		got[m[1]] = [2]int{a, b}
	}
	for fn, w := range want {
		if got[fn] != w {
			t.Errorf("docs/deploy.md sizes %s at %v (100,000 and 1,000,000 teachers); the cost model gives %s",
				fn, got[fn], fmt.Sprintf("| `%s` | %d | %d |", fn, w[0], w[1]))
		}
	}
	if math.Round(peakTurnsPerSecond(1_000_000)) != 2083 {
		t.Errorf("1,000,000 teachers peak at %.0f turns/s; the guide says 2,083", peakTurnsPerSecond(1_000_000))
	}
}

// TestTemplateReservations checks that each parameter of the sizing table
// reserves concurrency for its functions when set, and reserves none by
// default (so that an account with the default quota can deploy).
func TestTemplateReservations(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var tpl struct {
		Parameters map[string]struct {
			Default any `yaml:"Default"`
		} `yaml:"Parameters"`
		Conditions map[string]yaml.Node `yaml:"Conditions"`
		Resources  map[string]struct {
			Properties struct {
				ReservedConcurrentExecutions yaml.Node `yaml:"ReservedConcurrentExecutions"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(data, &tpl); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"StreamFunction": "StreamReservedConcurrency", "RouterFunction": "RouterReservedConcurrency",
		"AgentTurnFunction": "AgentTurnReservedConcurrency", "ToolFunction": "ToolReservedConcurrency",
		"FileToolFunction": "FileToolReservedConcurrency", // issue 25
		"ValidateFunction": "ShortStepReservedConcurrency", "FinishFunction": "ShortStepReservedConcurrency",
	}
	for fn, param := range want {
		node := tpl.Resources[fn].Properties.ReservedConcurrentExecutions
		// !If [Condition, !Ref Param, !Ref AWS::NoValue]
		if node.Tag != "!If" || len(node.Content) != 3 || node.Content[1].Value != param || node.Content[2].Value != "AWS::NoValue" {
			t.Errorf("%s: ReservedConcurrentExecutions (%s %v) is not !If [cond, !Ref %s, !Ref AWS::NoValue]", fn, node.Tag, yamlValues(&node), param)
			continue
		}
		cond := tpl.Conditions[node.Content[0].Value]
		if !strings.Contains(fmt.Sprint(yamlValues(&cond)), param) {
			t.Errorf("%s: its condition %s does not test %s", fn, node.Content[0].Value, param)
		}
		if fmt.Sprint(tpl.Parameters[param].Default) != "0" {
			t.Errorf("%s defaults to %v, want 0 (no reservation)", param, tpl.Parameters[param].Default)
		}
	}
}

// yamlValues lists the scalar values under n.
func yamlValues(n *yaml.Node) []string {
	if len(n.Content) == 0 {
		return []string{n.Value}
	}
	var out []string
	for _, c := range n.Content {
		out = append(out, yamlValues(c)...)
	}
	return out
}
