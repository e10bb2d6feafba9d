package research_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/search"
	"github.com/insightedge/insightedge/shared/workflow"
)

// scripted is the model seam: on request n (from 0) of the milestone agent
// it answers script[n] (the last entry repeats), recording each request.
type scripted struct {
	mu       sync.Mutex
	script   []func(req llm.Request) (llm.Message, error)
	requests []llm.Request
}

func (m *scripted) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if strings.HasPrefix(req.Messages[0].Content, prompts.ProposalHeader) {
		return llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
			Content: `{"topic":"t","time_range":"r","focus_points":["a"],"expected_milestones":5,"search_plan":["q"],"language":"en"}`}}, nil
	}
	m.requests = append(m.requests, req)
	f := m.script[min(len(m.requests)-1, len(m.script)-1)]
	msg, err := f(req)
	msg.Role = llm.RoleAssistant
	return llm.Response{Message: msg}, err
}

func call(name, args string) func(llm.Request) (llm.Message, error) {
	return func(req llm.Request) (llm.Message, error) {
		id := fmt.Sprintf("call_%d", len(req.Messages))
		return llm.Message{ToolCalls: []llm.ToolCall{{ID: id, Type: llm.ToolTypeFunction,
			Function: llm.FunctionCall{Name: name, Arguments: args}}}}, nil
	}
}

func text(s string) func(llm.Request) (llm.Message, error) {
	return func(llm.Request) (llm.Message, error) { return llm.Message{Content: s}, nil }
}

// searcher is the search seam: results, or an error.
type searcher struct {
	resp search.Response
	err  error
}

func (s searcher) Search(context.Context, search.Request) (search.Response, error) {
	return s.resp, s.err
}

var oneResult = search.Response{Results: []search.Result{{Title: "Principia", URL: "https://a.org/principia", Content: "1687"}}}

func finalArgs(sources ...string) string {
	if sources == nil {
		sources = []string{}
	}
	b, _ := json.Marshal(research.FinalOutput{Milestones: []research.Milestone{
		{Date: "1687-07-05", Title: "Principia", Subtitle: "s", Significance: "revolutionary", Description: "One. Two.", Sources: sources},
		{Date: "1609", Title: "Kepler", Subtitle: "s", Significance: "high", Description: "One. Two.", Sources: []string{}},
	}})
	return string(b)
}

type fixture struct {
	flow  *research.Flow
	db    *boltstore.DB
	model *scripted
	id    string
}

func newFixture(t testing.TB, s search.Searcher, limit int, script ...func(llm.Request) (llm.Message, error)) fixture {
	t.Helper()
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "r.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	m := &scripted{script: script}
	f := research.New(m, s, research.NewStore(db), db.Events(), research.Options{RequestLimit: limit})
	sess, err := f.Propose(context.Background(), "t-001", "the history of mechanics", "en")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, _, err := research.Attach(context.Background(), research.NewStore(db), sess.ID, "h", now, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	return fixture{flow: f, db: db, model: m, id: sess.ID}
}

func (fx fixture) in(step string) workflow.ResearchStepInput {
	return workflow.ResearchStepInput{Step: step, Research: workflow.Research{SessionID: fx.id, TeacherID: "t-001"}}
}

// events returns the names of the session's events and the last one's data.
func (fx fixture) events(t *testing.T) ([]string, map[string]any) {
	t.Helper()
	evs, err := fx.db.Events().Read(context.Background(), research.Stream(fx.id), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var last map[string]any
	for _, e := range evs {
		names = append(names, e.Name)
		last = nil
		_ = json.Unmarshal(e.Data, &last)
	}
	return names, last
}

func TestMilestones(t *testing.T) {
	tests := []struct {
		name     string
		search   searcher
		limit    int
		script   []func(llm.Request) (llm.Message, error)
		status   string
		code     string
		requests int
	}{
		{"accepted", searcher{resp: oneResult}, 15,
			[]func(llm.Request) (llm.Message, error){call("web_search", `{"query":"principia"}`), call("final_result", finalArgs("https://a.org/principia"))},
			workflow.ResearchOK, "", 2},
		{"a source never returned, refused three times", searcher{resp: oneResult}, 15,
			[]func(llm.Request) (llm.Message, error){call("web_search", `{"query":"principia"}`), call("final_result", finalArgs("https://invented.example/x"))},
			workflow.ResearchFailed, research.CodeInvalidOutput, 4},
		{"a failed search cites nothing", searcher{err: search.ErrUnavailable}, 15,
			[]func(llm.Request) (llm.Message, error){call("web_search", `{"query":"principia"}`), call("final_result", finalArgs())},
			workflow.ResearchOK, "", 2},
		{"a failed search's URL is not citable", searcher{err: search.ErrUnavailable}, 15,
			[]func(llm.Request) (llm.Message, error){call("web_search", `{"query":"principia"}`), call("final_result", finalArgs("https://a.org/principia"))},
			workflow.ResearchFailed, research.CodeInvalidOutput, 4},
		{"text instead of tools", searcher{resp: oneResult}, 15,
			[]func(llm.Request) (llm.Message, error){text("Here is a timeline: …")}, workflow.ResearchFailed, research.CodeInvalidOutput, 3},
		{"endless searching", searcher{resp: oneResult}, 7,
			[]func(llm.Request) (llm.Message, error){call("web_search", `{"query":"again"}`)}, workflow.ResearchFailed, research.CodeRequestLimit, 7},
		{"an empty list", searcher{resp: oneResult}, 15,
			[]func(llm.Request) (llm.Message, error){call("final_result", `{"milestones":[]}`)}, workflow.ResearchFailed, research.CodeNoMilestones, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, tt.search, tt.limit, tt.script...)
			res, err := fx.flow.Milestones(context.Background(), fx.in(workflow.ResearchStepMilestones))
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.status || res.Code != tt.code || len(fx.model.requests) != tt.requests {
				t.Fatalf("result %+v after %d requests; want %s %s after %d", res, len(fx.model.requests), tt.status, tt.code, tt.requests)
			}
			if _, err := fx.flow.Finish(context.Background(), workflow.ResearchStepInput{Step: workflow.ResearchStepFinish,
				Research: fx.in("").Research, Result: &res}); err != nil {
				t.Fatal(err)
			}
			names, last := fx.events(t)
			sess, _ := research.NewStore(fx.db).GetResearch(context.Background(), fx.id)
			if tt.status == workflow.ResearchOK {
				if names[len(names)-2] != "skeleton" || names[len(names)-1] != "complete" || sess.Status != research.Completed {
					t.Fatalf("events %v, session %s", names, sess.Status)
				}
				return
			}
			if names[len(names)-1] != "error" || last["error"] != tt.code || sess.Status != research.Failed {
				t.Fatalf("events %v ending %v, session %s", names, last, sess.Status)
			}
			// Every refusal went back to the model with its reasons.
			if tt.code == research.CodeInvalidOutput && tt.requests == 4 {
				msgs := fx.model.requests[3].Messages
				if m := msgs[len(msgs)-1]; m.Role != llm.RoleTool || !strings.HasPrefix(m.Content, prompts.MilestoneRefusedPrefix) {
					t.Errorf("the retry was not told why: %+v", m)
				}
			}
		})
	}
}

// TestModelFailure: a model that fails is the step's AI_ERROR (the name an
// ASL Catch sees), and Finish given that error ends the run with ai_error.
func TestModelFailure(t *testing.T) {
	fx := newFixture(t, searcher{resp: oneResult}, 15, func(llm.Request) (llm.Message, error) {
		return llm.Message{}, errors.New("HTTP 503 from the provider")
	})
	_, err := fx.flow.Milestones(context.Background(), fx.in(workflow.ResearchStepMilestones))
	if apperr.CodeOf(err) != apperr.AIError {
		t.Fatalf("err %v, want AI_ERROR", err)
	}
	in := fx.in(workflow.ResearchStepFinish)
	in.Error = &workflow.ErrorInfo{Error: string(apperr.AIError), Cause: err.Error()}
	if _, err := fx.flow.Finish(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if _, last := fx.events(t); last["error"] != research.CodeAIError || last["message"] == "" {
		t.Fatalf("closing event %v", last)
	}
	// A second Finish (a retried state) changes nothing and appends nothing.
	before, _ := fx.events(t)
	if _, err := fx.flow.Finish(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if after, _ := fx.events(t); len(after) != len(before) {
		t.Fatalf("a second Finish appended %d events", len(after)-len(before))
	}
}

// BenchmarkMilestonesAndFinish is the flow's steps alone (no HTTP, no
// workflow engine): a five-search agent run and Finish on one embedded
// store, model and search answering at once.
func BenchmarkMilestonesAndFinish(b *testing.B) {
	script := []func(llm.Request) (llm.Message, error){}
	for range 5 {
		script = append(script, call("web_search", `{"query":"principia"}`))
	}
	script = append(script, call("final_result", finalArgs("https://a.org/principia")))
	fx := newFixture(b, searcher{resp: oneResult}, 15, script...)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		fx.model.requests = nil
		sess, err := fx.flow.Propose(ctx, "t-001", "the history of mechanics", "en")
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		if _, _, err := research.Attach(ctx, research.NewStore(fx.db), sess.ID, "h", now, now.Add(time.Minute)); err != nil {
			b.Fatal(err)
		}
		in := workflow.ResearchStepInput{Research: workflow.Research{SessionID: sess.ID, TeacherID: "t-001"}}
		b.StartTimer()
		in.Step = workflow.ResearchStepMilestones
		res, err := fx.flow.Milestones(ctx, in)
		if err != nil || res.Status != workflow.ResearchOK {
			b.Fatalf("%+v %v", res, err)
		}
		in.Step, in.Result = workflow.ResearchStepFinish, &res
		if _, err := fx.flow.Finish(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}
