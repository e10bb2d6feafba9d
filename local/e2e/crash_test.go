package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/javamock"
	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/local/server"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

// The crash-recovery suite: the real server binary, killed with SIGKILL at
// chosen points and restarted on the same data directory. The data service
// is a mock in this process (the outside world), so that the test can slow
// it down while the binary runs.

// proc is one run of the server binary.
type proc struct {
	cmd *exec.Cmd
	URL string
}

// crashRig builds the binary once and starts it on one data directory.
type crashRig struct {
	bin, dir string
	java     *javamock.Server
	env      []string
}

func newCrashRig(t *testing.T) *crashRig {
	t.Helper()
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "insightedge-local")
	build := exec.Command("go", "build", "-o", bin, "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./local: %v\n%s", err, out)
	}
	java := javamock.New(mockdata.Default, javamock.Options{Token: "crash-token"})
	ctx, cancel := context.WithCancel(context.Background())
	base, done, err := java.Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-done })
	env := append(os.Environ(), "JAVA_API_BASE_URL="+base, "JAVA_API_TOKEN=crash-token",
		server.SchedulerEveryEnv+"=off", "TURN_TIMEOUT=10m")
	return &crashRig{bin: bin, dir: filepath.Join(tmp, "data"), java: java, env: env}
}

// start runs the binary, with the extra settings (KEY=value) on top of the
// rig's, and waits for it to serve.
func (c *crashRig) start(t *testing.T, extra ...string) *proc {
	t.Helper()
	cmd := exec.Command(c.bin, "-addr", "127.0.0.1:0", "-data", c.dir)
	cmd.Env = append(slices.Clone(c.env), extra...)
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd}
	t.Cleanup(func() { p.kill() })
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if _, rest, ok := strings.Cut(lines.Text(), "is running on "); ok {
			p.URL, _, _ = strings.Cut(rest, " ")
			go func() { _, _ = io.Copy(io.Discard, out) }()
			p.checkCalm(t)
			return p
		}
	}
	t.Fatalf("the server did not start: %v", lines.Err())
	return nil
}

// checkCalm checks that the server re-executed itself with the runtime's
// monitor kept from its deep sleep (local/calm.go): its environment, as
// the kernel has it, holds the setting.
func (p *proc) checkCalm(t *testing.T) {
	t.Helper()
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("the server's environment: %v", err)
	}
	for kv := range strings.SplitSeq(string(env), "\x00") {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok && strings.Contains(v, "schedtrace=2147483647") {
			return
		}
	}
	t.Errorf("the server runs without GODEBUG schedtrace (sysmon may deep-sleep); environment: %q", env)
}

// kill sends SIGKILL: no deferred code, no shutdown, no flush runs.
func (p *proc) kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		_ = p.cmd.Wait()
	}
}

// boundedGet GETs url with Last-Event-ID after; the answer must end within
// limit (a resume never waits on work that died).
func boundedGet(t *testing.T, url string, after int64, limit time.Duration) (int, []sseEvent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if after > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s after %d did not end within %v: %v", url, after, limit, err)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, nil // a 204, or a JSON error
	}
	evs, _ := parseSSE(t, raw)
	return resp.StatusCode, evs
}

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server binary")
	}
	rig := newCrashRig(t)
	t.Run("mid-turn", func(t *testing.T) { crashMidTurn(t, rig) })
	t.Run("mid-build", func(t *testing.T) { crashMidBuild(t, rig) })
	t.Run("mid-app-run", func(t *testing.T) { crashMidAppRun(t, rig) })
	t.Run("mid-group-commit", func(t *testing.T) { crashMidGroupCommit(t, rig) })
}

// checkTurnAfterCrash checks a conversation whose last turn was running
// when the server was killed, after the restart: its stream is gap-free from
// seq 1 and ends with a finish (after an error when the turn was killed;
// killed says it must have been); the events the client saw are the
// stream's up to what was committed; the resume from the client's last
// event ends at once, with the rest of the stream or a 204 when nothing is
// left. It returns how many of the seen events the crash lost.
func checkTurnAfterCrash(t *testing.T, base, conv string, seen []sseEvent, killed bool) int {
	t.Helper()
	code, all := boundedGet(t, base+"/api/conversation/"+conv+"/stream", 1, 10*time.Second)
	if code != 200 {
		t.Fatalf("%s: the stream after seq 1: %d", conv, code)
	}
	byID := map[int64]string{}
	end := int64(1)
	for _, ev := range all {
		if ev.ID == 0 {
			continue // frames without id: [DONE], parts closed for a resume
		}
		if ev.ID != end+1 {
			t.Fatalf("%s: seq %d after %d: the stream is not gap-free", conv, ev.ID, end)
		}
		end = ev.ID
		byID[ev.ID] = ev.Data
	}
	ty := stream{Events: all}.types(t)
	n := len(ty)
	// The recovery's error is the last event with an id before the finish
	// (a resume closes parts left open with frames without ids).
	wasKilled := n >= 3 && byID[end-1] != "" && (sseEvent{Data: byID[end-1]}).typ(t) == "error"
	if n < 2 || ty[n-2] != "finish" || ty[n-1] != "[DONE]" || (killed && !wasKilled) {
		t.Fatalf("%s: the stream after the restart: %v", conv, ty)
	}
	durable := end
	if wasKilled {
		durable = end - 2 // the recovery's error and finish follow what was committed
	}
	lost := 0
	for _, ev := range seen {
		switch {
		case ev.ID > durable:
			lost++
		case ev.ID > 1 && byID[ev.ID] != ev.Data:
			t.Fatalf("%s: event %d was %s before the crash, %s after", conv, ev.ID, ev.Data, byID[ev.ID])
		}
	}
	last := seen[len(seen)-1].ID
	code, rest := boundedGet(t, base+"/api/conversation/"+conv+"/stream", last, 10*time.Second)
	rt := stream{Events: rest}.types(t)
	next := int64(0) // the first event with an id
	for _, ev := range rest {
		if ev.ID > 0 {
			next = ev.ID
			break
		}
	}
	switch {
	case last < end && code == 200 && len(rt) >= 2 && rt[len(rt)-2] == "finish" && rt[len(rt)-1] == "[DONE]" && next == last+1:
	case last >= end && code == http.StatusNoContent:
	default:
		t.Fatalf("%s: resume after %d (stream end %d): %d %v", conv, last, end, code, rt)
	}
	t.Logf("%s: saw up to seq %d, committed up to %d, stream end %d", conv, last, durable, end)
	return lost
}

// crashMidGroupCommit kills the server while three turns stream, with a
// group delay long enough that the events the clients last saw (relayed
// from memory) are, in all likelihood, not committed yet: the delivery rule
// of docs/reliability.md. After the restart every stream is gap-free from
// seq 1, what was committed is what the clients saw, the resume ends at
// once, and the history is intact.
func crashMidGroupCommit(t *testing.T, rig *crashRig) {
	delay := "EVENTLOG_GROUP_DELAY=300ms"
	p := rig.start(t, delay)
	conv := firstTurn(t, p.URL)
	convs := []string{conv, "", ""}
	seen := make([][]sseEvent, len(convs))
	var cancels []context.CancelFunc
	var readers []*sseReader
	for i, c := range convs {
		body := `{"message":"出 5 道牛顿第一定律的选择题 [[offline:slow]]"}`
		if c != "" {
			body = fmt.Sprintf(`{"message":"出 5 道牛顿第一定律的选择题 [[offline:slow]]","conversationId":%q}`, c)
		}
		resp, r, cancel := openStream(t, p.URL, body)
		defer resp.Body.Close()
		cancels = append(cancels, cancel)
		convs[i] = resp.Header.Get("X-Conversation-Id")
		readers = append(readers, r)
	}
	for i, r := range readers {
		seen[i] = readEvents(t, r, 6)
	}
	p.kill()
	for _, cancel := range cancels {
		cancel()
	}

	p = rig.start(t, delay)
	lost := 0
	for i, c := range convs {
		// The last turn was surely killed: its client had just read 6 of
		// its 25 events; the others may have ended meanwhile.
		lost += checkTurnAfterCrash(t, p.URL, c, seen[i], i == len(convs)-1)
	}
	t.Logf("%d relayed events were not committed when the process died", lost)
	checkHistoryGoesOn(t, p.URL, conv, false)
	p.kill()
}

// checkHistoryGoesOn checks a conversation of two turns, the second killed,
// after the restart: both turns are in its history, the first with its
// answer (and the killed one with the parts it streamed, when killedParts
// says they were committed), and a next turn starts and completes.
func checkHistoryGoesOn(t *testing.T, base, conv string, killedParts bool) {
	t.Helper()
	var msgs struct {
		Messages []struct {
			Role  string
			Parts []map[string]any
		}
	}
	if code := GetJSON(t, base+"/api/conversation/"+conv+"/messages", &msgs); code != 200 || len(msgs.Messages) != 4 {
		t.Fatalf("messages: %d, %d messages", code, len(msgs.Messages))
	}
	if a := msgs.Messages[1]; a.Role != "assistant" || len(a.Parts) == 0 {
		t.Errorf("the first answer was lost: %+v", a)
	}
	if a := msgs.Messages[3]; a.Role != "assistant" || (killedParts && len(a.Parts) == 0) {
		t.Errorf("the killed turn has no parts: %+v", a)
	}
	next := postStream(t, base, fmt.Sprintf(`{"message":"What is gravity?","conversationId":%q}`, conv))
	if ty := next.types(t); next.Status != 200 || ty[len(ty)-2] != "finish" {
		t.Errorf("next turn: %d %v", next.Status, ty)
	}
}

// crashMidTurn kills the server while a turn's answer is held after its
// first words (a gate in front of the offline model, so the turn cannot end
// before the kill). Before the kill another conversation's turn runs to its
// end: its writes wait for every event sequenced before them, so what the
// client saw is committed (the delivery rule) and must all survive.
func crashMidTurn(t *testing.T, rig *crashRig) {
	gate := newHeldModel(t, answersWith("Why is the sky blue?"))
	gated := []string{"OPENAI_BASE_URL=" + gate.URL, "OPENAI_API_KEY=offline",
		"LLM_MODEL_FAST=" + offlinemodel.ModelFast, "LLM_MODEL_STANDARD=" + offlinemodel.ModelStandard, "LLM_MODEL_STRONG=" + offlinemodel.ModelStrong}
	p := rig.start(t, gated...)
	// A first turn that completes: history that must survive.
	conv := firstTurn(t, p.URL)
	resp, r, cancel := openStream(t, p.URL, fmt.Sprintf(`{"message":"Why is the sky blue?","conversationId":%q}`, conv))
	seen := readUntil(t, r, "text-delta")
	if other := postStream(t, p.URL, `{"message":"What is photosynthesis?"}`); other.Status != 200 {
		t.Fatalf("the turn that commits what was seen: %d", other.Status)
	}
	p.kill()
	cancel()
	resp.Body.Close()

	p = rig.start(t, gated...)
	// The killed turn was closed at start-up: its stream ends with an error
	// and a finish after what was committed, and its resume ends at once.
	if lost := checkTurnAfterCrash(t, p.URL, conv, seen, true); lost != 0 {
		t.Errorf("%d events the client saw before a later write were lost", lost)
	}
	// History: both turns, the killed one with the parts it streamed.
	checkHistoryGoesOn(t, p.URL, conv, true)
	p.kill()
}

func crashMidBuild(t *testing.T, rig *crashRig) {
	p := rig.start(t)
	bp := planOn(t, p.URL)
	rig.java.SetFault(mockserver.Fault{Latency: 3 * time.Second})
	defer rig.java.ClearFault()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.URL+"/api/page/generate", strings.NewReader(fmt.Sprintf(`{"blueprint":%s}`, bp)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("generate: %v", err)
	}
	build := resp.Header.Get("X-Build-Id")
	seen := readEvents(t, newSSEReader(resp.Body), 2) // PHASE data, TOOL_CALL: the data call hangs
	p.kill()
	resp.Body.Close()
	rig.java.ClearFault()

	p = rig.start(t)
	// The killed build's stream ends with an ERROR after what was
	// committed (all it sent but, under the delivery rule, the events of
	// the last group commit); the resume from what the client saw ends at
	// once: the rest and the ERROR, or a 400 past the stream's end.
	_, all := boundedGet(t, p.URL+"/api/page/"+build+"/stream?after=0", 0, 10*time.Second)
	if len(all) == 0 || all[len(all)-1].typ(t) != "ERROR" || all[len(all)-1].ID != int64(len(all)) {
		t.Fatalf("the killed build's stream after the restart: %v", all)
	}
	end, last := int64(len(all)), seen[len(seen)-1].ID
	code, rest := boundedGet(t, p.URL+"/api/page/"+build+"/stream", last, 10*time.Second)
	switch {
	case last <= end && code == 200 && len(rest) > 0 && rest[len(rest)-1].typ(t) == "ERROR":
	case last > end && code == 400:
	default:
		t.Fatalf("resume of the killed build after %d (stream end %d): %d %v", last, end, code, rest)
	}
	// A new build runs to COMPLETE.
	st := postSSE(t, p.URL+"/api/page/generate", fmt.Sprintf(`{"blueprint":%s}`, bp))
	if st.Status != 200 || st.Events[len(st.Events)-1].typ(t) != "COMPLETE" {
		t.Errorf("a build after the restart: %d", st.Status)
	}
	p.kill()
}

func crashMidAppRun(t *testing.T, rig *crashRig) {
	p := rig.start(t)
	bp := planOn(t, p.URL)
	var app struct{ ID string }
	if code := PostJSON(t, p.URL+"/api/apps", fmt.Sprintf(`{"name":"1A","blueprint":%s,"context":{"classId":"class-hk-f1a"}}`, bp), &app); code != 201 {
		t.Fatalf("save app: %d", code)
	}
	rig.java.SetFault(mockserver.Fault{Latency: 3 * time.Second})
	defer rig.java.ClearFault()
	go func() {
		req, _ := http.NewRequest(http.MethodPost, p.URL+"/api/apps/"+app.ID+"/run", strings.NewReader(`{}`))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	type snaps struct {
		Snapshots []struct{ RunID, Status, ErrorCode, BuildID string }
	}
	var s snaps
	for range 100 { // until the run is recorded with its build (≤ 10 s)
		if GetJSON(t, p.URL+"/api/apps/"+app.ID+"/snapshots", &s); len(s.Snapshots) == 1 && s.Snapshots[0].BuildID != "" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(s.Snapshots) != 1 || s.Snapshots[0].Status != "running" {
		t.Fatalf("no running run: %+v", s)
	}
	p.kill()
	rig.java.ClearFault()

	p = rig.start(t)
	s = snaps{}
	if GetJSON(t, p.URL+"/api/apps/"+app.ID+"/snapshots", &s); len(s.Snapshots) != 1 ||
		s.Snapshots[0].Status != "failed" || s.Snapshots[0].ErrorCode != "SERVICE_UNAVAILABLE" {
		t.Fatalf("the killed run after the restart: %+v", s)
	}
	// The app still runs.
	var out struct{ Status string }
	if code := PostJSON(t, p.URL+"/api/apps/"+app.ID+"/run", `{}`, &out); code != 200 || out.Status != "succeeded" {
		t.Errorf("a run after the restart: %d %+v", code, out)
	}
	p.kill()
}

// firstTurn runs a turn that completes and returns its conversation.
func firstTurn(t *testing.T, base string) string {
	t.Helper()
	first := postStream(t, base, `{"message":"What is photosynthesis?"}`)
	conv := first.Header.Get("X-Conversation-Id")
	if first.Status != 200 || conv == "" {
		t.Fatalf("first turn: %d", first.Status)
	}
	return conv
}

// readUntil reads events up to and including the first of type typ.
func readUntil(t *testing.T, r *sseReader, typ string) []sseEvent {
	t.Helper()
	var out []sseEvent
	for range 100 {
		ev := readEvents(t, r, 1)[0]
		out = append(out, ev)
		if ev.typ(t) == typ {
			return out
		}
	}
	t.Fatalf("no %s in the first 100 events", typ)
	return nil
}

// planOn plans the 1A analysis page on a running server.
func planOn(t *testing.T, base string) json.RawMessage {
	t.Helper()
	var resp struct {
		Action    string          `json:"action"`
		Blueprint json.RawMessage `json:"blueprint"`
	}
	if code := PostJSON(t, base+"/api/conversation", `{"message":"分析 1A 班英语成绩","language":"zh-CN"}`, &resp); code != 200 || resp.Action != "build" {
		t.Fatalf("plan: %d %+v", code, resp)
	}
	return resp.Blueprint
}
