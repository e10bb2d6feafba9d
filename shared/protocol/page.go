package protocol

import (
	"encoding/json"
	"fmt"
)

// The page build stream (PROTOCOL.md §2, seed 004 §1.3.3): POST
// /api/page/generate and /api/page/patch. Each event is one JSON object with
// an upper-case "type"; the stream ends after PageComplete or PageError.

// PageEvent is one event of the page build stream.
type PageEvent interface {
	// PageEventType is the value of the event's "type" field.
	PageEventType() string
	pageEvent()
}

// Phases of a build (PHASE.phase).
const (
	PhaseData    = "data"
	PhaseCompute = "compute"
	PhaseCompose = "compose"
)

// Statuses of TOOL_RESULT.
const (
	PageToolSuccess = "success"
	PageToolError   = "error"
)

// PagePhase announces a phase of the build.
type PagePhase struct {
	Phase   string `json:"phase"`
	Message string `json:"message"`
}

// PageToolCall is a data tool call of the data phase.
type PageToolCall struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// PageToolResult ends a PageToolCall.
type PageToolResult struct {
	Tool   string `json:"tool"`
	Status string `json:"status"`
}

// PageBlockStart opens a block of the page.
type PageBlockStart struct {
	BlockID       string `json:"blockId"`
	ComponentType string `json:"componentType"`
}

// PageSlotDelta appends model-written text to a slot of a block: the client
// concatenates DeltaText onto the block's SlotKey field.
type PageSlotDelta struct {
	BlockID   string `json:"blockId"`
	SlotKey   string `json:"slotKey"`
	DeltaText string `json:"deltaText"`
}

// PageBlockComplete closes a block.
type PageBlockComplete struct {
	BlockID string `json:"blockId"`
}

// PageComplete is the closing event of a successful build.
type PageComplete struct {
	Message  string     `json:"message"`
	Progress int        `json:"progress"`
	Result   PageResult `json:"result"`
}

// PageResult is what the client keeps: the page, and the data and compute
// results it reuses for a patch (seed 004 §1.5). The parts are encoded by
// package blueprint; protocol passes them through.
type PageResult struct {
	Page           json.RawMessage `json:"page"`
	DataContext    json.RawMessage `json:"dataContext"`
	ComputeResults json.RawMessage `json:"computeResults"`
}

// PageError is the closing event of a failed build.
type PageError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
	Details any    `json:"details,omitempty"`
}

// PageDataError reports an entity the data service does not know, with the
// teacher's entities that come closest. A PageError closes the stream after it.
type PageDataError struct {
	Entity      string           `json:"entity"`
	EntityType  string           `json:"entityType"`
	Message     string           `json:"message"`
	Suggestions []PageSuggestion `json:"suggestions"`
}

// PageSuggestion is one option of PageDataError.
type PageSuggestion struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

func (PagePhase) PageEventType() string         { return "PHASE" }
func (PageToolCall) PageEventType() string      { return "TOOL_CALL" }
func (PageToolResult) PageEventType() string    { return "TOOL_RESULT" }
func (PageBlockStart) PageEventType() string    { return "BLOCK_START" }
func (PageSlotDelta) PageEventType() string     { return "SLOT_DELTA" }
func (PageBlockComplete) PageEventType() string { return "BLOCK_COMPLETE" }
func (PageComplete) PageEventType() string      { return "COMPLETE" }
func (PageError) PageEventType() string         { return "ERROR" }
func (PageDataError) PageEventType() string     { return "DATA_ERROR" }

func (PagePhase) pageEvent()         {}
func (PageToolCall) pageEvent()      {}
func (PageToolResult) pageEvent()    {}
func (PageBlockStart) pageEvent()    {}
func (PageSlotDelta) pageEvent()     {}
func (PageBlockComplete) pageEvent() {}
func (PageComplete) pageEvent()      {}
func (PageError) pageEvent()         {}
func (PageDataError) pageEvent()     {}

// MarshalPageEvent encodes e as its JSON object, "type" first. Nil slices
// and maps a client iterates (args, suggestions) are sent as empty, never
// null; the raw parts of a PageResult that are empty are sent as null.
func MarshalPageEvent(e PageEvent) ([]byte, error) {
	switch v := e.(type) {
	case PageToolCall:
		if v.Args == nil {
			v.Args = map[string]any{}
		}
		e = v
	case PageDataError:
		if v.Suggestions == nil {
			v.Suggestions = []PageSuggestion{}
		}
		e = v
	case PageComplete:
		v.Result.Page = orNull(v.Result.Page)
		v.Result.DataContext = orNull(v.Result.DataContext)
		v.Result.ComputeResults = orNull(v.Result.ComputeResults)
		e = v
	}
	body, err := Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("protocol: encode %s: %w", e.PageEventType(), err)
	}
	typ, _ := json.Marshal(e.PageEventType())
	out := make([]byte, 0, len(body)+len(typ)+10)
	out = append(out, `{"type":`...)
	out = append(out, typ...)
	if len(body) > 2 {
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

func orNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}
