package blueprint_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

var dataTools = []string{"get_class_detail", "get_assignment_submissions", "get_student_grades", "get_teacher_classes"}

func TestAnalysisIsValidAndRoundTrips(t *testing.T) {
	bp := blueprinttest.Analysis("class-hk-f1a")
	if err := blueprint.Validate(bp, dataTools); err != nil {
		t.Fatal(err)
	}
	raw, err := json.MarshalIndent(bp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// A change here is a change of the Blueprint JSON shape.
	golden.Check(t, filepath.Join("testdata", "analysis.golden.json"), append(raw, '\n'), *update)
	back, err := blueprint.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.MarshalIndent(back, "", "  ")
	if !bytes.Equal(raw, again) {
		t.Error("Parse(Marshal(bp)) is not bp")
	}
	for _, key := range []string{`"dataContract"`, `"computeGraph"`, `"uiComposition"`, `"componentType"`, `"dataBinding"`, `"toolName"`, `"forEach"`} {
		if !bytes.Contains(raw, []byte(key)) {
			t.Errorf("camelCase key %s missing", key)
		}
	}
}

func wantBlueprintError(t *testing.T, err error, fragment string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", fragment)
	}
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.BlueprintError || ae.HTTPStatus() != 422 {
		t.Fatalf("error %v is not a BLUEPRINT_ERROR (422)", err)
	}
	d, ok := ae.Details.(blueprint.Details)
	if !ok || len(d.Problems) == 0 {
		t.Fatalf("details %#v list no problems", ae.Details)
	}
	all := ae.Message
	for _, p := range d.Problems {
		all += "\n" + p.Path + ": " + p.Message
	}
	if !strings.Contains(all, fragment) {
		t.Errorf("problems do not mention %q:\n%s", fragment, all)
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct{ name, raw, fragment string }{
		{"not JSON", `{"name":`, "malformed JSON"},
		{"unknown field", `{"name":"x","colour":"red"}`, `unknown field "colour"`},
		{"wrong type", `{"name":3}`, `"name" must be string`},
		{"trailing data", `{"name":"x"} {}`, "trailing data"},
		{"empty", ``, "empty"},
		{"null", `null`, "empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := blueprint.Parse([]byte(c.raw))
			wantBlueprintError(t, err, c.fragment)
		})
	}
}

func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name     string
		change   func(bp *blueprint.Blueprint)
		fragment string
	}{
		{"no name", func(bp *blueprint.Blueprint) { bp.Name = " " }, "name: is required"},
		{"no bindings", func(bp *blueprint.Blueprint) { bp.DataContract.Bindings = nil }, "at least one binding"},
		{"unknown tool", func(bp *blueprint.Blueprint) { bp.DataContract.Bindings[0].ToolName = "drop_tables" }, `unknown data tool "drop_tables"`},
		{"bad reference", func(bp *blueprint.Blueprint) { bp.DataContract.Bindings[0].Args["classId"] = "$input.klass" }, "$input.klass is not an input"},
		{"unknown root", func(bp *blueprint.Blueprint) { bp.DataContract.Bindings[0].Args["classId"] = "$env.HOME" }, "unknown root $env"},
		{"item outside forEach", func(bp *blueprint.Blueprint) { bp.DataContract.Bindings[0].Args["classId"] = "$item.id" }, "only defined in a binding with forEach"},
		{"forward data reference", func(bp *blueprint.Blueprint) { bp.DataContract.Bindings[1].ForEach = "$data.later.items" }, "not an earlier binding"},
		{"duplicate id", func(bp *blueprint.Blueprint) { bp.ComputeGraph.Nodes[1].ID = "scoreStats" }, `id "scoreStats" is already used`},
		{"bad id", func(bp *blueprint.Blueprint) { bp.UIComposition.Tabs[0].ID = "1 tab" }, "must start with a letter"},
		{"unknown op", func(bp *blueprint.Blueprint) { bp.ComputeGraph.Nodes[0].Op = "regression" }, `unknown operation "regression"`},
		{"unknown source", func(bp *blueprint.Blueprint) { bp.ComputeGraph.Nodes[0].Source = "grades" }, `"grades" is not a binding`},
		{"unknown metric", func(bp *blueprint.Blueprint) { bp.ComputeGraph.Nodes[0].Metric = "iq" }, `unknown metric "iq"`},
		{"breakdown without groupBy", func(bp *blueprint.Blueprint) { bp.ComputeGraph.Nodes[3].GroupBy = "" }, "needs groupBy"},
		{"descending bins", func(bp *blueprint.Blueprint) { bp.ComputeGraph.Nodes[1].Bins = []float64{0, 50, 40} }, "strictly ascending"},
		{"limit too big", func(bp *blueprint.Blueprint) { bp.ComputeGraph.Nodes[2].Limit = 500 }, "limit"},
		{"unknown component", func(bp *blueprint.Blueprint) { bp.UIComposition.Tabs[0].Blocks[0].ComponentType = "iframe" }, `unknown component type "iframe"`},
		{"kpi of a ranking", func(bp *blueprint.Blueprint) { bp.UIComposition.Tabs[0].Blocks[0].DataBinding = "studentRanking" }, "cannot show a ranking result"},
		{"chart without data", func(bp *blueprint.Blueprint) { bp.UIComposition.Tabs[0].Blocks[1].DataBinding = "" }, "needs the id of a compute node"},
		{"markdown without content", func(bp *blueprint.Blueprint) { bp.UIComposition.Tabs[0].Blocks[2].Slots = nil }, `needs a "content" slot`},
		{"slot not of the type", func(bp *blueprint.Blueprint) {
			bp.UIComposition.Tabs[0].Blocks[0].Slots = []blueprint.Slot{{Key: "content", Prompt: "x"}}
		}, `has no slot "content"`},
		{"unknown variant", func(bp *blueprint.Blueprint) { bp.UIComposition.Tabs[0].Blocks[1].Variant = "3d" }, `unknown variant "3d"`},
		{"unknown layout", func(bp *blueprint.Blueprint) { bp.UIComposition.Layout = "grid" }, `unknown layout "grid"`},
		{"empty tab", func(bp *blueprint.Blueprint) { bp.UIComposition.Tabs[1].Blocks = nil }, "at least one block"},
		{"context of nothing", func(bp *blueprint.Blueprint) { bp.UIComposition.Tabs[0].Blocks[2].Context = []string{"ghost"} }, `"ghost" is not a compute node`},
		{"unknown input type", func(bp *blueprint.Blueprint) { bp.DataContract.Inputs[0].Type = "school" }, `unknown input type "school"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bp := blueprinttest.Analysis("1A")
			c.change(&bp)
			wantBlueprintError(t, blueprint.Validate(bp, dataTools), c.fragment)
		})
	}
}

func TestValidateWithoutToolList(t *testing.T) {
	bp := blueprinttest.Analysis("1A")
	bp.DataContract.Bindings[0].ToolName = "some_future_tool"
	if err := blueprint.Validate(bp, nil); err != nil {
		t.Fatalf("nil tools must skip the tool check: %v", err)
	}
}

func TestParseRef(t *testing.T) {
	cases := []struct {
		in   string
		want blueprint.Ref
		err  bool
	}{
		{"class-hk-f1a", blueprint.Ref{Literal: "class-hk-f1a"}, false},
		{"$$5", blueprint.Ref{Literal: "$5"}, false},
		{"$input.class", blueprint.Ref{Kind: blueprint.RefInput, Name: "class"}, false},
		{"$context.term", blueprint.Ref{Kind: blueprint.RefContext, Name: "term"}, false},
		{"$data.classInfo.assignments", blueprint.Ref{Kind: blueprint.RefData, Name: "classInfo", Path: []string{"assignments"}}, false},
		{"$item.assignmentId", blueprint.Ref{Kind: blueprint.RefItem, Path: []string{"assignmentId"}}, false},
		{"$item", blueprint.Ref{Kind: blueprint.RefItem}, false},
		{"$input", blueprint.Ref{}, true},
		{"$data", blueprint.Ref{}, true},
		{"$data.a..b", blueprint.Ref{}, true},
		{"$secrets.x", blueprint.Ref{}, true},
	}
	for _, c := range cases {
		got, err := blueprint.ParseRef(c.in)
		if (err != nil) != c.err {
			t.Errorf("ParseRef(%q) error %v, want error %v", c.in, err, c.err)
			continue
		}
		if err == nil && (got.Kind != c.want.Kind || got.Name != c.want.Name || got.Literal != c.want.Literal ||
			strings.Join(got.Path, ".") != strings.Join(c.want.Path, ".")) {
			t.Errorf("ParseRef(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestLookup(t *testing.T) {
	var v any
	_ = json.Unmarshal([]byte(`{"a":{"list":[{"id":"x"},{"id":"y"}]}}`), &v)
	if got, ok := blueprint.Lookup(v, []string{"a", "list", "1", "id"}); !ok || got != "y" {
		t.Errorf("got %v %v", got, ok)
	}
	for _, p := range [][]string{{"b"}, {"a", "list", "2"}, {"a", "list", "x"}, {"a", "list", "0", "id", "deeper"}} {
		if _, ok := blueprint.Lookup(v, p); ok {
			t.Errorf("Lookup(%v) found something", p)
		}
	}
}

func TestResolveInputs(t *testing.T) {
	bp := blueprinttest.Analysis("class-hk-f1a")
	bp.DataContract.Inputs = append(bp.DataContract.Inputs, blueprint.Input{ID: "assignment", Type: blueprint.InputAssignment, Label: "作业", DependsOn: "class"})
	cases := []struct {
		name    string
		context map[string]any
		want    map[string]string
		missing bool
	}{
		{"planned value", nil, map[string]string{"class": "class-hk-f1a", "assignment": ""}, false},
		{"context by id", map[string]any{"class": "class-hk-f1b"}, map[string]string{"class": "class-hk-f1b", "assignment": ""}, false},
		{"context by idId", map[string]any{"classId": "class-hk-f3c", "assignmentId": "a-f3c-01"}, map[string]string{"class": "class-hk-f3c", "assignment": "a-f3c-01"}, false},
		{"non-string ignored", map[string]any{"class": 5}, map[string]string{"class": "class-hk-f1a", "assignment": ""}, false},
	}
	for _, c := range cases {
		got, err := blueprint.ResolveInputs(bp, c.context)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", c.name, k, got[k], v)
			}
		}
	}
	bp.DataContract.Inputs[0].Value = ""
	_, err := blueprint.ResolveInputs(bp, map[string]any{"class": "  "})
	if apperr.CodeOf(err) != apperr.ValidationError || !strings.Contains(err.Error(), "class") {
		t.Errorf("a required input without a value: %v", err)
	}
}

func TestValidatePatch(t *testing.T) {
	bp := blueprinttest.Analysis("1A")
	ok := []blueprint.PatchPlan{
		{Scope: blueprint.ScopeRebuild},
		{Scope: blueprint.ScopePatch, Instructions: []blueprint.PatchInstruction{{Op: blueprint.OpRecompose, BlockID: "summary", Prompt: "shorter"}}},
		{Scope: blueprint.ScopePatch, Instructions: []blueprint.PatchInstruction{{Op: blueprint.OpRestyle, BlockID: "distribution", Variant: "line", Title: "分布"}}},
	}
	for _, p := range ok {
		if err := blueprint.ValidatePatch(p, bp); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	bad := []struct {
		plan     blueprint.PatchPlan
		fragment string
	}{
		{blueprint.PatchPlan{Scope: "merge"}, `unknown scope "merge"`},
		{blueprint.PatchPlan{Scope: blueprint.ScopePatch}, "at least one instruction"},
		{blueprint.PatchPlan{Scope: blueprint.ScopePatch, Instructions: []blueprint.PatchInstruction{{Op: blueprint.OpRecompose, BlockID: "ghost"}}}, `no block "ghost"`},
		{blueprint.PatchPlan{Scope: blueprint.ScopePatch, Instructions: []blueprint.PatchInstruction{{Op: blueprint.OpRecompose, BlockID: "kpis"}}}, "no slot to recompose"},
		{blueprint.PatchPlan{Scope: blueprint.ScopePatch, Instructions: []blueprint.PatchInstruction{{Op: "add_block", BlockID: "kpis"}}}, "anything structural is a rebuild"},
		{blueprint.PatchPlan{Scope: blueprint.ScopePatch, Instructions: []blueprint.PatchInstruction{{Op: blueprint.OpRestyle, BlockID: "summary", Variant: "bar"}}}, `no variant "bar"`},
	}
	for _, c := range bad {
		wantBlueprintError(t, blueprint.ValidatePatch(c.plan, bp), c.fragment)
	}
}

func TestSameStructure(t *testing.T) {
	bp := blueprinttest.Analysis("1A")
	page := blueprinttest.Page(bp)
	if !blueprint.SameStructure(bp, page) {
		t.Fatal("a page built from bp has its structure")
	}
	changed := blueprinttest.Analysis("1A")
	changed.UIComposition.Tabs[1].Blocks = changed.UIComposition.Tabs[1].Blocks[1:]
	if blueprint.SameStructure(changed, page) {
		t.Error("a removed block is a structural change")
	}
	retyped := blueprinttest.Analysis("1A")
	retyped.UIComposition.Tabs[0].Blocks[1].ComponentType = blueprint.Table
	if blueprint.SameStructure(retyped, page) {
		t.Error("a changed component type is a structural change")
	}
}
