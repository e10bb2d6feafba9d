package protocol

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// pageSample is one event of every kind of the page build stream.
func pageSample() []PageEvent {
	return []PageEvent{
		PagePhase{Phase: PhaseData, Message: "正在获取数据…"},
		PageToolCall{Tool: "get_class_detail", Args: map[string]any{"classId": "class-hk-f1a"}},
		PageToolResult{Tool: "get_class_detail", Status: PageToolSuccess},
		PagePhase{Phase: PhaseCompute, Message: "Computing statistics…"},
		PagePhase{Phase: PhaseCompose, Message: "Composing the page…"},
		PageBlockStart{BlockID: "summary", ComponentType: "markdown"},
		PageSlotDelta{BlockID: "summary", SlotKey: "content", DeltaText: "## 分析总结\n平均分 <72.5> & \"引号\""},
		PageBlockComplete{BlockID: "summary"},
		PageComplete{Message: "completed", Progress: 100, Result: PageResult{
			Page:           json.RawMessage(`{"meta":{"pageTitle":"Form 1A"},"layout":"tabs","tabs":[]}`),
			DataContext:    json.RawMessage(`{"class":{"class":{"classId":"class-hk-f1a"}}}`),
			ComputeResults: json.RawMessage(`{"scoreStats":{"mean":62.5}}`),
		}},
		PageError{Message: "数据服务暂时不可用", Code: "DATA_ERROR"},
		PageError{Message: "no class 1X", Code: "ENTITY_NOT_FOUND", Details: map[string]any{"entity": "1X"}},
		PageDataError{Entity: "1X", EntityType: "class", Message: "no class matches \"1X\"",
			Suggestions: []PageSuggestion{{Label: "Form 1A · English", Value: "class-hk-f1a"}}},
		PageToolCall{Tool: "get_teacher_classes"},
		PageDataError{Entity: "1X", EntityType: "class", Message: "the teacher has no class"},
		PageComplete{Message: "completed", Progress: 100},
	}
}

func TestPageEventGolden(t *testing.T) {
	var buf bytes.Buffer
	w := NewSSEWriter(&buf)
	writeEvents(t, w, pageSample(), unnamed, MarshalPageEvent)
	if err := w.Comment("ping"); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "page-stream.golden", buf.Bytes())
}

// TestPageEventKeys pins the shapes of seed 004 §1.3.3: every event carries
// exactly its fields (details only when set), "type" first.
func TestPageEventKeys(t *testing.T) {
	want := map[string][]string{
		"PHASE":          {"phase", "message"},
		"TOOL_CALL":      {"tool", "args"},
		"TOOL_RESULT":    {"tool", "status"},
		"BLOCK_START":    {"blockId", "componentType"},
		"SLOT_DELTA":     {"blockId", "slotKey", "deltaText"},
		"BLOCK_COMPLETE": {"blockId"},
		"COMPLETE":       {"message", "progress", "result"},
		"ERROR":          {"message", "code"},
		"DATA_ERROR":     {"entity", "entityType", "message", "suggestions"},
	}
	seen := map[string]bool{}
	for _, e := range pageSample() {
		b, err := MarshalPageEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		typ := e.PageEventType()
		seen[typ] = true
		if !bytes.HasPrefix(b, []byte(`{"type":"`+typ+`"`)) {
			t.Errorf("%s does not start with its type: %s", typ, b)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		keys := want[typ]
		if pe, ok := e.(PageError); ok && pe.Details != nil {
			keys = append(slices.Clone(keys), "details")
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s lacks %q: %s", typ, k, b)
			}
		}
		for k := range m {
			if k != "type" && !slices.Contains(keys, k) {
				t.Errorf("%s carries %q, which the page protocol does not define", typ, k)
			}
		}
		if typ == "COMPLETE" {
			var c struct {
				Progress int                        `json:"progress"`
				Result   map[string]json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(b, &c); err != nil || c.Progress != 100 || len(c.Result) != 3 {
				t.Errorf("COMPLETE result must be {page, dataContext, computeResults} with progress 100: %s", b)
			}
		}
	}
	for _, typ := range []string{"PHASE", "TOOL_CALL", "TOOL_RESULT", "BLOCK_START", "SLOT_DELTA", "BLOCK_COMPLETE", "COMPLETE", "ERROR", "DATA_ERROR"} {
		if !seen[typ] {
			t.Errorf("the sample has no %s event", typ)
		}
	}
}
