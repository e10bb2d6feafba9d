package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/search"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// instantModel answers at once, without HTTP: a proposal, then five
// web_search calls, then final_result with six milestones citing the
// results. It stands in for the model so that the benchmark measures the
// flow and nothing of the model.
type instantModel struct{ final string }

func (m instantModel) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	msg := llm.Message{Role: llm.RoleAssistant}
	if strings.HasPrefix(req.Messages[0].Content, prompts.ProposalHeader) {
		msg.Content = `{"topic":"牛顿力学的发展","time_range":"1589 年至 1905 年","focus_points":["伽利略","开普勒","《原理》"],"expected_milestones":6,"search_plan":["a","b","c"],"language":"zh-CN"}`
		return llm.Response{Message: msg}, nil
	}
	searches := 0
	for _, x := range req.Messages {
		if x.Role == llm.RoleTool {
			searches++
		}
	}
	call := llm.ToolCall{ID: fmt.Sprintf("call_%d", searches), Type: llm.ToolTypeFunction}
	if searches < 5 {
		call.Function = llm.FunctionCall{Name: prompts.WebSearchTool, Arguments: fmt.Sprintf(`{"query":"牛顿力学 %d"}`, searches)}
	} else {
		call.Function = llm.FunctionCall{Name: prompts.FinalResultTool, Arguments: m.final}
	}
	msg.ToolCalls = []llm.ToolCall{call}
	return llm.Response{Message: msg}, nil
}

// instantSearch answers every query at once with five results.
type instantSearch struct{ resp search.Response }

func (s instantSearch) Search(context.Context, search.Request) (search.Response, error) {
	return s.resp, nil
}

func benchFixtures() (instantModel, instantSearch) {
	var resp search.Response
	resp.Answer = "Newtonian mechanics grew from Galileo's experiments to the Principia (1687)."
	var ms []research.Milestone
	for i := range 6 {
		u := fmt.Sprintf("https://en.wikipedia.org/wiki/Milestone_%d", i)
		if i < 5 {
			resp.Results = append(resp.Results, search.Result{Title: fmt.Sprintf("Milestone %d - Wikipedia", i), URL: u,
				Content: strings.Repeat("A page about a milestone of mechanics. ", 12), Score: 0.9})
		}
		src := []string{}
		if i < 5 {
			src = []string{u}
		}
		ms = append(ms, research.Milestone{Date: fmt.Sprintf("%d-07-05", 1600+40*i), Title: fmt.Sprintf("里程碑 %d", i),
			Subtitle: "副标题", Significance: []string{"revolutionary", "high", "medium"}[i%3],
			Description: "第一句描述这一事件。第二句说明它的意义。", Sources: src})
	}
	final, _ := json.Marshal(research.FinalOutput{Milestones: ms})
	return instantModel{final: string(final)}, instantSearch{resp: resp}
}

// BenchmarkResearchRunOverhead measures one research run end to end —
// POST /api/research, then GET /api/research/{id}/stream read to its
// complete event — through real HTTP on loopback, the edge, the embedded
// store and event log, the ASL interpreter running research.asl.json, the
// milestone agent's loop, the output checks and the relay, with the model
// and the search service answering instantly in process: the flow's own
// overhead per run (docs/benchmarks.md).
func BenchmarkResearchRunOverhead(b *testing.B) {
	db, err := boltstore.Open(filepath.Join(b.TempDir(), "bench.db"), boltstore.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	model, searcher := benchFixtures()
	flow := research.New(model, searcher, research.NewStore(db), db.Events(), research.Options{})
	app := &wire.App{Research: flow, Log: db.Events(), Logger: slog.New(slog.DiscardHandler)}
	r, err := newRunner(infra.ResearchASL, app.ResearchTasks(), time.Minute, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Shutdown(context.Background())
	mux := http.NewServeMux()
	app.ResearchRoutes(starter[workflow.ResearchState]{r}).Mount(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b.ReportAllocs()
	var events int
	for b.Loop() {
		resp, err := http.Post(srv.URL+"/api/research", "application/json", strings.NewReader(`{"topic":"牛顿力学的发展"}`))
		if err != nil {
			b.Fatal(err)
		}
		var p struct {
			SessionID string `json:"session_id"`
		}
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil || p.SessionID == "" {
			b.Fatalf("propose: %v", err)
		}
		resp, err = http.Get(srv.URL + "/api/research/" + p.SessionID + "/stream")
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !strings.Contains(string(body), "event: complete") {
			b.Fatalf("stream: %v %s", err, body)
		}
		events = strings.Count(string(body), "\nevent: ")
	}
	b.ReportMetric(float64(events), "events/run")
}
