package edge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/workflow"
)

// silentStarter records the builds it is asked to start and runs none:
// the workflow seam, so that the edge's own behaviour shows.
type silentStarter struct {
	mu     sync.Mutex
	starts []workflow.BuildState
}

func (s *silentStarter) Start(_ context.Context, _ string, in workflow.BuildState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts = append(s.starts, in)
	return nil
}

func newPages(t *testing.T) (*httptest.Server, *silentStarter, *boltstore.DB) {
	t.Helper()
	db := openDB(t)
	st := &silentStarter{}
	l := launch.New(db.Sessions(), db.Events(), st, launch.Options{MaxWait: 150 * time.Millisecond})
	p := edge.NewPages(l, edge.NewRelay(db.Events(), edge.RelayOptions{Heartbeat: 20 * time.Millisecond}),
		auth.Dev{Default: "t-001"}, nil, edge.PagesOptions{Tools: []string{"get_class_detail", "get_assignment_submissions"}})
	mux := http.NewServeMux()
	p.Mount(mux)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs, st, db
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestSilentBuildIsAbandoned: a build whose workflow sends nothing gets
// heartbeats, then the stream is closed with an ERROR within the wait bound.
func TestSilentBuildIsAbandoned(t *testing.T) {
	hs, st, _ := newPages(t)
	bp, _ := json.Marshal(blueprinttest.Analysis("class-hk-f1a"))
	resp, body := post(t, hs.URL+"/api/page/generate", `{"blueprint":`+string(bp)+`}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Build-Id") == "" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	if !strings.Contains(body, ": ping\n\n") {
		t.Errorf("no heartbeat in %q", body)
	}
	if !strings.HasSuffix(body, "id: 1\ndata: {\"type\":\"ERROR\",\"message\":\"页面生成服务暂时不可用，请稍后再试。\",\"code\":\"SERVICE_UNAVAILABLE\"}\n\n") {
		t.Errorf("stream %q does not end with the abandon ERROR", body)
	}
	if len(st.starts) != 1 || st.starts[0].Build.Mode != blueprint.ModeBuild || st.starts[0].Build.TeacherID != "t-001" || st.starts[0].Error != nil {
		t.Errorf("started %+v", st.starts)
	}
}

// TestPatchDecidesItsMode: a patch over a page that fits the blueprint is
// a patch; over one that does not, or with a rebuild scope, it is a build.
func TestPatchDecidesItsMode(t *testing.T) {
	hs, st, db := newPages(t)
	bp := blueprinttest.Analysis("class-hk-f1a")
	page := blueprinttest.Page(bp)
	results := blueprint.ComputeResults{}
	for _, n := range bp.ComputeGraph.Nodes {
		results[n.ID] = json.RawMessage(`{}`)
	}
	body := func(p blueprint.Page, scope string) string {
		b, _ := json.Marshal(map[string]any{"blueprint": bp, "page": p, "dataContext": map[string]any{"submissions": []any{}},
			"computeResults": results, "patchPlan": map[string]any{"scope": scope,
				"instructions": []any{map[string]string{"op": "recompose", "blockId": "summary"}}}})
		return string(b)
	}
	shorter := page
	shorter.Tabs = page.Tabs[:1]
	for _, c := range []struct {
		name, body, mode string
	}{
		{"fits", body(page, "patch"), blueprint.ModePatch},
		{"structure changed", body(shorter, "patch"), blueprint.ModeBuild},
		{"rebuild", body(page, "rebuild"), blueprint.ModeBuild},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, _ := post(t, hs.URL+"/api/page/patch", c.body)
			if resp.StatusCode != 200 || resp.Header.Get("X-Build-Mode") != c.mode {
				t.Fatalf("%d mode %q, want %q", resp.StatusCode, resp.Header.Get("X-Build-Mode"), c.mode)
			}
			raw, err := db.Sessions().GetRecord(context.Background(), resp.Header.Get("X-Build-Id"), blueprint.RecordRequest)
			if err != nil {
				t.Fatal(err)
			}
			var req blueprint.Request
			_ = json.Unmarshal(raw, &req)
			if req.Mode != c.mode || (c.mode == blueprint.ModePatch) != (req.Patch != nil && req.Page != nil && len(req.ComputeResults) == len(results)) {
				t.Errorf("stored request %+v", req.Mode)
			}
			if c.mode == blueprint.ModeBuild && req.Inputs["class"] != "class-hk-f1a" {
				t.Errorf("a rebuild needs the inputs: %v", req.Inputs)
			}
		})
	}
	if len(st.starts) != 3 {
		t.Errorf("%d builds started", len(st.starts))
	}
}

func TestPageRoutesRefuseWithoutA500(t *testing.T) {
	hs, _, _ := newPages(t)
	cases := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/api/page/generate", `[]`, 400, "VALIDATION_ERROR"},
		{"POST", "/api/page/generate", `{"blueprint":{"name":"x"}}`, 422, "BLUEPRINT_ERROR"},
		{"POST", "/api/page/patch", `{"blueprint":` + mustMarshal(blueprinttest.Analysis("x")) + `}`, 422, "BLUEPRINT_ERROR"},
		{"GET", "/api/page/build-404/stream", ``, 404, "ENTITY_NOT_FOUND"},
		{"POST", "/api/workflow/generate", `{"message":"分析 1A"}`, 503, "SERVICE_UNAVAILABLE"},
		{"POST", "/api/workflow/generate", `{"message":" "}`, 400, "VALIDATION_ERROR"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, hs.URL+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Error struct{ Code, Message string }
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != c.status || e.Error.Code != c.code || e.Error.Message == "" {
			t.Errorf("%s %s %s: %d %+v", c.method, c.path, c.body, resp.StatusCode, e)
		}
	}
}

func mustMarshal(v any) string {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v)
	return strings.TrimSpace(b.String())
}
