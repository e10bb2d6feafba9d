package protocol

import (
	"encoding/json"
	"fmt"
)

// The research stream (PROTOCOL.md §3, seed 001 §6): named SSE events,
// "event: progress" / "skeleton" / "complete" / "error", each with its data
// object. In the event log an event's name is eventlog.Event.Name and its
// data is MarshalResearchEvent's bytes, written as they are.

// ResearchEvent is one event of the research stream.
type ResearchEvent interface {
	// ResearchEventName is the SSE event name.
	ResearchEventName() string
	researchEvent()
}

// Phases of ResearchProgress.
const (
	ResearchPhaseSkeleton = "skeleton" // the run started
	ResearchPhaseSearch   = "search"   // a web search, before and after
	ResearchPhaseDraft    = "draft"    // the agent is writing the skeleton
	ResearchPhaseCheck    = "check"    // the product checks the agent's output
)

// ResearchProgress says what the run is doing; Percent rises.
type ResearchProgress struct {
	Phase   string `json:"phase"`
	Message string `json:"message"`
	Percent int    `json:"percent"`
}

// SkeletonNode is one milestone of the skeleton (seed 001 §6).
type SkeletonNode struct {
	ID       string `json:"id"`
	Date     string `json:"date"`
	Title    string `json:"title"`
	Subtitle string `json:"subtitle"`
	// Significance is revolutionary, high or medium.
	Significance string   `json:"significance"`
	Description  string   `json:"description"`
	Sources      []string `json:"sources"`
	// Status is always "skeleton" in this event.
	Status string `json:"status"`
}

// ResearchSkeleton carries every node at once, sorted by date.
type ResearchSkeleton struct {
	Nodes []SkeletonNode `json:"nodes"`
}

// ResearchComplete closes a successful run.
type ResearchComplete struct {
	TotalNodes      int     `json:"total_nodes"`
	DurationSeconds float64 `json:"duration_seconds"`
}

// ResearchError closes a failed run: Error is a machine-readable code,
// Message is for the teacher.
type ResearchError struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

func (ResearchProgress) ResearchEventName() string { return "progress" }
func (ResearchSkeleton) ResearchEventName() string { return "skeleton" }
func (ResearchComplete) ResearchEventName() string { return "complete" }
func (ResearchError) ResearchEventName() string    { return "error" }
func (ResearchProgress) researchEvent()            {}
func (ResearchSkeleton) researchEvent()            {}
func (ResearchComplete) researchEvent()            {}
func (ResearchError) researchEvent()               {}

// MarshalResearchEvent encodes e's data line.
func MarshalResearchEvent(e ResearchEvent) ([]byte, error) {
	if s, ok := e.(ResearchSkeleton); ok && s.Nodes == nil {
		e = ResearchSkeleton{Nodes: []SkeletonNode{}}
	}
	data, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("protocol: encode %s: %w", e.ResearchEventName(), err)
	}
	return data, nil
}

// ResearchEventName is the event's SSE name (for eventlog.Emitter.Name).
func ResearchEventName(e ResearchEvent) string { return e.ResearchEventName() }
