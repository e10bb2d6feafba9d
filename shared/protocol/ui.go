// Package protocol defines the wire vocabularies the frontend reads: the AI SDK
// UI message stream (this file), the page build stream, and their SSE framing.
//
// Each vocabulary is a sealed set of one struct per event. The AI SDK validates
// chunks with strict schemas, so no struct carries a field the SDK does not
// define: adding one breaks every client.
package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Chunk is one event of the UI message stream (AI SDK "v1").
type Chunk interface {
	// ChunkType is the value of the chunk's "type" field.
	ChunkType() string
	uiChunk()
}

// Start opens an assistant message.
type Start struct {
	MessageID       string           `json:"messageId,omitempty"`
	MessageMetadata *MessageMetadata `json:"messageMetadata,omitempty"`
}

// MessageMetadata tells the client which conversation and turn a message belongs to.
type MessageMetadata struct {
	ConversationID string `json:"conversationId"`
	TurnID         string `json:"turnId"`
	// Mode is the turn's effective chat mode (natural, free, strict; seed 003).
	Mode     string   `json:"mode,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// StartStep opens one agent round.
type StartStep struct{}

// FinishStep closes one agent round.
type FinishStep struct{}

// TextStart opens a text part.
type TextStart struct {
	ID string `json:"id"`
}

// TextDelta appends to a text part.
type TextDelta struct {
	ID    string `json:"id"`
	Delta string `json:"delta"`
}

// TextEnd closes a text part.
type TextEnd struct {
	ID string `json:"id"`
}

// ReasoningStart opens a reasoning part: a reasoning model's
// reasoning_content (seed 003 §1.2).
type ReasoningStart struct {
	ID string `json:"id"`
}

// ReasoningDelta appends to a reasoning part.
type ReasoningDelta struct {
	ID    string `json:"id"`
	Delta string `json:"delta"`
}

// ReasoningEnd closes a reasoning part.
type ReasoningEnd struct {
	ID string `json:"id"`
}

// Data is a "data-<Name>" chunk. Chunks with the same Name and ID update one
// part in place on the client.
type Data struct {
	Name      string          `json:"-"`
	ID        string          `json:"id,omitempty"`
	Data      json.RawMessage `json:"data"`
	Transient bool            `json:"transient,omitempty"`
}

// MessageMetadataChunk updates the message's metadata.
type MessageMetadataChunk struct {
	MessageMetadata *MessageMetadata `json:"messageMetadata"`
}

// Error reports a failed turn; a Finish follows it.
type Error struct {
	ErrorText string `json:"errorText"`
}

// Finish is the last chunk of a message.
type Finish struct {
	FinishReason    FinishReason     `json:"finishReason,omitempty"`
	MessageMetadata *MessageMetadata `json:"messageMetadata,omitempty"`
}

// FinishReason is one of the AI SDK's finish reasons.
type FinishReason string

// Finish reasons the SDK accepts.
const (
	FinishStop      FinishReason = "stop"
	FinishLength    FinishReason = "length"
	FinishToolCalls FinishReason = "tool-calls"
	FinishError     FinishReason = "error"
	FinishOther     FinishReason = "other"
)

func (Start) ChunkType() string                { return "start" }
func (StartStep) ChunkType() string            { return "start-step" }
func (FinishStep) ChunkType() string           { return "finish-step" }
func (TextStart) ChunkType() string            { return "text-start" }
func (TextDelta) ChunkType() string            { return "text-delta" }
func (TextEnd) ChunkType() string              { return "text-end" }
func (ReasoningStart) ChunkType() string       { return "reasoning-start" }
func (ReasoningDelta) ChunkType() string       { return "reasoning-delta" }
func (ReasoningEnd) ChunkType() string         { return "reasoning-end" }
func (d Data) ChunkType() string               { return "data-" + d.Name }
func (MessageMetadataChunk) ChunkType() string { return "message-metadata" }
func (Error) ChunkType() string                { return "error" }
func (Finish) ChunkType() string               { return "finish" }

func (Start) uiChunk()                {}
func (StartStep) uiChunk()            {}
func (FinishStep) uiChunk()           {}
func (TextStart) uiChunk()            {}
func (TextDelta) uiChunk()            {}
func (TextEnd) uiChunk()              {}
func (ReasoningStart) uiChunk()       {}
func (ReasoningDelta) uiChunk()       {}
func (ReasoningEnd) uiChunk()         {}
func (Data) uiChunk()                 {}
func (MessageMetadataChunk) uiChunk() {}
func (Error) uiChunk()                {}
func (Finish) uiChunk()               {}

// MarshalChunk encodes c as the JSON object the SDK expects, "type" first.
func MarshalChunk(c Chunk) ([]byte, error) {
	// The chunks of a streamed answer, several per model chunk, are written
	// directly: one allocation, no reflection. The result is encoding/json's
	// (FuzzMarshalChunkFast holds it to that).
	switch c := c.(type) {
	case TextDelta:
		return appendPart(`{"type":"text-delta","id":`, c.ID, &c.Delta), nil
	case ReasoningDelta:
		return appendPart(`{"type":"reasoning-delta","id":`, c.ID, &c.Delta), nil
	case TextStart:
		return appendPart(`{"type":"text-start","id":`, c.ID, nil), nil
	case TextEnd:
		return appendPart(`{"type":"text-end","id":`, c.ID, nil), nil
	case StartStep:
		return []byte(`{"type":"start-step"}`), nil
	case FinishStep:
		return []byte(`{"type":"finish-step"}`), nil
	}
	return marshalChunk(c)
}

// appendPart is prefix, the quoted id, the quoted delta when there is one
// (a delta chunk always has it, even empty), and the closing brace.
func appendPart(prefix, id string, delta *string) []byte {
	n := len(prefix) + len(id) + 3
	if delta != nil {
		n += len(*delta) + len(`,"delta":""`)
	}
	out := make([]byte, 0, n+8) // room for a few escapes
	out = append(out, prefix...)
	out = appendJSONString(out, id)
	if delta != nil {
		out = append(out, `,"delta":`...)
		out = appendJSONString(out, *delta)
	}
	return append(out, '}')
}

// AppendJSONString appends s as a JSON string, as Marshal writes one
// (issue 29 item 3: the workflow interpreter's payloads and the metric
// lines' directives are written by hand with it).
func AppendJSONString(dst []byte, s string) []byte { return appendJSONString(dst, s) }

// appendJSONString appends s as encoding/json writes a string without HTML
// escaping: quotes, backslashes and control characters escaped, invalid
// UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// marshalChunk is MarshalChunk by encoding/json.
func marshalChunk(c Chunk) ([]byte, error) {
	body, err := Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("protocol: encode %s: %w", c.ChunkType(), err)
	}
	typ, _ := json.Marshal(c.ChunkType())
	out := make([]byte, 0, len(body)+len(typ)+10)
	out = append(out, `{"type":`...)
	out = append(out, typ...)
	if len(body) > 2 { // not "{}"
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// Marshal encodes v as the product's streams and files carry JSON: compact
// and without HTML escaping (the stream is not HTML, and "<" should reach
// the client as "<").
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// NewData builds a data chunk, encoding payload.
func NewData(name, id string, payload any) (Data, error) {
	raw, err := Marshal(payload)
	if err != nil {
		return Data{}, fmt.Errorf("protocol: encode data-%s: %w", name, err)
	}
	return Data{Name: name, ID: id, Data: raw}, nil
}

// Data part names of the conversation stream (PROTOCOL.md §1).
const (
	DataToolProgress       = "tool-progress"
	DataPptxOutline        = "pptx-outline"
	DataFileReady          = "file-ready"
	DataQuizQuestion       = "quiz-question"
	DataQuizComplete       = "quiz-complete"
	DataInteractiveContent = "interactive-content"
	// DataInteractiveProgress shows an interactive page's plan and
	// progress while it is written (issue 30), same id as its content.
	DataInteractiveProgress = "interactive-progress"
	DataClarify             = "clarify"
	DataNotice              = "notice"
	// DataGuide is the guide_user tool's structured guidance (seed 003):
	// not an artifact.
	DataGuide = "guide"
	// DataBlueprint is the Blueprint of a build or rebuild turn, which the
	// client sends to /api/page/generate; DataPatchPlan the PatchPlan of a
	// refine turn, which it sends to /api/page/patch (seed 004 §1.3.1).
	DataBlueprint = "blueprint"
	DataPatchPlan = "patch-plan"
)

// Notice is the payload of data-notice (PROTOCOL.md §1): an answer the
// teacher must know is degraded, e.g. built on sample data.
type Notice struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Notice codes.
const (
	// NoticeMockData: the data service was down (or USE_MOCK_DATA is set)
	// and sample data was used: it is not the teacher's.
	NoticeMockData = "MOCK_DATA"
	// NoticeStaleData: the data service was down and a class list kept
	// from earlier was used.
	NoticeStaleData = "STALE_DATA"
	// NoticeIncompleteData: the data service left out fields or records;
	// what is shown lacks them.
	NoticeIncompleteData = "INCOMPLETE_DATA"
	// NoticeUngraded: some work is not graded yet and is left out of the
	// statistics.
	NoticeUngraded = "UNGRADED_WORK"
	// NoticePDFUnavailable: the PDF could not be made.
	NoticePDFUnavailable = "PDF_UNAVAILABLE"
	// NoticeSubstituted: what the teacher asked for is not there and
	// something else is used instead; the message says what.
	NoticeSubstituted = "SUBSTITUTED"
	// NoticeQuizExport: a quiz export converted or left out questions the
	// target format cannot hold (issue 31); the message says which.
	NoticeQuizExport = "QUIZ_EXPORT_ADJUSTED"
	// issue 28: NoticePaused: an operator paused the capability the
	// request needs (shared/flags); the message names it. NoticePrivacy:
	// the request is about a pupil's private data where the task does not
	// need it; the answer leaves it out.
	NoticePaused  = "CAPABILITY_PAUSED"
	NoticePrivacy = "STUDENT_PRIVACY"
)

// Chunk returns the data-notice chunk of n. Its id is the code, so that the
// same notice from several tool calls is one part on the client.
func (n Notice) Chunk() Data {
	raw, _ := Marshal(n) // two strings: cannot fail
	return Data{Name: DataNotice, ID: "notice-" + n.Code, Data: raw}
}

// ArtifactEventTypes are the chunk types that prove an artifact exists
// (seed 000 §7.3.1, ARTIFACT_EVENT_TYPES).
var ArtifactEventTypes = map[string]bool{
	"data-" + DataFileReady:          true,
	"data-" + DataQuizComplete:       true,
	"data-" + DataInteractiveContent: true,
	"data-" + DataPptxOutline:        true,
}

// ToolStatus is the status of a data-tool-progress part.
type ToolStatus string

// Tool statuses.
const (
	ToolRunning ToolStatus = "running"
	ToolSuccess ToolStatus = "success"
	ToolEmpty   ToolStatus = "empty"
	ToolError   ToolStatus = "error"
)

// ToolProgress is the payload of data-tool-progress.
type ToolProgress struct {
	Tool    string     `json:"tool"`
	Status  ToolStatus `json:"status"`
	Message string     `json:"message"`
	// Count and Preview come with a success (seed 003's tool.end): how many
	// items the tool found or made, and up to MaxPreview short labels of
	// them, never pupils' private data (no names with scores).
	Count   int      `json:"count,omitempty"`
	Preview []string `json:"preview,omitempty"`
}

// MaxPreview bounds ToolProgress.Preview.
const MaxPreview = 3

// Clarify is the payload of data-clarify. Options are the choices'
// labels (what the seed's frontend shows); Choices pair each label with
// the value a client sends back when it is picked (issue 30).
type Clarify struct {
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
	Hint     string   `json:"hint,omitempty"`
	Choices  []Choice `json:"choices,omitempty"`
}

// Choice is one answer to a clarify question: Label is what the teacher
// reads, Value what the client sends when it is picked: the entity's id
// (a class id, a student id) when the choice names one, else the label.
type Choice struct {
	Label string `json:"label" description:"what the teacher reads, e.g. the class name"`
	Value string `json:"value" description:"the entity's id from a tool result (classId, studentId), else the label"`
}

// Guide is the payload of data-guide: what the teacher can ask, the facts
// missing from the request, and 2–4 next requests to pick from.
type Guide struct {
	Message     string   `json:"message"`
	Missing     []string `json:"missing"`
	Suggestions []string `json:"suggestions"`
}

// InteractiveProgress is the payload of data-interactive-progress: the
// stage of the page (planning: the model is writing what the page is;
// writing: its sections, Section naming the last one written; building:
// the page is assembled and stored), its title once known.
type InteractiveProgress struct {
	Stage   string `json:"stage"`
	Title   string `json:"title,omitempty"`
	Section string `json:"section,omitempty"`
}

// Stages of InteractiveProgress.
const (
	StagePlanning = "planning"
	StageWriting  = "writing"
	StageBuilding = "building"
)

// QuizQuestion is the payload of data-quiz-question.
type QuizQuestion struct {
	Question Question `json:"question"`
}

// Question is one generated quiz question.
type Question struct {
	ID             string   `json:"id"`
	Index          int      `json:"index"`
	Type           string   `json:"type"`
	Question       string   `json:"question"`
	Options        []string `json:"options,omitempty"`
	Answer         string   `json:"answer"`
	Explanation    string   `json:"explanation,omitempty"`
	Difficulty     string   `json:"difficulty,omitempty"`
	KnowledgePoint string   `json:"knowledgePoint,omitempty"`
}

// QuizComplete is the payload of data-quiz-complete.
type QuizComplete struct {
	Total   int    `json:"total"`
	Topic   string `json:"topic,omitempty"`
	Subject string `json:"subject,omitempty"`
	Grade   string `json:"grade,omitempty"`
}
