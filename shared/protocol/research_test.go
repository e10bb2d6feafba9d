package protocol

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

func researchSample() []ResearchEvent {
	return []ResearchEvent{
		ResearchProgress{Phase: ResearchPhaseSkeleton, Message: "正在构建时间线骨架…", Percent: 5},
		ResearchProgress{Phase: ResearchPhaseSearch, Message: "Searching: Principia 1687 <first edition> & \"laws\"", Percent: 20},
		ResearchSkeleton{Nodes: []SkeletonNode{{ID: "m01", Date: "1687-07-05", Title: "《原理》出版", Subtitle: "三大运动定律",
			Significance: "revolutionary", Description: "牛顿发表了运动定律。这奠定了经典力学。",
			Sources: []string{"https://en.wikipedia.org/wiki/Philosophi%C3%A6_Naturalis_Principia_Mathematica"}, Status: "skeleton"}}},
		ResearchComplete{TotalNodes: 1, DurationSeconds: 1.25},
		ResearchError{Error: "invalid_output", Message: "里程碑未通过检查。"},
		ResearchSkeleton{},
	}
}

// TestResearchEventGolden pins the exact bytes of the research stream: named
// events, id lines, the data objects of seed 001 §6.
func TestResearchEventGolden(t *testing.T) {
	var buf bytes.Buffer
	w := NewSSEWriter(&buf)
	writeEvents(t, w, researchSample(), ResearchEventName, MarshalResearchEvent)
	checkGolden(t, "research-stream.golden", buf.Bytes())
}

// TestResearchEventKeys pins each data object's keys (seed 001 §6).
func TestResearchEventKeys(t *testing.T) {
	want := map[string][]string{
		"progress": {"message", "percent", "phase"},
		"skeleton": {"nodes"},
		"complete": {"duration_seconds", "total_nodes"},
		"error":    {"error", "message"},
	}
	node := []string{"date", "description", "id", "significance", "sources", "status", "subtitle", "title"}
	for _, e := range researchSample() {
		name := ResearchEventName(e)
		data, _ := MarshalResearchEvent(e)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, want[name]) {
			t.Errorf("%s keys %v, want %v", name, keys, want[name])
		}
		if name == "skeleton" {
			var s struct{ Nodes []map[string]any }
			_ = json.Unmarshal(data, &s)
			if s.Nodes == nil {
				t.Error("nodes is null, want a list")
			}
			for _, n := range s.Nodes {
				var nk []string
				for k := range n {
					nk = append(nk, k)
				}
				slices.Sort(nk)
				if !slices.Equal(nk, node) {
					t.Errorf("node keys %v", nk)
				}
			}
		}
	}
}
