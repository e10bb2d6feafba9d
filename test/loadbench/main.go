// Command loadbench measures the product's conversation stream under load,
// side by side with a Node server built on the Vercel AI SDK (streamText →
// toUIMessageStreamResponse), both behind the same deterministic
// OpenAI-compatible mock:
//
//	go run ./test/loadbench                     the table of docs/benchmarks.md
//	go run ./test/loadbench -chunks 50 -levels 1,20 -paced 0 -flush 1ns
//
// For each TEXT_FLUSH_INTERVAL of the product (-flush) and each level (the
// unpaced -levels, then -paced clients with the mock pacing its chunks
// -pace apart), it starts each side afresh (the product's own `./local`
// binary, built once, pointed at the mock by its model variables; node with
// test/loadbench/server.mjs), pins it to one core with taskset, measures
// spawn → first byte and the idle RSS, sends the AI SDK useChat body from
// -c clients, checks that every answer arrives whole, and reads the
// server's CPU (utime+stime, /proc/PID/stat) and peak RSS (VmHWM,
// /proc/PID/status). docs/benchmarks.md explains every column.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // -h printed the usage
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

func cli(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	chunks := fs.Int("chunks", 200, "content chunks per answer")
	levels := fs.String("levels", "1,50,200", "concurrency levels with the mock unpaced")
	paced := fs.String("paced", "50,200", "concurrency levels with the mock paced (0: none)")
	pace := fs.Duration("pace", 10*time.Millisecond, "wait between two chunks at the paced levels")
	rounds := fs.Int("rounds", 3, "answers per client at each level")
	minAnswers := fs.Int("min", 30, "fewest answers at a level")
	flushes := fs.String("flush", "1ns,default", "the product's TEXT_FLUSH_INTERVAL values, one table each (default: its own default)")
	sides := fs.String("sides", "product,aisdk", "the servers to measure")
	node := fs.String("node", "", "the node binary of the AI SDK server (default: node on PATH); the issue's reference is Node 22")
	pin := fs.Bool("pin", true, "pin each server to one core (taskset) and the harness to the others")
	profile := fs.String("profile", "", "write a CPU profile of the product per level into this directory (go tool pprof)")
	keep := fs.Bool("keep", false, "keep the work directory (binaries, data, server logs)")
	firstWords := fs.Int("firstwords", 10, "answers per kind of turn of the first-words scenario (model first token 300 ms, router 600 ms, 20 ms a token; 0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cs, err := ints(*levels)
	if err != nil {
		return fmt.Errorf("-levels: %w", err)
	}
	var pcs []int
	if *paced != "0" {
		if pcs, err = ints(*paced); err != nil {
			return fmt.Errorf("-paced: %w", err)
		}
	}
	root, err := dynamotest.RepoRoot()
	if err != nil {
		return fmt.Errorf("%w: run from the repository", err)
	}
	work, err := os.MkdirTemp("", "loadbench-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintln(stderr, "work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	cfg := config{Root: root, Chunks: *chunks, Levels: cs, Paced: pcs, Pace: *pace, Rounds: *rounds, Min: *minAnswers,
		Sides: strings.Split(*sides, ","), Node: *node, Pin: *pin, WorkDir: work, ProfileDir: *profile, Log: stderr,
		RequireReference: os.Getenv("CI") == "true", FirstWords: *firstWords}
	for _, f := range strings.Split(*flushes, ",") {
		if f == "default" {
			f = ""
		} else if _, err := time.ParseDuration(f); err != nil {
			return fmt.Errorf("-flush %q: %w", f, err)
		}
		cfg.Flushes = append(cfg.Flushes, f)
	}
	if cfg.ProfileDir != "" {
		if cfg.ProfileDir, err = filepath.Abs(cfg.ProfileDir); err != nil {
			return err
		}
		if err := os.MkdirAll(cfg.ProfileDir, 0o755); err != nil {
			return err
		}
	}
	res, err := run(ctx, cfg)
	if err != nil {
		return err
	}
	res.write(stdout)
	return res.check()
}

// check fails the run when an answer was not delivered whole.
func (r *result) check() error {
	var errs []error
	for _, t := range r.Tables {
		for _, m := range t.Measures {
			if m.Failed > 0 {
				errs = append(errs, fmt.Errorf("%s, flush %s, %s: %d of %d answers failed, the first: %s",
					m.Side, flushName(t.Flush), m.Scenario, m.Failed, m.Answers, m.FirstErr))
			}
		}
	}
	return errors.Join(errs...)
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}
