package wire_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/obs"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

func TestTyped(t *testing.T) {
	var logs strings.Builder
	log := obs.NewLogger(&logs, slog.LevelInfo, "test")
	errStep := errors.New("step failed")
	var calls int
	task := wire.Typed(func(ctx context.Context, in workflow.RouteInput) (workflow.RouteOutput, error) {
		calls++
		log.InfoContext(ctx, "step ran")
		if in.Turn.Message == "fail" {
			return workflow.RouteOutput{}, errStep
		}
		return workflow.RouteOutput{Path: workflow.PathChat, Result: workflow.RouterResult{Intent: workflow.Intent(in.Turn.Message)}}, nil
	})
	ctx := context.Background()

	t.Run("bad JSON input", func(t *testing.T) {
		for _, in := range []string{`{"turn":`, `"a string"`, `{"turn":{"message":42}}`} {
			if out, err := task(ctx, json.RawMessage(in)); err == nil {
				t.Errorf("input %s: no error, output %s", in, out)
			}
		}
		if calls != 0 {
			t.Errorf("the step ran %d times on bad input", calls)
		}
	})
	t.Run("round trip with log attrs", func(t *testing.T) {
		out, err := task(ctx, json.RawMessage(`{"turn":{"sessionId":"s-1","turnId":"u-1","message":"chat_qa"}}`))
		if err != nil {
			t.Fatal(err)
		}
		var got workflow.RouteOutput
		if err := json.Unmarshal(out, &got); err != nil || got.Path != workflow.PathChat || got.Result.Intent != "chat_qa" {
			t.Errorf("output %s (%v)", out, err)
		}
		if !strings.Contains(logs.String(), `"turnId":"u-1"`) || !strings.Contains(logs.String(), `"sessionId":"s-1"`) {
			t.Errorf("the step's log line lacks the turn's ids: %s", logs.String())
		}
	})
	t.Run("step error passes through", func(t *testing.T) {
		if _, err := task(ctx, json.RawMessage(`{"turn":{"message":"fail"}}`)); !errors.Is(err, errStep) {
			t.Errorf("err = %v, want %v", err, errStep)
		}
	})
}

// TestConversationTasksMatchASL: every substitution of the conversation
// state machine has a task, and every task is used by it.
func TestConversationTasksMatchASL(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "infra", "statemachines", "conversation.asl.json"))
	if err != nil {
		t.Fatal(err)
	}
	var def any
	if err := json.Unmarshal(raw, &def); err != nil {
		t.Fatalf("the ASL file is not JSON: %v", err)
	}
	subst := regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`)
	used := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(k)
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			for _, m := range subst.FindAllStringSubmatch(v, -1) {
				used[m[1]] = true
			}
		}
	}
	walk(def)

	cfg, err := wire.ConfigFromEnv(env(withModel(nil)))
	if err != nil {
		t.Fatal(err)
	}
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	app, err := wire.New(cfg, wire.Backends{Store: db.Sessions(), Log: eventlog.NewMemory()})
	if err != nil {
		t.Fatal(err)
	}
	tasks := app.ConversationTasks()
	got := slices.Sorted(maps.Keys(tasks))
	want := slices.Sorted(maps.Keys(used))
	if len(want) != 7 || !slices.Equal(got, want) {
		t.Errorf("tasks %v, ASL substitutions %v: want the same seven", got, want)
	}
	for name, task := range tasks {
		if _, err := task(context.Background(), json.RawMessage(`[`)); err == nil {
			t.Errorf("%s accepted input that is not JSON", name)
		}
	}
}
