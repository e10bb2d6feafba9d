package scale_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/asl"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// runner runs the conversation workflow from its ASL definition in
// process, as Step Functions runs it (edge.Starter): each execution in a
// goroutine, bounded by the definition's own timeouts and a minute.
type runner struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	def     *asl.Machine
	tasks   map[string]asl.Handler
}

func newRunner(t *testing.T, tasks map[string]wire.Task) *runner {
	t.Helper()
	r := &runner{tasks: map[string]asl.Handler{}, cancels: map[string]context.CancelFunc{}}
	arns := map[string]string{}
	for name, task := range tasks {
		arns[name] = "arn:scale:" + name
		r.tasks[arns[name]] = asl.Handler(task)
	}
	m, err := asl.Parse(infra.ConversationASL, arns)
	if err != nil {
		t.Fatal(err)
	}
	r.def = m
	t.Cleanup(r.wait)
	return r
}

// Start implements edge.Starter.
func (r *runner) Start(_ context.Context, name string, in workflow.ConversationState) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	r.mu.Lock()
	r.cancels[name] = cancel
	r.mu.Unlock()
	r.wg.Go(func() {
		defer cancel()
		_, _ = r.def.Run(ctx, raw, asl.Options{Handlers: r.tasks, ExecutionID: name})
	})
	return nil
}

// Stop implements edge.Starter.
func (r *runner) Stop(_ context.Context, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.cancels[name]; c != nil {
		c()
	}
	return nil
}

func (r *runner) wait() { r.wg.Wait() }
