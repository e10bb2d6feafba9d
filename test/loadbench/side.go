package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// side is one of the servers compared.
type side struct {
	name  string // "product" or "aisdk"
	flush string // the product's TEXT_FLUSH_INTERVAL ("" = its default)
	// command returns the server's command for port, with a data dir of its
	// own and, when profile is set, a CPU profile written there at the end.
	command func(port int, dir, profile string) *exec.Cmd
	path    string // the chat route
}

// server is a running side.
type server struct {
	cmd       *exec.Cmd
	pid       int
	url       string // the chat route's URL
	firstByte time.Duration
	startCPU  time.Duration // the CPU the process used until its first byte
	idleRSS   int64
	log       string // the file with its output
	exited    chan struct{}
}

// spawnBound bounds the wait for a new server's first answer.
const spawnBound = 60 * time.Second

// spawn starts s pinned to cpu (when cpu ≥ 0 and taskset exists), measures
// the time from the spawn to the first byte of an answer to a chat request,
// reads that first answer to its end (checking it), then the idle RSS.
func spawn(ctx context.Context, hc *http.Client, s side, cpu int, workDir, profile, want string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(workDir, s.name+"-")
	if err != nil {
		return nil, err
	}
	cmd := s.command(port, dir, profile)
	if cpu >= 0 {
		if ts, err := exec.LookPath("taskset"); err == nil {
			cmd.Args = append([]string{ts, "-c", strconv.Itoa(cpu)}, cmd.Args...)
			cmd.Path = ts
		}
	}
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	url := fmt.Sprintf("http://127.0.0.1:%d%s", port, s.path)

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start: %w", s.name, err)
	}
	sv := &server{cmd: cmd, pid: cmd.Process.Pid, url: url, log: logPath, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(sv.exited) }()
	fail := func(err error) (*server, error) {
		sv.stop()
		tail, _ := os.ReadFile(logPath)
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return nil, fmt.Errorf("%s: %w; its output ends with:\n%s", s.name, err, tail)
	}
	resp, err := firstResponse(ctx, hc, sv, url)
	if err != nil {
		return fail(err)
	}
	sv.firstByte = time.Since(start)
	if sv.startCPU, err = cpuTime(sv.pid); err != nil {
		resp.Body.Close()
		return fail(err)
	}
	a := readStream(resp, start, want)
	resp.Body.Close()
	if a.err != nil {
		return fail(fmt.Errorf("first answer: %w", a.err))
	}
	// Idle: the first answer is done and the process has settled.
	time.Sleep(500 * time.Millisecond)
	if sv.idleRSS, _, err = memory(sv.pid); err != nil {
		return fail(err)
	}
	return sv, nil
}

// firstResponse sends a chat request every 2 ms until the server accepts a
// connection, and returns the response (its headers are the first bytes).
func firstResponse(ctx context.Context, hc *http.Client, sv *server, url string) (*http.Response, error) {
	// The request's context must outlive this function (the caller reads
	// the body), so the bound is a deadline checked between tries.
	deadline := time.Now().Add(spawnBound)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(chatBody("warmup")))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err == nil {
			return resp, nil
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, err
		}
		select {
		case <-sv.exited:
			return nil, errors.New("the server exited during start-up")
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no answer within %s", spawnBound)
		}
	}
}

// stop ends the server's process group and waits for it (bounded).
func (sv *server) stop() {
	_ = syscall.Kill(-sv.pid, syscall.SIGTERM)
	select {
	case <-sv.exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-sv.pid, syscall.SIGKILL)
		<-sv.exited
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// productSide runs the product's local binary (built once) against the mock.
func productSide(bin, mockURL, flush string) side {
	return side{name: "product", flush: flush, path: "/api/conversation/stream", command: func(port int, dir, profile string) *exec.Cmd {
		cmd := exec.Command(bin)
		if profile != "" {
			cmd.Args = append(cmd.Args, "-cpuprofile", profile)
		}
		cmd.Env = append(baseEnv(),
			"ADDR=127.0.0.1:"+strconv.Itoa(port), "DATA_DIR="+dir,
			"OPENAI_BASE_URL="+mockURL+"/v1", "OPENAI_API_KEY=loadbench",
			"LLM_MODEL_FAST=mock", "LLM_MODEL_STANDARD=mock", "LLM_MODEL_STRONG=mock",
			"LOCAL_SCHEDULER_EVERY=off")
		if flush != "" {
			cmd.Env = append(cmd.Env, "TEXT_FLUSH_INTERVAL="+flush)
		}
		return cmd
	}}
}

// aisdkSide runs test/loadbench/server.mjs under node.
func aisdkSide(node, script, mockURL string) side {
	return side{name: "aisdk", path: "/api/chat", command: func(port int, _, _ string) *exec.Cmd {
		cmd := exec.Command(node, script)
		cmd.Dir = filepath.Dir(script)
		cmd.Env = append(baseEnv(), "PORT="+strconv.Itoa(port), "MOCK_BASE_URL="+mockURL+"/v1", "NODE_ENV=production")
		return cmd
	}}
}

// baseEnv is the environment a server inherits: enough to run, nothing of
// the harness's own configuration (a model key, a data dir) that would
// change what is measured.
func baseEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG", "EVENTLOG_GROUP_DELAY"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
