package build_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/blueprint/build"
	"github.com/insightedge/insightedge/shared/blueprint/compute"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// The Build runtime's own cost for a 40-student class, the model's time
// excluded: an instant model answers every slot with ~400 characters in 20
// deltas, records live in memory. docs/benchmarks.md reports the numbers.

// class40 is what the data phase would bring back for a class of 40
// students with four assignments (seeded, so every run is the same data).
func class40() blueprint.DataContext {
	r := rand.New(rand.NewPCG(40, 40))
	type sub struct {
		StudentID   string             `json:"studentId"`
		StudentName string             `json:"studentName"`
		Score       float64            `json:"score"`
		MaxScore    float64            `json:"maxScore"`
		Status      string             `json:"status"`
		Feedback    string             `json:"feedback"`
		Skills      map[string]float64 `json:"skills"`
	}
	type out struct {
		AssignmentID string `json:"assignmentId"`
		Title        string `json:"title"`
		Submissions  []sub  `json:"submissions"`
	}
	var outs []out
	var assignments []map[string]any
	for a, maxScore := range []float64{50, 100, 40, 100} {
		o := out{AssignmentID: fmt.Sprintf("a-%d", a+1), Title: fmt.Sprintf("Assignment %d", a+1)}
		assignments = append(assignments, map[string]any{"assignmentId": o.AssignmentID, "title": o.Title, "maxScore": maxScore})
		for s := range 40 {
			pct := min(100, max(5, 66+r.NormFloat64()*13))
			o.Submissions = append(o.Submissions, sub{StudentID: fmt.Sprintf("s-%02d", s+1), StudentName: fmt.Sprintf("Student %02d", s+1),
				Score: float64(int(pct/100*maxScore*2)) / 2, MaxScore: maxScore, Status: "graded", Feedback: "Good effort; review the unit notes.",
				Skills: map[string]float64{"grammar": pct - 5, "vocabulary": pct + 2, "reading": pct + 4, "writing": pct - 3}})
		}
		outs = append(outs, o)
	}
	subs, _ := json.Marshal(outs)
	cls, _ := json.Marshal(map[string]any{"class": map[string]any{"classId": "class-40", "name": "Form 2Z", "subject": "English"},
		"assignments": assignments})
	return blueprint.DataContext{"classInfo": cls, "submissions": subs}
}

// instantModel writes every slot at once: the model's time is not measured.
type instantModel struct{}

func (instantModel) Stream(_ context.Context, _ llm.Request, h llm.Handler) (llm.Response, error) {
	piece := strings.Repeat("平均得分率 66.7%，", 2)
	for range 20 {
		if err := h.OnContent(piece); err != nil {
			return llm.Response{}, err
		}
	}
	return llm.Response{}, nil
}

// memRecords is an in-memory record store, so that the store's time is not
// measured either.
type memRecords struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (r *memRecords) PutRecord(_ context.Context, id, key string, v []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[id+"\x00"+key] = v
	return nil
}

func (r *memRecords) GetRecord(_ context.Context, id, key string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.m[id+"\x00"+key]
	if !ok {
		return nil, session.ErrNotFound
	}
	return v, nil
}

func BenchmarkCompute40(b *testing.B) {
	data, bp := class40(), blueprinttest.Analysis("class-40")
	for b.Loop() {
		if _, err := compute.Run(bp, data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkComputeCompose40 is one build's compute, compose and finish
// phases: statistics, rendering, 4 slot writers' 80 deltas coalesced into
// events, the page stored, COMPLETE encoded and appended.
func BenchmarkComputeCompose40(b *testing.B) {
	data, bp := class40(), blueprinttest.Analysis("class-40")
	rawData, _ := json.Marshal(data)
	req, _ := json.Marshal(blueprint.Request{Mode: blueprint.ModeBuild, Blueprint: bp, Inputs: map[string]string{"class": "class-40"}})
	recs := &memRecords{m: map[string][]byte{}}
	log := eventlog.NewMemory()
	bld := build.New(tools.NewRegistry(), instantModel{}, recs, log, build.Options{})
	ctx := context.Background()
	var completeBytes, events int
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprintf("bench-%d", i)
		_ = recs.PutRecord(ctx, id, blueprint.RecordRequest, req)
		_ = recs.PutRecord(ctx, id, blueprint.RecordData, rawData)
		w := workflow.Build{BuildID: id, TeacherID: "t-001", Mode: blueprint.ModeBuild}
		for _, phase := range []string{workflow.PhaseCompute, workflow.PhaseCompose, workflow.PhaseFinish} {
			out, err := bld.Step(ctx, workflow.BuildStepInput{Phase: phase, Build: w})
			if err != nil || out.Status != workflow.BuildOK {
				b.Fatalf("%s: %+v %v", phase, out, err)
			}
		}
		if i == 1 {
			evs, _ := log.Read(ctx, workflow.BuildStream(id), 0, 1000)
			events, completeBytes = len(evs), len(evs[len(evs)-1].Data)
		}
	}
	b.ReportMetric(float64(events), "events/build")
	b.ReportMetric(float64(completeBytes), "COMPLETE-bytes")
}
