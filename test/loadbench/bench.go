package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is one run of the harness.
type config struct {
	Root    string        // the repository (has go.mod)
	Chunks  int           // content chunks per answer
	Levels  []int         // concurrency levels run with the mock unpaced
	Paced   []int         // concurrency levels run with the mock paced (none: no paced level)
	Pace    time.Duration // wait between chunks at the paced levels
	Rounds  int           // answers per client at each level (at least MinAnswers in all)
	Min     int           // fewest answers at a level
	Flushes []string      // TEXT_FLUSH_INTERVAL values of the product ("" = its default)
	Sides   []string      // "product", "aisdk"
	Node    string        // the node that runs the AI SDK server ("": node on PATH)
	Pin     bool          // pin each server to one core, the harness to the others
	WorkDir string        // where binaries, data dirs and logs go
	// ProfileDir, when set, gets a CPU profile of the product per level.
	ProfileDir string
	Log        io.Writer // progress lines
	// RequireReference fails the run when the AI SDK side cannot run
	// (node or its node_modules missing) instead of leaving it out.
	RequireReference bool
	// FirstWords is the answers per kind of turn of the first-words
	// scenario (issue 29: firstwords.go; 0: none).
	FirstWords int
}

// scenario is one level of one table.
type scenario struct {
	C    int
	Pace time.Duration
}

func (s scenario) String() string {
	if s.Pace > 0 {
		return fmt.Sprintf("c=%d, paced %s", s.C, s.Pace)
	}
	return fmt.Sprintf("c=%d, unpaced", s.C)
}

// measure is one side at one scenario.
type measure struct {
	Side      string
	Scenario  scenario
	Answers   int           // answers asked
	Failed    int           // answers not delivered fully (see FirstError)
	Wall      time.Duration // first request → last answer
	CPU       time.Duration // the server's utime+stime over Wall
	Chunks    int           // model chunks relayed (answers × chunks per answer)
	Deltas    int           // text-delta chunks the clients received
	P50, P99  time.Duration // request → first text-delta
	FirstByte time.Duration // spawn → first byte of the first answer
	StartCPU  time.Duration // the server's CPU time until that first byte
	IdleRSS   int64         // after start-up and one answer
	PeakRSS   int64         // VmHWM at the end of the level
	ModelReqs int64         // requests the mock served during the level
	// Syscalls are the server's read and write system calls over the level
	// (syscr, syscw of /proc/PID/io: sockets, the event log's file, logs).
	Syscalls ioCalls
	FirstErr string
}

// AnswersPerSec is the delivered answers per second of wall time.
func (m measure) AnswersPerSec() float64 {
	return float64(m.Answers-m.Failed) / m.Wall.Seconds()
}

// PerCore is answers per second of the server's CPU: what one core fully
// used would deliver.
func (m measure) PerCore() float64 {
	if m.CPU == 0 {
		return 0
	}
	return float64(m.Answers-m.Failed) / m.CPU.Seconds()
}

// CPUPerChunk is the server's CPU per model chunk relayed.
func (m measure) CPUPerChunk() time.Duration {
	if m.Chunks == 0 {
		return 0
	}
	return m.CPU / time.Duration(m.Chunks)
}

// Busy is the server's CPU time over wall time: near 1 when its core was
// saturated.
func (m measure) Busy() float64 { return m.CPU.Seconds() / m.Wall.Seconds() }

// table is every scenario of one flush setting.
type table struct {
	Flush    string // the product's TEXT_FLUSH_INTERVAL ("" = default)
	Measures []measure
}

// result is a whole run.
type result struct {
	Machine string
	Pinned  string
	Mock    string
	Tables  []table
	Notes   []string
	// FirstWords is the first-words scenario, per side (issue 29).
	FirstWords []firstWord
}

// run builds the product, starts the mock and measures every side at every
// scenario of every table, the sides one after the other at each scenario.
func run(ctx context.Context, cfg config) (*result, error) {
	if cfg.Chunks < 1 || cfg.Rounds < 1 {
		return nil, errors.New("chunks and rounds must be at least 1")
	}
	res := &result{Machine: machine(cfg.Node)}
	logf := func(format string, a ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", a...)
		}
	}

	serverCPU, pinned := -1, "no (taskset missing or one core)"
	if cfg.Pin {
		if cpu, ok := pinHarness(); ok {
			serverCPU = cpu
			pinned = fmt.Sprintf("each server on CPU %d (taskset), the harness (mock and clients) on the others", cpu)
		}
	} else {
		pinned = "no (-pin=false)"
	}
	res.Pinned = pinned

	mock := newMockModel(cfg.Chunks)
	res.Mock = mock.String()
	ml, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ms := &http.Server{Handler: mock, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = ms.Serve(ml) }()
	defer ms.Close()
	mockURL := "http://" + ml.Addr().String()

	var sides []func(flush string) side
	for _, name := range cfg.Sides {
		switch name {
		case "product":
			bin := filepath.Join(cfg.WorkDir, "insight-local")
			logf("building the product (go build ./local)…")
			build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./local")
			build.Dir = cfg.Root
			if out, err := build.CombinedOutput(); err != nil {
				return nil, fmt.Errorf("go build ./local: %w\n%s", err, out)
			}
			sides = append(sides, func(flush string) side { return productSide(bin, mockURL, flush) })
		case "aisdk":
			node, script, why := reference(cfg.Root, cfg.Node)
			if why != "" {
				if cfg.RequireReference {
					return nil, fmt.Errorf("the AI SDK reference cannot run: %s", why)
				}
				res.Notes = append(res.Notes, "AI SDK side left out: "+why)
				logf("AI SDK side left out: %s", why)
				continue
			}
			sides = append(sides, func(string) side { return aisdkSide(node, script, mockURL) })
		default:
			return nil, fmt.Errorf("unknown side %q (product, aisdk)", name)
		}
	}

	hc := &http.Client{Transport: &http.Transport{
		MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, DisableCompression: true,
		IdleConnTimeout: 30 * time.Second,
	}}
	defer hc.CloseIdleConnections()

	var scenarios []scenario
	for _, c := range cfg.Levels {
		scenarios = append(scenarios, scenario{C: c})
	}
	for _, c := range cfg.Paced {
		scenarios = append(scenarios, scenario{C: c, Pace: cfg.Pace})
	}
	for _, flush := range cfg.Flushes {
		t := table{Flush: flush}
		for _, sc := range scenarios {
			for _, mk := range sides {
				s := mk(flush)
				m, err := level(ctx, cfg, hc, mock, s, sc, serverCPU)
				if err != nil {
					return nil, err
				}
				logf("%-7s flush=%-7s %-18s %s", s.name, flushName(flush), sc, m.brief())
				t.Measures = append(t.Measures, m)
			}
		}
		res.Tables = append(res.Tables, t)
	}
	// issue 29: the first-words scenario, each side at its default flush.
	for _, mk := range sides {
		if cfg.FirstWords <= 0 {
			break
		}
		s := mk("")
		fw, err := firstWords(ctx, cfg, hc, mock, s, serverCPU, cfg.FirstWords)
		if err != nil {
			return nil, err
		}
		logf("%-7s first words: text-delta p50 %s, quiz turn's first part p50 %s, %d failed %s", s.name, milli(fw.DeltaP50), milli(fw.QuizP50), fw.Failed, fw.FirstErr)
		res.FirstWords = append(res.FirstWords, fw)
	}
	return res, nil
}

// level starts a fresh server (so that start-up and the peak RSS are its
// own), then drives the scenario and reads the server's CPU and memory.
func level(ctx context.Context, cfg config, hc *http.Client, mock *mockModel, s side, sc scenario, cpu int) (measure, error) {
	mock.setPace(0)
	profile := ""
	if cfg.ProfileDir != "" && s.name == "product" {
		name := fmt.Sprintf("product-flush-%s-c%d", flushName(s.flush), sc.C)
		if sc.Pace > 0 {
			name += "-paced"
		}
		profile = filepath.Join(cfg.ProfileDir, name+".pprof")
	}
	sv, err := spawn(ctx, hc, s, cpu, cfg.WorkDir, profile, mock.text)
	if err != nil {
		return measure{}, err
	}
	defer sv.stop()
	mock.setPace(sc.Pace)
	n := max(sc.C*cfg.Rounds, cfg.Min)
	reqs0 := mock.answers.Load() + mock.routes.Load()
	cpu0, err := cpuTime(sv.pid)
	if err != nil {
		return measure{}, err
	}
	io0, err := syscalls(sv.pid)
	if err != nil {
		return measure{}, err
	}
	start := time.Now()
	answers := drive(ctx, hc, sv.url, fmt.Sprintf("lb-%d", start.UnixNano()), sc.C, n, mock.text)
	wall := time.Since(start)
	cpu1, err := cpuTime(sv.pid)
	if err != nil {
		return measure{}, err
	}
	io1, err := syscalls(sv.pid)
	if err != nil {
		return measure{}, err
	}
	rss, peak, err := memory(sv.pid)
	if err != nil {
		return measure{}, err
	}
	// The kernel updates VmHWM lazily (its RSS counters are synced from
	// per-thread caches): it may lag a VmRSS just read.
	peak = max(peak, rss, sv.idleRSS)
	m := measure{Side: s.name, Scenario: sc, Answers: n, Wall: wall, CPU: cpu1 - cpu0,
		FirstByte: sv.firstByte, StartCPU: sv.startCPU, IdleRSS: sv.idleRSS, PeakRSS: peak,
		ModelReqs: mock.answers.Load() + mock.routes.Load() - reqs0,
		Syscalls:  ioCalls{Read: io1.Read - io0.Read, Write: io1.Write - io0.Write}}
	var firsts []time.Duration
	for _, a := range answers {
		if a.err == nil && a.total == 0 {
			a.err = errors.New("not sent")
		}
		if a.err != nil {
			m.Failed++
			if m.FirstErr == "" {
				m.FirstErr = a.err.Error()
			}
			continue
		}
		m.Deltas += a.deltas
		firsts = append(firsts, a.firstDelta)
	}
	m.Chunks = (n - m.Failed) * cfg.Chunks
	m.P50, m.P99 = percentile(firsts, 50), percentile(firsts, 99)
	return m, ctx.Err()
}

// percentile is the nearest-rank percentile p of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s) + 99) / 100
	return s[max(i-1, 0)]
}

func (m measure) brief() string {
	s := fmt.Sprintf("%d answers (%d failed), %.0f answers/s, CPU %s (%.0f%% of a core), %s per chunk, first delta p50 %s p99 %s, peak RSS %s, system calls per answer %.0f write / %.0f read",
		m.Answers, m.Failed, m.AnswersPerSec(), m.CPU.Round(time.Millisecond), 100*m.Busy(), micro(m.CPUPerChunk()),
		milli(m.P50), milli(m.P99), mb(m.PeakRSS), m.perAnswer(m.Syscalls.Write), m.perAnswer(m.Syscalls.Read))
	if m.FirstErr != "" {
		s += "; first failure: " + m.FirstErr
	}
	return s
}

// perAnswer is n per delivered answer.
func (m measure) perAnswer(n int64) float64 {
	if m.Answers == m.Failed {
		return 0
	}
	return float64(n) / float64(m.Answers-m.Failed)
}

// reference finds node (want, or node on PATH) and the AI SDK server, or
// says why it cannot run.
func reference(root, want string) (node, script, why string) {
	node, err := exec.LookPath(cmp.Or(want, "node"))
	if err != nil {
		return "", "", fmt.Sprintf("node is not installed (%v)", err)
	}
	dir := filepath.Join(root, "test", "loadbench")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "ai", "package.json")); err != nil {
		return "", "", "test/loadbench/node_modules is missing (npm ci --prefix test/loadbench)"
	}
	return node, filepath.Join(dir, "server.mjs"), ""
}

// pinHarness pins this process to every CPU but the last one and returns
// the last one, for the servers; false when there is one CPU or no taskset.
func pinHarness() (int, bool) {
	n := runtime.NumCPU()
	ts, err := exec.LookPath("taskset")
	if n < 2 || err != nil {
		return -1, false
	}
	others := "0"
	if n > 2 {
		others = fmt.Sprintf("0-%d", n-2)
	}
	// -a: every thread of the process; threads started later inherit it.
	if err := exec.Command(ts, "-a", "-cp", others, strconv.Itoa(os.Getpid())).Run(); err != nil {
		return -1, false
	}
	return n - 1, true
}

// machine describes the CPU, node and the load at the start.
func machine(node string) string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load average " + strings.Join(strings.Fields(string(b))[:3], " ")
	}
	nodeV := "no node"
	if out, err := exec.Command(cmp.Or(node, "node"), "--version").Output(); err == nil {
		nodeV = "node " + strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("%d CPUs (%s), %s %s/%s, %s%s", runtime.NumCPU(), model, runtime.Version(), runtime.GOOS, runtime.GOARCH, nodeV, load)
}

func flushName(f string) string { return cmp.Or(f, "default") }
