//go:build soak

package e2e

// The bounded soak test (not in the default test command):
//
//	go test -tags soak -run TestSoak -v -timeout 15m ./local
//	SOAK_DURATION=3m go test -tags soak -run TestSoak -v -timeout 20m ./local
//
// It starts the real server binary and, for SOAK_DURATION (default 60 s),
// keeps it busy with slow readers, slow bodies, idle keep-alive connections
// and clients that drop mid-stream, then lets every client go and asserts
// that the server's open files and RSS return to their baseline.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func procStat(t *testing.T, pid int) (rssKB, fds int) {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read /proc: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			rssKB, _ = strconv.Atoi(strings.Fields(v)[0])
		}
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("read /proc fd: %v", err)
	}
	return rssKB, len(ents)
}

// envDuration is the duration the environment variable name sets, else def.
func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

// soakServer starts the real binary with a conversation of turns turns
// with long messages (whose /messages is big); it returns the process, its
// address and the conversation.
func soakServer(t *testing.T, turns int) (p *proc, addr, conv string) {
	t.Helper()
	p = newCrashRig(t).start(t)
	addr = strings.TrimPrefix(p.URL, "http://")
	first := postStream(t, p.URL, `{"message":"What is photosynthesis?"}`)
	conv = first.Header.Get("X-Conversation-Id")
	long := strings.Repeat("光合作用", 1900)
	for range turns - 1 {
		if st := postStream(t, p.URL, fmt.Sprintf(`{"message":%q,"conversationId":%q}`, long, conv)); st.Status != http.StatusOK {
			t.Fatalf("turn: %d %s", st.Status, st.Raw)
		}
	}
	return p, addr, conv
}

func TestSoak(t *testing.T) {
	dur := envDuration(t, "SOAK_DURATION", 60*time.Second)
	p, addr, conv := soakServer(t, 21)
	pid := p.cmd.Process.Pid
	time.Sleep(2 * time.Second)
	baseRSS, baseFDs := procStat(t, pid)
	t.Logf("baseline: RSS %d MB, %d open files", baseRSS/1024, baseFDs)

	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	keep := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return nil
		}
		keep(c)
		return c
	}
	loop := func(n int, fn func()) {
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					fn()
				}
			}()
		}
	}
	pause := func(d time.Duration) {
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	// Slow readers of /messages (the big answer) and of a stream.
	loop(25, func() {
		c := dial()
		if c == nil {
			pause(time.Second)
			return
		}
		fmt.Fprintf(c, "GET /api/conversation/%s/messages HTTP/1.1\r\nHost: x\r\n\r\n", conv)
		buf := make([]byte, 64)
		for i := 0; i < 50 && ctx.Err() == nil; i++ {
			if _, err := c.Read(buf); err != nil {
				break
			}
			pause(200 * time.Millisecond)
		}
		c.Close()
	})
	// held writes req on a new connection and reads until the server lets go.
	held := func(req string) func() {
		return func() {
			c := dial()
			if c == nil {
				pause(time.Second)
				return
			}
			io.WriteString(c, req)
			_, _ = io.Copy(io.Discard, c)
			c.Close()
		}
	}
	// Slow bodies: headers, a little of the body, then nothing.
	loop(25, held("POST /api/conversation HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"message\":\""))
	// Idle keep-alive connections.
	loop(25, held("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n"))
	// Clients that drop mid-stream.
	loop(10, func() {
		rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
		defer rcancel()
		req, _ := http.NewRequestWithContext(rctx, http.MethodPost, p.URL+"/api/conversation/stream",
			strings.NewReader(`{"message":"出 5 道牛顿第一定律的选择题 [[offline:slow]]"}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			pause(time.Second)
			return
		}
		r := bufio.NewReader(resp.Body)
		for range 5 {
			if _, err := r.ReadString('\n'); err != nil {
				break
			}
		}
		resp.Body.Close()
	})
	peakRSS, peakFDs := 0, 0
	for ctx.Err() == nil {
		rss, fds := procStat(t, pid)
		peakRSS, peakFDs = max(peakRSS, rss), max(peakFDs, fds)
		pause(time.Second)
	}
	mu.Lock()
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	wg.Wait()
	t.Logf("under load: peak RSS %d MB, peak %d open files", peakRSS/1024, peakFDs)

	// Back to the baseline within two minutes (the server's idle and read
	// timeouts, and the Go scavenger, have to run).
	var rss, fds int
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		rss, fds = procStat(t, pid)
		if fds <= baseFDs+5 && rss <= max(2*baseRSS, baseRSS+64*1024) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("after: RSS %d MB, %d open files", rss/1024, fds)
	if fds > baseFDs+5 {
		t.Errorf("open files %d, baseline %d", fds, baseFDs)
	}
	if rss > max(2*baseRSS, baseRSS+64*1024) {
		t.Errorf("RSS %d MB, baseline %d MB", rss/1024, baseRSS/1024)
	}
	// And it still serves.
	if st := postStream(t, p.URL, fmt.Sprintf(`{"message":"What is gravity?","conversationId":%q}`, conv)); st.Status != 200 {
		t.Errorf("after the soak: %d", st.Status)
	}
}

// issue 32: stalled readers of large history pages.
//
// TestSoakStalledPages builds a 300-turn conversation with long messages
// on the real binary, then has 50 clients ask for its largest page
// (/messages?limit=200) and read it at 1 byte a second. The server must
// hold little per stalled reader (stalledPageRSSBound above the idle RSS
// in all), and its RSS must return near idle (idle + settledRSSSlack)
// within a minute after the readers go.
func TestSoakStalledPages(t *testing.T) {
	const (
		turns               = 300
		readers             = 50
		stalledPageRSSBound = 32 << 10 // KB over idle with 50 stalled readers (was 438 MB)
		settledRSSSlack     = 16 << 10 // KB over idle a minute after they go
	)
	stall := envDuration(t, "SOAK_STALL", 30*time.Second)
	p, addr, conv := soakServer(t, turns)
	pid := p.cmd.Process.Pid
	req, _ := http.NewRequest(http.MethodGet, p.URL+"/api/conversation/"+conv+"/messages?limit=200", nil)
	t.Logf("a page of 200 turns is %d KB", len(do(t, req).Raw)/1024)
	settle := func() int {
		// The binary is idle: RSS as it is after the last GC the runtime ran.
		time.Sleep(2 * time.Second)
		rss, _ := procStat(t, pid)
		return rss
	}
	idle := settle()
	t.Logf("idle: RSS %d MB", idle/1024)

	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	ctx, cancel := context.WithTimeout(context.Background(), stall)
	defer cancel()
	for range readers {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		fmt.Fprintf(c, "GET /api/conversation/%s/messages?limit=200 HTTP/1.1\r\nHost: x\r\n\r\n", conv)
		status := make([]byte, len("HTTP/1.1 200"))
		if _, err := io.ReadFull(c, status); err != nil || string(status) != "HTTP/1.1 200" {
			t.Fatalf("a reader's answer begins %q (%v)", status, err)
		}
		wg.Add(1)
		go func() { // then one byte a second
			defer wg.Done()
			buf := make([]byte, 1)
			for ctx.Err() == nil {
				if _, err := c.Read(buf); err != nil {
					return
				}
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}()
	}
	peak := 0
	for ctx.Err() == nil {
		rss, _ := procStat(t, pid)
		peak = max(peak, rss)
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	mu.Lock()
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	wg.Wait()
	t.Logf("%d stalled readers of limit=200: peak RSS %d MB (idle %d MB, bound idle + %d MB)", readers, peak/1024, idle/1024, stalledPageRSSBound>>10)
	if peak > idle+stalledPageRSSBound {
		t.Errorf("peak RSS %d MB with %d stalled readers: over idle %d MB + %d MB", peak/1024, readers, idle/1024, stalledPageRSSBound>>10)
	}
	var rss int
	gone := time.Now()
	for time.Since(gone) < time.Minute {
		if rss, _ = procStat(t, pid); rss <= idle+settledRSSSlack {
			break
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("after the readers went: RSS %d MB in %v", rss/1024, time.Since(gone).Round(time.Second))
	if rss > idle+settledRSSSlack {
		t.Errorf("RSS %d MB a minute after the readers went: over idle %d MB + %d MB", rss/1024, idle/1024, settledRSSSlack>>10)
	}
}
