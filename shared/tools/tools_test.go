package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/tools"
)

// lessonArgs exercises every schema feature Define derives from a Go type.
type lessonArgs struct {
	Topic string   `json:"topic" description:"the lesson topic"`
	Count int      `json:"count"`
	Level string   `json:"level,omitempty" enum:"easy,medium,hard" description:"default medium"`
	Tags  []string `json:"tags,omitempty"`
}

func TestDefineDerivesSchema(t *testing.T) {
	tool := tools.Define("plan_lesson", "Plan a lesson.", tools.Generation, i18n.QuizRunning,
		func(context.Context, tools.Call, lessonArgs) (tools.Result, error) { return tools.Result{}, nil })

	if tool.Name != "plan_lesson" || tool.Description != "Plan a lesson." || tool.Kind != tools.Generation || tool.Running != i18n.QuizRunning {
		t.Fatalf("tool metadata = %q %q %v %d", tool.Name, tool.Description, tool.Kind, tool.Running)
	}
	s := tool.Schema
	if s.Type != llm.TypeObject {
		t.Fatalf("schema type = %q, want object", s.Type)
	}
	want := map[string]struct {
		typ         string
		description string
		enum        []string
	}{
		"topic": {llm.TypeString, "the lesson topic", nil},
		"count": {llm.TypeInteger, "", nil},
		"level": {llm.TypeString, "default medium", []string{"easy", "medium", "hard"}},
		"tags":  {llm.TypeArray, "", nil},
	}
	if len(s.Properties) != len(want) {
		t.Errorf("properties = %v, want %d of them", keys(s.Properties), len(want))
	}
	for name, w := range want {
		p, ok := s.Properties[name]
		if !ok {
			t.Errorf("property %q missing", name)
			continue
		}
		if p.Type != w.typ || p.Description != w.description || !slices.Equal(p.Enum, w.enum) {
			t.Errorf("property %q = {%s %q %v}, want {%s %q %v}", name, p.Type, p.Description, p.Enum, w.typ, w.description, w.enum)
		}
	}
	if p := s.Properties["tags"]; p.Items == nil || p.Items.Type != llm.TypeString {
		t.Errorf("tags items = %+v, want string items", p.Items)
	}
	// Fields without omitempty are required; the others are not.
	if got := slices.Sorted(slices.Values(s.Required)); !slices.Equal(got, []string{"count", "topic"}) {
		t.Errorf("required = %v, want [count topic]", got)
	}
	if _, err := json.Marshal(&s); err != nil {
		t.Errorf("schema does not encode: %v", err)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestRun(t *testing.T) {
	type optional struct {
		Note string `json:"note,omitempty"`
	}
	errTool := errors.New("tool failed")
	cases := []struct {
		name    string
		tool    func(called *bool) tools.Tool
		args    string
		wantArg bool  // an *ArgumentError, and fn is not called
		wantErr error // errors.Is target for other failures
	}{
		{name: "valid", args: `{"topic":"fractions","count":3,"level":"hard"}`, tool: lesson(nil)},
		{name: "not JSON", args: `{"topic":`, wantArg: true, tool: lesson(nil)},
		{name: "JSON array", args: `[1,2]`, wantArg: true, tool: lesson(nil)},
		{name: "wrong type", args: `{"topic":"fractions","count":"three"}`, wantArg: true, tool: lesson(nil)},
		{name: "fractional integer", args: `{"topic":"fractions","count":2.5}`, wantArg: true, tool: lesson(nil)},
		{name: "missing required", args: `{"topic":"fractions"}`, wantArg: true, tool: lesson(nil)},
		{name: "value outside enum", args: `{"topic":"fractions","count":1,"level":"extreme"}`, wantArg: true, tool: lesson(nil)},
		{name: "empty arguments need required fields", args: ``, wantArg: true, tool: lesson(nil)},
		{name: "tool error passes through", args: `{"topic":"fractions","count":1}`, wantErr: errTool, tool: lesson(errTool)},
		{name: "empty arguments mean {}", args: ``, tool: func(called *bool) tools.Tool {
			return tools.Define("note", "", tools.Base, i18n.None, func(_ context.Context, _ tools.Call, in optional) (tools.Result, error) {
				*called = true
				return tools.Result{Output: in.Note}, nil
			})
		}},
		{name: "null arguments mean {}", args: `null`, tool: func(called *bool) tools.Tool {
			return tools.Define("note", "", tools.Base, i18n.None, func(_ context.Context, _ tools.Call, in optional) (tools.Result, error) {
				*called = true
				return tools.Result{Output: in.Note}, nil
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var called bool
			tool := c.tool(&called)
			_, err := tool.Run(context.Background(), tools.Call{CallID: "call-1"}, json.RawMessage(c.args))
			var ae *tools.ArgumentError
			switch {
			case c.wantArg:
				if !errors.As(err, &ae) {
					t.Fatalf("err = %v (%T), want *ArgumentError", err, err)
				}
				if ae.Tool != tool.Name || ae.Err == nil || errors.Unwrap(ae) != ae.Err {
					t.Errorf("ArgumentError = %+v, want tool %q and a cause", ae, tool.Name)
				}
				if called {
					t.Error("the tool function ran with invalid arguments")
				}
			case c.wantErr != nil:
				if !errors.Is(err, c.wantErr) || errors.As(err, &ae) {
					t.Fatalf("err = %v, want %v and no ArgumentError", err, c.wantErr)
				}
			default:
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if !called {
					t.Error("the tool function did not run")
				}
			}
		})
	}
}

// lesson returns a plan_lesson tool that fails with err (when not nil).
func lesson(err error) func(called *bool) tools.Tool {
	return func(called *bool) tools.Tool {
		return tools.Define("plan_lesson", "", tools.Generation, i18n.None, func(_ context.Context, _ tools.Call, in lessonArgs) (tools.Result, error) {
			*called = true
			return tools.Result{}, err
		})
	}
}

func TestRunPassesDecodedArgumentsAndCall(t *testing.T) {
	var got lessonArgs
	var gotCall tools.Call
	tool := tools.Define("plan_lesson", "", tools.Generation, i18n.None, func(_ context.Context, c tools.Call, in lessonArgs) (tools.Result, error) {
		got, gotCall = in, c
		return tools.Result{Status: "success", Message: "ok", Output: in.Count}, nil
	})
	call := tools.Call{TeacherID: "t-1", SessionID: "s-1", TurnID: "u-1", CallID: "call-7", Language: "en"}
	res, err := tool.Run(context.Background(), call, json.RawMessage(`{"topic":"photosynthesis","count":4,"tags":["bio","g7"]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := lessonArgs{Topic: "photosynthesis", Count: 4, Tags: []string{"bio", "g7"}}
	if got.Topic != want.Topic || got.Count != want.Count || got.Level != "" || !slices.Equal(got.Tags, want.Tags) {
		t.Errorf("args = %+v, want %+v", got, want)
	}
	if gotCall.CallID != "call-7" || gotCall.TeacherID != "t-1" || gotCall.TurnID != "u-1" {
		t.Errorf("call = %+v, want the caller's", gotCall)
	}
	if res.Status != "success" || res.Message != "ok" || res.Output != 4 {
		t.Errorf("result = %+v", res)
	}
}

func TestForTurn(t *testing.T) {
	noop := func(context.Context, tools.Call, struct{}) (tools.Result, error) { return tools.Result{}, nil }
	def := func(name string, kind tools.Kind) tools.Tool { return tools.Define(name, "", kind, i18n.None, noop) }
	reg := tools.NewRegistry(
		def("get_classes", tools.Base),
		def("generate_quiz", tools.Generation),
		def("analyze_scores", tools.Base),
		def("generate_pptx", tools.Generation),
		def("generate_docx", tools.Generation),
	)
	base := []string{"analyze_scores", "get_classes"}
	allGen := []string{"generate_docx", "generate_pptx", "generate_quiz"}
	cases := []struct {
		name       string
		candidates []string
		wantGen    []string
	}{
		{"no candidates: every generation tool", nil, allGen},
		{"empty candidates: every generation tool", []string{}, allGen},
		{"one candidate", []string{"generate_quiz"}, []string{"generate_quiz"}},
		{"candidates sorted and deduplicated", []string{"generate_quiz", "generate_docx", "generate_quiz"}, []string{"generate_docx", "generate_quiz"}},
		{"unknown names ignored", []string{"no_such_tool", "generate_pptx"}, []string{"generate_pptx"}},
		{"base names ignored", []string{"get_classes", "generate_docx"}, []string{"generate_docx"}},
		{"only unknown: every generation tool", []string{"no_such_tool"}, allGen},
		{"only base names: every generation tool", []string{"get_classes", "analyze_scores"}, allGen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := slices.Clone(c.candidates)
			var got []string
			for _, tl := range reg.ForTurn(c.candidates) {
				got = append(got, tl.Name)
			}
			want := append(slices.Clone(base), c.wantGen...)
			if !slices.Equal(got, want) {
				t.Errorf("ForTurn(%v) = %v, want %v", c.candidates, got, want)
			}
			if !slices.Equal(in, c.candidates) {
				t.Errorf("ForTurn changed its argument: %v, was %v", c.candidates, in)
			}
		})
	}
}

func TestRegistryNamesAndGet(t *testing.T) {
	noop := func(context.Context, tools.Call, struct{}) (tools.Result, error) { return tools.Result{}, nil }
	reg := tools.NewRegistry(tools.Define("b_base", "", tools.Base, i18n.None, noop), tools.Define("a_base", "", tools.Base, i18n.None, noop))
	reg.Add(tools.Define("z_gen", "", tools.Generation, i18n.None, noop))
	if got := reg.Names(tools.Base); !slices.Equal(got, []string{"a_base", "b_base"}) {
		t.Errorf("Names(Base) = %v", got)
	}
	if got := reg.Names(tools.Generation); !slices.Equal(got, []string{"z_gen"}) {
		t.Errorf("Names(Generation) = %v", got)
	}
	if tl, ok := reg.Get("z_gen"); !ok || tl.Name != "z_gen" || tl.Kind != tools.Generation {
		t.Errorf("Get(z_gen) = %+v, %v", tl, ok)
	}
	if _, ok := reg.Get("missing"); ok {
		t.Error("Get(missing) found a tool")
	}
}

func TestDuplicateNamePanics(t *testing.T) {
	noop := func(context.Context, tools.Call, struct{}) (tools.Result, error) { return tools.Result{}, nil }
	a := tools.Define("same", "", tools.Base, i18n.None, noop)
	b := tools.Define("same", "", tools.Generation, i18n.None, noop)
	cases := map[string]func(){
		"NewRegistry": func() { tools.NewRegistry(a, b) },
		"Add":         func() { tools.NewRegistry(a).Add(b) },
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("a duplicate tool name did not panic")
				}
			}()
			fn()
		})
	}
}

func TestDefinitions(t *testing.T) {
	a := tools.Define("b_tool", "Second by name.", tools.Base, i18n.None, func(context.Context, tools.Call, lessonArgs) (tools.Result, error) {
		return tools.Result{}, nil
	})
	b := tools.Define("a_tool", "First by name.", tools.Generation, i18n.None, func(context.Context, tools.Call, lessonArgs) (tools.Result, error) {
		return tools.Result{}, nil
	})
	defs := tools.Definitions([]tools.Tool{a, b})
	if len(defs) != 2 || defs[0].Name != "b_tool" || defs[1].Name != "a_tool" {
		t.Fatalf("definitions = %+v, want b_tool then a_tool (the given order)", defs)
	}
	if defs[0].Description != a.Description || !reflect.DeepEqual(defs[0].Parameters, a.Schema) {
		t.Errorf("definition = %+v, want the tool's description and schema", defs[0])
	}
	sig := tools.Signature[lessonArgs]("submit_lesson", "Submit the lesson.")
	if sig.Name != "submit_lesson" || sig.Description != "Submit the lesson." || !reflect.DeepEqual(sig.Parameters, a.Schema) {
		t.Errorf("signature = %+v, want the name, the description and lessonArgs' schema", sig)
	}
}

func TestRegistryRun(t *testing.T) {
	r := tools.NewRegistry(tools.Define("echo", "", tools.Base, i18n.None, func(_ context.Context, c tools.Call, in lessonArgs) (tools.Result, error) {
		return tools.Result{Output: c.CallID + ":" + in.Topic}, nil
	}))
	cases := []struct {
		name, tool, args string
		want             any
		wantErr          error
	}{
		{name: "known", tool: "echo", args: `{"topic":"fractions","count":1}`, want: "call-1:fractions"},
		{name: "unknown", tool: "nope", args: `{}`, wantErr: tools.ErrUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := r.Run(context.Background(), tools.Call{CallID: "call-1"}, c.tool, json.RawMessage(c.args))
			if !errors.Is(err, c.wantErr) || res.Output != c.want {
				t.Fatalf("Run = %v, %v; want %v, %v", res.Output, err, c.want, c.wantErr)
			}
			if c.wantErr != nil && err.Error() != `unknown tool "nope"` {
				t.Errorf("error = %q, want the model-facing text unknown tool %q", err, "nope")
			}
		})
	}
}
