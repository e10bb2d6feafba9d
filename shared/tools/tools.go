// Package tools defines agent tools as typed Go functions whose JSON schema is
// derived from the argument type, and the registry the agent picks them from.
// Tool packs (teacher data, generation ...) live in sub-packages and register
// themselves into a Registry built by wire.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/protocol"
)

// Kind says when the agent gets a tool (seed 000 §7.2).
type Kind int

const (
	// Base tools are registered on every agent run.
	Base Kind = iota
	// Generation tools are registered when the router names them as candidates.
	Generation
	// Guidance tools answer the teacher with structured guidance instead of
	// data (seed 003's guide_user); the chat mode decides when they are
	// offered. They are neither data tools nor artifact tools.
	Guidance
)

// Call is what a tool may use beyond its arguments.
type Call struct {
	TeacherID string
	SessionID string
	TurnID    string
	// CallID is the model's tool-call id: the idempotency key of the call.
	CallID   string
	Language string
	// Message is what the teacher wrote in the turn, "" outside one: with
	// Language, it decides the language of the teacher-facing texts (Lang).
	Message string
	TraceID string
	// Emit appends a chunk to the turn's stream (artifact events).
	Emit func(ctx context.Context, c protocol.Chunk) error
}

// Lang is the teacher's language for the call's teacher-facing texts: the
// one rule, i18n.Of, over the request's tag and the teacher's words.
func (c Call) Lang() i18n.Lang { return i18n.Of(c.Language, c.Message) }

// Result is a tool's answer.
type Result struct {
	// Status is success or empty (an error is returned as error).
	Status protocol.ToolStatus
	// Message is shown to the teacher in data-tool-progress.
	Message string
	// Output is given to the model, encoded as JSON.
	Output any
	// Memory is what later turns of the conversation are told about this
	// call, as text (seed 000 §7.3.2.1: never the raw tool call), e.g. the
	// outline a teacher is asked to confirm. Keep it short.
	Memory string
	// Notices are what the teacher must know about the answer's data (sample
	// data, a stale list, incomplete records): sent as data-notice chunks,
	// and to the model inside Output.
	Notices []protocol.Notice
	// Count is how many items a list or a generated set holds (classes,
	// students, submissions, questions, slides …), 0 for a single thing;
	// Preview labels a few of them (see Previewed). Both go to the
	// teacher's data-tool-progress on success, never to the model.
	Count   int
	Preview []string
}

// Counted returns r with n items, labelled by the first few of labels
// (protocol.MaxPreview, each clipped; empty ones skipped). Labels must
// not be pupils' private data: never a name with a score.
func (r Result) Counted(n int, labels ...string) Result {
	r.Count = n
	r.Preview = nil
	for _, l := range labels {
		if len(r.Preview) == protocol.MaxPreview {
			break
		}
		if l = i18n.Clip(strings.Join(strings.Fields(l), " "), maxPreviewLabel); l != "" {
			r.Preview = append(r.Preview, l)
		}
	}
	return r
}

// Labels are the labels of the first items a preview shows, by label
// (blank ones skipped).
func Labels[T any](items []T, label func(T) string) []string {
	var out []string
	for _, it := range items {
		if len(out) == protocol.MaxPreview {
			break
		}
		if l := strings.TrimSpace(label(it)); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// maxPreviewLabel bounds one preview label, in characters.
const maxPreviewLabel = 40

// Tool is one callable tool.
type Tool struct {
	Name        string
	Description string
	Kind        Kind
	// Running is the progress message shown while the tool runs.
	Running i18n.Msg
	// Emits names the data parts the tool emits when it succeeds (e.g.
	// protocol.DataFileReady): the facts validation reads to tell an artifact
	// tool (seed 000 §7.3.1) from the others.
	Emits []string
	// Thing names what the tool does for the teacher ("PDF 导出"): the
	// catalogue's messages about the tool name it, never the tool's name.
	Thing  i18n.Msg
	Schema llm.Schema
	// Drafts names the data part (e.g. protocol.DataInteractiveProgress)
	// that shows the tool's work while the model still writes its
	// arguments, and NewDrafter makes the reader of one call's arguments;
	// both empty for a tool with nothing to show before it runs.
	Drafts     string
	NewDrafter func() Drafter
	run        func(ctx context.Context, c Call, args json.RawMessage) (Result, error)
}

// Drafter reads one call's arguments as the model writes them (issue 30).
type Drafter interface {
	// Draft gets the arguments written so far and returns the payload of
	// the tool's Drafts part, and whether it changed since the last one
	// it returned (only a change is sent).
	Draft(argsSoFar string) (payload any, changed bool)
}

// Drafting returns t showing part, made by a drafter per call, while the
// model writes its arguments.
func (t Tool) Drafting(part string, newDrafter func() Drafter) Tool {
	t.Drafts, t.NewDrafter = part, newDrafter
	return t
}

// ArgumentError is returned when the model's arguments do not fit the schema.
type ArgumentError struct {
	Tool string
	Err  error
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %v", e.Tool, e.Err)
}

func (e *ArgumentError) Unwrap() error { return e.Err }

// Define makes a tool from a typed function; the schema comes from In's
// fields (json and description tags).
func Define[In any](name, description string, kind Kind, running i18n.Msg, fn func(ctx context.Context, c Call, in In) (Result, error)) Tool {
	schema := schemaFor[In](name)
	return Tool{
		Name: name, Description: description, Kind: kind, Running: running, Schema: schema,
		run: func(ctx context.Context, c Call, args json.RawMessage) (Result, error) {
			var in In
			args = dropNulls(args)
			if err := schema.Decode(args, &in); err != nil {
				return Result{}, &ArgumentError{Tool: name, Err: err}
			}
			return fn(ctx, c, in)
		},
	}
}

// Signature is the definition of a tool with no Go function behind it, its
// schema from In like Define's: a call that ends an agent run (final_result,
// submit_plan), whose arguments the caller reads itself.
func Signature[In any](name, description string) llm.Tool {
	return llm.Tool{Name: name, Description: description, Parameters: schemaFor[In](name)}
}

func schemaFor[In any](name string) llm.Schema {
	var zero In
	schema, err := llm.SchemaFor(zero)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", name, err)) // a programming error, caught by any test
	}
	return schema
}

// Definition is t as a model is offered it.
func (t Tool) Definition() llm.Tool {
	return llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Schema}
}

// Definitions are the definitions of ts, in order.
func Definitions(ts []Tool) []llm.Tool {
	defs := make([]llm.Tool, len(ts))
	for i, t := range ts {
		defs[i] = t.Definition()
	}
	return defs
}

// Emitting returns t declaring the data parts it emits.
func (t Tool) Emitting(parts ...string) Tool {
	t.Emits = parts
	return t
}

// Naming returns t with what it does for the teacher (Tool.Thing).
func (t Tool) Naming(thing i18n.Msg) Tool {
	t.Thing = thing
	return t
}

// Artifact reports whether the tool's job is to produce an artifact: one of
// the parts it emits proves an artifact (protocol.ArtifactEventTypes).
func (t Tool) Artifact() bool {
	for _, p := range t.Emits {
		if protocol.ArtifactEventTypes["data-"+p] {
			return true
		}
	}
	return false
}

// DeliversFile reports whether the tool delivers a file (it emits
// protocol.DataFileReady: a deck, a document, a PDF). Rendering one is the
// only tool work that needs CPU and memory; the others wait on the model or
// the data service, so the workflow runs a file tool's calls on a function
// sized for rendering and every other call on a small one (issue 25).
func (t Tool) DeliversFile() bool { return slices.Contains(t.Emits, protocol.DataFileReady) }

// Run calls the tool with raw JSON arguments.
func (t Tool) Run(ctx context.Context, c Call, args json.RawMessage) (Result, error) {
	return t.run(ctx, c, args)
}

// Registry holds the tools the agent may be given.
type Registry struct {
	tools map[string]Tool
}

// NewRegistry returns a registry of ts; a duplicate name panics.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}}
	r.Add(ts...)
	return r
}

// Add registers tools.
func (r *Registry) Add(ts ...Tool) {
	for _, t := range ts {
		if _, dup := r.tools[t.Name]; dup {
			panic("tools: duplicate tool " + t.Name)
		}
		r.tools[t.Name] = t
	}
}

// Get returns the named tool.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// ErrUnknown is a call of a tool the registry does not hold.
var ErrUnknown = errors.New("unknown tool")

// Run runs the model's call of the named tool with its raw arguments; a name
// the registry does not hold is an error wrapping ErrUnknown.
func (r *Registry) Run(ctx context.Context, c Call, name string, args json.RawMessage) (Result, error) {
	t, ok := r.tools[name]
	if !ok {
		return Result{}, fmt.Errorf("%w %q", ErrUnknown, name)
	}
	return t.Run(ctx, c, args)
}

// IsArtifact reports whether the named tool is registered and produces an
// artifact.
func (r *Registry) IsArtifact(name string) bool {
	t, ok := r.tools[name]
	return ok && t.Artifact()
}

// DeliversFile reports whether the named tool is registered and delivers a
// file (Tool.DeliversFile).
func (r *Registry) DeliversFile(name string) bool {
	t, ok := r.tools[name]
	return ok && t.DeliversFile()
}

// Names returns the names of the tools of kind, sorted.
func (r *Registry) Names(kind Kind) []string {
	var out []string
	for _, t := range r.tools {
		if t.Kind == kind {
			out = append(out, t.Name)
		}
	}
	sort.Strings(out)
	return out
}

// ForTurn returns the tools of one agent run: every base tool, then the
// generation tools named in candidates (unknown names are ignored). With no
// known candidate, every generation tool is offered, so that a narrow or
// empty router guess never leaves the agent unable to act.
func (r *Registry) ForTurn(candidates []string) []Tool {
	var out []Tool
	for _, n := range r.Names(Base) {
		out = append(out, r.tools[n])
	}
	gen := r.Names(Generation)
	picked := slices.DeleteFunc(slices.Clone(candidates), func(n string) bool {
		t, ok := r.tools[n]
		return !ok || t.Kind != Generation
	})
	slices.Sort(picked)
	picked = slices.Compact(picked)
	if len(picked) == 0 {
		picked = gen
	}
	for _, n := range picked {
		out = append(out, r.tools[n])
	}
	return out
}

// dropNulls removes top-level null members: models often send null for an
// optional argument, which means "not given". Empty or null arguments are {}.
func dropNulls(args json.RawMessage) json.RawMessage {
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage("{}")
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args // not an object: let validation report it
	}
	changed := false
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
			changed = true
		}
	}
	if !changed {
		return args
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}
