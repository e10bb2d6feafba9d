package eval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/insightedge/insightedge/shared/agent"
	"github.com/insightedge/insightedge/shared/protocol"
)

// observed is what one stream showed, before comparing with the expectation.
type observed struct {
	Types         []string
	Text          string
	Path          string
	Parts         map[string]int
	ToolCalls     int
	ToolErrors    int
	ValidateRetry bool
	Clarify       int
	Claimed       bool
	FalsePromise  bool
	QuizQuestions int
	Files         []announced
	Warnings      []string
	Protocol      []string // breakages of the stream's framing
	running       int      // tool calls announced as running
}

// announced is a file the stream announced.
type announced struct {
	Type string
	URL  string
}

// observe reads a stream the way a frontend does.
func observe(r received, lang string) observed {
	o := observed{Parts: map[string]int{}}
	var text strings.Builder
	emitted := map[string]bool{}
	questions := map[string]bool{}
	prev := ""
	for _, c := range r.Chunks {
		o.Types = append(o.Types, c.Type)
		emitted[c.Type] = true
		switch {
		case c.Type == "text-delta":
			text.WriteString(c.Delta)
		case c.Type == "finish-step" && prev == "start-step":
			// A round that reached the teacher with nothing: the held-back
			// final_result of an attempt that validation refused.
			o.ValidateRetry = true
		case c.Type == "finish" && c.Metadata != nil && len(c.Metadata.Warnings) > 0:
			// Accepted after a soft retry (validate_terminal_state rule 3).
			o.ValidateRetry = true
			o.Warnings = c.Metadata.Warnings
		case strings.HasPrefix(c.Type, "data-"):
			name := strings.TrimPrefix(c.Type, "data-")
			o.Parts[name]++
			o.dataPart(name, c.Data, questions)
		}
		prev = c.Type
	}
	if unfinished := o.running - o.ToolCalls; unfinished > 0 {
		// A tool announced as running that never reported an end failed.
		o.ToolCalls += unfinished
		o.ToolErrors += unfinished
	}
	o.QuizQuestions = len(questions)
	o.Text = text.String()
	o.Path = pathOf(o, emitted)
	o.Claimed = claims(o.Text, lang)
	if o.Claimed {
		// The same rule as validate_terminal_state: a claim of an artifact
		// stands only on an artifact event of the stream.
		err := agent.ValidateTerminalState(agent.FinalResult{Status: agent.StatusArtifactReady, Message: o.Text},
			agent.Evidence{Emitted: emitted}, "")
		o.FalsePromise = err != nil
	}
	o.Protocol = framing(r)
	return o
}

func (o *observed) dataPart(name string, raw json.RawMessage, questions map[string]bool) {
	switch name {
	case protocol.DataToolProgress:
		var p protocol.ToolProgress
		if json.Unmarshal(raw, &p) != nil {
			return
		}
		switch p.Status {
		case protocol.ToolRunning:
			o.running++
		case protocol.ToolError:
			o.ToolCalls++
			o.ToolErrors++
		default:
			o.ToolCalls++
		}
	case protocol.DataClarify:
		o.Clarify++
	case protocol.DataQuizQuestion:
		var q protocol.QuizQuestion
		if json.Unmarshal(raw, &q) == nil {
			questions[fmt.Sprintf("%s#%d", q.Question.ID, q.Question.Index)] = true
		}
	case protocol.DataFileReady:
		var f struct{ Type, URL string }
		if json.Unmarshal(raw, &f) == nil {
			o.Files = append(o.Files, announced{Type: f.Type, URL: f.URL})
		}
	case protocol.DataInteractiveContent:
		var f struct{ URL string }
		if json.Unmarshal(raw, &f) == nil {
			o.Files = append(o.Files, announced{Type: "html", URL: f.URL})
		}
	}
}

func pathOf(o observed, emitted map[string]bool) string {
	switch {
	case emitted["error"]:
		return PathError
	case o.Clarify > 0:
		return PathClarify
	case anyOf(emitted, protocol.ArtifactEventTypes):
		return PathArtifact
	case emitted["start-step"]:
		return PathAnswer
	case o.Text != "":
		// The build path answers with its notice and no agent round.
		return PathBuild
	}
	return "none"
}

func anyOf(have, want map[string]bool) bool {
	for k := range want {
		if have[k] {
			return true
		}
	}
	return false
}

// framing checks what every stream must be: JSON chunks opening with start,
// closing with finish and [DONE].
func framing(r received) []string {
	var bad []string
	for _, l := range r.BadLines {
		bad = append(bad, "not a UI chunk: "+l)
	}
	if len(r.Chunks) == 0 || r.Chunks[0].Type != "start" {
		bad = append(bad, "the stream does not open with start")
	}
	if len(r.Chunks) == 0 || r.Chunks[len(r.Chunks)-1].Type != "finish" {
		bad = append(bad, "the stream does not close with finish")
	}
	if !r.Done {
		bad = append(bad, "no [DONE]")
	}
	return bad
}

// claimPhrases are how a message says that an artifact was made. Reading
// words is a heuristic, which is why it lives here and not in the product.
var claimPhrases = map[string][]string{
	"zh": {"已为你生成", "已为您生成", "已生成", "已经生成", "生成好了", "已为你制作", "已为您制作", "已制作", "做好了",
		"已创建", "已为你准备", "已为您准备", "请查收", "请在下方查看", "可以下载", "下载链接"},
	"en": {"i've created", "i have created", "i've generated", "i have generated", "i've made", "i have made",
		"i've prepared", "i have prepared", "here is your", "here's your", "has been generated", "has been created",
		"is ready for download", "take a look below", "download it"},
}

func claims(text, lang string) bool {
	low := strings.ToLower(text)
	return slices.ContainsFunc(claimPhrases[lang], func(p string) bool { return strings.Contains(low, p) })
}

// judge compares what a turn showed with what it had to show and returns
// the failures, each a sentence.
func judge(o observed, e Expect) []string {
	var f []string
	fail := func(format string, a ...any) { f = append(f, fmt.Sprintf(format, a...)) }
	for _, p := range o.Protocol {
		fail("protocol: %s", p)
	}
	if o.FalsePromise {
		fail("false promise: the message claims an artifact but no artifact event arrived: %q", clip(o.Text, 80))
	}
	switch {
	case e.Path == "" && o.Path == PathError:
		fail("the turn failed")
	case e.Path != "" && o.Path != e.Path:
		fail("path %s, want %s", o.Path, e.Path)
	}
	for _, p := range e.Parts {
		if o.Parts[p] == 0 {
			fail("no data-%s", p)
		}
	}
	for _, p := range e.NoParts {
		if o.Parts[p] > 0 {
			fail("unexpected data-%s", p)
		}
	}
	if e.QuizCount > 0 && o.QuizQuestions != e.QuizCount {
		fail("%d quiz questions, want %d", o.QuizQuestions, e.QuizCount)
	}
	low := strings.ToLower(o.Text)
	for _, t := range e.Text {
		if !strings.Contains(low, strings.ToLower(t)) {
			fail("the message does not say %q", t)
		}
	}
	if len(e.AnyText) > 0 && !slices.ContainsFunc(e.AnyText, func(t string) bool { return strings.Contains(low, strings.ToLower(t)) }) {
		fail("the message says none of %q", e.AnyText)
	}
	for _, t := range e.NotText {
		if strings.Contains(low, strings.ToLower(t)) {
			fail("the message says %q, which it must not", t)
		}
	}
	return f
}
