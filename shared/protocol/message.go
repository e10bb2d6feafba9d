package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// UIMessage is the AI SDK's UIMessage: what useChat holds for one message.
type UIMessage struct {
	ID       string           `json:"id"`
	Role     string           `json:"role"`
	Metadata *MessageMetadata `json:"metadata,omitempty"`
	Parts    []Part           `json:"parts"`
}

// Part is one part of a UIMessage: text, reasoning, step-start or data-*.
type Part struct {
	Type  string          `json:"type"`
	Text  *string         `json:"text,omitempty"`
	State string          `json:"state,omitempty"`
	ID    string          `json:"id,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
}

// TextPart is a finished text part.
func TextPart(s string) Part { return Part{Type: "text", Text: &s, State: "done"} }

// Assembler rebuilds an assistant UIMessage from its stream, the way the AI
// SDK's readUIMessageStream does, so that a reloaded page shows the message
// as the live stream left it.
type Assembler struct {
	msg UIMessage
	// texts and reasonings map a part's stream id to its index in Parts.
	texts, reasonings map[string]int
}

// NewAssembler starts an assistant message with a fallback id.
func NewAssembler(id string) *Assembler {
	return &Assembler{msg: UIMessage{ID: id, Role: "assistant", Parts: []Part{}}, texts: map[string]int{}, reasonings: map[string]int{}}
}

// chunkFields is the union of the fields the assembler reads.
type chunkFields struct {
	Type            string           `json:"type"`
	ID              string           `json:"id"`
	Delta           string           `json:"delta"`
	Data            json.RawMessage  `json:"data"`
	Transient       bool             `json:"transient"`
	MessageID       string           `json:"messageId"`
	MessageMetadata *MessageMetadata `json:"messageMetadata"`
}

// Add applies one encoded chunk.
func (a *Assembler) Add(raw []byte) error {
	var c chunkFields
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("protocol: assemble: %w", err)
	}
	switch {
	case c.Type == "start":
		if c.MessageID != "" {
			a.msg.ID = c.MessageID
		}
		a.meta(c.MessageMetadata)
	case c.Type == "start-step":
		a.msg.Parts = append(a.msg.Parts, Part{Type: "step-start"})
	case c.Type == "text-start":
		a.open(a.texts, "text", c.ID)
	case c.Type == "text-delta":
		a.append(a.texts, c.ID, c.Delta)
	case c.Type == "text-end":
		a.done(a.texts, c.ID)
	case c.Type == "reasoning-start":
		a.open(a.reasonings, "reasoning", c.ID)
	case c.Type == "reasoning-delta":
		a.append(a.reasonings, c.ID, c.Delta)
	case c.Type == "reasoning-end":
		a.done(a.reasonings, c.ID)
	case strings.HasPrefix(c.Type, "data-"):
		a.data(c)
	case c.Type == "finish":
		// The relay closes parts a stopped turn left open (TextParts).
		for _, i := range a.texts {
			a.msg.Parts[i].State = "done"
		}
		for _, i := range a.reasonings {
			a.msg.Parts[i].State = "done"
		}
		a.meta(c.MessageMetadata)
	case c.Type == "message-metadata":
		a.meta(c.MessageMetadata)
	}
	return nil
}

// open starts a text or reasoning part.
func (a *Assembler) open(parts map[string]int, typ, id string) {
	empty := ""
	parts[id] = len(a.msg.Parts)
	a.msg.Parts = append(a.msg.Parts, Part{Type: typ, Text: &empty, State: "streaming"})
}

func (a *Assembler) append(parts map[string]int, id, delta string) {
	if i, ok := parts[id]; ok {
		s := *a.msg.Parts[i].Text + delta
		a.msg.Parts[i].Text = &s
	}
}

func (a *Assembler) done(parts map[string]int, id string) {
	if i, ok := parts[id]; ok {
		a.msg.Parts[i].State = "done"
	}
}

func (a *Assembler) data(c chunkFields) {
	if c.Transient {
		return
	}
	if c.ID != "" {
		for i, p := range a.msg.Parts {
			if p.Type == c.Type && p.ID == c.ID {
				a.msg.Parts[i].Data = c.Data
				return
			}
		}
	}
	a.msg.Parts = append(a.msg.Parts, Part{Type: c.Type, ID: c.ID, Data: c.Data})
}

func (a *Assembler) meta(m *MessageMetadata) {
	if m == nil {
		return
	}
	if a.msg.Metadata == nil {
		a.msg.Metadata = &MessageMetadata{}
	}
	if m.ConversationID != "" {
		a.msg.Metadata.ConversationID = m.ConversationID
	}
	if m.TurnID != "" {
		a.msg.Metadata.TurnID = m.TurnID
	}
	if m.Mode != "" {
		a.msg.Metadata.Mode = m.Mode
	}
	a.msg.Metadata.Warnings = append(a.msg.Metadata.Warnings, m.Warnings...)
}

// Message returns the assembled message.
func (a *Assembler) Message() UIMessage { return a.msg }

// TextParts follows the text (and reasoning) parts a stream has open. A
// stream cut short (a stopped turn) ends with finish while a part is open;
// the relay closes such parts first, so that clients show them as finished.
// It relies on MarshalChunk writing "type" first.
type TextParts struct {
	open      []string
	reasoning []string
}

var (
	textStartPrefix      = []byte(`{"type":"text-start"`)
	textEndPrefix        = []byte(`{"type":"text-end"`)
	reasoningStartPrefix = []byte(`{"type":"reasoning-start"`)
	reasoningEndPrefix   = []byte(`{"type":"reasoning-end"`)
	finishPrefix         = []byte(`{"type":"finish"`)
)

// See records one encoded chunk.
func (p *TextParts) See(raw []byte) {
	switch {
	case bytes.HasPrefix(raw, textStartPrefix):
		p.open = append(p.open, chunkID(raw))
	case bytes.HasPrefix(raw, textEndPrefix):
		id := chunkID(raw)
		p.open = slices.DeleteFunc(p.open, func(s string) bool { return s == id })
	case bytes.HasPrefix(raw, reasoningStartPrefix):
		p.reasoning = append(p.reasoning, chunkID(raw))
	case bytes.HasPrefix(raw, reasoningEndPrefix):
		id := chunkID(raw)
		p.reasoning = slices.DeleteFunc(p.reasoning, func(s string) bool { return s == id })
	}
}

// CloseBefore is See, returning the text-end chunks to send before raw: the
// open parts when raw is finish.
func (p *TextParts) CloseBefore(raw []byte) [][]byte {
	if !bytes.HasPrefix(raw, finishPrefix) || bytes.HasPrefix(raw, []byte(`{"type":"finish-`)) {
		p.See(raw)
		return nil
	}
	var ends [][]byte
	for _, id := range p.reasoning {
		b, _ := MarshalChunk(ReasoningEnd{ID: id})
		ends = append(ends, b)
	}
	for _, id := range p.open {
		b, _ := MarshalChunk(TextEnd{ID: id})
		ends = append(ends, b)
	}
	p.open, p.reasoning = nil, nil
	return ends
}

func chunkID(raw []byte) string {
	var c struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &c)
	return c.ID
}
