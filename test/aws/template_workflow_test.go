package awstest

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/templatebackend"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/wire"
)

// testTemplateWorkflowEquivalence runs infra/statemachines/template.asl.json
// in aws-local-stepfunctions and in local/asl over the same report steps
// (DynamoDB on dynalite, the offline model, the local template backend).
// The emulator has no .waitForTaskToken, so the scenarios take the paths
// that do not wait for the user (TEMPLATE_WS_REQUIRE_CONFIRM=false: Mode →
// Plan → Planned → FirstRound → NextRound → MoreTasks → Solve (the Map,
// MaxConcurrencyPath) … → Aggregate; a failed plan: Catch → Failed →
// Finish); the confirmation's task token is tested state by state in
// local/asl (tokens_test.go) and end to end in local.
func (s *suite) testTemplateWorkflowEquivalence(t *testing.T) {
	tb, err := templatebackend.New(mockdata.Default())
	if err != nil {
		t.Fatal(err)
	}
	backendSrv := httptest.NewServer(tb)
	t.Cleanup(backendSrv.Close)
	model, err := llm.New(mustLLMConfig(t, s.model(t)))
	if err != nil {
		t.Fatal(err)
	}
	runTemplate := func(t *testing.T, sid, templateName string, interpret func(tasks map[string]wire.Task, input []byte) run) (run, []report.Envelope) {
		t.Helper()
		table := s.dynalite(t).NewTable(t)
		dyn := s.dynalite(t).Client
		store := report.NewStore(dynamostore.NewRecords(dyn, table, dynamostore.Options{}))
		log := dynamostore.New(dyn, table, dynamostore.Options{}).Events()
		blobs, err := blob.NewFS(blob.FSConfig{Dir: t.TempDir(), BaseURL: "http://127.0.0.1:1", Secret: []byte("0123456789abcdef")})
		if err != nil {
			t.Fatal(err)
		}
		set := pipeline.DefaultSettings()
		set.RequireConfirm = false
		p := pipeline.New(pipeline.Deps{Store: store, Log: log, Blobs: blobs, Model: model, Settings: set,
			Backends: backend.NewResolver(backend.Options{Default: backendSrv.URL}), Logger: discardLogger()})
		ctx := context.Background()
		if err := store.CreateSession(ctx, report.Session{ID: sid, TeacherID: "t-001", Status: report.StatusPlanning, Run: 1,
			Execution: "template-" + sid + "-1", CreatedAt: time.Now(), UpdatedAt: time.Now(),
			Message: report.Message{Question: "请基于指定模版与知识库生成报告", TemplateName: templateName, KnowledgeBaseName: "Form 1A"}}); err != nil {
			t.Fatal(err)
		}
		input, _ := json.Marshal(pipeline.RunInput{SessionID: sid, TeacherID: "t-001", Run: 1, Mode: pipeline.ModePlan,
			ConfirmTimeout: 60, Concurrency: 1}) // one at a time: the event order is the same in both
		r := interpret(wire.TemplateTasks(p), input)
		evs, err := log.Read(ctx, report.StreamName(sid), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		envs := make([]report.Envelope, len(evs))
		for i, ev := range evs {
			if err := json.Unmarshal(ev.Data, &envs[i]); err != nil {
				t.Fatal(err)
			}
			if envs[i].Event == "aggregate.completed" { // signed links differ by the second they were made
				var c map[string]map[string]map[string]any
				_ = json.Unmarshal(envs[i].Content, &c)
				delete(c["output"]["report"], "files")
				envs[i].Content, _ = json.Marshal(c)
			}
		}
		return r, envs
	}
	for _, sc := range []struct{ name, template, last string }{
		{"plan and write", "自检模板", "agent.final_answer"},
		{"unknown template", "没有这个模板", "pipeline.completed"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			sid := "tpl-" + map[bool]string{true: "ok", false: "bad"}[sc.last == "agent.final_answer"]
			js, jsEvents := runTemplate(t, sid, sc.template, func(tasks map[string]wire.Task, input []byte) run {
				return s.interpretJS(t, "template.asl.json", tasks, input)
			})
			goRun, goEvents := runTemplate(t, sid, sc.template, func(tasks map[string]wire.Task, input []byte) run {
				return interpretGo(t, infra.TemplateASL, tasks, input, "template-"+sid+"-1")
			})
			sameRun(t, js, goRun)
			if goRun.Entered["Confirm"] != 0 || (sc.last == "agent.final_answer" && goRun.Entered["Solve"] == 0) {
				t.Errorf("the scenario's path: %v", goRun.Entered)
			}
			if n := len(goEvents); n == 0 || goEvents[n-1].Event != sc.last {
				t.Errorf("local/asl's run does not end with %s", sc.last)
			}
			sameEvents(t, jsEvents, goEvents)
			t.Logf("%s: %d events, states entered %v", sc.name, len(goEvents), goRun.Entered)
		})
	}
}

func mustLLMConfig(t *testing.T, baseURL string) llm.Config {
	t.Helper()
	env := map[string]string{"OPENAI_BASE_URL": baseURL, "OPENAI_API_KEY": "offline",
		"LLM_MODEL_FAST": "offline-fast", "LLM_MODEL_STANDARD": offlineModelName, "LLM_MODEL_STRONG": "offline-strong"}
	c, err := llm.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return c
}
