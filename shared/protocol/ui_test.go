package protocol

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

// writeEvents writes each item to w as an event, with ids from 1, the
// event name that name gives (unnamed: none) and the data that marshal
// makes.
func writeEvents[T any](t *testing.T, w *SSEWriter, items []T, name func(T) string, marshal func(T) ([]byte, error)) {
	t.Helper()
	for i, item := range items {
		data, err := marshal(item)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Event(int64(i+1), name(item), data); err != nil {
			t.Fatal(err)
		}
	}
}

// unnamed is the name of an event of a stream that names none.
func unnamed[T any](T) string { return "" }

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got, *update)
}

// sample is one chunk of every kind the conversation stream uses.
func sample(t *testing.T) []Chunk {
	t.Helper()
	must := func(d Data, err error) Data {
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	return []Chunk{
		Start{MessageID: "msg-1", MessageMetadata: &MessageMetadata{ConversationID: "conv-1", TurnID: "turn-1"}},
		StartStep{},
		must(NewData(DataToolProgress, "call_1", ToolProgress{Tool: "generate_quiz_questions", Status: ToolRunning, Message: "正在出题…"})),
		must(NewData(DataQuizQuestion, "call_1-q1", QuizQuestion{Question: Question{ID: "call_1-q1", Index: 1, Type: "single_choice",
			Question: "下列关于惯性的说法正确的是？", Options: []string{"A. 甲", "B. 乙"}, Answer: "A", Explanation: "…"}})),
		must(NewData(DataQuizComplete, "call_1", QuizComplete{Total: 1, Topic: "牛顿第一定律"})),
		must(NewData(DataToolProgress, "call_1", ToolProgress{Tool: "generate_quiz_questions", Status: ToolSuccess, Message: "已生成 1 道题"})),
		must(NewData(DataClarify, "", Clarify{Question: "哪个班？", Options: []string{"Form 1A", "Form 1B"}, Hint: "needClassId"})),
		Notice{Code: NoticeMockData, Message: "数据服务暂时不可用，以下为示例数据，并非您班级的真实数据。"}.Chunk(),
		FinishStep{},
		TextStart{ID: "text-1-2"},
		TextDelta{ID: "text-1-2", Delta: "已为您生成 <5> 道题 & \"引号\"\n"},
		TextEnd{ID: "text-1-2"},
		MessageMetadataChunk{MessageMetadata: &MessageMetadata{ConversationID: "conv-1", TurnID: "turn-1"}},
		Error{ErrorText: "AI 服务暂时不可用"},
		Finish{FinishReason: FinishStop},
		Finish{FinishReason: FinishOther, MessageMetadata: &MessageMetadata{ConversationID: "conv-1", TurnID: "turn-1", Warnings: []string{"soft"}}},
	}
}

func TestChunkGolden(t *testing.T) {
	var buf bytes.Buffer
	w := NewSSEWriter(&buf)
	writeEvents(t, w, sample(t), unnamed, MarshalChunk)
	if err := w.Comment("ping"); err != nil {
		t.Fatal(err)
	}
	if err := w.Event(0, "", Done); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "ui-stream.golden", buf.Bytes())
}

// TestChunkKeys pins the rule of PROTOCOL.md §1: no chunk carries a key the
// AI SDK's schema does not define, and "type" comes first.
func TestChunkKeys(t *testing.T) {
	allowed := map[string][]string{
		"start": {"messageId", "messageMetadata"}, "finish": {"finishReason", "messageMetadata"},
		"start-step": {}, "finish-step": {}, "text-start": {"id"}, "text-delta": {"id", "delta"},
		"text-end": {"id"}, "error": {"errorText"}, "message-metadata": {"messageMetadata"},
	}
	for _, c := range sample(t) {
		b, _ := MarshalChunk(c)
		if !bytes.HasPrefix(b, []byte(`{"type":"`+c.ChunkType()+`"`)) {
			t.Errorf("%s does not start with its type: %s", c.ChunkType(), b)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		keys, ok := allowed[c.ChunkType()]
		if _, isData := c.(Data); isData {
			keys, ok = []string{"id", "data", "transient"}, true
		}
		if !ok {
			t.Fatalf("no key list for %s", c.ChunkType())
		}
		for k := range m {
			if k != "type" && !contains(keys, k) {
				t.Errorf("%s carries %q, which the AI SDK does not define", c.ChunkType(), k)
			}
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestSSEWithoutFlusher(t *testing.T) {
	// A plain io.Writer (the Lambda URL writer has no Flush) works.
	var buf bytes.Buffer
	if err := NewSSEWriter(&buf).Event(3, "progress", []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "id: 3\nevent: progress\ndata: {\"a\":1}\n\n" {
		t.Fatalf("got %q", got)
	}
	// An http.ResponseWriter is flushed after each event.
	rec := httptest.NewRecorder()
	if err := NewSSEWriter(rec).Event(1, "", []byte(`{}`)); err != nil || !rec.Flushed {
		t.Fatalf("err=%v flushed=%v", err, rec.Flushed)
	}
}

func TestAssembler(t *testing.T) {
	a := NewAssembler("fallback")
	for _, c := range sample(t)[:12] {
		b, _ := MarshalChunk(c)
		if err := a.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	m := a.Message()
	got, _ := json.Marshal(m)
	checkGolden(t, "assembled.golden", append(got, '\n'))
	if m.ID != "msg-1" || m.Metadata.ConversationID != "conv-1" {
		t.Fatalf("id/metadata: %+v", m)
	}
	progress := 0
	for _, p := range m.Parts {
		if p.Type == "data-tool-progress" {
			progress++
		}
	}
	if progress != 1 {
		t.Fatalf("tool progress with one id must be one part updated in place, got %d", progress)
	}
}

func TestTextPartsClosedBeforeFinish(t *testing.T) {
	enc := func(c Chunk) []byte { b, _ := MarshalChunk(c); return b }
	var p TextParts
	for _, c := range []Chunk{TextStart{ID: "a"}, TextDelta{ID: "a", Delta: "x"}, TextEnd{ID: "a"}, TextStart{ID: "b"}, FinishStep{}} {
		if ends := p.CloseBefore(enc(c)); len(ends) != 0 {
			t.Fatalf("%s: unexpected text-end", c.ChunkType())
		}
	}
	ends := p.CloseBefore(enc(Finish{FinishReason: FinishOther}))
	if len(ends) != 1 || string(ends[0]) != `{"type":"text-end","id":"b"}` {
		t.Fatalf("ends before finish = %q", ends)
	}
	if again := p.CloseBefore(enc(Finish{})); len(again) != 0 {
		t.Fatal("a part is closed once")
	}
}

// modeSample is the chunks of the chat modes and reasoning models (seed
// 003): the start chunk's effective mode, a reasoning part, and the
// guide_user tool's data-guide part.
func modeSample(t *testing.T) []Chunk {
	t.Helper()
	guide, err := NewData(DataGuide, "call_g", Guide{Message: "我可以帮你查看班级成绩、出题或制作课件。",
		Missing: []string{"班级"}, Suggestions: []string{"查看 1A 班的作业提交", "出 5 道勾股定理的选择题"}})
	if err != nil {
		t.Fatal(err)
	}
	return []Chunk{
		Start{MessageID: "msg-2", MessageMetadata: &MessageMetadata{ConversationID: "conv-1", TurnID: "turn-2", Mode: "strict"}},
		StartStep{},
		ReasoningStart{ID: "reasoning-1-1"},
		ReasoningDelta{ID: "reasoning-1-1", Delta: "The teacher greets me; in strict mode I guide with guide_user."},
		ReasoningEnd{ID: "reasoning-1-1"},
		guide,
		FinishStep{},
		StartStep{},
		TextStart{ID: "text-1-2"},
		TextDelta{ID: "text-1-2", Delta: "你好！"},
		TextEnd{ID: "text-1-2"},
		FinishStep{},
		Finish{FinishReason: FinishStop},
	}
}

func TestModeChunkGolden(t *testing.T) {
	var buf bytes.Buffer
	w := NewSSEWriter(&buf)
	for i, c := range modeSample(t) {
		b, err := MarshalChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Event(int64(i+1), "", b); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, "ui-stream-modes.golden", buf.Bytes())

	allowed := map[string][]string{"reasoning-start": {"id"}, "reasoning-delta": {"id", "delta"}, "reasoning-end": {"id"}}
	for _, c := range modeSample(t) {
		keys, ok := allowed[c.ChunkType()]
		if !ok {
			continue
		}
		b, _ := MarshalChunk(c)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if k != "type" && !contains(keys, k) {
				t.Errorf("%s carries %q, which the AI SDK does not define", c.ChunkType(), k)
			}
		}
	}
}

func TestAssemblerReasoningAndGuide(t *testing.T) {
	a := NewAssembler("fallback")
	for _, c := range modeSample(t) {
		b, _ := MarshalChunk(c)
		if err := a.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	m := a.Message()
	got, _ := json.Marshal(m)
	checkGolden(t, "assembled-modes.golden", append(got, '\n'))
	var types []string
	for _, p := range m.Parts {
		types = append(types, p.Type)
	}
	want := []string{"step-start", "reasoning", "data-guide", "step-start", "text"}
	if strings.Join(types, ",") != strings.Join(want, ",") {
		t.Fatalf("parts %v, want %v", types, want)
	}
	if r := m.Parts[1]; r.State != "done" || !strings.Contains(*r.Text, "guide_user") {
		t.Errorf("reasoning part %+v", r)
	}
	if m.Metadata.Mode != "strict" {
		t.Errorf("metadata %+v does not carry the mode", m.Metadata)
	}
}

func TestOpenReasoningClosedBeforeFinish(t *testing.T) {
	enc := func(c Chunk) []byte { b, _ := MarshalChunk(c); return b }
	var p TextParts
	p.CloseBefore(enc(ReasoningStart{ID: "r"}))
	p.CloseBefore(enc(ReasoningDelta{ID: "r", Delta: "x"}))
	ends := p.CloseBefore(enc(Finish{FinishReason: FinishOther}))
	if len(ends) != 1 || string(ends[0]) != `{"type":"reasoning-end","id":"r"}` {
		t.Fatalf("ends before finish = %q", ends)
	}
}
