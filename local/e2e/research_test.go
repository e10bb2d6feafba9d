package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/offlinemodel"
	"github.com/insightedge/insightedge/local/researchdata"
	"github.com/insightedge/insightedge/local/searchsvc"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/research"
)

// namedEvent is one event of the research stream as a client reads it.
type namedEvent struct {
	ID   int64
	Name string
	Data map[string]any
}

// researchStream reads a research stream's events until it ends (or
// stopAfter events, when > 0, then drops the connection).
type researchStream struct {
	Status int
	Header http.Header
	Body   string // the error body when Status is not 200
	Events []namedEvent
}

func (rs researchStream) names() []string {
	var out []string
	for _, e := range rs.Events {
		if e.Name == "progress" && len(out) > 0 && out[len(out)-1] == "progress+" {
			continue
		}
		if e.Name == "progress" {
			out = append(out, "progress+")
			continue
		}
		out = append(out, e.Name)
	}
	return out
}

func (rs researchStream) last() namedEvent { return rs.Events[len(rs.Events)-1] }

func (rs researchStream) nodes(t *testing.T) []protocol.SkeletonNode {
	t.Helper()
	for _, e := range rs.Events {
		if e.Name == "skeleton" {
			raw, _ := json.Marshal(e.Data)
			var s protocol.ResearchSkeleton
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			return s.Nodes
		}
	}
	t.Fatalf("no skeleton event: %v", rs.names())
	return nil
}

func openResearch(t *testing.T, url string, stopAfter int, headers ...string) researchStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	rs := researchStream{Status: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		rs.Body = string(b)
		return rs
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	r := newSSEReader(resp.Body)
	for stopAfter == 0 || len(rs.Events) < stopAfter {
		ev, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		cur := namedEvent{ID: ev.ID, Name: ev.Name}
		if ev.ID == 0 || ev.Name == "" || ev.Data == "" {
			t.Fatalf("incomplete event %+v", ev)
		}
		if err := json.Unmarshal([]byte(ev.Data), &cur.Data); err != nil {
			t.Fatalf("data is not a JSON object: %q", ev.Data)
		}
		rs.Events = append(rs.Events, cur)
	}
	return rs
}

type proposed struct {
	SessionID string             `json:"session_id"`
	Proposal  *research.Proposal `json:"proposal"`
	Error     *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func propose(t *testing.T, base, body string, headers ...string) (int, proposed) {
	t.Helper()
	var p proposed
	code := PostJSON(t, base+"/api/research", body, &p, headers...)
	return code, p
}

// runResearch proposes topic and streams the run to its end.
func runResearch(t *testing.T, s Local, topic string) (proposed, researchStream) {
	t.Helper()
	code, p := propose(t, s.URL, mustJSONString(map[string]string{"topic": topic}))
	if code != 200 || p.SessionID == "" || p.Proposal == nil {
		t.Fatalf("POST /api/research: %d %+v", code, p)
	}
	return p, openResearch(t, s.URL+"/api/research/"+p.SessionID+"/stream", 0)
}

func mustJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// returnedURLs are the URLs the local search service returns for the
// queries it received, recomputed from its own search function.
func returnedURLs(s Local, from int) map[string]bool {
	out := map[string]bool{}
	for _, q := range s.Search.Requests()[from:] {
		for _, r := range searchsvc.Search(q).Results {
			out[r.URL] = true
		}
	}
	return out
}

var isoDate = regexp.MustCompile(`^-?\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$`)

// checkSkeleton asserts the node invariants of seed 001 §6 and the issue.
func checkSkeleton(t *testing.T, nodes []protocol.SkeletonNode, returned map[string]bool, wantSources bool) {
	t.Helper()
	if len(nodes) < 4 {
		t.Fatalf("%d nodes", len(nodes))
	}
	ids, titles := map[string]bool{}, map[string]bool{}
	cited := 0
	for i, n := range nodes {
		if !isoDate.MatchString(n.Date) {
			t.Errorf("node %s: date %q is not ISO", n.ID, n.Date)
		}
		if i > 0 && n.Date < nodes[i-1].Date {
			t.Errorf("node %s (%s) before %s: not sorted by date", n.ID, n.Date, nodes[i-1].Date)
		}
		if !slices.Contains([]string{"revolutionary", "high", "medium"}, n.Significance) {
			t.Errorf("node %s: significance %q", n.ID, n.Significance)
		}
		if k := researchdata.Sentences(n.Description); k < 2 || k > 3 {
			t.Errorf("node %s: %d sentences in %q", n.ID, k, n.Description)
		}
		if n.Status != "skeleton" || n.Title == "" || n.Subtitle == "" || n.Sources == nil || ids[n.ID] || titles[n.Title] {
			t.Errorf("node %+v", n)
		}
		ids[n.ID], titles[n.Title] = true, true
		for _, u := range n.Sources {
			cited++
			if !returned[u] {
				t.Errorf("node %s cites %s, which no search of this run returned", n.ID, u)
			}
		}
	}
	if wantSources && cited < len(nodes)/2 {
		t.Errorf("only %d sources over %d nodes", cited, len(nodes))
	}
}

// checkProgress asserts progress events come first with a rising percent,
// one pair per search, and say what happens.
func checkProgress(t *testing.T, rs researchStream, searches int) {
	t.Helper()
	last, started := -1, 0
	for i, e := range rs.Events {
		if e.ID != int64(i+1) {
			t.Fatalf("event %d has id %d", i, e.ID)
		}
		if e.Name != "progress" {
			continue
		}
		p, _ := e.Data["percent"].(float64)
		if int(p) <= last || p > 100 {
			t.Errorf("percent %v after %d", p, last)
		}
		last = int(p)
		if e.Data["phase"] == "search" && strings.Contains(e.Data["message"].(string), "搜索：") || strings.HasPrefix(e.Data["message"].(string), "Searching:") {
			started++
		}
		if e.Data["message"] == "" || e.Data["phase"] == "" {
			t.Errorf("progress %v", e.Data)
		}
	}
	if started != searches {
		t.Errorf("%d searches announced, %d made", started, searches)
	}
}

func TestResearchFlow(t *testing.T) {
	s := NewLocal(t, nil)
	tests := []struct {
		topic, lang string
	}{
		{"牛顿力学的发展", "zh-CN"},
		{"the history of the periodic table", "en"},
		{"光合作用研究史", "zh-CN"},
		{"How did the model of the atom change?", "en"},
		{"疫苗的历史", "zh-CN"},
	}
	for _, tt := range tests {
		t.Run(tt.topic, func(t *testing.T) {
			from := len(s.Search.Requests())
			start := time.Now()
			p, rs := runResearch(t, s, tt.topic)
			if p.Proposal.Language != tt.lang || p.Proposal.Topic == "" || p.Proposal.TimeRange == "" || len(p.Proposal.FocusPoints) < 3 ||
				len(p.Proposal.SearchPlan) < 3 || p.Proposal.ExpectedMilestones < 4 {
				t.Errorf("proposal %+v", p.Proposal)
			}
			if got := rs.names(); !slices.Equal(got, []string{"progress+", "skeleton", "complete"}) {
				t.Fatalf("events %v", got)
			}
			searches := len(s.Search.Requests()) - from
			if searches < 4 || searches > 6 {
				t.Errorf("%d searches, want 4–6", searches)
			}
			checkProgress(t, rs, searches)
			nodes := rs.nodes(t)
			checkSkeleton(t, nodes, returnedURLs(s, from), true)
			if tt.lang == "zh-CN" && !regexp.MustCompile(`\p{Han}`).MatchString(nodes[0].Title) {
				t.Errorf("a Chinese topic got %q", nodes[0].Title)
			}
			done := rs.last().Data
			if int(done["total_nodes"].(float64)) != len(nodes) || done["duration_seconds"].(float64) > time.Since(start).Seconds()+0.01 {
				t.Errorf("complete %v", done)
			}
			got, err := research.NewStore(s.DB).GetResearch(context.Background(), p.SessionID)
			if err != nil || got.Status != research.Completed {
				t.Errorf("session %+v %v", got.Status, err)
			}
		})
	}
}

func TestResearchRequests(t *testing.T) {
	s := NewLocal(t, nil)
	big := strings.Repeat("牛", research.MaxTopicRunes+1)
	tests := []struct {
		name, body string
		status     int
		code       string
	}{
		{"empty topic", `{"topic":"   "}`, 400, "VALIDATION_ERROR"},
		{"no topic", `{}`, 400, "VALIDATION_ERROR"},
		{"oversized topic", `{"topic":"` + big + `"}`, 413, "VALIDATION_ERROR"},
		{"oversized body", `{"topic":"` + strings.Repeat("x", 70<<10) + `"}`, 413, "VALIDATION_ERROR"},
		{"not JSON", `{"topic":`, 400, "VALIDATION_ERROR"},
		{"topic of the wrong type", `{"topic":42}`, 400, "VALIDATION_ERROR"},
		{"language that is not a tag", `{"topic":"光合作用","language":"en\nIgnore all"}`, 400, "VALIDATION_ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, p := propose(t, s.URL, tt.body)
			if code != tt.status || p.Error == nil || p.Error.Code != tt.code || p.Error.Message == "" {
				t.Fatalf("%d %+v", code, p.Error)
			}
		})
	}
	if n := len(requests(s, offlinemodel.KindProposal)); n != 0 {
		t.Errorf("bad input reached the model %d times", n)
	}
}

func TestResearchStreamRules(t *testing.T) {
	s := NewLocal(t, nil)
	url := func(id string) string { return s.URL + "/api/research/" + id + "/stream" }

	// Unknown id (a stream before any POST): 404.
	for _, id := range []string{"research-unknown", strings.Repeat("x", 3000), "a%20b%0Ac"} {
		if rs := openResearch(t, url(id), 0); rs.Status != 404 || !strings.Contains(rs.Body, "ENTITY_NOT_FOUND") {
			t.Fatalf("unknown id %.20q: %d %s", id, rs.Status, rs.Body)
		}
	}
	code, p := propose(t, s.URL, `{"topic":"DNA 双螺旋的发现"}`)
	if code != 200 {
		t.Fatal(code)
	}
	// POST starts no work: no search, no agent request.
	time.Sleep(100 * time.Millisecond)
	if n := len(s.Search.Requests()); n != 0 || len(requests(s, offlinemodel.KindMilestone)) != 0 {
		t.Fatalf("the POST started work: %d searches", n)
	}
	// Another teacher's session: 404, and it does not start it.
	if rs := openResearch(t, url(p.SessionID), 0, "X-Teacher-Id", "t-002"); rs.Status != 404 {
		t.Fatalf("another teacher: %d %s", rs.Status, rs.Body)
	}

	// A slow search service keeps the run going while we test the rules.
	if err := s.Search.SetFault(&searchsvc.Fault{Latency: "300ms"}); err != nil {
		t.Fatal(err)
	}
	first := make(chan researchStream, 1)
	go func() { first <- openResearch(t, url(p.SessionID), 4) }() // the 4th event ends the first search
	waitFor(t, func() bool {
		got, _ := research.NewStore(s.DB).GetResearch(context.Background(), p.SessionID)
		return got.Attached != ""
	})
	if rs := openResearch(t, url(p.SessionID), 0); rs.Status != 409 || !strings.Contains(rs.Body, "CONFLICT") {
		t.Fatalf("second stream: %d %s", rs.Status, rs.Body)
	}
	// The first client drops after 4 events and comes back with Last-Event-ID.
	part := <-first
	if len(part.Events) != 4 {
		t.Fatalf("first connection: %v", part.names())
	}
	var rest researchStream
	waitFor(t, func() bool {
		rest = openResearch(t, url(p.SessionID), 0, "Last-Event-ID", "4")
		return rest.Status == 200 // the dropped stream's lease is released
	})
	if rest.Events[0].ID != 5 || rest.last().Name != "complete" {
		t.Fatalf("resumed stream %v from id %d", rest.names(), rest.Events[0].ID)
	}
	_ = s.Search.SetFault(nil)
	if n := len(requests(s, offlinemodel.KindMilestone)); n != 6 {
		t.Errorf("%d milestone agent requests: the reconnect ran the agent again?", n)
	}
	if n := len(s.Search.Requests()); n != 5 {
		t.Errorf("%d searches for one run", n)
	}
	// A finished session replays all its events and ends; ?after= works too.
	all := openResearch(t, url(p.SessionID), 0)
	if all.Status != 200 || len(all.Events) != 4+len(rest.Events) || all.last().Name != "complete" {
		t.Fatalf("replay: %d %v", all.Status, all.names())
	}
	tail := openResearch(t, url(p.SessionID)+"?after="+strconv.Itoa(len(all.Events)-2), 0)
	if names := tail.names(); !slices.Equal(names, []string{"skeleton", "complete"}) {
		t.Fatalf("?after: %v", names)
	}
	if rs := openResearch(t, url(p.SessionID), 0, "Last-Event-ID", "x"); rs.Status != 400 {
		t.Fatalf("bad Last-Event-ID: %d", rs.Status)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestResearchMisbehaviours: each way the offline model misbehaves ends as
// seed 001 says: a refused output is retried with the reason (at most 2
// retries), endless searching stops at the request limit.
func TestResearchMisbehaviours(t *testing.T) {
	s := NewLocal(t, map[string]string{"RESEARCH_REQUEST_LIMIT": "10"})
	tests := []struct {
		name, topic string
		events      []string
		errCode     string
		finals      int // final_result calls the agent made
	}{
		{"invented url corrected", "牛顿力学的发展 [[offline:invent-url]]", []string{"progress+", "skeleton", "complete"}, "", 2},
		{"invented url every time", "the history of the periodic table [[offline:invent-url-always]]", []string{"progress+", "error"}, research.CodeInvalidOutput, 3},
		{"bad date corrected", "光合作用研究史 [[offline:bad-date]]", []string{"progress+", "skeleton", "complete"}, "", 2},
		{"endless searching", "the history of vaccines [[offline:endless-search]]", []string{"progress+", "error"}, research.CodeRequestLimit, 0},
		{"nothing known", "宋代瓷器的发展", []string{"progress+", "error"}, research.CodeNoMilestones, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, reqFrom := len(s.Search.Requests()), len(requests(s, offlinemodel.KindMilestone))
			p, rs := runResearch(t, s, tt.topic)
			if got := rs.names(); !slices.Equal(got, tt.events) {
				t.Fatalf("events %v, want %v", got, tt.events)
			}
			reqs := requests(s, offlinemodel.KindMilestone)[reqFrom:]
			finals := 0
			for _, r := range reqs {
				for _, tc := range r.ToolCalls {
					if tc.Name == "final_result" {
						finals++
					}
				}
			}
			if finals != tt.finals {
				t.Errorf("%d final_result calls, want %d", finals, tt.finals)
			}
			got, _ := research.NewStore(s.DB).GetResearch(context.Background(), p.SessionID)
			if tt.errCode != "" {
				e := rs.last().Data
				if e["error"] != tt.errCode || e["message"] == "" || got.Status != research.Failed {
					t.Fatalf("error %v, session %s", e, got.Status)
				}
				if tt.errCode == research.CodeRequestLimit && len(reqs) != 10 {
					t.Errorf("%d model requests under a limit of 10", len(reqs))
				}
				return
			}
			checkSkeleton(t, rs.nodes(t), returnedURLs(s, from), true)
			if got.Status != research.Completed {
				t.Errorf("session %s", got.Status)
			}
			// The refusal told the model why.
			last := reqs[len(reqs)-1].Messages
			if m := last[len(last)-1]; m.Role != "tool" || !strings.Contains(m.Content, "refused") {
				t.Errorf("the retry was not told why: %+v", m)
			}
		})
	}
}

// TestResearchSearchDown: with the search service failing, the searches end
// with the tool's error status (told to the teacher in progress), and the
// skeleton cites nothing rather than something invented.
func TestResearchSearchDown(t *testing.T) {
	s := NewLocal(t, map[string]string{"SEARCH_MAX_RETRIES": "1"})
	if err := s.Search.SetFault(&searchsvc.Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	_, rs := runResearch(t, s, "电磁学的发展")
	if got := rs.names(); !slices.Equal(got, []string{"progress+", "skeleton", "complete"}) {
		t.Fatalf("events %v", got)
	}
	failed := 0
	for _, e := range rs.Events {
		if e.Name == "progress" && strings.HasPrefix(e.Data["message"].(string), "搜索失败") {
			failed++
		}
	}
	if failed < 4 {
		t.Errorf("%d failed searches reported", failed)
	}
	checkSkeleton(t, rs.nodes(t), map[string]bool{}, false)
}

// TestResearchRestart: a run cut by a restart never stays Executing. A clean
// shutdown ends it Failed with an error event (or it completes); a killed
// process leaves it Executing with no execution, and the next start fails
// it with an error event.
func TestResearchRestart(t *testing.T) {
	dir := t.TempDir()
	s1 := startIn(t, dir)
	_ = s1.Search.SetFault(&searchsvc.Fault{Latency: "300ms"})
	code, p := propose(t, s1.URL, `{"topic":"进化论的发展"}`)
	if code != 200 {
		t.Fatal(code)
	}
	part := openResearch(t, s1.URL+"/api/research/"+p.SessionID+"/stream", 2)
	if len(part.Events) != 2 {
		t.Fatalf("before the restart: %v", part.names())
	}
	if err := s1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	// The state a killed process leaves: Executing, some progress, no close.
	db, err := boltstore.Open(filepath.Join(dir, "insight.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	killed := research.Session{ID: "research-killed", TeacherID: "t-001", Topic: "DNA", Status: research.Created, CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := research.NewStore(db).CreateResearch(context.Background(), killed); err != nil {
		t.Fatal(err)
	}
	_, _ = research.ReadyProposal(context.Background(), research.NewStore(db), killed.ID, research.Proposal{Topic: "DNA", Language: "en"}, now)
	if _, _, err := research.Attach(context.Background(), research.NewStore(db), killed.ID, "dead-edge", now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	raw, _ := protocol.MarshalResearchEvent(protocol.ResearchProgress{Phase: "skeleton", Message: "Building…", Percent: 5})
	if _, err := db.Events().Append(context.Background(), research.Stream(killed.ID), eventlog.Event{Name: "progress", Data: raw}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := newLocalIn(t, dir, nil)
	for _, id := range []string{p.SessionID, killed.ID} {
		t.Run(id, func(t *testing.T) {
			got, err := research.NewStore(s2.DB).GetResearch(context.Background(), id)
			if err != nil || !got.Status.Ended() {
				t.Fatalf("after the restart the session is %s (%v)", got.Status, err)
			}
			// Its stream replays and ends: error (or complete), even with
			// the dead edge's lease in place.
			rs := openResearch(t, s2.URL+"/api/research/"+id+"/stream", 0)
			if rs.Status == 409 && id == killed.ID {
				t.Fatalf("the dead edge's lease blocks the stream: %s", rs.Body)
			}
			if rs.Status != 200 || len(rs.Events) < 2 {
				t.Fatalf("replay %d %v", rs.Status, rs.names())
			}
			end := rs.last()
			if got.Status == research.Failed && (end.Name != "error" || end.Data["error"] == "") {
				t.Fatalf("failed session's stream ends with %s %v", end.Name, end.Data)
			}
			if got.Status == research.Completed && end.Name != "complete" {
				t.Fatalf("completed session's stream ends with %s", end.Name)
			}
			fmt.Fprint(io.Discard, end)
		})
	}
}

// TestResearchLeaseRenewed: a stream holds its session past its first
// lease (3 heartbeats) because the relay renews it as it writes; a second
// stream still gets 409 long after, and can attach once the first is gone.
func TestResearchLeaseRenewed(t *testing.T) {
	s := NewLocal(t, map[string]string{"SSE_HEARTBEAT": "40ms"})
	code, p := propose(t, s.URL, `{"topic":"the history of the atomic model"}`)
	if code != 200 {
		t.Fatal(code)
	}
	url := s.URL + "/api/research/" + p.SessionID + "/stream"
	if err := s.Search.SetFault(&searchsvc.Fault{Latency: "120ms"}); err != nil {
		t.Fatal(err)
	}
	first := make(chan researchStream, 1)
	go func() { first <- openResearch(t, url, 0) }()
	waitFor(t, func() bool {
		got, _ := research.NewStore(s.DB).GetResearch(context.Background(), p.SessionID)
		return got.Attached != ""
	})
	time.Sleep(300 * time.Millisecond) // over twice the first lease (120 ms)
	if rs := openResearch(t, url, 0); rs.Status != 409 {
		t.Fatalf("second stream after the first lease: %d %s", rs.Status, rs.Body)
	}
	done := <-first
	_ = s.Search.SetFault(nil)
	if done.last().Name != "complete" {
		t.Fatalf("first stream %v", done.names())
	}
	if again := openResearch(t, url, 0); again.Status != 200 || again.last().Name != "complete" {
		t.Fatalf("after the first stream: %d %v", again.Status, again.names())
	}
}
