package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	orderedmap "github.com/pb33f/ordered-map/v2"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/research"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/tools/gentools"
	"github.com/insightedge/insightedge/shared/workflow"
)

// DataParts maps each data part of the conversation stream ("data-<name>")
// to the Go type of its payload: the map useChat's UIMessage is typed with.
var DataParts = map[string]any{
	protocol.DataToolProgress:        protocol.ToolProgress{},
	protocol.DataPptxOutline:         gentools.PptxOutline{},
	protocol.DataFileReady:           gentools.FileReady{},
	protocol.DataQuizQuestion:        protocol.QuizQuestion{},
	protocol.DataQuizComplete:        protocol.QuizComplete{},
	protocol.DataInteractiveContent:  gentools.InteractiveContent{},
	protocol.DataInteractiveProgress: protocol.InteractiveProgress{},
	protocol.DataClarify:             protocol.Clarify{},
	protocol.DataNotice:              protocol.Notice{},
	protocol.DataGuide:               protocol.Guide{},
	protocol.DataBlueprint:           blueprint.Blueprint{},
	protocol.DataPatchPlan:           blueprint.PatchPlan{},
}

// PageEvents are the events of the page build stream.
var PageEvents = []protocol.PageEvent{protocol.PagePhase{}, protocol.PageToolCall{}, protocol.PageToolResult{},
	protocol.PageBlockStart{}, protocol.PageSlotDelta{}, protocol.PageBlockComplete{}, protocol.PageComplete{},
	protocol.PageError{}, protocol.PageDataError{}}

// ResearchEvents are the named events of the research stream.
var ResearchEvents = []protocol.ResearchEvent{protocol.ResearchProgress{}, protocol.ResearchSkeleton{},
	protocol.ResearchComplete{}, protocol.ResearchError{}}

// TemplateServerEvents and TemplateClientEvents are the template report's
// envelopes in each direction (seed 002).
var (
	TemplateServerEvents = []report.ServerEvent{report.SessionCreated{}, report.PlanStart{}, report.ToolCall{},
		report.ToolResult{}, report.PlanCompleted{}, report.UserConfirm{}, report.SolverStart{}, report.SolverCompleted{},
		report.AggregateStart{}, report.AggregateCompleted{}, report.PipelineCompleted{}, report.FinalAnswer{},
		report.Error{}, report.SystemError{}, report.Heartbeat{}, report.State{}, report.Reconnected{}, report.Cancelled{}}
	TemplateClientEvents = []report.ClientEvent{report.CreateSession{}, report.Message{}, report.Response{},
		report.Cancel{}, report.CancelTask{}, report.RestartTask{}, report.CancelPlan{}, report.Replan{},
		report.SolveTasks{}, report.RequestState{}, report.ReconnectWithState{}}
)

// A Shape is a Go type reflected under a schema name. A request body's
// fields are all optional in the schema (the server states what it requires
// in its 400 answers, docs/protocol.md); an answer's are required unless
// omitted when empty.
type Shape struct {
	Name    string
	Value   any
	Request bool
}

// Shapes are the request bodies and the JSON answers (and the shapes they
// carry), answers first: a type both use is described by its answer.
var Shapes = []Shape{
	{"ConversationResponse", edge.ConversationResponse{}, false},
	{"UIMessage", protocol.UIMessage{}, false},
	{"MessageMetadata", protocol.MessageMetadata{}, false},
	{"Blueprint", blueprint.Blueprint{}, false},
	{"Page", blueprint.Page{}, false},
	{"PatchPlan", blueprint.PatchPlan{}, false},
	{"PageContext", workflow.PageContext{}, false},
	{"DataContext", blueprint.DataContext{}, false},
	{"ComputeResults", blueprint.ComputeResults{}, false},
	{"ResearchResponse", edge.ResearchResponse{}, false},
	{"ResearchProposal", research.Proposal{}, false},
	{"FileLink", edge.FileLink{}, false},
	{"ErrorBody", apperr.Body{}, false},
	{"App", apps.App{}, false},
	{"AppSnapshot", apps.Snapshot{}, false},
	{"AppRunResponse", apps.ReplayOutput{}, false},
	{"ConversationRequest", edge.ConversationRequest{}, true},
	{"WorkflowRequest", edge.WorkflowRequest{}, true},
	{"PageGenerateRequest", edge.PageGenerateRequest{}, true},
	{"PagePatchRequest", edge.PagePatchRequest{}, true},
	{"ResearchRequest", edge.ResearchRequest{}, true},
	{"SaveAppRequest", edge.SaveAppRequest{}, true},
}

// refs replaces a property that Go holds as raw JSON (or any) with the
// schema of what the server puts there: "Def.property" → schema name
// (a trailing "?" admits null).
var refs = map[string]string{
	"App.blueprint":                       "Blueprint",
	"AppSnapshot.page":                    "Page",
	"ConversationRequest.blueprint":       "Blueprint",
	"ConversationRequest.pageContext":     "PageContext",
	"ConversationResponse.blueprint":      "Blueprint?",
	"ConversationResponse.patchPlan":      "PatchPlan?",
	"ConversationResponse.artifacts":      "DataUIPart[]",
	"PageGenerateRequest.blueprint":       "Blueprint",
	"PagePatchRequest.blueprint":          "Blueprint",
	"PagePatchRequest.page":               "Page",
	"PagePatchRequest.patchPlan":          "PatchPlan",
	"SaveAppRequest.blueprint":            "Blueprint",
	"PageResult.page":                     "Page?",
	"PageResult.dataContext":              "DataContext?",
	"PageResult.computeResults":           "ComputeResults?",
	"ResearchResponse.proposal":           "ResearchProposal",
	"TemplateAggregateCompleted.output":   "TemplateOutput",
	"ConversationRequest.messages":        "ChatRequestMessage[]",
	"TemplateToolCall.args":               "",
	"TemplateToolResult.output":           "",
	"ErrorBody.error":                     "ErrorBodyError",
	"ErrorBodyError.code":                 "ErrorCode",
	"ConversationResponse.clarifyOptions": "ClarifyOptions?",
}

// enums states the values of string fields that Go declares as constants:
// "Def.property" → the values.
var enums = map[string][]any{
	"ConversationRequest.mode":      modes,
	"MessageMetadata.mode":          modes,
	"ConversationResponse.chatMode": modes,
	"ConversationResponse.action":   {session.ActionChat, session.ActionBuild, session.ActionClarify, session.ActionRefine, session.ActionRebuild},
	"ToolProgress.status":           {protocol.ToolRunning, protocol.ToolSuccess, protocol.ToolEmpty, protocol.ToolError},
	"PatchPlan.scope":               {blueprint.ScopePatch, blueprint.ScopeRebuild},
	"PatchInstruction.op":           {blueprint.OpRecompose, blueprint.OpRestyle},
	"PagePhase.phase":               {protocol.PhaseData, protocol.PhaseCompute, protocol.PhaseCompose},
	"PageToolResult.status":         {protocol.PageToolSuccess, protocol.PageToolError},
	"ResearchProgress.phase":        {protocol.ResearchPhaseSkeleton, protocol.ResearchPhaseSearch, protocol.ResearchPhaseDraft, protocol.ResearchPhaseCheck},
	"Notice.code":                   {protocol.NoticeMockData, protocol.NoticeStaleData, protocol.NoticeIncompleteData, protocol.NoticeUngraded, protocol.NoticePDFUnavailable, protocol.NoticePaused, protocol.NoticePrivacy},
}

var modes = []any{workflow.ModeNatural, workflow.ModeFree, workflow.ModeStrict}

// names gives the Go types whose own name would be ambiguous or private
// their schema name.
func name(t reflect.Type) string {
	switch {
	case t == reflect.TypeOf(apperr.Body{}):
		return "ErrorBody"
	case t == reflect.TypeOf(apperr.BodyError{}):
		return "ErrorBodyError"
	case t == reflect.TypeOf(research.Proposal{}):
		return "ResearchProposal"
	case t.Name() == "chatUIMsg":
		return "ChatRequestMessage"
	case strings.HasSuffix(t.PkgPath(), "/shared/report"):
		return "Template" + t.Name()
	}
	return t.Name()
}

// builder collects the definitions of the document.
type builder struct {
	defs jsonschema.Definitions
}

// reflect adds t's schema (and the types it holds) under its name; with
// optional, no field is required (a request body).
func (b *builder) reflect(schemaName string, v any, optional bool) error {
	r := &jsonschema.Reflector{Anonymous: true, Namer: name, RequiredFromJSONSchemaTags: optional, Mapper: anyMap}
	s := r.Reflect(v)
	defs := s.Definitions
	own := name(reflect.TypeOf(v))
	nullables(reflect.TypeOf(v), defs, map[reflect.Type]bool{})
	for n, d := range defs {
		if n == own {
			n = schemaName
		}
		if err := b.put(n, d, optional); err != nil {
			return err
		}
	}
	return nil
}

// anyMap is the schema of a JSON object of any values (map[string]any),
// which the reflector would leave as an object without properties.
func anyMap(t reflect.Type) *jsonschema.Schema {
	if t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.Interface {
		return &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.TrueSchema}
	}
	return nil
}

// nullables lets null stand for a pointer field that encoding/json writes
// as null (a pointer without omitempty), in t and the structs it holds.
func nullables(t reflect.Type, defs jsonschema.Definitions, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	d := defs[name(t)]
	for i := range t.NumField() {
		f := t.Field(i)
		nullables(f.Type, defs, seen)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if d == nil || d.Properties == nil || f.Type.Kind() != reflect.Pointer || tag == "-" || strings.Contains(opts, "omit") {
			continue
		}
		if p, ok := d.Properties.Get(cmp.Or(tag, f.Name)); ok {
			d.Properties.Set(cmp.Or(tag, f.Name), &jsonschema.Schema{AnyOf: []*jsonschema.Schema{p, {Type: "null"}}})
		}
	}
}

// put adds a definition; the same name twice must be the same schema,
// unless one of them comes from a request (all optional), where the
// answer's (which says what is always there) wins.
func (b *builder) put(n string, d *jsonschema.Schema, optional bool) error {
	d.Title = n
	if old, ok := b.defs[n]; ok {
		if same(old, d) || optional {
			return nil
		}
		if len(old.Required) == 0 && len(d.Required) > 0 {
			b.defs[n] = d
			return nil
		}
		return fmt.Errorf("gen: two different schemas named %s: give one a name in name()", n)
	}
	b.defs[n] = d
	return nil
}

func same(a, b *jsonschema.Schema) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// ref returns a schema that refers to the definition n ("X?" admits null,
// "X[]" is an array of X).
func ref(n string) *jsonschema.Schema {
	switch {
	case n == "":
		return &jsonschema.Schema{}
	case strings.HasSuffix(n, "?"):
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{ref(strings.TrimSuffix(n, "?")), {Type: "null"}}}
	case strings.HasSuffix(n, "[]"):
		return &jsonschema.Schema{Type: "array", Items: ref(strings.TrimSuffix(n, "[]"))}
	}
	return &jsonschema.Schema{Ref: "#/$defs/" + n}
}

func props(pairs ...any) *orderedmap.OrderedMap[string, *jsonschema.Schema] {
	m := orderedmap.New[string, *jsonschema.Schema]()
	for i := 0; i+1 < len(pairs); i += 2 {
		m.Set(pairs[i].(string), pairs[i+1].(*jsonschema.Schema))
	}
	return m
}

// object is a closed object schema.
func object(title string, required []string, pairs ...any) *jsonschema.Schema {
	return &jsonschema.Schema{Title: title, Type: "object", Properties: props(pairs...), Required: required,
		AdditionalProperties: jsonschema.FalseSchema}
}

// tagged is def d with a leading constant property key = value, required.
func tagged(d *jsonschema.Schema, key, value string) *jsonschema.Schema {
	c := *d
	p := props(key, &jsonschema.Schema{Type: "string", Const: value})
	if d.Properties != nil {
		for pair := d.Properties.Oldest(); pair != nil; pair = pair.Next() {
			p.Set(pair.Key, pair.Value)
		}
	}
	c.Properties, c.Type = p, "object"
	c.Required = append([]string{key}, d.Required...)
	if c.AdditionalProperties == nil {
		c.AdditionalProperties = jsonschema.FalseSchema
	}
	return &c
}

// Document returns the schema document, indented, with a final newline.
func Document() ([]byte, error) {
	b := &builder{defs: jsonschema.Definitions{}}
	for _, sh := range Shapes {
		if err := b.reflect(sh.Name, sh.Value, sh.Request); err != nil {
			return nil, err
		}
	}
	steps := []func() error{b.dataParts, b.pageEvents, b.researchEvents, b.templateEvents, b.patch}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	doc := &jsonschema.Schema{Version: "https://json-schema.org/draft/2020-12/schema",
		ID: "https://github.com/insightedge/insightedge/sdk/schema/insightedge.schema.json", Title: "InsightEdge",
		Description: "Every wire shape of the Insight Edge API, generated from its Go types by sdk/internal/gen: do not edit.",
		Definitions: b.defs}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("gen: encode: %w", err)
	}
	return append(out, '\n'), nil
}

// sortedKeys returns m's keys in order: the document is the same on every run.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// dataParts adds each payload, the DataParts map (name → payload) and
// DataUIPart, the union of the parts as a UIMessage (and the JSON
// answer's artifacts) hold them.
func (b *builder) dataParts() error {
	var pairs []any
	var union []*jsonschema.Schema
	names := sortedKeys(DataParts)
	for _, n := range names {
		v := DataParts[n]
		payload := name(reflect.TypeOf(v))
		if err := b.reflect(payload, v, false); err != nil {
			return err
		}
		pairs = append(pairs, n, ref(payload))
		part := exportName("Data", n, "Part")
		b.defs[part] = object(part, []string{"type", "data"},
			"type", &jsonschema.Schema{Type: "string", Const: "data-" + n},
			"id", &jsonschema.Schema{Type: "string"},
			"data", ref(payload))
		union = append(union, ref(part))
	}
	b.defs["DataParts"] = object("DataParts", names, pairs...)
	b.defs["DataUIPart"] = &jsonschema.Schema{Title: "DataUIPart", OneOf: union}
	return nil
}

// exportName is prefix + "tool-progress" in PascalCase + suffix.
func exportName(prefix, kebab, suffix string) string {
	var s strings.Builder
	s.WriteString(prefix)
	for _, w := range strings.Split(kebab, "-") {
		s.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return s.String() + suffix
}

// pageEvents tags each page event with its "type" and adds PageEvent,
// their union.
func (b *builder) pageEvents() error {
	var union []*jsonschema.Schema
	for _, e := range PageEvents {
		n := name(reflect.TypeOf(e))
		if err := b.reflect(n, e, false); err != nil {
			return err
		}
		b.defs[n] = tagged(b.defs[n], "type", e.PageEventType())
		union = append(union, ref(n))
	}
	b.defs["PageEvent"] = &jsonschema.Schema{Title: "PageEvent", OneOf: union}
	return nil
}

// researchEvents adds the research events and ResearchEvents, the map from
// an SSE event name to its data.
func (b *builder) researchEvents() error {
	var pairs []any
	var names []string
	for _, e := range ResearchEvents {
		n := name(reflect.TypeOf(e))
		if err := b.reflect(n, e, false); err != nil {
			return err
		}
		pairs = append(pairs, e.ResearchEventName(), ref(n))
		names = append(names, e.ResearchEventName())
	}
	b.defs["ResearchEvents"] = object("ResearchEvents", names, pairs...)
	return nil
}

// templateEvents adds one envelope per template event, in each direction,
// and their unions. What an envelope carries is read from the encoder
// itself: a server event's content is an object, a string or nothing.
func (b *builder) templateEvents() error {
	b.defs["TemplateMetadata"] = object("TemplateMetadata", nil,
		"scope", &jsonschema.Schema{Type: "string", Enum: []any{report.ScopePlan, report.ScopeSolver, report.ScopeAggregate}},
		"tool", &jsonschema.Schema{Type: "string"},
		"task_id", &jsonschema.Schema{Type: "integer"},
		"code", ref("ErrorCode"),
		"active_sessions", &jsonschema.Schema{Type: "integer"})
	var server []*jsonschema.Schema
	for _, e := range TemplateServerEvents {
		raw, err := report.Encode("s", e)
		if err != nil {
			return fmt.Errorf("gen: %w", err)
		}
		var env report.Envelope
		if err := json.Unmarshal(raw, &env); err != nil {
			return fmt.Errorf("gen: %w", err)
		}
		content, err := b.templateContent(e, env.Content)
		if err != nil {
			return err
		}
		n := exportName("Template", strings.NewReplacer(".", "-", "_", "-").Replace(e.Name()), "Envelope")
		b.defs[n] = envelope(n, e.Name(), content, len(env.Content) > 0 && content != nil, true)
		server = append(server, ref(n))
	}
	b.defs["TemplateServerEnvelope"] = &jsonschema.Schema{Title: "TemplateServerEnvelope", OneOf: server}
	var client []*jsonschema.Schema
	for _, e := range TemplateClientEvents {
		n := name(reflect.TypeOf(e))
		if err := b.reflect(n, e, true); err != nil {
			return err
		}
		en := exportName("Template", strings.NewReplacer(".", "-", "_", "-").Replace(e.Name()), "Envelope")
		b.defs[en] = envelope(en, e.Name(), ref(n), false, false)
		client = append(client, ref(en))
	}
	b.defs["TemplateClientEnvelope"] = &jsonschema.Schema{Title: "TemplateClientEnvelope", OneOf: client}
	return nil
}

// templateContent is the schema of a server event's content: its Go
// type's, a string, or nil when the event has none.
func (b *builder) templateContent(e report.ServerEvent, content json.RawMessage) (*jsonschema.Schema, error) {
	switch {
	case len(content) == 0:
		return nil, nil
	case content[0] == '"':
		return &jsonschema.Schema{Type: "string"}, nil
	}
	n := name(reflect.TypeOf(e))
	if err := b.reflect(n, e, false); err != nil {
		return nil, err
	}
	return ref(n), nil
}

// envelope is the seed 002 envelope of one event.
func envelope(title, event string, content *jsonschema.Schema, contentRequired, server bool) *jsonschema.Schema {
	req := []string{"event"}
	if server {
		req = append(req, "session_id")
	}
	pairs := []any{"event", &jsonschema.Schema{Type: "string", Const: event}, "session_id", &jsonschema.Schema{Type: "string"}}
	if content != nil {
		pairs = append(pairs, "content", content)
		if contentRequired {
			req = append(req, "content")
		}
	}
	pairs = append(pairs, "step_id", &jsonschema.Schema{Type: "string"})
	if server {
		pairs = append(pairs, "metadata", ref("TemplateMetadata"))
	}
	return object(title, req, pairs...)
}

// patch applies refs and adds the shapes that have no Go type of their own.
func (b *builder) patch() error {
	codes := []any{}
	for _, c := range []apperr.Code{apperr.ValidationError, apperr.AuthError, apperr.EntityNotFound, apperr.Conflict,
		apperr.BlueprintError, apperr.DataError, apperr.AIError, apperr.ServiceUnavailable, apperr.Internal} {
		codes = append(codes, string(c))
	}
	b.defs["ErrorCode"] = &jsonschema.Schema{Title: "ErrorCode", Type: "string", Enum: codes}
	b.defs["MessagesResponse"] = object("MessagesResponse", []string{"conversationId", "messages"},
		"conversationId", &jsonschema.Schema{Type: "string"},
		"messages", ref("UIMessage[]"),
		"nextCursor", &jsonschema.Schema{Type: "string"})
	b.defs["StopResponse"] = object("StopResponse", []string{"stopped", "conversationId"},
		"stopped", &jsonschema.Schema{Type: "boolean"},
		"conversationId", &jsonschema.Schema{Type: "string"},
		"turnId", &jsonschema.Schema{Type: "string"})
	// useChat sends whole UIMessages (metadata, part states, data parts):
	// the edge reads their text parts and ignores the rest, so the schema
	// admits the rest.
	msg := b.defs["ChatRequestMessage"]
	msg.AdditionalProperties = jsonschema.TrueSchema
	if parts, ok := msg.Properties.Get("parts"); ok && parts.Items != nil {
		parts.Items.AdditionalProperties = jsonschema.TrueSchema
	}
	b.defs["AppsResponse"] = object("AppsResponse", []string{"apps"}, "apps", ref("App[]"))
	b.defs["AppSnapshotsResponse"] = object("AppSnapshotsResponse", []string{"appId", "snapshots"},
		"appId", &jsonschema.Schema{Type: "string"},
		"snapshots", ref("AppSnapshot[]"))
	for _, k := range sortedKeys(refs) {
		if err := b.setProperty(k, ref(refs[k])); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(enums) {
		var values []any
		for _, v := range enums[k] {
			values = append(values, fmt.Sprint(v))
		}
		if err := b.setProperty(k, &jsonschema.Schema{Type: "string", Enum: values}); err != nil {
			return err
		}
	}
	for n, d := range b.defs {
		if d.Properties == nil || !strings.HasSuffix(n, "Request") {
			continue
		}
		if _, ok := d.Properties.Get("teacherId"); ok {
			d.Properties.Set("teacherId", &jsonschema.Schema{Type: "string",
				Description: "development mode only: with AUTH_JWT_SECRET the token names the teacher and a different id is refused"})
		}
	}
	return nil
}

// setProperty replaces the property "Def.property" names, which must exist:
// a Go field renamed or gone fails the generator instead of passing unseen.
func (b *builder) setProperty(name string, to *jsonschema.Schema) error {
	def, prop, _ := strings.Cut(name, ".")
	d, ok := b.defs[def]
	if !ok || d.Properties == nil {
		return fmt.Errorf("gen: %s: no such definition", name)
	}
	if _, ok := d.Properties.Get(prop); !ok {
		return fmt.Errorf("gen: %s: no such property", name)
	}
	d.Properties.Set(prop, to)
	return nil
}
